// Folded stacks, the input format of flame-graph tools (Brendan Gregg's stackcollapse output,
// also read by inferno, speedscope and Firefox Profiler): "outer;middle;inner COUNT" per line.
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "writers/writers.h"

/** Longest folded frame name; longer C++ names are cut (the tools need no more). */
#define FRAME_NAME_MAX 512

char *ct_folded_frame_name(const struct ct_report *r, const struct ct_frame *f, char *buf, size_t size)
{
	if (f->function) {
		snprintf(buf, size, "%s", f->function);
	} else if (f->module) {
		const struct ct_module *m = ct_report_find_module(r, f->pc);
		if (m)
			snprintf(buf, size, "%s+0x%" PRIx64, f->module, f->pc - m->base);
		else
			snprintf(buf, size, "%s", f->module);
	} else {
		snprintf(buf, size, "0x%" PRIx64, f->pc);
	}
	// ';' separates frames and a newline ends the record: neither may appear inside a name. The
	// rule of writers/sanitize.h also replaces invalid UTF-8, which the tools would choke on.
	if (!ct_text_is_clean(buf, CT_TEXT_FOLDED)) {
		char *clean = ct_text_dup(buf, CT_TEXT_FOLDED);
		if (clean) {
			ct_text_format(buf, size, clean, CT_TEXT_UTF8, SIZE_MAX);
			free(clean);
		} else {
			snprintf(buf, size, "0x%" PRIx64, f->pc);
		}
	}
	return buf;
}

// The folded line of a thread (outermost first) without the count; malloc'd.
static char *thread_line(const struct ct_report *r, const struct ct_thread *t)
{
	char *line = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);
	if (!m)
		return NULL;
	char name[FRAME_NAME_MAX];
	for (size_t i = t->num_frames; i-- > 0;) {
		fputs(ct_folded_frame_name(r, &t->frames[i], name, sizeof(name)), m);
		if (i)
			fputc(';', m);
	}
	if (!t->num_frames)
		fputs("[no frames]", m);
	if (fclose(m) != 0) {
		free(line);
		return NULL;
	}
	return line;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ct_write_folded(FILE *out, const struct ct_report *r)
{
	size_t n = r->num_threads;
	char **lines = calloc(n ? n : 1, sizeof(*lines));
	if (!lines)
		return -1;
	int ret = 0;
	for (size_t i = 0; i < n; i++) {
		lines[i] = thread_line(r, &r->threads[i]);
		if (!lines[i]) {
			ret = -1;
			goto out;
		}
	}
	// Sorted and merged, as stackcollapse tools emit them: deterministic, and identical idle
	// threads become one weighted line.
	qsort(lines, n, sizeof(*lines), cmp_str);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && !strcmp(lines[i], lines[j]))
			j++;
		fprintf(out, "%s %zu\n", lines[i], j - i);
		i = j;
	}
out:
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	return ret || ferror(out) ? -1 : 0;
}

int ct_write_folded_stacks(FILE *out, const struct ct_folded_stack *stacks, size_t num_stacks)
{
	for (size_t i = 0; i < num_stacks; i++) {
		const struct ct_folded_stack *s = &stacks[i];
		for (size_t k = 0; k < s->num_frames; k++)
			fprintf(out, "%s%s", k ? ";" : "", s->frames[k]);
		if (!s->num_frames)
			fputs("[no frames]", out);
		fprintf(out, " %llu\n", s->count);
	}
	return ferror(out) ? -1 : 0;
}
