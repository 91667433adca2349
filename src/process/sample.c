// coretriage sample (sample.h): ticks at the rate, each a capture of registers and stacks only
// (src/live/, the process stopped for the copy and resumed), kept as small ELF core images in one
// memfd; then, with the process running free, one module set (from the first tick, which copies
// the ELF headers and writable memory too) unwinds every tick's threads. Each sample's stack is
// rooted at the thread's state as /proc said it just before the stop, so a flame graph shows time
// on a CPU and time waiting side by side.
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "arch/syscalls.h"
#include "dump/elfcore.h"
#include "live/live.h"
#include "modules/modules.h"
#include "modules/symbolize.h"
#include "process/sample.h"
#include "process/sample_futex.h"
#include "unwind/unwind.h"
#include "util/budget.h"
#include "util/grow.h"

/** Frames kept per sampled stack: deeper recursion is cut (the root side is what a profile shows). */
#define SAMPLE_MAX_FRAMES 512
/** Separates frames in a stack's merge key; replaced in names. */
#define KEY_SEP '\x1f'

/** One thread of a tick: its state as /proc said it, and the futex it waited on at the stop. */
struct tick_thread {
	char *root; /**< owned */
	struct ct_live_futex *futex; /**< owned; NULL when it was not in a futex wait */
};

struct tick {
	uint64_t offset, size; /**< the core image in the memfd */
	struct tick_thread *threads; /**< in the image's thread order; owned */
	size_t num_threads;
};

/** Distinct futex roots kept with their fields for the text summary, which shows the top few
 * (beyond: the root's name only). Each futex sample looks its root up among them. */
#define MAX_FUTEX_ROOTS 1024

struct futex_root {
	char *root; /**< owned */
	struct ct_profile_futex info;
};

/** The futex roots named while unwinding, looked up by merge() for the states. */
struct futex_roots {
	struct futex_root *items;
	size_t n, cap;
};

/** A thread's timed sleep at a tick, for the next tick's restart_syscall. */
struct sleep_call {
	int tid;
	enum ct_syscall sys;
};

static int compare_sleeps(const void *a, const void *b)
{
	const struct sleep_call *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

struct sampler {
	int fd; /**< memfd of the images */
	uint64_t end;
	struct tick *ticks;
	size_t num_ticks, cap_ticks;
	double stop_sum, stop_max;
	char command[17];
	/** The futex waits of the last tick, sorted by tid: the next tick's timed waits resumed through
	 * restart_syscall are found from them. Owned. */
	struct ct_live_futex_hint *hints;
	size_t num_hints;
	/** The timed sleeps of the last tick (nanosleep, clock_nanosleep, poll), sorted by tid: the
	 * kernel resumes an interrupted one through restart_syscall, which the next tick then names
	 * by it. Owned. */
	struct sleep_call *sleeps;
	size_t num_sleeps;
};

// The tick's futex waits become the hints of the next one (out of memory: no hints, only the
// timed waits' names are lost).
static void keep_hints(struct sampler *sm, const struct ct_live_snapshot *snap)
{
	sm->num_hints = 0;
	free(sm->hints);
	sm->hints = calloc(snap->num_threads ? snap->num_threads : 1, sizeof(*sm->hints));
	if (!sm->hints)
		return;
	for (size_t i = 0; i < snap->num_threads; i++) {
		const struct ct_live_futex *f = &snap->threads[i].futex;
		if (f->present)
			sm->hints[sm->num_hints++] = (struct ct_live_futex_hint){ snap->threads[i].tid, f->op, f->address };
	}
	ct_live_futex_hints_sort(sm->hints, sm->num_hints);
}

void ct_profile_free(struct ct_profile *p)
{
	for (size_t i = 0; i < p->num_stacks; i++) {
		for (size_t k = 0; k < p->stacks[i].num_frames; k++)
			free(p->stacks[i].frames[k]);
		free(p->stacks[i].frames);
	}
	free(p->stacks);
	for (size_t i = 0; i < p->num_states; i++)
		free(p->states[i].state);
	free(p->states);
	free(p->note);
	memset(p, 0, sizeof(*p));
}

static bool takes_fd(enum ct_syscall sys)
{
	return (sys >= CT_SYS_READ && sys <= CT_SYS_CONNECT) || sys == CT_SYS_EPOLL_WAIT || sys == CT_SYS_EPOLL_PWAIT ||
	       sys == CT_SYS_EPOLL_PWAIT2 || sys == CT_SYS_FLOCK || sys == CT_SYS_FCNTL;
}

// The call restart_syscall resumes in thread @p tid: its timed sleep at the last tick, or
// CT_SYS_RESTART_SYSCALL when the last tick saw none (it slept since before the first tick).
static enum ct_syscall resumed_sleep(const struct sampler *sm, int tid)
{
	const struct sleep_call key = { .tid = tid };
	const struct sleep_call *c =
		sm->num_sleeps ? bsearch(&key, sm->sleeps, sm->num_sleeps, sizeof(key), compare_sleeps) : NULL;
	return c ? c->sys : CT_SYS_RESTART_SYSCALL;
}

// The root frame of a thread's sample: "on-CPU", or what it waits in ("read(fd 3 → pipe:[1234])",
// "futex", "nanosleep"), or "uninterruptible (WCHAN)". *@p sys_ret: the call it is in, a resumed
// sleep by the call it resumes (CT_SYS_UNKNOWN when in none).
static char *root_of(const struct sampler *sm, const struct ct_arch_info *arch, const struct ct_live_thread *t,
		     enum ct_syscall *sys_ret)
{
	char *s = NULL;
	int n = -1;
	*sys_ret = CT_SYS_UNKNOWN;
	if (t->syscall == -1 || t->state == 'R') {
		n = asprintf(&s, "on-CPU");
	} else if (t->syscall >= 0) {
		enum ct_syscall sys = arch && arch->syscalls ? ct_syscall_lookup(arch->syscalls, *arch->num_syscalls,
										 (uint64_t)t->syscall, NULL)
							    : CT_SYS_UNKNOWN;
		// A sleep a tick interrupted goes on through restart_syscall: it is still that sleep.
		if (sys == CT_SYS_RESTART_SYSCALL)
			sys = resumed_sleep(sm, t->tid);
		*sys_ret = sys;
		const char *name = ct_syscall_to_string(sys);
		if (sys == CT_SYS_UNKNOWN)
			n = asprintf(&s, "syscall %ld", t->syscall);
		else if (takes_fd(sys) && t->fd_target[0])
			n = asprintf(&s, "%s(fd %" PRIu64 " → %s)", name, t->syscall_arg0, t->fd_target);
		else if (takes_fd(sys))
			n = asprintf(&s, "%s(fd %" PRIu64 ")", name, t->syscall_arg0);
		else
			n = asprintf(&s, "%s", name);
	} else if (t->state == 'D') {
		n = asprintf(&s, "uninterruptible (%s)", t->wchan[0] ? t->wchan : "?");
	} else {
		n = asprintf(&s, "state %c", t->state ? t->state : '?');
	}
	return n < 0 ? NULL : s;
}

static void free_ticks(struct sampler *sm)
{
	for (size_t i = 0; i < sm->num_ticks; i++) {
		for (size_t k = 0; k < sm->ticks[i].num_threads; k++) {
			free(sm->ticks[i].threads[k].root);
			free(sm->ticks[i].threads[k].futex);
		}
		free(sm->ticks[i].threads);
	}
	free(sm->ticks);
	free(sm->hints);
	free(sm->sleeps);
}

// One tick: capture, append its core image to the memfd, keep each thread's root frame.
static struct ct_error *take_tick(struct sampler *sm, int pid, bool first, struct ct_budget *budget)
{
	struct ct_live_snapshot snap;
	const struct ct_live_capture_options co = { .all_memory = first, .futex_words = true, .futex_hints = sm->hints,
						    .num_futex_hints = sm->num_hints };
	struct ct_error *err = ct_live_capture(pid, &co, budget, &snap);
	if (!err && snap.copy_capped)
		err = ct_error_create(CT_ERROR_LIMIT, "the copy budget ran out");
	if (err) {
		ct_live_snapshot_free(&snap);
		return err;
	}
	const struct ct_arch_info *arch = ct_arch_find(snap.e_machine, snap.elf_class);
	keep_hints(sm, &snap);
	if (first)
		memcpy(sm->command, snap.comm, sizeof(sm->command));
	struct tick t = { .offset = sm->end };
	t.threads = calloc(snap.num_threads ? snap.num_threads : 1, sizeof(*t.threads));
	if (!t.threads || !CT_GROW(sm->ticks, sm->cap_ticks, sm->num_ticks + 1, 64, 0)) {
		free(t.threads);
		ct_live_snapshot_free(&snap);
		return &ct_enomem;
	}
	struct sleep_call *sleeps = calloc(snap.num_threads ? snap.num_threads : 1, sizeof(*sleeps));
	size_t num_sleeps = 0;
	for (size_t i = 0; i < snap.num_threads; i++) {
		struct tick_thread *tt = &t.threads[t.num_threads++];
		enum ct_syscall sys;
		tt->root = root_of(sm, arch, &snap.threads[i], &sys);
		// The calls the kernel resumes through restart_syscall (their restart_block) besides a
		// timed futex wait, which keeps its name through the futex hints.
		if (sleeps && (sys == CT_SYS_NANOSLEEP || sys == CT_SYS_CLOCK_NANOSLEEP || sys == CT_SYS_POLL))
			sleeps[num_sleeps++] = (struct sleep_call){ snap.threads[i].tid, sys };
		// Only the futex waits keep their window: it is named after the unwinding.
		if (snap.threads[i].futex.present && (tt->futex = malloc(sizeof(*tt->futex))))
			*tt->futex = snap.threads[i].futex;
	}
	// Out of memory: no sleeps kept, and the next tick's resumed ones say restart_syscall.
	free(sm->sleeps);
	sm->sleeps = sleeps;
	sm->num_sleeps = sleeps ? num_sleeps : 0;
	if (sleeps)
		qsort(sleeps, num_sleeps, sizeof(*sleeps), compare_sleeps);
	err = ct_live_write_core(&snap, sm->fd, &t.size);
	sm->stop_sum += snap.stopped_ms;
	if (snap.stopped_ms > sm->stop_max)
		sm->stop_max = snap.stopped_ms;
	ct_live_snapshot_free(&snap);
	sm->end += t.size;
	sm->ticks[sm->num_ticks++] = t;
	if (!err)
		ct_budget_spend(budget, CT_BUDGET_TEMP, t.size);
	return err;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	uint64_t n = now_ns();
	if (t <= n)
		return;
	struct timespec ts = { (time_t)((t - n) / 1000000000u), (long)((t - n) % 1000000000u) };
	nanosleep(&ts, NULL);
}

// A frame's name in a stack: the function, else the module and offset, else the pc.
static char *frame_name(const struct ct_sym *sym, uint64_t pc)
{
	char *s = NULL;
	int n;
	if (sym && sym->function)
		n = asprintf(&s, "%s", sym->function);
	else if (sym && sym->module)
		n = asprintf(&s, "%s+0x%" PRIx64, sym->module, sym->offset);
	else
		n = asprintf(&s, "0x%" PRIx64, pc);
	if (n < 0)
		return NULL;
	for (char *p = s; *p; p++)
		if (*p == KEY_SEP)
			*p = '?';
	return s;
}

struct key_builder {
	char *buf;
	size_t len, cap;
};

static bool key_add(struct key_builder *k, const char *name, bool sep)
{
	size_t n = strlen(name) + 1;
	if (!CT_GROW(k->buf, k->cap, k->len + n + 1, 256, 0))
		return false;
	if (sep)
		k->buf[k->len++] = KEY_SEP;
	memcpy(k->buf + k->len, name, n - 1);
	k->len += n - 1;
	k->buf[k->len] = '\0';
	return true;
}

/** What the offline pass names a tick's futex waits with. */
struct futex_naming {
	const struct ct_glibc_layout *layout; /**< NULL: glibc's layout not known (no holders) */
	bool big_endian;
	unsigned pointer_size;
	const int *tids; /**< the tick's threads, sorted */
	size_t num_tids;
	struct futex_roots *roots;
};

/** Innermost frame names a futex wait's object is recognized from (glibc's waiting code). */
#define FUTEX_FRAMES 12

// The root of a futex wait, and its fields kept once per distinct root.
static char *futex_root_of(struct futex_naming *fn, const struct ct_live_futex *f, char **names, size_t n)
{
	struct ct_profile_futex info;
	char *root = ct_sample_futex_root(fn->layout, fn->big_endian, fn->pointer_size, f, (const char *const *)names,
					  n < FUTEX_FRAMES ? n : FUTEX_FRAMES, fn->tids, fn->num_tids, &info);
	if (!root)
		return NULL;
	struct futex_roots *r = fn->roots;
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->items[i].root, root))
			return root;
	if (r->n < MAX_FUTEX_ROOTS && CT_GROW(r->items, r->cap, r->n + 1, 16, 0)) {
		r->items[r->n].root = strdup(root);
		r->items[r->n].info = info;
		r->n += r->items[r->n].root != NULL;
	}
	return root;
}

// The merge key of one thread's sample: root, then the outermost frame … the innermost. The root is
// the tick's state, or for a futex wait what its object is (named from the frames found here).
static char *stack_key(struct ct_module_set *mods, struct ct_dwfl_walker *walker, const struct ct_core_thread *ct,
		       const struct tick_thread *tt, struct futex_naming *fn)
{
	struct ct_raw_stack raw = { 0 };
	if (ct->has_regs)
		ct_unwind_thread_dwfl(mods, walker, ct, SAMPLE_MAX_FRAMES, &raw);
	// Names innermost first (each inline chain innermost first, as ct_symbolize gives it).
	char **names = NULL;
	size_t n = 0, cap = 0;
	bool ok = true;
	for (size_t i = 0; ok && i < raw.count; i++) {
		const struct ct_raw_frame *rf = &raw.frames[i];
		uint64_t lookup = rf->exact || rf->pc == 0 ? rf->pc : rf->pc - 1;
		const struct ct_sym *syms = NULL;
		size_t ns = ct_symbolize(mods, lookup, &syms);
		for (size_t j = 0; ok && j < (ns ? ns : 1); j++) {
			ok = CT_GROW(names, cap, n + 1, 32, 0) && (names[n] = frame_name(ns ? &syms[j] : NULL, rf->pc));
			n += ok;
		}
	}
	ct_raw_stack_free(&raw);
	char *root = NULL;
	if (ok && tt && tt->futex)
		ok = (root = futex_root_of(fn, tt->futex, names, n)) != NULL;
	struct key_builder k = { 0 };
	ok = ok && key_add(&k, root ? root : tt && tt->root ? tt->root : "?", false);
	for (size_t i = n; ok && i-- > 0;)
		ok = key_add(&k, names[i], true);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(root);
	if (!ok) {
		free(k.buf);
		return NULL;
	}
	return k.buf;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int compare_stacks(const void *a, const void *b)
{
	const struct ct_profile_stack *x = a, *y = b;
	return x->count > y->count ? -1 : x->count < y->count;
}

static int compare_states(const void *a, const void *b)
{
	const struct ct_profile_state *x = a, *y = b;
	return x->count > y->count ? -1 : x->count < y->count;
}

// Sorted keys → distinct stacks with counts, and their roots → states with counts (a futex root
// with its fields from @p futexes).
static struct ct_error *merge(char **keys, size_t n, const struct futex_roots *futexes, struct ct_profile *out)
{
	if (n)
		qsort(keys, n, sizeof(keys[0]), compare_strings);
	size_t cap = 0, cap_states = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && !strcmp(keys[j], keys[i]))
			j++;
		if (!CT_GROW(out->stacks, cap, out->num_stacks + 1, 64, 0))
			return &ct_enomem;
		struct ct_profile_stack *s = &out->stacks[out->num_stacks++];
		memset(s, 0, sizeof(*s));
		s->count = j - i;
		size_t frames = 1;
		for (const char *p = keys[i]; *p; p++)
			frames += *p == KEY_SEP;
		s->frames = calloc(frames, sizeof(char *));
		if (!s->frames)
			return &ct_enomem;
		for (char *p = keys[i], *next; p; p = next) {
			next = strchr(p, KEY_SEP);
			size_t len = next ? (size_t)(next - p) : strlen(p);
			if (!(s->frames[s->num_frames++] = strndup(p, len)))
				return &ct_enomem;
			next = next ? next + 1 : NULL;
		}
		// The state is the root frame.
		size_t k = 0;
		while (k < out->num_states && strcmp(out->states[k].state, s->frames[0]))
			k++;
		if (k == out->num_states) {
			if (!CT_GROW(out->states, cap_states, out->num_states + 1, 16, 0))
				return &ct_enomem;
			struct ct_profile_state *st = &out->states[out->num_states++];
			memset(st, 0, sizeof(*st));
			st->state = strdup(s->frames[0]);
			st->on_cpu = !strcmp(s->frames[0], "on-CPU");
			if (!st->state)
				return &ct_enomem;
			for (size_t f = 0; f < futexes->n && !st->is_futex; f++) {
				if (!strcmp(futexes->items[f].root, st->state)) {
					st->is_futex = true;
					st->futex = futexes->items[f].info;
				}
			}
		}
		out->states[k].count += s->count;
		i = j;
	}
	if (out->num_stacks)
		qsort(out->stacks, out->num_stacks, sizeof(out->stacks[0]), compare_stacks);
	if (out->num_states)
		qsort(out->states, out->num_states, sizeof(out->states[0]), compare_states);
	return NULL;
}

// After the sampling: one module set from the first tick's image, then each tick's image swapped
// into the same struct ct_core (the module set and the walker read memory through it), its threads
// unwound and keyed.
static struct ct_error *unwind_ticks(const struct ct_options *opts, struct sampler *sm, struct ct_budget *budget,
				     struct ct_profile *out)
{
	if (!sm->num_ticks)
		return ct_error_create(CT_ERROR_NOT_FOUND, "no sample was taken");
	uint8_t *map = mmap(NULL, sm->end, PROT_READ, MAP_PRIVATE, sm->fd, 0);
	if (map == MAP_FAILED)
		return ct_error_os(errno, "mapping the samples");
	struct ct_core *core = NULL;
	struct ct_module_set mods = { 0 };
	struct ct_report scratch;
	char **keys = NULL;
	size_t num_keys = 0, cap_keys = 0;
	struct futex_roots futexes = { 0 };
	int *tids = NULL;
	struct ct_error *err = NULL;
	if (!ct_report_init(&scratch)) {
		err = &ct_enomem;
		goto out;
	}
	err = ct_core_open_memory(map + sm->ticks[0].offset, sm->ticks[0].size, opts->max_threads, &core);
	if (!err)
		err = ct_modules_load(opts, core, ct_report_sink(&scratch), budget, &mods);
	struct ct_dwfl_walker *walker = NULL;
	if (!err)
		err = ct_unwind_attach(&mods, &walker);
	struct futex_naming naming = { .roots = &futexes };
	if (!err) {
		unsigned major = 0, minor = 0;
		ct_glibc_version(&mods, &major, &minor);
		naming.layout = core->arch ? ct_glibc_layout_find(core->arch->name, major, minor) : NULL;
		naming.big_endian = core->big_endian;
		naming.pointer_size = core->arch ? core->arch->pointer_size : 8;
	}
	for (size_t i = 0; i < sm->num_ticks && !err; i++) {
		struct ct_core *tc = NULL;
		if (i) {
			err = ct_core_open_memory(map + sm->ticks[i].offset, sm->ticks[i].size, opts->max_threads, &tc);
			if (err)
				break;
			struct ct_core tmp = *core;
			*core = *tc;
			*tc = tmp;
			ct_unwind_memory_changed(walker);
		}
		// The tick's threads, for "owned by thread N, not in the process".
		free(tids);
		if (!(tids = calloc(core->num_threads ? core->num_threads : 1, sizeof(*tids)))) {
			err = &ct_enomem;
			break;
		}
		for (size_t k = 0; k < core->num_threads; k++)
			tids[k] = core->threads[k].tid;
		ct_tids_sort(tids, core->num_threads);
		naming.tids = tids;
		naming.num_tids = core->num_threads;
		for (size_t k = 0; k < core->num_threads && !err; k++) {
			if (!CT_GROW(keys, cap_keys, num_keys + 1, 256, 0)) {
				err = &ct_enomem;
				break;
			}
			const struct tick_thread *tt = k < sm->ticks[i].num_threads ? &sm->ticks[i].threads[k] : NULL;
			keys[num_keys] = stack_key(&mods, walker, &core->threads[k], tt, &naming);
			if (!keys[num_keys])
				err = &ct_enomem;
			else
				num_keys++;
		}
		if (tc) {
			struct ct_core tmp = *core;
			*core = *tc;
			*tc = tmp;
			ct_unwind_memory_changed(walker);
			ct_core_destroy(tc);
		}
	}
	out->samples = num_keys;
	if (!err)
		err = merge(keys, num_keys, &futexes, out);
out:
	for (size_t i = 0; i < num_keys; i++)
		free(keys[i]);
	free(keys);
	for (size_t i = 0; i < futexes.n; i++)
		free(futexes.items[i].root);
	free(futexes.items);
	free(tids);
	ct_modules_unload(&mods);
	if (core)
		ct_core_destroy(core);
	ct_report_deinit(&scratch);
	munmap(map, sm->end);
	return err;
}

struct ct_error *ct_sample_process(const struct ct_options *opts, const struct ct_sample_options *so,
				   struct ct_profile *out)
{
	memset(out, 0, sizeof(*out));
	if (!so->rate_hz || so->rate_hz > 1000 || so->duration_s <= 0)
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "the rate must be 1-1000 Hz and the duration positive");
	out->pid = so->pid;
	out->rate_hz = so->rate_hz;
	struct ct_budget budget;
	ct_budget_init(&budget, opts);
	struct sampler sm = { .fd = memfd_create("coretriage-samples", MFD_CLOEXEC) };
	if (sm.fd < 0)
		return ct_error_os(errno, "memfd_create");
	uint64_t period = 1000000000u / so->rate_hz, start = now_ns();
	uint64_t end = start + (uint64_t)(so->duration_s * 1e9);
	struct ct_error *err = take_tick(&sm, so->pid, true, &budget);
	if (err) {
		err = ct_error_wrap(err, "process %d", so->pid);
		goto out;
	}
	for (uint64_t next = start + period; next < end; next += period) {
		sleep_until(next);
		struct ct_error *e = take_tick(&sm, so->pid, false, &budget);
		if (e) {
			// The process exited, or the budget ran out: the samples so far are the profile.
			if (asprintf(&out->note, "sampling ended after %.2f s: %s", (double)(now_ns() - start) / 1e9,
				     ct_error_message(e)) < 0)
				out->note = NULL;
			ct_error_destroy(e);
			break;
		}
		// A tick that took longer than the period: the next one is the next period boundary ahead.
		uint64_t n = now_ns();
		while (next + period < n)
			next += period;
	}
	out->duration_s = (double)(now_ns() - start) / 1e9;
	out->ticks = sm.num_ticks;
	out->stop_ms_mean = sm.num_ticks ? sm.stop_sum / (double)sm.num_ticks : 0;
	out->stop_ms_max = sm.stop_max;
	memcpy(out->command, sm.command, sizeof(out->command));
	err = unwind_ticks(opts, &sm, &budget, out);
	// The holders' names, read once each now that the process runs free.
	for (size_t i = 0; !err && i < out->num_states; i++) {
		struct ct_profile_futex *f = &out->states[i].futex;
		if (out->states[i].is_futex && f->has_owner && f->owner_in_process)
			ct_live_thread_name(so->pid, f->owner, f->owner_name);
	}
out:
	free_ticks(&sm);
	close(sm.fd);
	return err;
}
