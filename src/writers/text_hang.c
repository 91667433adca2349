// The "Waiting" section of the text report: each blocked thread with its call, the object it waits
// for and that object's holder, then the deadlock cycles and the contention and idle summaries.
#include <inttypes.h>
#include <string.h>

#include "writers/hang_writers.h"
#include "writers/sanitize.h"

/** Threads listed in the section before "… N more". */
#define MAX_LISTED_THREADS 64

/** Untrusted text (names from the dump) under the output's rule (writers/sanitize.h). */
static void put_safe(FILE *out, const char *s, enum ct_text_rule rule)
{
	ct_text_put(out, s, rule, SIZE_MAX);
}

void ct_text_thread_wait(FILE *out, const struct ct_thread *t)
{
	if (!t->wait.present || !t->wait.text)
		return;
	fputs("  blocked in: ", out);
	put_safe(out, t->wait.text, CT_TEXT_TERMINAL);
	if (t->wait.function) {
		fputs(" in ", out);
		put_safe(out, t->wait.function, CT_TEXT_TERMINAL);
	}
	fputc('\n', out);
}

static void lock_state(FILE *out, const struct ct_report *r, long index, enum ct_text_rule rule)
{
	if (index < 0 || (size_t)index >= r->hang.num_locks)
		return;
	const struct ct_lock *l = &r->hang.locks[index];
	char label[256];
	if (l->kind == CT_LOCK_THREAD) {
		if (l->has_owner)
			fprintf(out, " -> exit of thread %d%s", l->owner, l->owner_in_dump ? "" : " (not in the dump)");
		else
			fputs(" -> exit of a thread that has exited", out);
		return;
	}
	fputs(" -> ", out);
	put_safe(out, ct_hang_lock_label(&r->hang, index, label, sizeof(label)), rule);
	if (l->type)
		fprintf(out, " (%s%s%s", l->type, l->robust ? ", robust" : "", l->priority_inherit ? ", priority-inherit" : "");
	if (l->type && l->has_count)
		fprintf(out, ", held %u times", l->count);
	if (l->type)
		fputc(')', out);
	if (l->has_owner) {
		fprintf(out, " held by thread %d (%s%s%s)", l->owner, l->owner_field ? l->owner_field : "",
			l->owner_in_dump ? "" : ", not in the dump", l->owner_died ? ", owner died" : "");
	} else if (l->note && l->kind != CT_LOCK_CONDITION && l->kind != CT_LOCK_SEMAPHORE) {
		fputs(": ", out);
		put_safe(out, l->note, rule);
	}
}

/** The section's lines (shared by text and the markdown code block). */
static void hang_lines(FILE *out, const struct ct_report *r, enum ct_text_rule rule)
{
	const struct ct_hang *h = &r->hang;
	char label[256];
	for (size_t k = 0; k < h->num_cycles; k++) {
		const struct ct_cycle *c = &h->cycles[k];
		fprintf(out, "  %s: ", c->length == 1 ? "self-deadlock" : "deadlock");
		for (size_t i = 0; i < c->length; i++) {
			const struct ct_cycle_member *m = &h->members[c->start + i];
			fprintf(out, "thread %d -> ", m->tid);
			put_safe(out, ct_hang_lock_label(&r->hang, m->lock, label, sizeof(label)), rule);
			fputs(" -> ", out);
		}
		fprintf(out, "thread %d\n", h->members[c->start].tid);
	}
	size_t listed = 0, blocked = 0;
	for (size_t i = 0; i < r->num_threads; i++) {
		const struct ct_thread *t = &r->threads[i];
		if (!t->wait.present)
			continue;
		blocked++;
		if (listed >= MAX_LISTED_THREADS)
			continue;
		listed++;
		fprintf(out, "  thread %d: ", t->tid);
		put_safe(out, t->wait.text, rule);
		if (t->wait.function) {
			fputs(" in ", out);
			put_safe(out, t->wait.function, rule);
		}
		lock_state(out, r, t->wait.lock, rule);
		fputc('\n', out);
	}
	if (blocked > listed)
		fprintf(out, "  … %zu more blocked threads\n", blocked - listed);
	for (size_t i = 0; i < h->num_summaries; i++) {
		fputs("  - ", out);
		put_safe(out, h->summaries[i], rule);
		fputc('\n', out);
	}
}

void ct_text_hang(FILE *out, const struct ct_report *r, const struct ct_write_options *o)
{
	if (!r->hang.present)
		return;
	const char *bold = o->color ? "\033[1m" : "", *reset = o->color ? "\033[0m" : "";
	fprintf(out, "\n%sWaiting%s", bold, reset);
	if (r->hang.glibc)
		fprintf(out, " (glibc %s layout)", r->hang.glibc);
	fputc('\n', out);
	hang_lines(out, r, CT_TEXT_TERMINAL);
}

void ct_markdown_hang(FILE *out, const struct ct_report *r)
{
	if (!r->hang.present)
		return;
	// A code block: the lines hold names from the dump, rendered with the fenced-block rule.
	fputs("\n#### Waiting\n\n~~~~\n", out);
	hang_lines(out, r, CT_TEXT_MD_BLOCK);
	fputs("~~~~\n", out);
}
