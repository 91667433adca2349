/**
 * @file internal.h
 * Parts of the live capture shared by its files: /proc readers (procfs.c) and ptrace's stop and
 * resume (attach.c). Nothing outside src/live/ includes this.
 */
#ifndef CT_LIVE_INTERNAL_H
#define CT_LIVE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coretriage/error.h"
#include "live/live.h"

/** The largest /proc file read whole (maps of a big process: ~10^6 lines of ~100 bytes). */
#define CT_LIVE_PROC_CAP (size_t)(128u << 20)

/**
 * Reads /proc/@p pid/@p name (or /proc/@p pid/task/@p tid/@p name when @p tid is not 0), at most
 * @p cap bytes, NUL-terminated, its length in *@p len_ret (may be NULL). NULL with errno set when it
 * cannot be read.
 */
char *ct_live_read_proc(int pid, int tid, const char *name, size_t cap, size_t *len_ret);

/**
 * Parses /proc/PID/@p name ("maps", or "smaps", which also says which mappings have private pages
 * written: dirty_private) into @p snap's mappings (at most CT_LIVE_MAX_MAPPINGS), sorted by address.
 */
struct ct_error *ct_live_read_maps(int pid, const char *name, struct ct_live_snapshot *snap);

/** One /proc/…/stat: state, ppid, pgrp, session, utime and stime (clock ticks). */
struct ct_live_stat {
	char state;
	int ppid, pgrp, sid;
	uint64_t utime, stime;
};
/** Reads the stat of @p pid (@p tid 0) or of one of its threads; false when it is gone. */
bool ct_live_read_stat(int pid, int tid, struct ct_live_stat *ret);

/** The process' facts read before the stop: comm, cmdline, uids, the executable's ELF class. */
struct ct_error *ct_live_read_process(int pid, struct ct_live_snapshot *snap);

/** The thread's wait state before the stop (state, syscall, wchan, CPU times). */
void ct_live_read_thread_state(int pid, struct ct_live_thread *t);

/**
 * The thread ids of /proc/@p pid/task into a new array (*@p tids_ret, freed by the caller), at most
 * @p cap. Errors: CT_ERROR_NOT_FOUND when the process is gone.
 */
struct ct_error *ct_live_list_tasks(int pid, size_t cap, int **tids_ret, size_t *num_ret);

/**
 * Why ptrace(PTRACE_SEIZE) of @p pid failed with EPERM, as an error saying what to change:
 * kernel.yama.ptrace_scope, another user's process, no CAP_SYS_PTRACE, a process that is not dumpable.
 */
struct ct_error *ct_live_permission_error(int pid);

/** The ptrace side of a capture: the threads seized and which of them are stopped now. */
struct ct_live_tracee {
	int tid;
	bool seized, interrupted, stopped;
	/** Signal of a signal-delivery-stop, given back at detach. */
	int pending_signal;
	/** Exited (or was never there) while being attached. */
	bool gone;
};

struct ct_live_attach {
	int pid;
	struct ct_live_tracee *t; /**< owned */
	size_t n, cap;
	/** CLOCK_MONOTONIC when the first thread was interrupted, ns (0: none yet). */
	uint64_t stop_start_ns;
};

/**
 * Seizes and interrupts every thread of @p pid, re-reading /proc/PID/task until no new thread
 * appears and following clones, then waits (at most CT_LIVE_STOP_TIMEOUT_MS) until each is stopped.
 * On error every thread seized so far is resumed and detached.
 */
struct ct_error *ct_live_attach_all(int pid, struct ct_live_attach *a);

/** Resumes and detaches every thread (each given back the signal it was stopped for). Safe to call
 * twice. Returns the nanoseconds since the first thread was interrupted. */
uint64_t ct_live_detach_all(struct ct_live_attach *a);

uint64_t ct_live_now_ns(void);

/** Memory for the copies made while the process is stopped, faulted in before (stop_pool.c). */
struct ct_live_pool {
	uint8_t *base;
	size_t size, used;
};
/** Maps and faults in @p size bytes; on failure the pool is empty and every take a malloc. */
void ct_live_pool_init(struct ct_live_pool *p, size_t size);
/** @p len bytes from the pool, else from malloc; NULL when out of memory. */
void *ct_live_pool_take(struct ct_live_pool *p, size_t len);
/** Gives back what ct_live_pool_take() returned (a no-op in the pool: it goes with the pool). */
void ct_live_pool_give(struct ct_live_pool *p, void *at);
/**
 * After the resume: every register set and copied mapping of @p snap in the pool moved into a
 * buffer of its own, and the pool unmapped. False when out of memory (what did not move is dropped:
 * a thread's sets from the first lost, a mapping's copy).
 */
bool ct_live_pool_release(struct ct_live_pool *p, struct ct_live_snapshot *snap);

/** One part of a mapping as a dump lays it out: [vaddr, vaddr + memsz), its first filesz bytes copied. */
struct ct_live_part {
	uint64_t vaddr, memsz, filesz;
};

/**
 * The parts of mapping @p m (one or two) into @p parts; returns how many. A mapping copied from an
 * address past its start (a stack from below its sp) is two: the part before it, without bytes,
 * then the copied part. The one layout of both the ELF core written (core_image.c) and the dump
 * (dump_live.c): the copied bytes follow each other in mapping order.
 */
static inline size_t ct_live_mapping_parts(const struct ct_live_mapping *m, struct ct_live_part parts[2])
{
	size_t n = 0;
	if (m->copied && m->copy_start > m->start)
		parts[n++] = (struct ct_live_part){ m->start, m->copy_start - m->start, 0 };
	uint64_t at = m->copied ? m->copy_start : m->start;
	parts[n++] = (struct ct_live_part){ at, m->end - at, m->copied };
	return n;
}

#endif
