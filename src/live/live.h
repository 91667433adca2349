/**
 * @file live.h
 * A live process, captured: /proc's layout, auxv, comm and cmdline and each thread's wait state
 * before the stop; every thread stopped (PTRACE_SEIZE + PTRACE_INTERRUPT) only while its registers
 * and its stack's innermost window are copied; the rest of the memory the analysis reads (stacks,
 * writable and anonymous mappings, under the copy budget) after the resume. The analysis never runs
 * while the process is stopped: it runs over the snapshot, which dump_live.c presents as a dump
 * (and core_image.c writes as an ELF core for --gcore; docs/live.md).
 */
#ifndef CT_LIVE_H
#define CT_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "coretriage/error.h"

struct ct_budget;

/** Threads followed in one capture: /proc/PID/task is re-read until no new one appears. */
#define CT_LIVE_MAX_THREADS 100000
/** Mappings read from /proc/PID/maps: a process with thousands of libraries has ~10^4. */
#define CT_LIVE_MAX_MAPPINGS 1000000
/** Bytes below a thread's sp copied with its stack: the red zone (x86-64: 128) and a margin. */
#define CT_LIVE_BELOW_SP 512
/** Bytes of a stack above its sp copied while the process is stopped (the innermost frames, which a
 * running thread changes first); the rest of the stack is read after the resume. */
#define CT_LIVE_STACK_WINDOW (64u << 10)
/** How long the threads may take to stop after PTRACE_INTERRUPT (a thread in D state does not). */
#define CT_LIVE_STOP_TIMEOUT_MS 2000

/** Bytes copied on each side of a futex word a thread waits on (coretriage sample): the glibc
 * object holding it (pthread_mutex_t: 40 bytes, pthread_rwlock_t and pthread_cond_t: 56 and 48)
 * whatever the word's offset in it. */
#define CT_LIVE_FUTEX_AROUND 64

/** The futex a thread was blocked on at the stop, from its registers (the call the stop interrupted). */
struct ct_live_futex {
	bool present;
	uint64_t address; /**< the futex word (the call's first argument) */
	uint32_t op; /**< the call's second argument */
	/** Bytes [copy_start, copy_start + copied) around the word, copied with the stacks (clipped to
	 * the word's mapping); copied 0 when the word is in no readable mapping. */
	uint64_t copy_start;
	uint32_t copied;
	uint8_t bytes[2 * CT_LIVE_FUTEX_AROUND];
};

/**
 * A futex wait seen at an earlier stop. The kernel resumes an interrupted timed futex wait through
 * restart_syscall (ERESTART_RESTARTBLOCK), and the thread's argument registers still hold the
 * futex's: a thread found in restart_syscall with this word and operation continues this wait.
 */
struct ct_live_futex_hint {
	int tid;
	uint32_t op;
	uint64_t address;
};

/** Sorts @p n hints by tid, as ct_live_capture_options.futex_hints wants them. */
void ct_live_futex_hints_sort(struct ct_live_futex_hint *hints, size_t n);

/** A register set of one thread as PTRACE_GETREGSET returned it, with its note type. */
struct ct_live_regset {
	uint32_t note_type;
	size_t size;
	uint8_t *bytes; /**< owned */
};

/** At most NT_PRSTATUS and the architecture's float/vector notes (NT_FPREGSET, NT_X86_XSTATE). */
#define CT_LIVE_MAX_REGSETS 4

struct ct_live_thread {
	int tid;
	/** /proc/PID/task/TID/stat's state before the stop ('R', 'S', 'D', 'T', …). */
	char state;
	/** /proc/…/syscall before the stop: the system call number it is blocked in, -1 when
	 * running in user space, -2 unknown. */
	long syscall;
	/** The call's first argument (/proc/…/syscall), and what /proc/PID/fd says that descriptor is
	 * when it is one ("socket:[1234]", "pipe:[5678]", a path; "" otherwise): read before the stop. */
	uint64_t syscall_arg0;
	char fd_target[96];
	/** /proc/…/wchan: the kernel function it sleeps in ("" when not sleeping or hidden). */
	char wchan[64];
	/** regsets[0] is NT_PRSTATUS's pr_reg; absent (count 0) when the thread did not stop. */
	struct ct_live_regset regsets[CT_LIVE_MAX_REGSETS];
	size_t num_regsets;
	/** A signal the thread was stopped for (signal-delivery-stop), given back at detach. */
	int pending_signal;
	uint64_t sp;
	/** pr_utime and pr_stime, microseconds (from its stat). */
	uint64_t user_usec, system_usec;
	/** With ct_live_capture_options.futex_words: the futex it waits on. */
	struct ct_live_futex futex;
};

struct ct_live_mapping {
	uint64_t start, end, file_offset;
	bool readable, writable, executable, shared;
	/** A file mapping with private pages written (smaps' Anonymous, read before the stop): the
	 * dynamic section and GOT after relocation (RELRO), which a debugger needs to find the
	 * libraries. Copied like anonymous memory. */
	bool dirty_private;
	/** The path as /proc/PID/maps names it ("/usr/lib/…", "[stack]", "[vdso]"), NULL for none. */
	char *path; /**< owned */
	/** Bytes [copy_start, copy_start + copied) were copied (zeros where the process could not be
	 * read); nothing else of the mapping is in the snapshot. */
	uint64_t copy_start;
	size_t copied;
	/** Bytes of the copy read so far: a stack's window while stopped, the rest after the resume. */
	size_t stack_rest;
	uint8_t *bytes; /**< owned */
};

struct ct_live_snapshot {
	int pid, ppid, pgrp, sid;
	unsigned uid, gid;
	/** e_machine and class of /proc/PID/exe: the architecture of the registers. */
	uint16_t e_machine;
	uint8_t elf_class;
	bool big_endian; /**< the host's: a process of coretriage's own kind */
	/** When the threads were stopped, seconds since the epoch (the report's crash time). */
	int64_t captured_at;
	char comm[17];
	/** The command line with NULs as spaces, as pr_psargs holds it (80 bytes). */
	char psargs[81];
	char state; /**< the process' state before the stop */
	uint8_t *auxv; /**< owned: /proc/PID/auxv as the kernel wrote it */
	size_t auxv_size;
	struct ct_live_thread *threads; /**< owned: the main thread first, then by discovery */
	size_t num_threads;
	/** Threads that exited while being attached, or that did not stop in time (skipped). */
	size_t threads_gone, threads_not_stopped;
	struct ct_live_mapping *mappings; /**< owned, by address */
	size_t num_mappings;
	/** Time from the first PTRACE_INTERRUPT to the last thread resumed, milliseconds. */
	double stopped_ms;
	uint64_t bytes_copied;
	/** The copy budget ran out: some mappings were not copied (whole or in part). */
	bool copy_capped;
	/** Pages the process could not be read at (zero-filled in the copy). */
	uint64_t pages_unreadable;
};

/** What to copy while the process is stopped. */
struct ct_live_capture_options {
	/** Copy the memory of writable and anonymous mappings, not only the stacks (-p, --gcore). */
	bool all_memory;
	/** Copy the bytes around each futex word a thread waits on, in the stacks' batch (sample). */
	bool futex_words;
	/** With futex_words: the waits of the previous capture, sorted by tid (borrowed; may be NULL). */
	const struct ct_live_futex_hint *futex_hints;
	size_t num_futex_hints;
	/** Keep the process stopped this much longer (tests of a coretriage killed mid-capture). */
	unsigned hold_ms;
};

/**
 * Captures process @p pid into @p snap (zeroed by this call; ct_live_snapshot_free() after any
 * outcome), spending copied bytes from @p budget's COPY kind. The process runs again when this
 * returns, whatever the outcome. Errors: CT_ERROR_NOT_FOUND (no such process, or it exited meanwhile),
 * CT_ERROR_OS with a message that says why ptrace is refused and how to allow it (EPERM),
 * CT_ERROR_INVALID_ARGUMENT (a zombie, the caller itself), CT_ERROR_UNSUPPORTED (a 32-bit process
 * under a 64-bit coretriage).
 */
struct ct_error *ct_live_capture(int pid, const struct ct_live_capture_options *o, struct ct_budget *budget,
				 struct ct_live_snapshot *snap);
void ct_live_snapshot_free(struct ct_live_snapshot *snap);

/**
 * The name of thread @p tid of process @p pid (/proc/PID/task/TID/comm) into @p buf (NUL-terminated,
 * at most 15 characters as the kernel keeps it); false when it is gone.
 */
bool ct_live_thread_name(int pid, int tid, char buf[17]);

/**
 * Writes @p snap as an ELF core to @p fd from its current offset (NT_PRSTATUS, NT_FPREGSET, … per
 * thread, NT_PRPSINFO, NT_AUXV, NT_FILE; PT_LOAD with the copied bytes; file mappings not copied
 * as PT_LOAD with filesz 0, whose bytes are the file's). @p written_ret gets the bytes written.
 * Errors: CT_ERROR_OS (write failed), CT_ERROR_UNSUPPORTED (no architecture table).
 */
struct ct_error *ct_live_write_core(const struct ct_live_snapshot *snap, int fd, uint64_t *written_ret);

#endif
