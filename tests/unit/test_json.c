// Unit tests of the JSON writer (writers/json.c) and its streaming emitter (writers/json_emit.c) over
// hand-built reports, written into an open_memstream and parsed back with jansson.
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coretriage/report.h"
#include "writers/json_emit.h"
#include "writers/writers.h"
#include "test.h"

// U+FFFD, the replacement of a byte that is not valid UTF-8.
#define REP "\xef\xbf\xbd"

// The report as written; caller frees. *len_ret gets the length.
static char *write_report(const struct ct_report *r, bool compact, bool no_abs_paths, size_t *len_ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	struct ct_write_options o;
	ct_write_options_init(&o);
	o.no_abs_paths = no_abs_paths;
	int rc = ct_write_json(f, r, &o, compact);
	fclose(f);
	CHECK_EQ(rc, 0);
	if (len_ret)
		*len_ret = len;
	return buf;
}

static json_t *parse(const char *text)
{
	json_error_t err;
	json_t *j = json_loads(text, 0, &err);
	if (!j)
		fprintf(stderr, "json_loads: %s at line %d column %d\n", err.text, err.line, err.column);
	return j;
}

static json_t *frame_of(json_t *root, size_t thread, size_t frame)
{
	return json_array_get(json_object_get(json_array_get(json_object_get(root, "threads"), thread), "frames"),
			      frame);
}

static const char *frame_str(json_t *root, size_t frame, const char *key)
{
	return json_string_value(json_object_get(frame_of(root, 0, frame), key));
}

// A report with one crashed thread whose frame 0 has function @p fn.
static void one_frame_report(struct ct_report *r, const char *fn)
{
	CHECK(ct_report_init(r));
	struct ct_thread *t = ct_report_add_thread(r);
	t->tid = 42;
	t->crashed = true;
	struct ct_frame *f = ct_thread_add_frame(t);
	f->pc = 0x401000;
	f->function = ct_report_strdup(r, fn);
	f->module = ct_report_strdup(r, "prog");
	f->trust = CT_TRUST_CONTEXT;
}

TEST(escapes_quotes_backslashes_and_control_chars)
{
	struct ct_report r;
	one_frame_report(&r, "a\"b\\c\n\t\r\b\f\x01\x1f\x7f/d");
	char *out = write_report(&r, true, false, NULL);
	// Byte-exact: short forms, \u00XX upper case (as jansson), DEL and '/' unescaped.
	CHECK(strstr(out, "\"function\":\"a\\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u001F\x7f/d\"") != NULL);
	json_t *j = parse(out);
	CHECK(j != NULL);
	CHECK_STR(frame_str(j, 0, "function"), "a\"b\\c\n\t\r\b\f\x01\x1f\x7f/d");
	json_decref(j);
	free(out);
	ct_report_deinit(&r);
}

TEST(invalid_utf8_becomes_replacement_valid_multibyte_kept)
{
	// é (2 bytes), € (3), U+1F600 (4) are valid; then a lone continuation byte, 0xff, an overlong
	// '/', a UTF-16 surrogate, a truncated 3-byte sequence before 'x', and a code point above
	// U+10FFFF.
	const char *in = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
			 "|\x80|\xff|\xc0\xaf|\xed\xa0\x80|\xe2\x82x|\xf4\x90\x80\x80";
	const char *want = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
			   "|" REP "|" REP "|" REP REP "|" REP REP REP "|" REP REP "x|" REP REP REP REP;
	struct ct_report r;
	one_frame_report(&r, in);
	// Top-level sections (jansson) follow the same rule.
	r.crash.summary = ct_report_strdup(&r, in);
	char *out = write_report(&r, false, false, NULL);
	json_t *j = parse(out);
	CHECK(j != NULL);
	CHECK_STR(frame_str(j, 0, "function"), want);
	CHECK_STR(json_string_value(json_object_get(json_object_get(j, "crash"), "summary")), want);
	json_decref(j);
	free(out);
	ct_report_deinit(&r);
}

TEST(escape_and_utf8_functions)
{
	char buf[64];
	size_t n = ct_json_escape(buf, "\x02z\xce");
	CHECK_EQ(n, 10);
	CHECK(memcmp(buf, "\\u0002z" REP, n) == 0);
	CHECK_EQ(ct_json_utf8_len("a"), 1);
	CHECK_EQ(ct_json_utf8_len("\xc3\xa9"), 2);
	CHECK_EQ(ct_json_utf8_len("\xc3"), 0); // truncated at the NUL
	CHECK_EQ(ct_json_utf8_len("\xe0\x80\x80"), 0); // overlong
	CHECK_EQ(ct_json_utf8_len("\xef\xbf\xbd"), 3);
	CHECK_EQ(ct_json_utf8_len("\xf4\x8f\xbf\xbf"), 4); // U+10FFFF
	CHECK_EQ(ct_json_utf8_len("\xf5\x80\x80\x80"), 0);
	char *s = ct_json_utf8_sanitize("ok\xc3\xa9\xfe");
	CHECK_STR(s, "ok\xc3\xa9" REP);
	free(s);
}

TEST(null_versus_absent_fields)
{
	struct ct_report r;
	CHECK(ct_report_init(&r));
	struct ct_thread *t = ct_report_add_thread(&r);
	t->tid = 7;
	t->crashed = true;
	struct ct_frame *f = ct_thread_add_frame(t); // nothing known
	f->pc = 0x10;
	f->trust = CT_TRUST_SCAN;
	f = ct_thread_add_frame(t); // everything known
	f->pc = 0x20;
	f->function = ct_report_strdup(&r, "main");
	f->offset = 0;
	f->module = ct_report_strdup(&r, "prog");
	f->file = ct_report_strdup(&r, "/src/main.c");
	f->line = 3;
	f->column = 1;
	f->inlined = true;
	f->trust = CT_TRUST_SIGNAL;
	f->signal_frame = true;
	f->has_sp = true;
	f->sp = 0x7ffc0000;
	char *out = write_report(&r, true, false, NULL);
	json_t *j = parse(out);
	CHECK(j != NULL);
	json_t *f0 = frame_of(j, 0, 0), *f1 = frame_of(j, 0, 1);
	CHECK(json_is_null(json_object_get(f0, "function")));
	CHECK(json_is_null(json_object_get(f0, "offset")));
	CHECK(json_is_null(json_object_get(f0, "module")));
	CHECK(json_is_null(json_object_get(f0, "file")));
	CHECK(json_is_null(json_object_get(f0, "line")));
	CHECK(json_is_null(json_object_get(f0, "column")));
	CHECK(json_is_false(json_object_get(f0, "inlined")));
	CHECK_STR(json_string_value(json_object_get(f0, "trust")), "scan");
	CHECK(json_object_get(f0, "signal_frame") == NULL);
	CHECK(json_object_get(f0, "sp") == NULL);
	CHECK_EQ(json_object_size(f0), 11); // the ten above and an empty "parameters"
	// offset 0 of a known function is "0x0", not null.
	CHECK_STR(json_string_value(json_object_get(f1, "offset")), "0x0");
	CHECK_STR(json_string_value(json_object_get(f1, "file")), "/src/main.c");
	CHECK_EQ(json_integer_value(json_object_get(f1, "line")), 3);
	CHECK_EQ(json_integer_value(json_object_get(f1, "column")), 1);
	CHECK(json_is_true(json_object_get(f1, "inlined")));
	CHECK(json_is_true(json_object_get(f1, "signal_frame")));
	CHECK_STR(json_string_value(json_object_get(f1, "sp")), "0x7ffc0000");
	// Key order of a full frame, byte-exact.
	CHECK(strstr(out, "{\"index\":1,\"pc\":\"0x20\",\"function\":\"main\",\"offset\":\"0x0\","
			  "\"module\":\"prog\","
			  "\"file\":\"/src/main.c\",\"line\":3,\"column\":1,\"inlined\":true,\"trust\":\"signal\","
			  "\"signal_frame\":true,\"sp\":\"0x7ffc0000\",\"parameters\":[]}") != NULL);
	json_t *th = json_array_get(json_object_get(j, "threads"), 0);
	CHECK(json_is_null(json_object_get(th, "stop_reason")));
	CHECK(json_is_null(json_object_get(th, "stack")));
	CHECK(json_object_get(th, "registers") == NULL);
	CHECK(json_is_null(json_object_get(j, "signal")));
	CHECK(json_is_null(json_object_get(j, "signature")));
	CHECK(json_object_get(j, "kernel") == NULL);
	CHECK(json_object_get(j, "environment") == NULL);
	json_decref(j);
	free(out);

	// --no-abs-paths shows the basename.
	out = write_report(&r, true, true, NULL);
	j = parse(out);
	CHECK_STR(json_string_value(json_object_get(frame_of(j, 0, 1), "file")), "main.c");
	json_decref(j);
	free(out);
	ct_report_deinit(&r);
}

TEST(parameters_locals_and_tail_calls)
{
	struct ct_report r;
	CHECK(ct_report_init(&r));
	struct ct_thread *t = ct_report_add_thread(&r);
	struct ct_frame *f = ct_thread_add_frame(t);
	f->pc = 0x10;
	f->function = ct_report_strdup(&r, "node_key");
	f->first_parameter = t->num_variables;
	struct ct_variable *v = ct_thread_add_variable(t);
	v->name = ct_report_strdup(&r, "n");
	v->type = ct_report_strdup(&r, "const struct node *");
	v->value = ct_report_strdup(&r, "0x0");
	v->entry_value = v->value;
	v = ct_thread_add_variable(t);
	v->name = ct_report_strdup(&r, "why");
	v->type = ct_report_strdup(&r, "char *");
	v->optimized_out = true;
	f->num_parameters = 2;
	f->has_locals = true;
	f->first_local = t->num_variables;
	f = ct_thread_add_frame(t);
	f->pc = 0x20;
	f->trust = CT_TRUST_CALL_SITE;
	f->tail_call = true;
	char *out = write_report(&r, true, false, NULL);
	json_t *j = parse(out);
	json_t *f0 = frame_of(j, 0, 0), *f1 = frame_of(j, 0, 1);
	json_t *params = json_object_get(f0, "parameters");
	CHECK_EQ(json_array_size(params), 2);
	json_t *p0 = json_array_get(params, 0), *p1 = json_array_get(params, 1);
	CHECK_STR(json_string_value(json_object_get(p0, "name")), "n");
	CHECK_STR(json_string_value(json_object_get(p0, "type")), "const struct node *");
	CHECK_STR(json_string_value(json_object_get(p0, "value")), "0x0");
	CHECK_STR(json_string_value(json_object_get(p0, "entry_value")), "0x0");
	CHECK(json_object_get(p0, "optimized_out") == NULL);
	CHECK(json_is_null(json_object_get(p1, "value")));
	CHECK(json_is_true(json_object_get(p1, "optimized_out")));
	CHECK(json_object_get(p1, "entry_value") == NULL);
	// Locals looked for and none found: an empty array; not looked for: no key.
	CHECK(json_is_array(json_object_get(f0, "locals")) && json_array_size(json_object_get(f0, "locals")) == 0);
	CHECK(json_object_get(f1, "locals") == NULL);
	CHECK(json_is_true(json_object_get(f1, "tail_call")));
	CHECK(json_object_get(f0, "tail_call") == NULL);
	CHECK_STR(json_string_value(json_object_get(f1, "trust")), "call-site");
	json_decref(j);
	free(out);
	ct_report_deinit(&r);
}

TEST(hex_formatting)
{
	static const struct {
		uint64_t v;
		const char *s;
	} cases[] = { { 0, "0x0" }, { 0xf, "0xf" }, { 0x10, "0x10" }, { 0x7f3a2c001150, "0x7f3a2c001150" },
		      { UINT64_MAX, "0xffffffffffffffff" }, { 1ULL << 63, "0x8000000000000000" } };
	struct ct_report r;
	CHECK(ct_report_init(&r));
	struct ct_thread *t = ct_report_add_thread(&r);
	t->has_stack = true;
	t->stack_start = 0x7ffc00000000;
	t->stack_end = UINT64_MAX;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ct_frame *f = ct_thread_add_frame(t);
		f->pc = cases[i].v;
		f->function = ct_report_strdup(&r, "f");
		f->offset = cases[i].v;
	}
	char *out = write_report(&r, false, false, NULL);
	json_t *j = parse(out);
	CHECK(j != NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_STR(frame_str(j, i, "pc"), cases[i].s);
		CHECK_STR(frame_str(j, i, "offset"), cases[i].s);
		CHECK_EQ(json_integer_value(json_object_get(frame_of(j, 0, i), "index")), i);
	}
	json_t *st = json_object_get(json_array_get(json_object_get(j, "threads"), 0), "stack");
	CHECK_STR(json_string_value(json_object_get(st, "start")), "0x7ffc00000000");
	CHECK_STR(json_string_value(json_object_get(st, "end")), "0xffffffffffffffff");
	json_decref(j);
	free(out);
	ct_report_deinit(&r);
}

// Two threads, registers, a stop reason, negative and large integers, a signal and a kernel.
static void full_report(struct ct_report *r)
{
	CHECK(ct_report_init(r));
	r->input.kind = ct_report_strdup(r, "elf-core");
	r->input.core = ct_report_strdup(r, "/tmp/core");
	r->signal.present = true;
	r->signal.number = 11;
	r->has_crashing_thread = true;
	r->crashing_thread = 100;
	for (int k = 0; k < 2; k++) {
		struct ct_thread *t = ct_report_add_thread(r);
		t->tid = 100 + k;
		t->crashed = k == 0;
		t->signal = k == 0 ? 11 : 0;
		t->truncated = k == 1;
		// A library's own message, quotes and all, is the stop's words.
		t->stop = (struct ct_stop){ .reason = CT_STOP_LIBRARY,
					    .detail = CT_STOP_DETAIL_TEXT,
					    .text = ct_report_strdup(r, k ? "frame cap \"1\" reached" : "end of stack") };
		if (k == 0) {
			t->registers = calloc(2, sizeof(*t->registers));
			t->num_registers = 2;
			t->registers[0].name = ct_report_strdup(r, "rip");
			t->registers[0].value = 0x401000;
			t->registers[1].name = ct_report_strdup(r, "rsp");
			t->registers[1].value = 0x7ffc1000;
		}
		for (int i = 0; i < 3 - k; i++) {
			struct ct_frame *f = ct_thread_add_frame(t);
			f->pc = 0x401000 + i;
			f->function = ct_report_strdup(r, i ? "caller" : "callee");
			f->module = ct_report_strdup(r, "prog");
			f->line = i == 2 ? -1 : 2147483647;
			f->trust = CT_TRUST_CFI;
		}
	}
	ct_report_add_thread(r)->tid = 102; // no frames
	r->kernel.present = true;
	r->kernel.log = ct_report_strdup(r, "line 1\nline 2\n");
	r->kernel.has_uptime = true;
	r->kernel.uptime = 12.5;
}

TEST(compact_is_one_line_and_equals_pretty)
{
	struct ct_report r;
	full_report(&r);
	size_t clen, plen;
	char *compact = write_report(&r, true, false, &clen), *pretty = write_report(&r, false, false, &plen);
	CHECK(clen > 0 && compact[clen - 1] == '\n');
	CHECK(memchr(compact, '\n', clen - 1) == NULL);
	CHECK(strchr(pretty, '\n') < pretty + plen - 1);
	json_t *jc = parse(compact), *jp = parse(pretty);
	CHECK(jc != NULL && jp != NULL);
	CHECK(json_equal(jc, jp));
	json_t *threads = json_object_get(jc, "threads");
	CHECK_EQ(json_array_size(threads), 3);
	json_t *t0 = json_array_get(threads, 0), *t1 = json_array_get(threads, 1), *t2 = json_array_get(threads, 2);
	CHECK_EQ(json_integer_value(json_object_get(t0, "tid")), 100);
	CHECK(json_is_true(json_object_get(t0, "crashed")));
	CHECK_EQ(json_integer_value(json_object_get(t0, "signal")), 11);
	CHECK(json_is_false(json_object_get(t0, "truncated")));
	CHECK_STR(json_string_value(json_object_get(json_object_get(t0, "registers"), "rsp")), "0x7ffc1000");
	CHECK_STR(json_string_value(json_object_get(t1, "stop_reason")), "frame cap \"1\" reached");
	CHECK(json_is_true(json_object_get(t1, "truncated")));
	CHECK_EQ(json_array_size(json_object_get(t1, "frames")), 2);
	CHECK_EQ(json_array_size(json_object_get(t2, "frames")), 0);
	CHECK_EQ(json_integer_value(json_object_get(frame_of(jc, 0, 0), "line")), 2147483647);
	CHECK_EQ(json_integer_value(json_object_get(frame_of(jc, 0, 2), "line")), -1);
	CHECK_STR(json_string_value(json_object_get(json_object_get(jc, "kernel"), "log")), "line 1\nline 2\n");
	// Thread keys in the documented order, and the pretty layout of the threads array.
	CHECK(strstr(compact, "\"threads\": [{\"tid\": 100, \"crashed\": true, \"signal\": 11, "
			      "\"truncated\": false, "
			      "\"stop_reason\": \"end of stack\", \"stack\": null, \"registers\": "
			      "{\"rip\":\"0x401000\",\"rsp\":\"0x7ffc1000\"}, \"frames\": [{\"index\":0,") != NULL);
	CHECK(strstr(pretty, "\"frames\": [\n      {\"index\":0,") != NULL);
	CHECK(strstr(pretty, "\"frames\": []}\n  ],\n  \"modules\": []") != NULL);
	const char *keys[] = { "schema_version", "tool", "input", "process", "signal", "crash", "crashing_thread",
			       "kernel", "threads", "modules", "disassembly", "abort_message", "signature",
			       "warnings", "diagnostics" };
	const char *prev = compact;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char k[64];
		snprintf(k, sizeof(k), "\"%s\": ", keys[i]);
		const char *at = strstr(compact, k);
		CHECK(at != NULL && at > prev);
		if (at)
			prev = at;
	}
	json_decref(jc);
	json_decref(jp);
	free(compact);
	free(pretty);
	ct_report_deinit(&r);
}

TEST(deterministic)
{
	struct ct_report r;
	full_report(&r);
	for (int compact = 0; compact < 2; compact++) {
		size_t l1, l2;
		char *a = write_report(&r, compact, false, &l1), *b = write_report(&r, compact, false, &l2);
		CHECK(l1 == l2 && memcmp(a, b, l1) == 0);
		free(a);
		free(b);
	}
	ct_report_deinit(&r);
}

// Many frames over more distinct strings than the cache has slots (evictions, collisions), names
// longer than a slot, one longer than the output buffer: every frame must still be right.
TEST(many_frames_and_long_strings)
{
	struct ct_report r;
	CHECK(ct_report_init(&r));
	struct ct_thread *t = ct_report_add_thread(&r);
	const size_t nnames = 3 * CT_JSON_CACHE_SLOTS, nframes = 20000;
	const char **names = calloc(nnames, sizeof(*names));
	char *big = malloc(3 * CT_JSON_EMIT_BUF);
	memset(big, 'x', 3 * CT_JSON_EMIT_BUF - 1);
	big[3 * CT_JSON_EMIT_BUF - 1] = '\0';
	big[5] = '"'; // escaped: grows by one
	for (size_t i = 0; i < nnames; i++) {
		char buf[600];
		if (i % 7 == 3) { // longer than CT_JSON_CACHE_TEXT
			memset(buf, 'L', 500);
			snprintf(buf + 500, sizeof(buf) - 500, "%zu\"", i);
		} else {
			snprintf(buf, sizeof(buf), "fn_%zu\\\xc3\xa9", i);
		}
		names[i] = ct_report_strdup(&r, i == 5 ? big : buf);
	}
	for (size_t i = 0; i < nframes; i++) {
		struct ct_frame *f = ct_thread_add_frame(t);
		f->pc = i;
		f->function = names[(i * 7919) % nnames];
		f->module = names[i % 3];
		f->file = names[(i / 3) % nnames];
	}
	for (int compact = 0; compact < 2; compact++) {
		char *out = write_report(&r, compact, false, NULL);
		json_t *j = parse(out);
		CHECK(j != NULL);
		json_t *frames = json_object_get(json_array_get(json_object_get(j, "threads"), 0), "frames");
		CHECK_EQ(json_array_size(frames), nframes);
		int bad = 0;
		for (size_t i = 0; i < nframes && j; i++) {
			json_t *f = json_array_get(frames, i);
			char pc[24];
			snprintf(pc, sizeof(pc), "0x%zx", i);
			bad += json_integer_value(json_object_get(f, "index")) != (json_int_t)i;
			bad += strcmp(json_string_value(json_object_get(f, "pc")), pc) != 0;
			bad += strcmp(json_string_value(json_object_get(f, "function")), names[(i * 7919) % nnames]) != 0;
			bad += strcmp(json_string_value(json_object_get(f, "module")), names[i % 3]) != 0;
			bad += strcmp(json_string_value(json_object_get(f, "file")), names[(i / 3) % nnames]) != 0;
		}
		CHECK_EQ(bad, 0);
		json_decref(j);
		free(out);
	}
	free(big);
	free(names);
	ct_report_deinit(&r);
}

TEST_MAIN()
