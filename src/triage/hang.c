// The hang analysis of a process core (docs/hangs.md): each thread's blocking call, the objects its
// futex belongs to and their recorded holders, the wait-for graph's cycles, and for the waits that
// form no cycle one line per contended lock, condition or call ("3 threads wait for mutex `journal`,
// held by thread 4711, which is in nanosleep in slow_flush").
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modules/modules.h"
#include "triage/hang.h"
#include "triage/triage.h"

/** Summary lines kept (one per contended object or blocking call). */
#define MAX_SUMMARIES 32
/** Cycle members whose frames are searched for the lock they hold (a DWARF walk each). */
#define MAX_FRAME_NAMED 64
/** Thread ids listed in one summary line. */
#define MAX_LISTED 8

static const char *lock_label(struct ct_verdict *r, const struct ct_lock *l)
{
	char buf[512];
	return ct_strpool_intern(r->strings, ct_hang_lock_label(&r->hang, (long)(l - r->hang.locks), buf, sizeof(buf)));
}

static void fmt_time(char *buf, size_t size, uint64_t ns)
{
	if (ns % 1000000000ULL == 0)
		snprintf(buf, size, "%" PRIu64 " s", (uint64_t)(ns / 1000000000ULL));
	else if (ns >= 1000000ULL)
		snprintf(buf, size, "%.3f s", (double)ns / 1e9);
	else
		snprintf(buf, size, "%" PRIu64 " ns", ns);
}

/** The one-line text of a wait: "futex_wait on 0x… <accounts>", "read(fd 0)", "nanosleep(5 s)". */
static const char *wait_text(struct ct_verdict *r, const struct ct_wait *w)
{
	char args[160] = "";
	size_t used = 0;
#define ADD(...)                                                                                     \
	do {                                                                                         \
		if (used < sizeof(args))                                                            \
			used += (size_t)snprintf(args + used, sizeof(args) - used, __VA_ARGS__);    \
	} while (0)
	if (w->operation) {
		const struct ct_lock *l = w->lock >= 0 ? &r->hang.locks[w->lock] : NULL;
		const char *name = l && l->name ? l->name : NULL;
		char t[48] = "";
		if (w->has_duration) {
			char d[32];
			fmt_time(d, sizeof(d), w->duration_ns);
			snprintf(t, sizeof(t), w->absolute ? " (with a deadline)" : " (timeout %s)", d);
		}
		if (!w->has_address)
			return ct_strpool_printf(r->strings, "futex_%s%s", w->operation, t);
		return ct_strpool_printf(r->strings, "futex_%s on 0x%" PRIx64 "%s%s%s%s", w->operation, w->address, name ? " <" : "",
					name ? name : "", name ? ">" : "", t);
	}
	if (w->has_fd)
		ADD("fd %d", w->fd);
	if (w->has_pid)
		ADD("%spid %" PRId64, used ? ", " : "", w->pid);
	if (w->has_timeout_ms) {
		if (w->timeout_ms < 0)
			ADD("%sno timeout", used ? ", " : "");
		else
			ADD("%stimeout %" PRId64 " ms", used ? ", " : "", w->timeout_ms);
	}
	if (w->has_duration) {
		char d[32];
		fmt_time(d, sizeof(d), w->duration_ns);
		if (w->absolute)
			ADD("%suntil a deadline", used ? ", " : "");
		else
			ADD("%s%s", used ? ", " : "", d);
	}
#undef ADD
	return used ? ct_strpool_printf(r->strings, "%s(%s)", w->syscall, args) : ct_strpool_intern(r->strings, w->syscall);
}

/** "which is in nanosleep(5 s) in slow_flush" / "which is running" / "which is not in the dump". */
static const char *holder_state(const struct ct_triage_input *s, const struct ct_verdict *v, const struct ct_lock *l)
{
	struct ct_strpool *strings = s->out.strings;
	if (!l->owner_in_dump)
		return "which is not a thread of the dump (it exited holding it?)";
	const struct ct_thread *h = ct_stacks_find(s->stacks, l->owner);
	if (!h)
		return "";
	const struct ct_wait *hw = &v->waits[h - s->stacks->items];
	const char *fn = hw->present ? hw->function : NULL;
	if (!fn) {
		long own = ct_waitstate_own_frame(s->mods, h);
		fn = own >= 0 ? h->frames[own].function : NULL;
	}
	if (hw->present)
		return ct_strpool_printf(strings, "which is blocked in %s%s%s", hw->text, fn ? " in " : "", fn ? fn : "");
	return ct_strpool_printf(strings, "which is not in a blocking call%s%s", fn ? ", in " : "", fn ? fn : "");
}

void ct_hang_add_summary(struct ct_verdict *r, const char *line)
{
	struct ct_hang *h = &r->hang;
	if (!line || h->num_summaries >= MAX_SUMMARIES)
		return;
	if (!h->summaries) {
		h->summaries = calloc(MAX_SUMMARIES, sizeof(*h->summaries));
		if (!h->summaries)
			return;
	}
	h->summaries[h->num_summaries++] = line;
}

/** " (threads 12, 13, 14)": the waiters of lock @p index. */
static const char *waiter_list(struct ct_verdict *r, const struct ct_stacks *st, long index)
{
	char buf[160];
	size_t used = 0, listed = 0, total = 0;
	buf[0] = 0;
	for (size_t i = 0; i < st->count; i++) {
		const struct ct_wait *w = &r->waits[i];
		if (!w->present || w->lock != index)
			continue;
		total++;
		if (listed < MAX_LISTED && used < sizeof(buf)) {
			used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%d", listed ? ", " : "", st->items[i].tid);
			listed++;
		}
	}
	return ct_strpool_printf(r->strings, "%s %s%s", total == 1 ? "thread" : "threads", buf, listed < total ? ", …" : "");
}


/** Two non-futex waits in the same call from the same function (arguments aside). */
static bool same_call(const struct ct_wait *a, const struct ct_wait *b)
{
	if (!a->present || a->operation || !b->present || b->operation || strcmp(a->syscall, b->syscall) != 0)
		return false;
	return a->function == b->function || (a->function && b->function && !strcmp(a->function, b->function));
}

static void summarize_locks(const struct ct_triage_input *s, struct ct_verdict *r)
{
	const struct ct_stacks *st = s->stacks;
	struct ct_hang *h = &r->hang;
	int *ctids = calloc(h->num_members ? h->num_members : 1, sizeof(int));
	size_t nc = 0;
	for (size_t i = 0; ctids && i < h->num_members; i++)
		ctids[nc++] = h->members[i].tid;
	if (ctids)
		ct_tids_sort(ctids, nc);
	for (size_t i = 0; i < h->num_locks && h->num_summaries < MAX_SUMMARIES; i++) {
		const struct ct_lock *l = &h->locks[i];
		// Locks of a cycle are told by the cycle, unless threads outside it queue for them too.
		if (l->has_owner && ct_tids_contain(ctids, nc, l->owner)) {
			bool all = true;
			for (size_t j = 0; j < st->count && all; j++) {
				const struct ct_wait *w = &r->waits[j];
				if (w->present && w->lock == (long)i && !ct_tids_contain(ctids, nc, st->items[j].tid))
					all = false;
			}
			if (all)
				continue;
		}
		const char *who = waiter_list(r, st, (long)i);
		const char *label = lock_label(r, l);
		const char *verb = l->num_waiters == 1 ? "thread waits" : "threads wait";
		const char *line;
		if (l->kind == CT_LOCK_GO_RUNTIME) {
			line = ct_strpool_printf(r->strings, "%zu %s in the Go runtime (%s): an M parked on %s (runtime.futexsleep), "
						"not a lock of the program", l->num_waiters,
						l->num_waiters == 1 ? "thread idles" : "threads idle", who, label);
		} else if (l->kind == CT_LOCK_CONDITION || l->kind == CT_LOCK_SEMAPHORE) {
			line = ct_strpool_printf(r->strings, "%zu %s on %s (%s): idle until signalled", l->num_waiters, verb, label, who);
		} else if (l->kind == CT_LOCK_THREAD && l->has_owner) {
			line = ct_strpool_printf(r->strings, "%s %s for thread %d to exit (pthread_join), %s", who,
						l->num_waiters == 1 ? "waits" : "wait", l->owner, holder_state(s, r, l));
		} else if (l->has_owner) {
			line = ct_strpool_printf(r->strings, "%zu %s for %s (%s), held by thread %d%s, %s", l->num_waiters, verb, label,
						who, l->owner, l->owner_died ? " (owner died)" : "", holder_state(s, r, l));
		} else {
			line = ct_strpool_printf(r->strings, "%zu %s for %s (%s), holder unknown: %s", l->num_waiters, verb, label, who,
						l->note ? l->note : "no owner recorded");
		}
		ct_hang_add_summary(r, line);
	}
	free(ctids);
	// Blocking calls other than futex waits, one line per call and waiting function.
	for (size_t i = 0; i < st->count && h->num_summaries < MAX_SUMMARIES; i++) {
		const struct ct_wait *w = &r->waits[i];
		if (!w->present || w->operation)
			continue;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = same_call(&r->waits[j], w);
		if (seen)
			continue;
		size_t count = 0;
		char buf[160];
		size_t used = 0, listed = 0;
		buf[0] = 0;
		for (size_t j = i; j < st->count; j++) {
			if (!same_call(&r->waits[j], w))
				continue;
			count++;
			if (listed < MAX_LISTED && used < sizeof(buf)) {
				used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%d", listed ? ", " : "",
							 st->items[j].tid);
				listed++;
			}
		}
		ct_hang_add_summary(r, ct_strpool_printf(r->strings, "%zu %s blocked in %s%s%s (%s %s%s)", count,
						count == 1 ? "thread" : "threads", w->syscall, w->function ? " in " : "",
						w->function ? w->function : "", count == 1 ? "thread" : "threads", buf,
						listed < count ? ", …" : ""));
	}
}

static void build_cycles(const struct ct_triage_input *s, struct ct_verdict *r)
{
	const struct ct_stacks *st = s->stacks;
	struct ct_hang *h = &r->hang;
	size_t n = st->count;
	struct ct_wg_thread *wt = calloc(n ? n : 1, sizeof(*wt));
	struct ct_wg_lock *wl = calloc(h->num_locks ? h->num_locks : 1, sizeof(*wl));
	struct ct_wg_result res = { 0 };
	if (wt && wl) {
		for (size_t i = 0; i < n; i++)
			wt[i] = (struct ct_wg_thread){ st->items[i].tid, r->waits[i].present ? r->waits[i].lock : -1 };
		for (size_t i = 0; i < h->num_locks; i++) {
			const struct ct_lock *l = &h->locks[i];
			// Recursive and error-checking mutexes never block their own holder.
			wl[i] = (struct ct_wg_lock){ l->has_owner, l->owner,
						      l->mutex_type == CT_MUTEX_TYPE_RECURSIVE ||
							      l->mutex_type == CT_MUTEX_TYPE_ERROR_CHECKING };
		}
		if (ct_waitgraph_cycles(wt, n, wl, h->num_locks, &res) && res.num_cycles) {
			h->members = calloc(res.num_order, sizeof(*h->members));
			if (h->members) {
				for (size_t k = 0; k < res.num_order; k++) {
					const struct ct_wait *w = &r->waits[res.order[k]];
					h->members[k] = (struct ct_cycle_member){ st->items[res.order[k]].tid, w->lock, w->function,
										   NULL };
				}
				h->num_members = res.num_order;
				// Where each member holds its lock, when its own frame refers to it.
				for (size_t q = 0; q < res.num_cycles; q++) {
					const struct ct_cycle *c = &res.cycles[q];
					for (size_t k = c->start; k < c->start + c->length && k < MAX_FRAME_NAMED; k++) {
						size_t prev = c->start + (k - c->start + c->length - 1) % c->length;
						long held = h->members[prev].lock;
						const struct ct_thread *t = &st->items[res.order[k]];
						if (held >= 0 && (size_t)held < h->num_locks)
							h->members[k].holds_as = ct_lock_name_from_frame(
								s, t, r->waits[res.order[k]].frame, h->locks[held].address);
					}
				}
				h->cycles = res.cycles; // ownership moves to the report
				h->num_cycles = res.num_cycles;
				res.cycles = NULL;
			}
		}
	}
	ct_wg_result_deinit(&res);
	free(wt);
	free(wl);
}

// The threads' part: blocking calls, futex objects and owners, cycles, summaries.
static void analyze_threads(const struct ct_triage_input *s, struct ct_verdict *r)
{
	const struct ct_stacks *st = s->stacks;
	if (!s->core->arch)
		return;
	ct_waitstate_decode(s, r);
	if (!r->waits)
		return;
	unsigned major = 0, minor = 0;
	if (ct_glibc_version(s->mods, &major, &minor))
		r->hang.glibc = ct_strpool_printf(r->strings, "%u.%u", major, minor);
	ct_locks_build(s, ct_glibc_layout_find(s->core->arch->name, major, minor), r);
	bool any = false;
	for (size_t i = 0; i < st->count; i++) {
		struct ct_wait *w = &r->waits[i];
		if (w->present) {
			w->text = wait_text(r, w);
			any = true;
		}
	}
	if (!any)
		return;
	r->hang.present = true;
	build_cycles(s, r);
	summarize_locks(s, r);
}

void ct_hang_analyze(const struct ct_triage_input *s, struct ct_verdict *r)
{
	// Go's goroutines first: in a Go process they, not its Ms' futex waits, say what hangs.
	ct_go_hang_analyze(s, r);
	analyze_threads(s, r);
	if (r->hang.go.present)
		r->hang.present = true;
}

const char *ct_hang_signature(struct ct_verdict *r)
{
	const struct ct_hang *h = &r->hang;
	if (!h->num_cycles)
		return NULL;
	// The first cycle, as "function@lock" per member, rotated to start at the smallest key: the same
	// deadlock gives the same text whatever the tids and addresses of the run.
	const struct ct_cycle *c = &h->cycles[0];
	char keys[16][160];
	size_t n = c->length < 16 ? c->length : 16;
	for (size_t k = 0; k < n; k++) {
		const struct ct_cycle_member *m = &h->members[c->start + k];
		const struct ct_lock *l = m->lock >= 0 ? &h->locks[m->lock] : NULL;
		snprintf(keys[k], sizeof(keys[k]), "%s@%s", m->function ? m->function : "??",
			 l && l->name ? l->name : l ? ct_lock_kind_to_string(l->kind) : "?");
	}
	size_t best = 0;
	for (size_t k = 1; k < n; k++) {
		if (strcmp(keys[k], keys[best]) < 0)
			best = k;
	}
	char text[1024];
	size_t used = (size_t)snprintf(text, sizeof(text), "deadlock%s", c->length == 1 ? "/self-deadlock" : "");
	for (size_t k = 0; k < n && used < sizeof(text); k++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, "|%s", keys[(best + k) % n]);
	return ct_strpool_intern(r->strings, text);
}

const char *ct_hang_blocked_in(const struct ct_triage_input *s, const struct ct_verdict *v)
{
	int tid = s->crashed ? s->crashed->tid : s->core->num_threads ? s->core->threads[0].tid : 0;
	const struct ct_thread *t = ct_stacks_find(s->stacks, tid);
	const struct ct_wait *w = t && v->waits ? &v->waits[t - s->stacks->items] : NULL;
	return w && w->present ? w->text : NULL;
}
