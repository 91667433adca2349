// The per-core bucketing facts ("meta") and their conversion to a bucket; the fallback signature.
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/batch.h"
#include "writers/json_text.h"
#include "triage/facts.h"

/** Frames in the fallback signature, counted from the blame frame (docs/batch.md). */
#define FALLBACK_FRAMES 3
/** Characters of one argument value in the blamed frame's arguments. */
#define META_VALUE_WIDTH 80
/** Longest folded frame name kept. */
#define NAME_MAX_LEN 512

// The module name of the main program, to skip library frames (raise, abort, …) when no frame is
// blamed.
static const char *main_module(const struct ct_report *r)
{
	if (!r->process.executable_path)
		return NULL;
	const struct ct_module *m = ct_present_main_module(r);
	if (m)
		return m->name;
	const char *slash = strrchr(r->process.executable_path, '/');
	return slash ? slash + 1 : r->process.executable_path;
}

static size_t fallback_start(const struct ct_report *r, const struct ct_thread *t)
{
	if (r->crash.blame_frame >= 0 && (size_t)r->crash.blame_frame < t->num_frames)
		return (size_t)r->crash.blame_frame;
	const char *mm = main_module(r);
	if (mm) {
		for (size_t i = 0; i < t->num_frames; i++) {
			if (t->frames[i].module && !strcmp(t->frames[i].module, mm))
				return i;
		}
	}
	return 0;
}

json_t *ct_cli_core_meta(const struct ct_report *r, const char *path)
{
	json_t *m = json_object();
	if (!m)
		return NULL;
	const struct ct_thread *t = ct_report_crashing_thread(r);
	const char *cls = ct_class_to_string(r->crash.cls);
	char name[NAME_MAX_LEN];
	if (r->signature.present && r->signature.hash) {
		json_object_set_new(m, "hash", ct_json_text(r->signature.hash));
		json_object_set_new(m, "signature", ct_json_text(r->signature.text));
		json_object_set_new(m, "fallback", json_false());
	} else {
		// The fallback (docs/batch.md), for a report without a signature: the signature module's
		// key over 3 frames from the blamed one (or the first frame of the main program), by
		// folded name, repeats kept; unversioned.
		struct ct_signature_key key;
		ct_signature_key_start(&key, sizeof(key.text), cls, NULL);
		if (t) {
			size_t start = fallback_start(r, t);
			for (size_t i = start; i < t->num_frames && i < start + FALLBACK_FRAMES; i++)
				ct_signature_key_append(&key, ct_folded_frame_name(r, &t->frames[i], name, sizeof(name)));
		}
		char hash[17];
		ct_fnv1a64_hex(key.text, hash);
		json_object_set_new(m, "hash", json_string(hash));
		json_object_set_new(m, "signature", ct_json_text(key.text));
		json_object_set_new(m, "fallback", json_true());
	}
	json_object_set_new(m, "class", ct_json_text(cls));
	json_object_set_new(m, "summary", ct_json_text(r->crash.summary));
	const struct ct_frame *bf = NULL;
	if (t && r->crash.blame_frame >= 0 && (size_t)r->crash.blame_frame < t->num_frames)
		bf = &t->frames[r->crash.blame_frame];
	else if (t && t->num_frames)
		bf = &t->frames[fallback_start(r, t)];
	if (bf) {
		// The JSON contract: a function is a function name or null, never an invented one; the
		// folded name ("libfoo.so+0xe197") is only for people.
		json_object_set_new(m, "blame_function", bf->function ? ct_json_text(bf->function) : json_null());
		json_object_set_new(m, "blame_label",
				    ct_json_text(bf->function ? bf->function : ct_folded_frame_name(r, bf, name, sizeof(name))));
		json_object_set_new(m, "blame_module", ct_json_text(bf->module));
		json_object_set_new(m, "blame_file", ct_json_text(bf->file));
		json_object_set_new(m, "blame_line", bf->line ? json_integer(bf->line) : json_null());
		// The blamed frame's arguments as a backtrace shows them, for the SARIF message.
		char *args = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&args, &len);
		if (f) {
			ct_present_parameters(f, t, bf, CT_TEXT_UTF8, META_VALUE_WIDTH);
			fclose(f);
			if (args && *args)
				json_object_set_new(m, "blame_arguments", ct_json_text(args));
		}
		free(args);
	}
	json_t *stack = json_array(), *files = json_array(), *lines = json_array();
	if (t) {
		size_t n = t->num_frames < CT_META_STACK_FRAMES ? t->num_frames : CT_META_STACK_FRAMES;
		for (size_t i = n; i-- > 0;) {
			const struct ct_frame *f = &t->frames[i];
			json_array_append_new(stack, ct_json_text(ct_folded_frame_name(r, f, name, sizeof(name))));
			json_array_append_new(files, f->file ? ct_json_text(f->file) : json_null());
			json_array_append_new(lines, json_integer(f->file ? f->line : 0));
		}
	}
	json_object_set_new(m, "stack", stack);
	// Where each frame is, for SARIF's stack frames (physicalLocation).
	json_object_set_new(m, "stack_file", files);
	json_object_set_new(m, "stack_line", lines);
	json_object_set_new(m, "command", ct_json_text(r->process.command));
	// What the crash store records of the program (src/store/): its build and, from systemd's
	// package note, its package and version.
	json_object_set_new(m, "signature_version", json_integer(r->signature.present ? r->signature.version : 0));
	const struct ct_module *mm = ct_present_main_module(r);
	if (r->process.executable_path)
		json_object_set_new(m, "executable", ct_json_text(r->process.executable_path));
	if (mm && mm->build_id)
		json_object_set_new(m, "build_id", ct_json_text(mm->build_id));
	if (mm && mm->package.present && mm->package.name)
		json_object_set_new(m, "package", ct_json_text(mm->package.name));
	if (mm && mm->package.present && mm->package.version)
		json_object_set_new(m, "version", ct_json_text(mm->package.version));
	if (r->process.has_pid)
		json_object_set_new(m, "pid", json_integer(r->process.pid));
	// When it crashed: the trail's crash time, from the best source the dump had (docs/trail.md).
	const struct ct_time *ct = &r->trail.crash_time;
	if (ct->present) {
		json_object_set_new(m, "time", json_integer((json_int_t)(ct->usec / 1000000)));
		json_object_set_new(m, "time_source", json_string(ct_time_source_to_string(ct->source)));
	}
	return m;
}

static const char *get_str(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

bool ct_cli_bucket_from_meta(json_t *meta, struct ct_bucket *b)
{
	memset(b, 0, sizeof(*b));
	b->hash = get_str(meta, "hash");
	b->signature = get_str(meta, "signature");
	b->fallback = json_is_true(json_object_get(meta, "fallback"));
	b->class_id = get_str(meta, "class");
	b->summary = get_str(meta, "summary");
	b->blame_function = get_str(meta, "blame_function");
	b->blame_module = get_str(meta, "blame_module");
	b->blame_file = get_str(meta, "blame_file");
	b->blame_line = (int)json_integer_value(json_object_get(meta, "blame_line"));
	b->blame_arguments = get_str(meta, "blame_arguments");
	b->blame_label = get_str(meta, "blame_label");
	json_t *stack = json_object_get(meta, "stack"), *files = json_object_get(meta, "stack_file"),
	       *lines = json_object_get(meta, "stack_line");
	size_t n = json_array_size(stack);
	// One allocation (the bucket table frees b->stack alone): the names, the files, the lines.
	const char **frames = calloc(n ? 2 * n + (n * sizeof(int) + sizeof(char *) - 1) / sizeof(char *) : 1,
				     sizeof(*frames));
	if (!frames)
		return false;
	const char **file = frames + n;
	int *line = (int *)(frames + 2 * n);
	for (size_t i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(stack, i));
		frames[i] = s ? s : "??";
		file[i] = json_string_value(json_array_get(files, i));
		line[i] = (int)json_integer_value(json_array_get(lines, i));
	}
	b->stack = frames;
	b->num_stack = n;
	b->stack_file = n ? file : NULL;
	b->stack_line = n ? line : NULL;
	b->count = 1;
	json_t *time = json_object_get(meta, "time");
	if (json_is_integer(time)) {
		b->has_time = true;
		b->first_seen = b->last_seen = json_integer_value(time);
	}
	return true;
}

int ct_cli_write_report_flamegraph(const char *path, const struct ct_report *r)
{
	// Every thread's stack (outermost first), identical ones merged by the flame graph's tree.
	size_t n = r->num_threads;
	struct ct_folded_stack *stacks = calloc(n ? n : 1, sizeof(*stacks));
	char ***names = calloc(n ? n : 1, sizeof(*names));
	int ret = -1;
	if (!stacks || !names)
		goto out;
	char buf[NAME_MAX_LEN];
	for (size_t i = 0; i < n; i++) {
		const struct ct_thread *t = &r->threads[i];
		names[i] = calloc(t->num_frames ? t->num_frames : 1, sizeof(char *));
		if (!names[i])
			goto out;
		for (size_t k = 0; k < t->num_frames; k++) {
			names[i][t->num_frames - 1 - k] = strdup(ct_folded_frame_name(r, &t->frames[k], buf, sizeof(buf)));
			if (!names[i][t->num_frames - 1 - k])
				goto out;
		}
		stacks[i].frames = (const char *const *)names[i];
		stacks[i].num_frames = t->num_frames;
		stacks[i].count = 1;
	}
	FILE *f = fopen(path, "w");
	if (!f)
		goto out;
	char title[256];
	snprintf(title, sizeof(title), "Threads of %s (%zu)", r->process.command ? r->process.command : "the process", n);
	ret = ct_write_flamegraph(f, stacks, n, title, "thread");
	if (fclose(f) != 0)
		ret = -1;
out:
	for (size_t i = 0; names && i < n; i++) {
		if (!names[i])
			continue;
		for (size_t k = 0; k < r->threads[i].num_frames; k++)
			free(names[i][k]);
		free(names[i]);
	}
	free(names);
	free(stacks);
	return ret;
}

void ct_cli_store_report_from_meta(json_t *m, struct ct_store_report *r)
{
	memset(r, 0, sizeof(*r));
	r->time = json_integer_value(json_object_get(m, "time"));
	r->executable = get_str(m, "executable");
	r->build_id = get_str(m, "build_id");
	r->package = get_str(m, "package");
	r->version = get_str(m, "version");
	r->class_id = get_str(m, "class");
	// A fallback signature (docs/batch.md) is its own recipe: version 0 keeps it apart.
	r->signature_version = json_is_true(json_object_get(m, "fallback"))
				       ? 0
				       : (int)json_integer_value(json_object_get(m, "signature_version"));
	r->signature = get_str(m, "signature");
	r->bucket = get_str(m, "hash");
	r->blame = get_str(m, "blame_label");
}
