// libFuzzer target: every writer on a report model made of hostile strings (issue 11). The input
// is cut at NUL bytes into strings that fill every text field the writers print: command and
// arguments, function/module/file names, evidence, diagnostics, abort message, kernel release and
// log, environment. A few bytes pick thread and frame counts and pcs, so thread groups and
// recursion cycles occur. Checked after each writer (abort() on a violation):
//   * every output: valid UTF-8, no byte below 0x20 but \n and \t (sanitize.h); no DEL but in
//     JSON and SARIF, where it is a legal character
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coretriage/coretriage.h"
#include "writers/buckets.h"
#include "writers/json_emit.h"
#include "writers/writers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** Upper bounds that keep one input fast. */
#define MAX_THREADS 12
#define MAX_FRAMES 48

struct cursor {
	const uint8_t *p, *end;
};

static uint8_t byte(struct cursor *c)
{
	return c->p < c->end ? *c->p++ : 0;
}

// The next string of the input (up to a NUL), pooled in @p r; "" at the end.
static const char *text(struct cursor *c, struct ct_report *r)
{
	const uint8_t *s = c->p;
	while (c->p < c->end && *c->p)
		c->p++;
	size_t n = (size_t)(c->p - s);
	if (c->p < c->end)
		c->p++;
	char buf[512];
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return ct_report_strdup(r, buf);
}

// @p json: JSON keeps DEL as it is (RFC 8259 needs only C0 escaped); every other output shows it.
static void check(const char *what, const char *out, size_t len, bool json)
{
	for (size_t i = 0; i < len;) {
		unsigned char ch = (unsigned char)out[i];
		if ((ch < 0x20 && ch != '\n' && ch != '\t') || (ch == 0x7f && !json)) {
			fprintf(stderr, "%s: control byte 0x%02x at %zu\n", what, ch, i);
			abort();
		}
		size_t k = ch ? ct_json_utf8_len(out + i) : 0;
		if (!k) {
			fprintf(stderr, "%s: invalid UTF-8 at %zu\n", what, i);
			abort();
		}
		i += k;
	}
}

static void run(const char *what, const struct ct_report *r, int which, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return;
	struct ct_write_options wo;
	ct_write_options_init(&wo);
	wo.verbose = true;
	wo.full_log = which & 16;
	switch (which & 15) {
	case 0: ct_write_text(m, r, &wo); break;
	case 1: ct_write_json(m, r, &wo, which & 32); break;
	case 2: ct_write_markdown(m, r, &wo); break;
	case 3: ct_write_folded(m, r); break;
	case 4: {
		struct ct_folded_stack st[MAX_THREADS];
		const char *names[MAX_THREADS][MAX_FRAMES];
		size_t n = r->num_threads < MAX_THREADS ? r->num_threads : MAX_THREADS;
		for (size_t t = 0; t < n; t++) {
			size_t k = r->threads[t].num_frames < MAX_FRAMES ? r->threads[t].num_frames : MAX_FRAMES;
			for (size_t i = 0; i < k; i++)
				names[t][i] = r->threads[t].frames[i].function ? r->threads[t].frames[i].function : "??";
			st[t] = (struct ct_folded_stack){ (const char *const *)names[t], k, t + 1 };
		}
		ct_write_flamegraph(m, st, n, r->process.command, "thread");
		break;
	}
	case 5: {
		const struct ct_thread *t = r->num_threads ? &r->threads[0] : NULL;
		const char *stack[MAX_FRAMES];
		size_t k = t ? (t->num_frames < MAX_FRAMES ? t->num_frames : MAX_FRAMES) : 0;
		for (size_t i = 0; i < k; i++)
			stack[i] = t->frames[i].function ? t->frames[i].function : "??";
		const char **owned = malloc((k ? k : 1) * sizeof(*owned));
		if (!owned)
			break;
		memcpy(owned, stack, k * sizeof(*owned));
		struct ct_bucket b = {
			.hash = r->signature.hash ? r->signature.hash : "0",
			.signature = r->signature.text,
			.class_id = ct_class_to_string(r->crash.cls),
			.summary = r->crash.summary,
			.blame_function = k ? stack[0] : NULL,
			.blame_file = t && t->num_frames ? t->frames[0].file : NULL,
			.blame_line = 3,
			.stack = owned,
			.num_stack = k,
			.example = r->input.core,
			.known_url = r->process.executable_path,
		};
		struct ct_buckets table;
		ct_buckets_init(&table);
		if (ct_buckets_add(&table, &b, 0)) {
			struct ct_sarif_options so = { .source_root = r->input.executable };
			ct_write_sarif(m, &table.entries[0].b, 1, &so);
			ct_write_markdown_buckets(m, &table.entries[0].b, 1, 1, 0);
		}
		ct_buckets_deinit(&table);
		break;
	}
	}
	fclose(m);
	check(what, buf, len, json);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ct_report r;
	if (!ct_report_init(&r))
		return 0;
	struct cursor c = { data, data + size };
	uint8_t shape = byte(&c);
	r.input.pointer_size = shape & 1 ? 4 : 8;
	r.input.kind = "elf-core";
	r.input.core = text(&c, &r);
	r.input.executable = text(&c, &r);
	r.input.arch = text(&c, &r);
	r.process.command = text(&c, &r);
	r.process.executable_path = text(&c, &r);
	r.process.has_pid = true;
	r.process.pid = 42;
	const char *args[4];
	for (int i = 0; i < 4; i++)
		args[i] = text(&c, &r);
	r.process.args = malloc(sizeof(args));
	if (r.process.args) {
		memcpy(r.process.args, args, sizeof(args));
		r.process.num_args = 4;
	}
	r.signal.present = true;
	r.signal.number = 11;
	// Any value, out of range too: the writers render it through the table (its fallback included).
	const char *cls_text = text(&c, &r);
	r.crash.cls = (enum ct_class)(cls_text ? strlen(cls_text) : 0);
	r.crash.subclass = text(&c, &r);
	r.crash.confidence = CT_CONFIDENCE_LOW;
	r.crash.summary = text(&c, &r);
	r.crash.blame_frame = 0;
	ct_crash_add_evidence(&r.crash, &r.strings, "%s", text(&c, &r));
	r.crash.has_instruction = true;
	r.crash.instruction_text = text(&c, &r);
	r.abort_message.present = true;
	r.abort_message.text = text(&c, &r);
	r.signature.present = shape & 2;
	r.signature.text = text(&c, &r);
	r.signature.hash = text(&c, &r);
	ct_report_diag(&r, CT_SEVERITY_WARNING, 0, (enum ct_diag_code)(byte(&c) % CT_DIAG_NUM_), "%s", text(&c, &r));
	ct_report_add_environment(&r, text(&c, &r), text(&c, &r));
	if (shape & 4) {
		r.kernel.present = true;
		r.kernel.release = text(&c, &r);
		r.kernel.panic_message = text(&c, &r);
		r.kernel.comm = text(&c, &r);
		r.kernel.has_pid = true;
		r.kernel.taint = text(&c, &r);
		r.kernel.log = text(&c, &r);
	}
	const char *names[8];
	for (int i = 0; i < 8; i++)
		names[i] = text(&c, &r);
	size_t nthreads = 1 + byte(&c) % MAX_THREADS;
	for (size_t t = 0; t < nthreads; t++) {
		struct ct_thread *th = ct_report_add_thread(&r);
		if (!th)
			break;
		th->tid = (int)(100 + t);
		th->crashed = t == 0;
		th->truncated = byte(&c) & 1;
		// Any stop, in range or not: the renderer bounds what it is handed.
		th->stop = (struct ct_stop){ .reason = (enum ct_stop_reason)(byte(&c) % (CT_STOP_REASON_NUM_ + 2)),
					     .detail = (enum ct_stop_detail)(byte(&c) % 10),
					     .value = (uint64_t)byte(&c) << (byte(&c) % 56),
					     .text = names[t % 8],
					     .then = (enum ct_stop_reason)(byte(&c) % (CT_STOP_REASON_NUM_ + 2)),
					     .then_bytes = byte(&c) };
		size_t nf = byte(&c) % MAX_FRAMES;
		uint8_t period = 1 + byte(&c) % 3;
		for (size_t i = 0; i < nf; i++) {
			struct ct_frame *f = ct_thread_add_frame(th);
			if (!f)
				break;
			// Repeating pcs make recursion cycles and identical stacks across threads.
			f->pc = 0x401000 + 16 * (i % period);
			f->function = names[(i % period) % 8];
			f->module = names[(i + 1) % 8];
			f->file = names[(i + 2) % 8];
			f->line = (int)i;
			f->trust = (enum ct_trust)(i % CT_TRUST_NUM_);
		}
	}
	r.has_crashing_thread = true;
	r.crashing_thread = 100;
	struct ct_module *m = ct_report_add_module(&r);
	if (m) {
		m->name = names[0];
		m->path = names[1];
		m->build_id = names[2];
		m->build_id_match = 0;
	}
	run("text", &r, 0, false);
	run("text log", &r, 16, false);
	run("json", &r, 1, true);
	run("ndjson", &r, 33, true);
	run("markdown", &r, 2, false);
	run("folded", &r, 3, false);
	run("svg", &r, 4, false);
	run("sarif", &r, 5, true);
	ct_report_deinit(&r);
	return 0;
}
