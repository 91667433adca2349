// The runtime section in the JSON report (docs/json-report.md "runtime"; docs/runtimes.md).
#include "report/json_text.h"
#include "report/present.h"
#include "report/runtime_writers.h"

static json_t *text(const char *s)
{
	return ct_json_text(s);
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
	return j;
}
