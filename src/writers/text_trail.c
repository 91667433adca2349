// The trail in the text report (trail_writers.h): when it crashed, how that is known, what ran,
// the package each module came from and the log lines around the crash.
#include <inttypes.h>
#include <string.h>

#include "writers/present.h"
#include "writers/sanitize.h"
#include "writers/trail_writers.h"

/** Log lines naming the process are cut to this many bytes in text; those just before the crash are not. */
#define TEXT_MATCHED_LINE_MAX 300

static const char *const source_text[CT_TIME_SOURCE_NUM_] = {
	[CT_TIME_SOURCE_COREDUMP_NAME] = "systemd-coredump file name",
	[CT_TIME_SOURCE_JOURNAL] = "journal",
	[CT_TIME_SOURCE_VMCOREINFO] = "VMCOREINFO CRASHTIME",
	[CT_TIME_SOURCE_FILE_MTIME] = "dump file's modification time",
	[CT_TIME_SOURCE_CAPTURE] = "capture of the live process",
};

static const char *how(enum ct_time_source s)
{
	return (unsigned)s < CT_TIME_SOURCE_NUM_ ? source_text[s] : "?";
}

// Untrusted text on a terminal (writers/sanitize.h), at most @p max characters.
static void put_n(FILE *out, const char *s, size_t max)
{
	if (ct_text_put(out, s, CT_TEXT_TERMINAL, max))
		fputs("…", out);
}

static void put(FILE *out, const char *s)
{
	ct_text_put(out, s, CT_TEXT_TERMINAL, SIZE_MAX);
}

void ct_text_write_crash_time(FILE *out, const struct ct_report *r)
{
	const struct ct_time *t = &r->trail.crash_time;
	char buf[48];
	if (t->present)
		fprintf(out, "  crashed: %s (from the %s)\n", ct_time_format(t->usec, false, buf, sizeof(buf)), how(t->source));
	else
		fputs("  crashed: time unknown (no systemd-coredump name, journal entry, CRASHTIME or file time)\n", out);
}

// "12 s", "3 min 4 s", "2 h 5 min", "4 d 3 h": how long before the crash.
static void put_duration(FILE *out, int64_t usec)
{
	int64_t s = usec / 1000000;
	if (s < 60)
		fprintf(out, "%" PRId64 " s", s);
	else if (s < 3600)
		fprintf(out, "%" PRId64 " min %" PRId64 " s", s / 60, s % 60);
	else if (s < 86400)
		fprintf(out, "%" PRId64 " h %" PRId64 " min", s / 3600, s % 3600 / 60);
	else
		fprintf(out, "%" PRId64 " d %" PRId64 " h", s / 86400, s % 86400 / 3600);
}

static void write_cpu_time(FILE *out, const struct ct_report *r)
{
	uint64_t user = 0, sys = 0;
	size_t n = 0;
	const struct ct_thread *crashed = NULL;
	for (size_t i = 0; i < r->num_threads; i++) {
		const struct ct_thread *t = &r->threads[i];
		if (!t->has_cpu_time)
			continue;
		user += t->user_usec;
		sys += t->system_usec;
		n++;
		if (t->crashed)
			crashed = t;
	}
	if (!n)
		return;
	fputs("  cpu time:", out);
	if (crashed)
		fprintf(out, " %" PRIu64 ".%03" PRIu64 " s user, %" PRIu64 ".%03" PRIu64 " s system in the crashing thread;",
			crashed->user_usec / 1000000, crashed->user_usec % 1000000 / 1000, crashed->system_usec / 1000000,
			crashed->system_usec % 1000000 / 1000);
	fprintf(out, " %" PRIu64 ".%03" PRIu64 " s user, %" PRIu64 ".%03" PRIu64 " s system in %zu thread%s\n",
		user / 1000000, user % 1000000 / 1000, sys / 1000000, sys % 1000000 / 1000, n, n == 1 ? "" : "s");
}

static void write_package(FILE *out, const struct ct_package *p)
{
	fputs(" from ", out);
	if (p->type) {
		put(out, p->type);
		fputc(' ', out);
	}
	put(out, p->name ? p->name : "?");
	if (p->version) {
		fputc(' ', out);
		put(out, p->version);
	}
	if (p->architecture || p->os) {
		fputs(" (", out);
		put(out, p->architecture);
		if (p->architecture && p->os)
			fputs(", ", out);
		put(out, p->os);
		if (p->os_version) {
			fputc(' ', out);
			put(out, p->os_version);
		}
		fputc(')', out);
	}
}

static void write_matches(FILE *out, unsigned m)
{
	fputc('[', out);
	bool first = true;
	for (unsigned i = 0; i < CT_LOG_MATCH_NUM_; i++) {
		if (m & (1u << i)) {
			fprintf(out, "%s%s", first ? "" : ",", ct_log_match_name(i));
			first = false;
		}
	}
	fputs("] ", out);
}

static void write_log_line(FILE *out, const struct ct_report *r, const struct ct_log_line *l,
			   const struct ct_write_options *o, bool full)
{
	char buf[48];
	int64_t d = l->usec - r->trail.crash_time.usec;
	const char *sign = d < 0 ? "-" : "+";
	uint64_t ad = d < 0 ? (uint64_t)-d : (uint64_t)d;
	// The time of day is enough inside a two-minute window; the offset says how close it is.
	const char *iso = ct_time_format(l->usec, true, buf, sizeof(buf));
	fprintf(out, "    %s (%s%" PRIu64 ".%03" PRIu64 " s) ", strlen(iso) > 11 ? iso + 11 : iso, sign, ad / 1000000,
		ad % 1000000 / 1000);
	put(out, ct_display_path(l->file, o));
	if (l->line_number)
		fprintf(out, ":%" PRIu64, l->line_number);
	fputc(' ', out);
	if (l->matches)
		write_matches(out, l->matches);
	put_n(out, l->text, full ? SIZE_MAX : TEXT_MATCHED_LINE_MAX);
	fputc('\n', out);
}

static void write_logs(FILE *out, const struct ct_report *r, const struct ct_write_options *o)
{
	const struct ct_trail *t = &r->trail;
	if (!t->logs_searched)
		return;
	size_t matched = 0, before = 0, elsewhere = 0;
	for (size_t i = 0; i < t->num_logs; i++) {
		matched += t->logs[i].matches != 0;
		before += t->logs[i].before_crash;
		elsewhere += t->logs[i].matches && !t->logs[i].before_crash;
	}
	fprintf(out, "  logs: %zu line%s naming the process within -%" PRId64 " s/+%" PRId64 " s of the crash, from %zu source%s\n",
		matched, matched == 1 ? "" : "s", t->window_before_usec / 1000000, t->window_after_usec / 1000000,
		t->num_log_sources, t->num_log_sources == 1 ? "" : "s");
	// Lines naming the process first; those among the last lines before the crash show there.
	if (elsewhere) {
		fputs("   naming the process:\n", out);
		for (size_t i = 0; i < t->num_logs; i++) {
			if (t->logs[i].matches && !t->logs[i].before_crash)
				write_log_line(out, r, &t->logs[i], o, false);
		}
	}
	if (before) {
		fputs("   just before the crash:\n", out);
		for (size_t i = 0; i < t->num_logs; i++) {
			if (t->logs[i].before_crash)
				write_log_line(out, r, &t->logs[i], o, true);
		}
	}
	if (!t->num_logs)
		fputs("   (no lines in the window)\n", out);
}

void ct_text_write_trail(FILE *out, const struct ct_report *r, const struct ct_write_options *o)
{
	const struct ct_trail *t = &r->trail;
	bool packages = false, cpu = false;
	for (size_t i = 0; i < r->num_modules; i++)
		packages |= r->modules[i].package.present;
	for (size_t i = 0; i < r->num_threads; i++)
		cpu |= r->threads[i].has_cpu_time;
	if (!packages && !cpu && !t->unit && !t->has_coredump_entry && !t->logs_searched && !t->boot_time.present)
		return;
	char buf[48];
	fputs("\nTrail\n", out);
	if (t->unit) {
		fputs("  unit: ", out);
		put(out, t->unit);
		if (t->unit_start_time.present) {
			fprintf(out, ", started %s", ct_time_format(t->unit_start_time.usec, false, buf, sizeof(buf)));
			if (t->crash_time.present && t->crash_time.usec >= t->unit_start_time.usec) {
				fputs(" (", out);
				put_duration(out, t->crash_time.usec - t->unit_start_time.usec);
				fputs(" before the crash)", out);
			}
		}
		fputc('\n', out);
	}
	write_cpu_time(out, r);
	if (t->boot_time.present)
		fprintf(out, "  booted: %s (from the %s)\n", ct_time_format(t->boot_time.usec, false, buf, sizeof(buf)),
			how(t->boot_time.source));
	if (t->has_coredump_entry) {
		fprintf(out, "  journal entry of systemd-coredump, logged %s in ",
			ct_time_format(t->coredump_entry_time.usec, false, buf, sizeof(buf)));
		put(out, ct_display_path(t->coredump_entry_file, o));
		fputs(":\n", out);
		for (size_t i = 0; i < t->num_coredump_fields; i++) {
			fputs("    ", out);
			put(out, t->coredump_fields[i].key);
			fputc('=', out);
			put_n(out, t->coredump_fields[i].string, TEXT_MATCHED_LINE_MAX);
			fputc('\n', out);
		}
	}
	if (packages) {
		fputs("  packages:\n", out);
		for (size_t i = 0; i < r->num_modules; i++) {
			const struct ct_module *m = &r->modules[i];
			if (!m->package.present)
				continue;
			fputs("    ", out);
			put(out, m->name);
			write_package(out, &m->package);
			fputc('\n', out);
		}
	}
	write_logs(out, r, o);
}
