// The trail in the Markdown report: crash time and unit as a short list, the log lines in a code
// block (untrusted text through writers/sanitize.h, and no line can close the ~~~~ fence).
#include <inttypes.h>
#include <string.h>

#include "writers/present.h"
#include "writers/sanitize.h"
#include "writers/trail_writers.h"

static void put_line(FILE *out, const char *s)
{
	// A line starting with the fence would end the block early.
	if (s && !strncmp(s, "~~~", 3))
		fputc(' ', out);
	ct_text_put(out, s, CT_TEXT_MD_BLOCK, SIZE_MAX);
	fputc('\n', out);
}

// Inline code of untrusted text (writers/sanitize.h).
static void code_span(FILE *out, const char *s)
{
	fputc('`', out);
	ct_text_put(out, s ? s : "?", CT_TEXT_MD_CODE, SIZE_MAX);
	fputc('`', out);
}

void ct_markdown_write_trail(FILE *out, const struct ct_report *r, const struct ct_write_options *o)
{
	const struct ct_trail *t = &r->trail;
	char buf[48];
	fputs("\n#### Trail\n\n", out);
	if (t->crash_time.present)
		fprintf(out, "- **Crashed:** %s (source: %s)\n", ct_time_format(t->crash_time.usec, false, buf, sizeof(buf)),
			ct_time_source_to_string(t->crash_time.source));
	else
		fputs("- **Crashed:** time unknown\n", out);
	if (t->unit) {
		fputs("- **Unit:** ", out);
		code_span(out, t->unit);
		if (t->unit_start_time.present)
			fprintf(out, ", started %s", ct_time_format(t->unit_start_time.usec, false, buf, sizeof(buf)));
		fputc('\n', out);
	}
	for (size_t i = 0; i < r->num_modules; i++) {
		const struct ct_module *m = &r->modules[i];
		if (!m->package.present)
			continue;
		fputs("- **Package:** ", out);
		code_span(out, m->name);
		fputs(" from ", out);
		code_span(out, m->package.type);
		fputc(' ', out);
		code_span(out, m->package.name);
		fputc(' ', out);
		code_span(out, m->package.version);
		fputc('\n', out);
	}
	if (!t->logs_searched)
		return;
	fprintf(out, "\n**Logs** within -%" PRId64 " s/+%" PRId64 " s of the crash (%zu line%s; `*`: names the process):\n\n~~~~\n",
		t->window_before_usec / 1000000, t->window_after_usec / 1000000, t->num_logs, t->num_logs == 1 ? "" : "s");
	for (size_t i = 0; i < t->num_logs; i++) {
		const struct ct_log_line *l = &t->logs[i];
		fprintf(out, "%s ", ct_time_format(l->usec, true, buf, sizeof(buf)));
		ct_text_put(out, ct_display_path(l->file, o), CT_TEXT_MD_BLOCK, SIZE_MAX);
		if (l->line_number)
			fprintf(out, ":%" PRIu64, l->line_number);
		fputs(l->matches ? " * " : "   ", out);
		put_line(out, l->text);
	}
	fputs("~~~~\n", out);
}
