// What each thread is blocked in: the system call the dump interrupted (its number from the register
// the arch table names, orig_rax on x86-64), its arguments from the argument registers, and for a
// futex the glibc object recognized from glibc's functions on the stack. A thread counts as blocked
// only when its pc follows the architecture's system-call instruction and the call's return register
// holds -EINTR or a kernel restart code (the call was interrupted, not finished).
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "dump/elfcore.h"
#include "modules/modules.h"
#include "triage/facts.h"
#include "triage/hang.h"
#include "triage/triage.h"
#include "util/bytes.h"

/* The return value -EINTR (include/linux/errno.h). */
#define EINTR_ 4
#define TIMER_ABSTIME 1

static const char *const futex_ops[] = {
	"wait", "wake", "fd", "requeue", "cmp_requeue", "wake_op", "lock_pi", "unlock_pi",
	"trylock_pi", "wait_bitset", "wake_bitset", "wait_requeue_pi", "cmp_requeue_pi", "lock_pi2",
};

static int64_t sign_extend(uint64_t v, unsigned pointer_size)
{
	return pointer_size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

/** Reads a struct timespec (or timeval with @p usec) at @p addr into nanoseconds. */
static bool read_time(const struct ct_triage_input *s, uint64_t addr, unsigned word, bool usec, uint64_t *ret)
{
	uint8_t buf[16];
	if (!addr || !ct_core_read_fast(s->core, addr, buf, 2 * word))
		return false;
	bool be = s->core->big_endian;
	int64_t sec = word == 8 ? (int64_t)ct_load64(buf, be) : (int64_t)(int32_t)ct_load32(buf, be);
	int64_t frac = word == 8 ? (int64_t)ct_load64(buf + 8, be) : (int64_t)(int32_t)ct_load32(buf + 4, be);
	if (sec < 0 || frac < 0 || frac >= (usec ? 1000000 : 1000000000) || sec > (int64_t)(UINT64_MAX / 2000000000ULL))
		return false;
	*ret = (uint64_t)sec * 1000000000ULL + (uint64_t)frac * (usec ? 1000 : 1);
	return true;
}

/* ---- the futex's object, from glibc's functions on the stack ---- */

/** glibc function name without its leading underscores (___pthread_mutex_lock, __GI___…). */
static const char *bare(const char *fn)
{
	if (strncmp(fn, "__GI_", 5) == 0)
		fn += 5;
	while (*fn == '_')
		fn++;
	return fn;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/** Frames of glibc's waiting code looked at, innermost first, before giving up. */
#define OBJECT_FRAMES 12

enum ct_wait_object ct_waitstate_object_from_functions(const char *const *functions, size_t n, bool *wants_write)
{
	*wants_write = false;
	for (size_t i = 0; i < n && i < OBJECT_FRAMES; i++) {
		if (!functions[i])
			continue;
		const char *fn = bare(functions[i]);
		if (starts(fn, "lll_lock_wait_private"))
			return CT_WAIT_OBJECT_GLIBC_INTERNAL;
		if (starts(fn, "pthread_mutex_") && strstr(fn, "lock") && !strstr(fn, "unlock"))
			return CT_WAIT_OBJECT_MUTEX;
		if (starts(fn, "pthread_cond_") && strstr(fn, "wait"))
			return CT_WAIT_OBJECT_CONDITION;
		if (starts(fn, "pthread_rwlock_") && (strstr(fn, "wrlock") || strstr(fn, "rdlock"))) {
			*wants_write = strstr(fn, "wrlock") != NULL;
			return CT_WAIT_OBJECT_RWLOCK;
		}
		if (starts(fn, "new_sem_wait") || starts(fn, "sem_wait") || starts(fn, "sem_timedwait") ||
		    starts(fn, "sem_clockwait"))
			return CT_WAIT_OBJECT_SEMAPHORE;
		if (starts(fn, "pthread_clockjoin") || starts(fn, "pthread_join") || starts(fn, "pthread_timedjoin") ||
		    starts(fn, "pthread_tryjoin"))
			return CT_WAIT_OBJECT_JOIN;
		// The Go runtime's futexsleep (runtime/os_linux.go): an M parked on its note (notesleep:
		// an idle M or P, sysmon's notetsleep) or a runtime-internal lock (lock2). The program's
		// own locks (sync.Mutex) park goroutines, never a thread on a futex.
		if (strcmp(fn, "runtime.futexsleep") == 0)
			return CT_WAIT_OBJECT_GO_RUNTIME;
		// __lll_lock_wait: a mutex unless a caller above says otherwise (checked on the next frames).
	}
	for (size_t i = 0; i < n && i < OBJECT_FRAMES; i++) {
		if (functions[i] && starts(bare(functions[i]), "lll_lock_wait"))
			return CT_WAIT_OBJECT_MUTEX;
	}
	return CT_WAIT_OBJECT_NONE;
}

static enum ct_wait_object object_from_frames(const struct ct_thread *t, bool *wants_write)
{
	const char *fns[OBJECT_FRAMES];
	size_t n = 0;
	for (; n < t->num_frames && n < OBJECT_FRAMES; n++)
		fns[n] = t->frames[n].function;
	return ct_waitstate_object_from_functions(fns, n, wants_write);
}

long ct_waitstate_own_frame(const struct ct_module_set *mods, const struct ct_thread *t)
{
	for (size_t i = 0; i < t->num_frames; i++) {
		const struct ct_module_state *m = ct_modules_find(mods, t->frames[i].pc);
		if (m && m->path && !ct_path_is_system(m->path) && t->frames[i].function)
			return (long)i;
	}
	return -1;
}

/* ---- one thread ---- */

static uint64_t arg(const struct ct_arch_info *a, const struct ct_core_thread *ct, int k, bool *ok)
{
	int idx = a->syscall_arg_index[k];
	if (idx < 0 || (size_t)idx >= ct->num_values) {
		*ok = false;
		return 0;
	}
	*ok = true;
	return ct->values[idx];
}

static void decode_args(const struct ct_triage_input *s, const struct ct_core_thread *ct, enum ct_syscall sys, unsigned flags,
			struct ct_wait *w)
{
	const struct ct_arch_info *a = s->core->arch;
	unsigned word = (flags & CT_SYSCALL_TIME64) ? 8 : a->pointer_size;
	bool ok0, ok1, ok2, ok3, ok4;
	uint64_t a0 = arg(a, ct, 0, &ok0), a1 = arg(a, ct, 1, &ok1), a2 = arg(a, ct, 2, &ok2);
	uint64_t a3 = arg(a, ct, 3, &ok3), a4 = arg(a, ct, 4, &ok4);
	switch (sys) {
	case CT_SYS_READ: case CT_SYS_WRITE: case CT_SYS_READV: case CT_SYS_WRITEV: case CT_SYS_PREAD64:
	case CT_SYS_PWRITE64: case CT_SYS_RECVFROM: case CT_SYS_RECVMSG: case CT_SYS_RECVMMSG: case CT_SYS_SENDTO:
	case CT_SYS_SENDMSG: case CT_SYS_ACCEPT: case CT_SYS_ACCEPT4: case CT_SYS_CONNECT: case CT_SYS_FLOCK:
	case CT_SYS_FCNTL:
		w->has_fd = ok0;
		w->fd = (int)(int32_t)a0;
		break;
	case CT_SYS_EPOLL_WAIT: case CT_SYS_EPOLL_PWAIT:
		w->has_fd = ok0;
		w->fd = (int)(int32_t)a0;
		w->has_timeout_ms = ok3;
		w->timeout_ms = (int32_t)a3;
		break;
	case CT_SYS_EPOLL_PWAIT2:
		w->has_fd = ok0;
		w->fd = (int)(int32_t)a0;
		w->has_duration = ok3 && read_time(s, a3, word, false, &w->duration_ns);
		break;
	case CT_SYS_POLL:
		w->has_timeout_ms = ok2;
		w->timeout_ms = (int32_t)a2;
		break;
	case CT_SYS_PPOLL:
		w->has_duration = ok2 && read_time(s, a2, word, false, &w->duration_ns);
		break;
	case CT_SYS_SELECT:
		w->has_duration = ok4 && read_time(s, a4, a->pointer_size, true, &w->duration_ns);
		break;
	case CT_SYS_PSELECT6:
		w->has_duration = ok4 && read_time(s, a4, word, false, &w->duration_ns);
		break;
	case CT_SYS_NANOSLEEP:
		// An interrupted sleep has its remainder written to rem; when rem is req (glibc's sleep()),
		// the request is gone and what is left depends on the moment of the dump: not reported.
		w->has_duration = ok0 && !(ok1 && a1 == a0) && read_time(s, a0, word, false, &w->duration_ns);
		break;
	case CT_SYS_CLOCK_NANOSLEEP:
		w->absolute = ok1 && (a1 & TIMER_ABSTIME);
		w->has_duration = ok2 && (w->absolute || !(ok3 && a3 == a2)) &&
				  read_time(s, a2, word, false, &w->duration_ns);
		break;
	case CT_SYS_RT_SIGTIMEDWAIT:
		w->has_duration = ok2 && read_time(s, a2, word, false, &w->duration_ns);
		break;
	case CT_SYS_WAIT4:
		w->has_pid = ok0;
		w->pid = sign_extend(a0, a->pointer_size);
		break;
	case CT_SYS_WAITID:
		w->has_pid = ok1;
		w->pid = sign_extend(a1, a->pointer_size);
		break;
	case CT_SYS_FUTEX: {
		w->has_address = ok0;
		w->address = a0;
		w->has_value = ok2;
		w->value = (uint32_t)a2;
		if (!ok1)
			break;
		uint32_t cmd = (uint32_t)a1 & CT_FUTEX_CMD_MASK;
		w->operation = cmd < sizeof(futex_ops) / sizeof(futex_ops[0])
				       ? ct_strpool_intern(s->out.strings, futex_ops[cmd])
				       : ct_strpool_printf(s->out.strings, "op %u", cmd);
		if (ct_futex_op_waits(cmd) && ok3 && a3)
			w->has_duration = read_time(s, a3, word, false, &w->duration_ns);
		w->absolute = w->has_duration && cmd != CT_FUTEX_WAIT;
		break;
	}
	default:
		break;
	}
}

static void decode_thread(const struct ct_triage_input *s, const struct ct_core_thread *ct, const struct ct_thread *t,
			  struct ct_wait *w)
{
	const struct ct_arch_info *a = s->core->arch;
	if (!ct->has_regs || a->syscall_nr_index < 0 || (size_t)a->syscall_nr_index >= ct->num_values ||
	    (size_t)a->syscall_ret_index >= ct->num_values)
		return;
	int64_t nr = sign_extend(ct->values[a->syscall_nr_index], a->pointer_size);
	int64_t ret = sign_extend(ct->values[a->syscall_ret_index], a->pointer_size);
	if (nr < 0 || nr > 0xffff || !ct_syscall_ret_interrupted(ret))
		return;
	// The pc must follow the system-call instruction: on x86 orig_rax also holds an exception's error
	// code, and aarch64's x8 is an ordinary register outside a call. When the code cannot be read (no
	// file for the module), the kernel-internal restart codes, which never reach user code, suffice;
	// -EINTR alone does not.
	uint8_t insn[4];
	if (a->syscall_insn_len == 0 || ct->pc < a->syscall_insn_len)
		return;
	if (ct_modules_read_code(s->mods, ct->pc - a->syscall_insn_len, insn, a->syscall_insn_len)) {
		if (memcmp(insn, a->syscall_insn, a->syscall_insn_len) != 0)
			return;
	} else if (ret == -EINTR_) {
		return;
	}
	unsigned flags = 0;
	enum ct_syscall sys = ct_syscall_lookup(a->syscalls, *a->num_syscalls, (uint64_t)nr, &flags);
	w->present = true;
	w->number = (long)nr;
	w->lock = -1;
	w->syscall = sys != CT_SYS_UNKNOWN ? ct_strpool_intern(s->out.strings, ct_syscall_to_string(sys))
					   : ct_strpool_printf(s->out.strings, "syscall %" PRId64, nr);
	decode_args(s, ct, sys, flags, w);
	if (sys == CT_SYS_FUTEX) {
		bool write = false;
		enum ct_wait_object obj = object_from_frames(t, &write);
		w->object = obj != CT_WAIT_OBJECT_NONE ? obj : CT_WAIT_OBJECT_UNKNOWN;
		w->recognized_by = obj != CT_WAIT_OBJECT_NONE ? ct_strpool_intern(s->out.strings, "frames") : NULL;
		w->wants_write = write;
	}
	w->frame = ct_waitstate_own_frame(s->mods, t);
	w->function = w->frame >= 0 ? t->frames[w->frame].function : NULL;
}

void ct_waitstate_decode(const struct ct_triage_input *s, struct ct_verdict *v)
{
	const struct ct_core *core = s->core;
	const struct ct_stacks *st = s->stacks;
	if (!core->arch || !core->arch->syscalls || !core->num_threads || !st->count)
		return;
	v->waits = calloc(st->count, sizeof(*v->waits));
	if (!v->waits)
		return;
	v->num_waits = st->count;
	// The stacks are sorted (crashing thread first), core threads are in note order: match by tid.
	struct ct_tid_index *slots = calloc(core->num_threads, sizeof(*slots));
	if (!slots)
		return;
	for (size_t j = 0; j < core->num_threads; j++)
		slots[j] = (struct ct_tid_index){ core->threads[j].tid, j };
	ct_tid_index_sort(slots, core->num_threads);
	for (size_t i = 0; i < st->count; i++) {
		const struct ct_thread *t = &st->items[i];
		long hit = ct_tid_index_find(slots, core->num_threads, t->tid);
		if (hit >= 0)
			decode_thread(s, &core->threads[hit], t, &v->waits[i]);
	}
	free(slots);
}
