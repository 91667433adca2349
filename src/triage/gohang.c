// The hang analysis of a Go process (docs/hangs.md "Go"): its goroutines, read by the runtime
// stage, counted by what they wait in; the sync.Mutex and sync.RWMutex waits grouped by the lock;
// and whether any goroutine can still run. sync's locks record no holder, so none is named: a lock
// is said to be unreleasable only when no goroutine is running or runnable, and the goroutines
// that an outside event may still wake (a system call, a sleep, an IO wait) are said.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "triage/facts.h"
#include "triage/hang.h"

/** Distinct (wait reason, sync call) pairs counted; more are counted as "other". */
#define MAX_COUNTS 64
/** Locks reported (each a summary line). */
#define MAX_LOCKS 16
/** Characters of the counts line before it is cut with "…". */
#define COUNTS_LINE 480

static bool can_run(const struct ct_goroutine *g)
{
	return g->status == CT_GO_RUNNING || g->status == CT_GO_RUNNABLE || g->status == CT_GO_PREEMPTED;
}

// Parked, but woken by the kernel or a timer rather than by another goroutine (runtime2.go's
// waitReasonSleep, waitReasonIOWait; a goroutine in a system call returns by itself).
static bool may_wake(const struct ct_goroutine *g)
{
	return g->status == CT_GO_SYSCALL ||
	       (g->wait && (strcmp(g->wait, "sleep") == 0 || strcmp(g->wait, "IO wait") == 0));
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static void count_wait(struct ct_go_hang *h, const struct ct_goroutine *g, struct ct_strpool *strings)
{
	const char *wait = g->wait ? g->wait : ct_go_status_to_string(g->status);
	const char *sync = g->sync && !same(g->sync, wait) ? g->sync : NULL;
	for (size_t j = 0; j < h->num_counts; j++) {
		if (same(h->counts[j].wait, wait) && same(h->counts[j].sync, sync)) {
			h->counts[j].count++;
			return;
		}
	}
	if (h->num_counts == MAX_COUNTS - 1) {
		// The last slot takes every further kind.
		wait = "other";
		sync = NULL;
		if (same(h->counts[h->num_counts - 1].wait, wait)) {
			h->counts[h->num_counts - 1].count++;
			return;
		}
	}
	if (h->num_counts >= MAX_COUNTS)
		return;
	h->counts[h->num_counts++] = (struct ct_go_wait_count){ ct_strpool_intern(strings, wait),
								sync ? ct_strpool_intern(strings, sync) : NULL, 1 };
}

static void add_lock_waiter(struct ct_go_hang *h, const struct ct_goroutine *g, struct ct_strpool *strings)
{
	if (!g->has_object) {
		h->num_lock_unknown++;
		return;
	}
	struct ct_go_lock *l = NULL;
	for (size_t j = 0; j < h->num_locks && !l; j++) {
		if (h->locks[j].address == g->object && same(h->locks[j].kind, g->sync_object) && same(h->locks[j].sync, g->sync))
			l = &h->locks[j];
	}
	if (!l) {
		if (h->num_locks >= MAX_LOCKS)
			return;
		l = &h->locks[h->num_locks++];
		*l = (struct ct_go_lock){ .kind = ct_strpool_intern(strings, g->sync_object), .address = g->object,
					  .sync = ct_strpool_intern(strings, g->sync) };
	}
	if (l->num_waiters < CT_GO_HANG_LISTED)
		l->waiters[l->num_waiters] = g->id;
	l->num_waiters++;
}

static int by_count(const void *a, const void *b)
{
	const struct ct_go_wait_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	int c = strcmp(x->wait, y->wait);
	return c ? c : strcmp(x->sync ? x->sync : "", y->sync ? y->sync : "");
}

static int by_waiters(const void *a, const void *b)
{
	const struct ct_go_lock *x = a, *y = b;
	if (x->num_waiters != y->num_waiters)
		return x->num_waiters > y->num_waiters ? -1 : 1;
	return x->address < y->address ? -1 : x->address > y->address;
}

/** "goroutines 8, 9, 10, …" of @p n goroutines whose first ids are @p ids. */
static const char *id_list(struct ct_strpool *strings, const int64_t *ids, size_t n)
{
	char buf[200];
	size_t used = 0, shown = n < CT_GO_HANG_LISTED ? n : CT_GO_HANG_LISTED;
	buf[0] = '\0';
	for (size_t i = 0; i < shown && used < sizeof(buf); i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%" PRId64, i ? ", " : "", ids[i]);
	return ct_strpool_printf(strings, "%s %s%s", n == 1 ? "goroutine" : "goroutines", buf, shown < n ? ", …" : "");
}

const char *ct_go_hang_counts_text(struct ct_strpool *strings, const struct ct_go_hang *h)
{
	char buf[COUNTS_LINE + 64];
	size_t used = 0;
	buf[0] = '\0';
	for (size_t j = 0; j < h->num_counts; j++) {
		const struct ct_go_wait_count *c = &h->counts[j];
		if (used >= COUNTS_LINE) {
			snprintf(buf + used, sizeof(buf) - used, ", …");
			break;
		}
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%zu %s%s%s%s", j ? ", " : "", c->count,
					 c->sync ? c->sync : c->wait, c->sync ? " (" : "", c->sync ? c->wait : "",
					 c->sync ? ")" : "");
	}
	return ct_strpool_intern(strings, buf);
}

static void summarize(struct ct_verdict *r)
{
	const struct ct_go_hang *h = &r->hang.go;
	char buf[COUNTS_LINE + 64];
	size_t used = 0;
	ct_hang_add_summary(r, ct_strpool_printf(r->strings, "%zu goroutines: %s", h->goroutines,
						 ct_go_hang_counts_text(r->strings, h)));
	if (h->num_busy) {
		used = 0;
		buf[0] = '\0';
		size_t shown = h->num_busy < CT_GO_HANG_LISTED ? h->num_busy : CT_GO_HANG_LISTED;
		for (size_t i = 0; i < shown && used < sizeof(buf); i++)
			used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%sgoroutine %" PRId64 " (%s)%s%s", i ? ", " : "",
						 h->busy[i], h->busy_status[i], h->busy_in[i] ? " in " : "",
						 h->busy_in[i] ? h->busy_in[i] : "");
		ct_hang_add_summary(r, ct_strpool_printf(r->strings, "not a deadlock of goroutines: %zu %s can run (%s%s)",
							 h->num_busy, h->num_busy == 1 ? "goroutine" : "goroutines", buf,
							 shown < h->num_busy ? ", …" : ""));
	}
	if (!h->num_busy)
		ct_hang_add_summary(r, h->num_may_wake
					       ? ct_strpool_printf(r->strings,
								   "no goroutine is running or runnable: all %zu are parked, %zu of "
								   "them in a system call, a sleep or an IO wait (%s), which may still wake",
								   h->goroutines, h->num_may_wake,
								   id_list(r->strings, h->may_wake, h->num_may_wake))
					       : ct_strpool_printf(r->strings,
								   "no goroutine is running or runnable: all %zu are blocked, none in a "
								   "system call, a sleep or an IO wait",
								   h->goroutines));
	for (size_t j = 0; j < h->num_locks; j++) {
		const struct ct_go_lock *l = &h->locks[j];
		const char *who = id_list(r->strings, l->waiters, l->num_waiters);
		const char *what = l->name ? ct_strpool_printf(r->strings, "%s `%s` (0x%" PRIx64 ")", l->kind, l->name, l->address)
					   : ct_strpool_printf(r->strings, "%s at 0x%" PRIx64, l->kind, l->address);
		const char *release = h->num_busy ? ""
				      : h->num_may_wake
					      ? ": no running or runnable goroutine can release it"
					      : ct_strpool_printf(r->strings, ": no goroutine can release it: all %zu are blocked",
								  h->goroutines);
		ct_hang_add_summary(r, ct_strpool_printf(r->strings, "%zu %s for %s in %s (%s)%s; %s does not record its holder",
							 l->num_waiters,
							 l->num_waiters == 1 ? "goroutine waits" : "goroutines wait", what,
							 l->sync, who, release, l->kind));
	}
	if (h->num_lock_unknown)
		ct_hang_add_summary(r, ct_strpool_printf(r->strings,
							 "%zu %s in sync.Mutex or sync.RWMutex calls whose lock is not known (the "
							 "semaphore runtime.semacquire1 waits on was not read)",
							 h->num_lock_unknown, h->num_lock_unknown == 1 ? "goroutine waits" : "goroutines wait"));
}

void ct_go_hang_analyze(const struct ct_triage_input *s, struct ct_verdict *r)
{
	const struct ct_runtime *rt = s->runtime;
	if (!rt || !rt->present || !rt->language || strcmp(rt->language, "go") != 0 || !rt->num_goroutines)
		return;
	// A goroutine that crashed the process (a panic, a fault) is the story, not the others' waits.
	for (size_t k = 0; k < rt->num_goroutines; k++) {
		if (rt->goroutines[k].crashed)
			return;
	}
	struct ct_go_hang *h = &r->hang.go;
	h->counts = calloc(MAX_COUNTS, sizeof(*h->counts));
	h->locks = calloc(MAX_LOCKS, sizeof(*h->locks));
	if (!h->counts || !h->locks) {
		free(h->counts);
		free(h->locks);
		*h = (struct ct_go_hang){ 0 };
		return;
	}
	for (size_t k = 0; k < rt->num_goroutines; k++) {
		const struct ct_goroutine *g = &rt->goroutines[k];
		if (g->status == CT_GO_DEAD)
			continue;
		h->goroutines++;
		count_wait(h, g, r->strings);
		if (can_run(g)) {
			if (h->num_busy < CT_GO_HANG_LISTED) {
				const struct ct_runtime_frame *own = ct_goroutine_own_frame(g);
				h->busy[h->num_busy] = g->id;
				h->busy_status[h->num_busy] = ct_go_status_to_string(g->status);
				h->busy_in[h->num_busy] =
					own ? own->file ? ct_strpool_printf(r->strings, "%s (%s:%d)", own->function, own->file, own->line)
							: own->function
					    : NULL;
			}
			h->num_busy++;
		} else if (may_wake(g)) {
			if (h->num_may_wake < CT_GO_HANG_LISTED)
				h->may_wake[h->num_may_wake] = g->id;
			h->num_may_wake++;
		}
		if (g->sync_object)
			add_lock_waiter(h, g, r->strings);
	}
	qsort(h->counts, h->num_counts, sizeof(*h->counts), by_count);
	qsort(h->locks, h->num_locks, sizeof(*h->locks), by_waiters);
	for (size_t j = 0; j < h->num_locks; j++)
		h->locks[j].name = ct_lock_name(s, h->locks[j].address, false);
	h->present = true;
	summarize(r);
}
