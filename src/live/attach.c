// Stopping every thread of a live process and letting it go again. PTRACE_SEIZE (not ATTACH) so
// that no SIGSTOP is sent: a thread stops at our PTRACE_INTERRUPT only, and a group stop the process
// was in stays its own. Clones are followed (PTRACE_O_TRACECLONE), and /proc/PID/task is read again
// until it names no thread we have not seized: a thread made by one not yet seized appears there.
// Every exit path detaches; should coretriage die instead, the kernel detaches (and wakes) the
// threads itself (tests/live/check_live.py kills it while the process is held stopped).
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live/internal.h"
#include "util/cleanup.h"
#include "util/grow.h"

/** Rounds of /proc/PID/task reads: each seizes the threads the previous round's ones made. */
#define MAX_ROUNDS 64

uint64_t ct_live_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct ct_live_tracee *find(struct ct_live_attach *a, int tid)
{
	for (size_t i = a->n; i-- > 0;)
		if (a->t[i].tid == tid)
			return &a->t[i];
	return NULL;
}

static struct ct_live_tracee *add(struct ct_live_attach *a, int tid)
{
	if (!CT_GROW(a->t, a->cap, a->n + 1, 64, CT_LIVE_MAX_THREADS))
		return NULL;
	struct ct_live_tracee *t = &a->t[a->n++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

// A thread that is already traced by us (auto-attached by TRACECLONE before we saw its clone
// event) refuses PTRACE_SEIZE with EPERM: /proc says whose tracee it is.
static int tracer_of(int pid, int tid)
{
	_cleanup_free_ char *text = ct_live_read_proc(pid, tid, "status", 65536, NULL);
	const char *p = text ? strstr(text, "\nTracerPid:") : NULL;
	return p ? atoi(p + 11) : 0;
}

// One wait status of a tracee: stopped (interrupt, group stop, clone event, signal delivery) or gone.
static struct ct_error *on_status(struct ct_live_attach *a, struct ct_live_tracee *t, int status)
{
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		t->gone = true;
		t->stopped = false;
		return NULL;
	}
	if (!WIFSTOPPED(status))
		return NULL;
	t->stopped = true;
	int event = status >> 16;
	if (event == PTRACE_EVENT_CLONE) {
		// Stopped at the clone: the new thread is ours already and reports its own stop.
		unsigned long child = 0;
		if (ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &child) == 0 && child && !find(a, (int)child)) {
			struct ct_live_tracee *c = add(a, (int)child);
			if (!c)
				return &ct_enomem;
			// Auto-attached by PTRACE_O_TRACECLONE: it reports a PTRACE_EVENT_STOP of its own.
			c->seized = c->interrupted = true;
		}
	} else if (event == 0 && WSTOPSIG(status) != SIGTRAP) {
		// A signal-delivery-stop: the signal is given back at detach, else it would be lost.
		t->pending_signal = WSTOPSIG(status);
	}
	return NULL;
}

// Waits until every seized thread is stopped or gone, at most until @p deadline_ns.
static struct ct_error *wait_stopped(struct ct_live_attach *a, uint64_t deadline_ns)
{
	unsigned idle = 0;
	for (;;) {
		bool waiting = false, progress = false;
		for (size_t i = 0; i < a->n; i++) {
			struct ct_live_tracee *t = &a->t[i];
			if (!t->seized || t->stopped || t->gone)
				continue;
			int status;
			pid_t r = waitpid(t->tid, &status, __WALL | WNOHANG);
			if (r == t->tid) {
				// a->t may move when a clone adds a thread.
				struct ct_error *err = on_status(a, &a->t[i], status);
				if (err)
					return err;
				progress = true;
			} else if (r < 0 && errno == ECHILD) {
				t->gone = true;
				progress = true;
			} else {
				waiting = true;
			}
		}
		if (!waiting)
			return NULL;
		if (ct_live_now_ns() > deadline_ns)
			return NULL;
		if (progress) {
			idle = 0;
			continue;
		}
		// Most threads stop within microseconds: yield the CPU to them first (a sleep of ours may take
		// milliseconds to end on a busy machine), then back off from 10 µs to 1 ms for the rest.
		if (idle < 64) {
			sched_yield();
		} else {
			unsigned k = idle - 64;
			struct timespec ts = { 0, (long)(k < 7 ? 10000u << k : 1000000u) };
			nanosleep(&ts, NULL);
		}
		idle++;
	}
}

static struct ct_error *seize(struct ct_live_attach *a, int tid, bool *seized_new)
{
	*seized_new = false;
	if (ptrace(PTRACE_SEIZE, tid, 0, (void *)(long)PTRACE_O_TRACECLONE) != 0) {
		int e = errno;
		if (e == ESRCH)
			return NULL; // exited in between: not a thread any more
		if (e == EPERM && tracer_of(a->pid, tid) == getpid()) {
			struct ct_live_tracee *t = find(a, tid) ? find(a, tid) : add(a, tid);
			if (!t)
				return &ct_enomem;
			t->seized = t->interrupted = true; // auto-attached: it stops by itself
			return NULL;
		}
		int other = e == EPERM ? tracer_of(a->pid, tid) : 0;
		if (other)
			return ct_error_create(CT_ERROR_OS, "cannot attach to process %d: it is traced already by process %d "
						"(a debugger or strace); detach that first", a->pid, other);
		if (e == EPERM)
			return ct_live_permission_error(a->pid);
		return ct_error_os(e, "cannot attach to thread %d of process %d", tid, a->pid);
	}
	struct ct_live_tracee *t = find(a, tid) ? find(a, tid) : add(a, tid);
	if (!t)
		return &ct_enomem;
	t->seized = true;
	*seized_new = true;
	return NULL;
}

// Stops every thread seized and not yet interrupted. Seizing does not stop a thread: all of a
// round's threads are seized first, so that the stop is only the interrupts, not the attaches too.
static void interrupt_seized(struct ct_live_attach *a)
{
	for (size_t i = 0; i < a->n; i++) {
		struct ct_live_tracee *t = &a->t[i];
		if (!t->seized || t->interrupted || t->gone)
			continue;
		if (!a->stop_start_ns)
			a->stop_start_ns = ct_live_now_ns();
		t->interrupted = true;
		if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) != 0 && errno == ESRCH)
			t->gone = true;
	}
}

struct ct_error *ct_live_attach_all(int pid, struct ct_live_attach *a)
{
	memset(a, 0, sizeof(*a));
	a->pid = pid;
	struct ct_error *err = NULL;
	bool any_new = true;
	// One deadline for all rounds: a thread in uninterruptible sleep delays the stop only once.
	uint64_t deadline = ct_live_now_ns() + (uint64_t)CT_LIVE_STOP_TIMEOUT_MS * 1000000u;
	for (unsigned round = 0; round < MAX_ROUNDS && any_new && !err; round++) {
		int *tids = NULL;
		size_t n = 0;
		err = ct_live_list_tasks(pid, CT_LIVE_MAX_THREADS, &tids, &n);
		if (err && a->n) {
			// The whole process went away while being attached.
			ct_error_destroy(err);
			err = ct_error_create(CT_ERROR_NOT_FOUND, "process %d exited while being attached", pid);
		}
		any_new = false;
		for (size_t i = 0; i < n && !err; i++) {
			if (find(a, tids[i]))
				continue;
			bool fresh;
			err = seize(a, tids[i], &fresh);
			any_new |= fresh;
		}
		free(tids);
		// Threads seized in this round report their stops (and clones) before the next listing.
		if (!err) {
			interrupt_seized(a);
			err = wait_stopped(a, deadline);
		}
	}
	if (!err) {
		bool alive = false;
		for (size_t i = 0; i < a->n; i++)
			alive |= a->t[i].stopped && !a->t[i].gone;
		if (!alive)
			err = ct_error_create(CT_ERROR_NOT_FOUND, "process %d exited while being attached", pid);
	}
	if (err)
		ct_live_detach_all(a);
	return err;
}

uint64_t ct_live_detach_all(struct ct_live_attach *a)
{
	// A thread seized but not yet stopped cannot be detached: interrupt it and wait a little more
	// (it is running meanwhile, so nothing is held; the kernel detaches it when coretriage exits).
	bool pending = false;
	for (size_t i = 0; i < a->n; i++)
		pending |= a->t[i].seized && !a->t[i].stopped && !a->t[i].gone;
	if (pending) {
		interrupt_seized(a);
		struct ct_error *err = wait_stopped(a, ct_live_now_ns() + 100u * 1000000u);
		ct_error_destroy(err);
	}
	for (size_t i = 0; i < a->n; i++) {
		struct ct_live_tracee *t = &a->t[i];
		if (t->seized && t->stopped && !t->gone)
			ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)t->pending_signal);
		t->seized = t->stopped = false;
	}
	uint64_t elapsed = a->stop_start_ns ? ct_live_now_ns() - a->stop_start_ns : 0;
	free(a->t);
	a->t = NULL;
	a->n = a->cap = 0;
	a->stop_start_ns = 0;
	return elapsed;
}
