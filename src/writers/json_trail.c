// The trail in the JSON report (docs/json-report.md "crash_time", "trail", "logs") and in SARIF's
// invocation properties.
#include <stdlib.h>

#include "writers/json_text.h"
#include "writers/present.h"
#include "writers/trail_writers.h"

// Log lines and journal fields may hold any bytes: writers/json_text.h makes them valid strings.
static json_t *text(const char *s)
{
	return ct_json_text(s);
}

json_t *ct_json_time(const struct ct_time *t)
{
	if (!t->present)
		return json_null();
	char buf[48];
	json_t *j = json_object();
	json_object_set_new(j, "time", json_string(ct_time_format(t->usec, true, buf, sizeof(buf))));
	json_object_set_new(j, "source", json_string(ct_time_source_to_string(t->source)));
	return j;
}

json_t *ct_json_package(const struct ct_package *p)
{
	json_t *j = json_object();
	json_object_set_new(j, "type", text(p->type));
	json_object_set_new(j, "name", text(p->name));
	json_object_set_new(j, "version", text(p->version));
	json_object_set_new(j, "architecture", text(p->architecture));
	json_object_set_new(j, "os", text(p->os));
	json_object_set_new(j, "os_version", text(p->os_version));
	json_object_set_new(j, "debuginfo_url", text(p->debuginfo_url));
	return j;
}

json_t *ct_json_trail(const struct ct_report *r, const struct ct_write_options *o)
{
	const struct ct_trail *t = &r->trail;
	json_t *j = json_object();
	json_object_set_new(j, "unit", text(t->unit));
	json_object_set_new(j, "unit_start_time", ct_json_time(&t->unit_start_time));
	json_object_set_new(j, "boot_time", ct_json_time(&t->boot_time));
	if (t->has_coredump_entry) {
		json_t *e = json_object(), *fields = json_object();
		json_object_set_new(e, "file", text(ct_display_path(t->coredump_entry_file, o)));
		char buf[48];
		json_object_set_new(e, "time", json_string(ct_time_format(t->coredump_entry_time.usec, true, buf, sizeof(buf))));
		for (size_t i = 0; i < t->num_coredump_fields; i++)
			json_object_set_new(fields, t->coredump_fields[i].key, text(t->coredump_fields[i].string));
		json_object_set_new(e, "fields", fields);
		json_object_set_new(j, "coredump_entry", e);
	} else {
		json_object_set_new(j, "coredump_entry", json_null());
	}
	if (t->logs_searched) {
		json_t *w = json_object();
		json_object_set_new(w, "before", json_integer(t->window_before_usec / 1000000));
		json_object_set_new(w, "after", json_integer(t->window_after_usec / 1000000));
		json_object_set_new(j, "logs_window", w);
	} else {
		json_object_set_new(j, "logs_window", json_null());
	}
	json_t *srcs = json_array();
	for (size_t i = 0; i < t->num_log_sources; i++) {
		const struct ct_log_source *s = &t->log_sources[i];
		json_t *x = json_object();
		json_object_set_new(x, "file", text(ct_display_path(s->file, o)));
		json_object_set_new(x, "format", text(s->format));
		json_object_set_new(x, "lines_in_window", json_integer((json_int_t)s->lines_in_window));
		json_array_append_new(srcs, x);
	}
	json_object_set_new(j, "log_sources", srcs);
	return j;
}

json_t *ct_json_logs(const struct ct_report *r, const struct ct_write_options *o)
{
	json_t *a = json_array();
	char buf[48];
	for (size_t i = 0; i < r->trail.num_logs; i++) {
		const struct ct_log_line *l = &r->trail.logs[i];
		json_t *j = json_object(), *m = json_array();
		json_object_set_new(j, "time", l->has_time ? json_string(ct_time_format(l->usec, true, buf, sizeof(buf))) : json_null());
		json_object_set_new(j, "file", text(ct_display_path(l->file, o)));
		json_object_set_new(j, "line_number", l->line_number ? json_integer((json_int_t)l->line_number) : json_null());
		json_object_set_new(j, "line", text(l->text));
		for (unsigned k = 0; k < CT_LOG_MATCH_NUM_; k++) {
			if (l->matches & (1u << k))
				json_array_append_new(m, json_string(ct_log_match_name(k)));
		}
		json_object_set_new(j, "matches", m);
		json_object_set_new(j, "before_crash", json_boolean(l->before_crash));
		json_array_append_new(a, j);
	}
	return a;
}

void ct_json_emit_cpu_time(struct ct_json_emit *e, const struct ct_thread *t)
{
	if (!t->has_cpu_time)
		return;
	ct_json_emit_lit(e, ", \"cpu_time\": {\"user_usec\":");
	ct_json_emit_int(e, (long long)t->user_usec);
	ct_json_emit_lit(e, ",\"system_usec\":");
	ct_json_emit_int(e, (long long)t->system_usec);
	ct_json_emit_char(e, '}');
}

json_t *ct_sarif_invocation_properties(const struct ct_report *r, const struct ct_write_options *o)
{
	const struct ct_trail *t = &r->trail;
	json_t *p = json_object();
	char buf[48];
	if (t->crash_time.present) {
		json_object_set_new(p, "crashTime", json_string(ct_time_format(t->crash_time.usec, true, buf, sizeof(buf))));
		json_object_set_new(p, "crashTimeSource", json_string(ct_time_source_to_string(t->crash_time.source)));
	}
	if (t->unit)
		json_object_set_new(p, "unit", text(t->unit));
	if (t->unit_start_time.present)
		json_object_set_new(p, "unitStartTime",
				    json_string(ct_time_format(t->unit_start_time.usec, true, buf, sizeof(buf))));
	if (t->num_logs) {
		// The lines just before the crash: what a reviewer reads first.
		json_t *lines = json_array();
		for (size_t i = 0; i < t->num_logs; i++) {
			const struct ct_log_line *l = &t->logs[i];
			if (!l->matches && !l->before_crash)
				continue;
			json_t *x = json_object();
			json_object_set_new(x, "time", json_string(ct_time_format(l->usec, true, buf, sizeof(buf))));
			json_object_set_new(x, "file", text(ct_display_path(l->file, o)));
			json_object_set_new(x, "line", text(l->text));
			json_array_append_new(lines, x);
		}
		json_object_set_new(p, "logLines", lines);
	}
	return p;
}
