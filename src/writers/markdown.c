// Markdown: a ready-to-paste bug report for GitHub/GitLab issues, and the batch bucket table.
// Everything from the dump is untrusted text: outside code blocks it is escaped (Markdown and
// HTML), inside code blocks control characters are replaced and the fence is ~~~~ (never in names).
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coretriage/coretriage.h"
#include "writers/hang_writers.h"
#include "writers/present.h"
#include "writers/runtime_writers.h"
#include "writers/trail_writers.h"
#include "writers/writers.h"

/** Frames of the crashing thread shown before "… N more frames" (a bug report stays readable). */
#define MD_CRASH_FRAMES 100
/** Frames per other thread, and other thread groups shown. */
#define MD_OTHER_FRAMES 30
#define MD_OTHER_GROUPS 64

// Untrusted text, each context with its rule (writers/sanitize.h).
static void md_text(FILE *out, const char *s)
{
	ct_text_put(out, s, CT_TEXT_MD_INLINE, SIZE_MAX);
}

static void md_code(FILE *out, const char *s)
{
	fputc('`', out);
	ct_text_put(out, s, CT_TEXT_MD_CODE, SIZE_MAX);
	fputc('`', out);
}

// In a table cell '|' would end the cell even inside code: GitHub and GitLab take "\|" there.
static void md_cell(FILE *out, const char *s)
{
	fputc('`', out);
	ct_text_put(out, s, CT_TEXT_MD_CELL, SIZE_MAX);
	fputc('`', out);
}

// Text inside a fenced block.
static void block_text(FILE *out, const char *s)
{
	ct_text_put(out, s, CT_TEXT_MD_BLOCK, SIZE_MAX);
}

struct md_frames {
	FILE *out;
	const struct ct_write_options *o;
	int hw; /* hex digits of an address */
	const struct ct_thread *t;
};

/** Characters of one argument value in a bug report's frame line. */
#define MD_VALUE_WIDTH 80

static void frame_line(void *ctx, const struct ct_frame *f, size_t index)
{
	const struct md_frames *x = ctx;
	FILE *out = x->out;
	fprintf(out, "#%-3zu ", index);
	if (f->inlined)
		fprintf(out, "%-*s ", x->hw + 2, "[inlined]");
	else
		fprintf(out, "0x%0*" PRIx64 " ", x->hw, f->pc);
	fputs("in ", out);
	block_text(out, f->function ? f->function : "??");
	ct_present_parameters(out, x->t, f, CT_TEXT_MD_BLOCK, MD_VALUE_WIDTH);
	if (f->module) {
		fputs(" (", out);
		block_text(out, f->module);
		fputc(')', out);
	}
	if (f->file) {
		fputs(" at ", out);
		block_text(out, ct_display_path(f->file, x->o));
		fprintf(out, ":%d", f->line);
	}
	if (f->name_source)
		fprintf(out, " [names: %s]", f->name_source);
	fputc('\n', out);
}

static void on_repeat(void *ctx, size_t from, size_t to, size_t period, size_t more)
{
	fprintf(((struct md_frames *)ctx)->out, "     ... the %zu frame(s) above repeat %zu more times (recursion)\n",
		period, more);
}

static void on_more(void *ctx, size_t remaining)
{
	fprintf(((struct md_frames *)ctx)->out, "     ... %zu more frames\n", remaining);
}

static void frames_block(FILE *out, const struct ct_report *r, const struct ct_thread *t, size_t limit,
			 const struct ct_write_options *o)
{
	static const struct ct_frame_walk_ops ops = { frame_line, on_repeat, on_more };
	struct md_frames x = { out, o, ct_present_hex_width(r), t };
	fputs("~~~~\n", out);
	ct_present_frames(t, o->collapse_min, limit, &ops, &x);
	if (!t->num_frames)
		fputs("(no frames)\n", out);
	char stop_buf[CT_STOP_TEXT_MAX];
	const char *stop = ct_stop_render(&t->stop, stop_buf, sizeof(stop_buf));
	if (t->truncated && stop) {
		fputs("     (unwinding stopped: ", out);
		block_text(out, stop);
		fputs(")\n", out);
	}
	fputs("~~~~\n", out);
	ct_markdown_runtime_stack(out, r, t, o); // markdown_runtime.c
}

int ct_write_markdown(FILE *out, const struct ct_report *r, const struct ct_write_options *o)
{
	const struct ct_crash *c = &r->crash;
	const struct ct_thread *crashed = ct_report_crashing_thread(r);
	const char *sig = r->signal.present ? ct_signal_name(r->signal.number) : NULL;

	// Title line: what crashed, how.
	fputs("### ", out);
	if (r->process.command)
		md_code(out, r->process.command);
	else
		fputs(r->kernel.present ? "Linux kernel" : "process", out);
	fputs(" crashed", out);
	fputs(": ", out);
	md_text(out, ct_class_to_string(c->cls));
	if (c->subclass) {
		fputs(" (", out);
		md_text(out, c->subclass);
		fputc(')', out);
	}
	if (sig) {
		fprintf(out, " — %s", sig);
		const char *cn = r->signal.has_code ? ct_signal_code_name(r->signal.number, r->signal.code) : NULL;
		if (cn)
			fprintf(out, " %s", cn);
		if (r->signal.has_fault_address)
			fprintf(out, " at `0x%" PRIx64 "`", r->signal.fault_address);
	}
	fputs("\n\n", out);

	fputs("**Verdict:** ", out);
	if (c->summary)
		md_text(out, c->summary);
	else
		md_text(out, ct_class_to_string(c->cls));
	fputs(" (confidence ", out);
	md_text(out, ct_confidence_to_string(c->confidence));
	fputc(')', out);
	fputs("  \n", out);
	if (crashed && c->blame_frame >= 0 && (size_t)c->blame_frame < crashed->num_frames) {
		const struct ct_frame *f = &crashed->frames[c->blame_frame];
		fputs("**Blame:** ", out);
		md_code(out, f->function ? f->function : "??");
		if (f->file) {
			fputs(" at ", out);
			char loc[4096];
			snprintf(loc, sizeof(loc), "%s:%d", ct_display_path(f->file, o), f->line);
			md_code(out, loc);
		}
		fprintf(out, " (frame #%ld)  \n", c->blame_frame);
	}
	if (r->signature.present) {
		fputs("**Signature:** ", out);
		md_code(out, r->signature.text);
		if (r->signature.hash) {
			fputs(" ", out);
			md_code(out, r->signature.hash);
		}
		fputs("  \n", out);
	}
	if (r->abort_message.present) {
		fputs("**Abort message:** ", out);
		md_code(out, r->abort_message.text);
		fputs("  \n", out);
	}
	if (r->root_cause.present) {
		// The root cause right after the verdict (docs/root-cause.md): the sentence, then the steps.
		const struct ct_root_cause *rc = &r->root_cause;
		fputs("\n**Root cause:** ", out);
		md_text(out, rc->summary);
		fputs("\n\n", out);
		for (size_t i = 0; i < rc->num_steps; i++) {
			const struct ct_root_step *st = &rc->steps[i];
			fprintf(out, "%zu. #%ld %s", i + 1, st->frame, ct_root_step_kind_to_string(st->kind));
			if (st->object) {
				fputc(' ', out);
				md_code(out, st->object);
				fputs(" by", out);
			}
			if (st->expression) {
				fputc(' ', out);
				md_code(out, st->expression);
			}
			if (st->function) {
				fputs(" in ", out);
				md_code(out, st->function);
			}
			if (st->file) {
				fputs(" at ", out);
				md_text(out, ct_display_path(st->file, o));
				fprintf(out, ":%d", st->line);
			}
			if (st->has_value)
				fprintf(out, " = `0x%" PRIx64 "`", st->value);
			if (st->has_index && st->array) {
				fprintf(out, ", index %" PRId64 " into ", st->index);
				md_code(out, st->array);
				if (st->dimension)
					fprintf(out, " (dimension %d)", st->dimension);
			}
			if (st->memory) {
				fputs(" from ", out);
				md_text(out, st->memory);
			}
			if (st->has_holds)
				fprintf(out, ", holding `0x%" PRIx64 "` now", st->holds);
			if (st->reason) {
				fputs(": ", out);
				md_text(out, st->reason);
			}
			if (st->object_reason) {
				fputs(" (object not named: ", out);
				md_text(out, st->object_reason);
				fputc(')', out);
			}
			fputc('\n', out);
		}
	}
	if (r->heap.present) {
		const struct ct_heap_state *h = &r->heap;
		fprintf(out, "\n**Heap** (glibc %s): %s `0x%" PRIx64 "` in chunk `0x%" PRIx64 "`, size `0x%" PRIx64 "`, %s",
			h->glibc ? h->glibc : "?", h->role ? h->role : "pointer", h->pointer, h->chunk_address, h->chunk_size,
			h->chunk_free ? "free" : "in use");
		if (h->has_bin)
			fprintf(out, ", in %s %u (entry %u of %u)", ct_heap_bin_kind_to_string(h->bin), h->bin_index,
				h->bin_position + 1, h->bin_count);
		fputs("\n", out);
	}
	if (c->num_evidence) {
		fputs("\n**Evidence:**\n\n", out);
		for (size_t i = 0; i < c->num_evidence; i++) {
			fputs("- ", out);
			md_text(out, c->evidence[i]);
			fputc('\n', out);
		}
	}
	bool any_warning = false;
	for (size_t i = 0; i < r->diagnostics.count; i++) {
		const struct ct_diagnostic *d = &r->diagnostics.items[i];
		if (d->severity < CT_SEVERITY_WARNING)
			continue;
		if (!any_warning)
			fputs("\n**Warnings:**\n\n", out);
		any_warning = true;
		fputs("- ", out);
		md_text(out, d->message);
		fputc('\n', out);
	}

	ct_markdown_hang(out, r); // text_hang.c
	if (crashed) {
		fprintf(out, "\n#### Crashing %s %d\n\n", r->kernel.present ? "CPU" : "thread", crashed->tid);
		frames_block(out, r, crashed, MD_CRASH_FRAMES, o);
	}

	// Other threads, collapsed: they matter less, and a 500-thread server would bury the crash.
	size_t others = 0;
	for (size_t i = 0; i < r->num_threads; i++)
		others += !r->threads[i].crashed;
	if (others) {
		fprintf(out, "\n<details><summary>Other threads (%zu)</summary>\n\n", others);
		struct ct_thread_groups g;
		ct_thread_groups_init(&g, r);
		size_t groups = 0;
		for (size_t gi = 0; gi < g.num_groups; gi++) {
			size_t n = ct_thread_group_size(&g, gi);
			if (!n)
				continue;
			const struct ct_thread *t = &r->threads[ct_thread_group_member(&g, gi, 0)];
			if (++groups > MD_OTHER_GROUPS) {
				fputs("\n(more threads left out)\n", out);
				break;
			}
			if (n == 1)
				fprintf(out, "%s %d:\n\n", r->kernel.present ? "CPU" : "Thread", t->tid);
			else
				fprintf(out, "%zu threads with this stack (first: %d):\n\n", n, t->tid);
			frames_block(out, r, t, MD_OTHER_FRAMES, o);
			fputc('\n', out);
		}
		ct_thread_groups_deinit(&g);
		fputs("</details>\n", out);
	}
	ct_markdown_goroutines(out, r, o); // markdown_go.c

	ct_markdown_write_trail(out, r, o);
	fputs("\n#### Environment\n\n| | |\n|---|---|\n", out);
	if (r->process.num_args) {
		fputs("| command line | ", out);
		char *cmd = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&cmd, &len);
		if (m) {
			for (size_t i = 0; i < r->process.num_args; i++)
				fprintf(m, "%s%s", i ? " " : "", r->process.args[i]);
			fclose(m);
			md_cell(out, cmd);
			free(cmd);
		}
		fputs(" |\n", out);
	}
	if (r->process.has_pid)
		fprintf(out, "| pid | %d |\n", r->process.pid);
	if (r->input.arch) {
		fputs("| architecture | ", out);
		md_text(out, r->input.arch);
		fputs(" |\n", out);
	}
	if (r->kernel.present && r->kernel.release) {
		fputs("| kernel | ", out);
		md_cell(out, r->kernel.release);
		fputs(" |\n", out);
	}
	fputs("| core | ", out);
	md_cell(out, ct_display_path(r->input.core, o));
	fputs(" |\n", out);
	if (r->input.executable || r->process.executable_path) {
		fputs("| executable | ", out);
		md_cell(out, ct_display_path(r->input.executable ? r->input.executable : r->process.executable_path, o));
		fputs(" |\n", out);
	}
	// The main program's build-id identifies the exact build; libraries would be noise here.
	const struct ct_module *main = ct_present_main_module(r);
	if (!main && !r->process.executable_path) {
		// No AT_EXECFN (a filtered core): the first module with a path is the program's.
		for (size_t i = 0; i < r->num_modules && !main; i++)
			if (r->modules[i].path && r->modules[i].build_id)
				main = &r->modules[i];
	}
	if (main && main->build_id) {
		fputs("| build-id | ", out);
		md_cell(out, main->build_id);
		fputs(" |\n", out);
	}
	for (size_t i = 0; i < r->num_environment; i++) {
		const struct ct_detail *d = &r->environment[i];
		fputs("| ", out);
		md_text(out, d->key);
		fputs(" | ", out);
		if (d->kind == CT_VALUE_STRING)
			md_cell(out, d->string);
		else if (d->kind == CT_VALUE_ADDRESS)
			fprintf(out, "`0x%" PRIx64 "`", d->address);
		else
			fprintf(out, "%" PRId64, d->integer);
		fputs(" |\n", out);
	}
	fprintf(out, "| analyzed by | coretriage %s |\n", CT_VERSION);
	return ferror(out) ? -1 : 0;
}

static void md_time(FILE *out, long long t)
{
	char buf[32];
	time_t tt = (time_t)t;
	struct tm tm;
	if (gmtime_r(&tt, &tm) && strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%SZ", &tm))
		fputs(buf, out);
	else
		fputs("?", out);
}

int ct_write_markdown_buckets(FILE *out, const struct ct_bucket *b, size_t n, size_t num_cores, size_t num_failed)
{
	fprintf(out, "### Crash buckets: %zu core%s, %zu bucket%s", num_cores, num_cores == 1 ? "" : "s", n,
		n == 1 ? "" : "s");
	if (num_failed)
		fprintf(out, ", %zu not analyzed", num_failed);
	fputs("\n\n| # | count | class | blame | first seen | last seen | example | bug |\n"
	      "|---|---|---|---|---|---|---|---|\n", out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "| %zu | %zu | ", i + 1, b[i].count);
		md_text(out, b[i].class_id ? b[i].class_id : "unknown");
		fputs(" | ", out);
		md_cell(out, b[i].blame_label ? b[i].blame_label : "??");
		if (b[i].blame_file) {
			char loc[4096];
			const char *slash = strrchr(b[i].blame_file, '/');
			snprintf(loc, sizeof(loc), "%s:%d", slash ? slash + 1 : b[i].blame_file, b[i].blame_line);
			fputs(" ", out);
			md_cell(out, loc);
		}
		fputs(" | ", out);
		if (b[i].has_time)
			md_time(out, b[i].first_seen);
		fputs(" | ", out);
		if (b[i].has_time)
			md_time(out, b[i].last_seen);
		fputs(" | ", out);
		md_cell(out, b[i].example);
		fputs(" | ", out);
		if (b[i].known_url && *b[i].known_url) {
			// An autolink; '>' and spaces cannot be part of it.
			fputc('<', out);
			char piece[CT_TEXT_PIECE_MAX];
			for (const char *u = b[i].known_url; *u;) {
				size_t k = ct_text_next(&u, CT_TEXT_MD_BLOCK, piece);
				if (k == 1 && (piece[0] == '>' || piece[0] == ' ' || piece[0] == '|'))
					piece[0] = '_';
				fwrite(piece, 1, k, out);
			}
			fputc('>', out);
		} else if (b[i].known_url)
			fputs("known", out);
		else
			fputs("**new**", out);
		fputs(" |\n", out);
	}
	return ferror(out) ? -1 : 0;
}
