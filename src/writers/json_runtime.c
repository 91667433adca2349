// The runtime section in the JSON report (docs/json-report.md "runtime"; docs/runtimes.md).
#include <string.h>

#include "writers/json_text.h"
#include "writers/present.h"
#include "writers/runtime_writers.h"

static json_t *text(const char *s)
{
	return ct_json_text(s);
}

static json_t *go_frame(const struct ct_runtime_frame *f, const struct ct_write_options *o)
{
	json_t *jf = json_object();
	json_object_set_new(jf, "function", text(f->function));
	json_object_set_new(jf, "file", text(f->file ? ct_display_path(f->file, o) : NULL));
	json_object_set_new(jf, "line", f->line ? json_integer(f->line) : json_null());
	json_object_set_new(jf, "inlined", json_boolean(f->inlined));
	return jf;
}

// Go: one entry per group of identical goroutines (present_go.c), with every member's id.
static json_t *goroutines(const struct ct_runtime *rt, const struct ct_write_options *o)
{
	json_t *all = json_array();
	struct ct_goroutine_groups g;
	ct_goroutine_groups_init(&g, rt);
	for (size_t gi = 0; gi < g.num_groups; gi++) {
		const struct ct_thread_group *gr = &g.groups[gi];
		const struct ct_goroutine *first = &rt->goroutines[g.members[gr->start]];
		json_t *jg = json_object(), *ids = json_array(), *frames = json_array();
		for (size_t k = 0; k < gr->count; k++)
			json_array_append_new(ids, json_integer(rt->goroutines[g.members[gr->start + k]].id));
		json_object_set_new(jg, "id", json_integer(first->id));
		json_object_set_new(jg, "ids", ids);
		json_object_set_new(jg, "count", json_integer((json_int_t)gr->count));
		json_object_set_new(jg, "status", json_string(ct_go_status_to_string(first->status)));
		json_object_set_new(jg, "wait", text(first->wait));
		json_object_set_new(jg, "wait_minutes", json_null());
		json_object_set_new(jg, "tid", first->tid ? json_integer(first->tid) : json_null());
		json_object_set_new(jg, "crashed", json_boolean(first->crashed));
		json_object_set_new(jg, "locked_to_thread", json_boolean(first->locked_to_thread));
		json_object_set_new(jg, "stack_from", json_string(ct_go_stack_from_to_string(first->stack_from)));
		json_object_set_new(jg, "truncated", json_boolean(first->truncated));
		for (size_t k = 0; k < first->num_frames; k++)
			json_array_append_new(frames, go_frame(&first->frames[k], o));
		json_object_set_new(jg, "frames", frames);
		json_object_set_new(jg, "created_by", first->created_by.function ? go_frame(&first->created_by, o) : json_null());
		json_array_append_new(all, jg);
	}
	ct_goroutine_groups_deinit(&g);
	return all;
}

json_t *ct_json_runtime(const struct ct_report *r, const struct ct_write_options *o)
{
	const struct ct_runtime *rt = &r->runtime;
	if (!rt->present)
		return json_null();
	json_t *j = json_object(), *threads = json_array();
	json_object_set_new(j, "language", text(rt->language));
	json_object_set_new(j, "version", text(rt->version));
	json_object_set_new(j, "layout", text(rt->layout));
	for (size_t i = 0; i < rt->num_threads; i++) {
		const struct ct_runtime_thread *t = &rt->threads[i];
		json_t *jt = json_object(), *frames = json_array();
		const char *gil = ct_gil_state_to_string(t->gil);
		json_object_set_new(jt, "tid", json_integer(t->tid));
		json_object_set_new(jt, "in_dump", json_boolean(t->in_dump));
		json_object_set_new(jt, "gil", gil ? json_string(gil) : json_null());
		json_object_set_new(jt, "truncated", json_boolean(t->truncated));
		for (size_t k = 0; k < t->num_frames; k++) {
			const struct ct_runtime_frame *f = &t->frames[k];
			json_t *jf = json_object();
			json_object_set_new(jf, "function", text(f->function));
			json_object_set_new(jf, "qualname", text(f->qualname));
			json_object_set_new(jf, "file", text(f->file ? ct_display_path(f->file, o) : NULL));
			json_object_set_new(jf, "line", f->line ? json_integer(f->line) : json_null());
			json_object_set_new(jf, "native_frame", f->native_frame >= 0 ? json_integer(f->native_frame) : json_null());
			json_array_append_new(frames, jf);
		}
		json_object_set_new(jt, "frames", frames);
		json_array_append_new(threads, jt);
	}
	json_object_set_new(j, "threads", threads);
	if (rt->language && strcmp(rt->language, "go") == 0) {
		json_object_set_new(j, "found_by", text(rt->found_by));
		json_object_set_new(j, "goroutines_truncated", json_boolean(rt->goroutines_truncated));
		json_object_set_new(j, "goroutines", goroutines(rt, o));
	}
	return j;
}
