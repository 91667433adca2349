/**
 * @file hang.h
 * Hangs and deadlocks (docs/hangs.md): what every thread is blocked in (waitstate.c), the objects
 * the futex waits belong to and their owners as glibc recorded them (locks.c, with the layouts of
 * glibc_layout.c), their names (lockname.c), and the wait-for graph with its cycles (waitgraph.c).
 * hang.c runs them in order and fills the verdict's hang and its waits (one per thread).
 */
#ifndef CT_TRIAGE_HANG_H
#define CT_TRIAGE_HANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "coretriage/report.h"
#include "triage/triage.h"

/* ---- glibc layouts (glibc_layout.c): the one table of offsets, by version and architecture ---- */

/** Offsets (bytes) of the fields we read, for one architecture from one glibc version on. */
struct ct_glibc_layout {
	const char *arch; /**< "x86_64", "i386", "aarch64", "riscv64" */
	unsigned since_major, since_minor; /**< first glibc version with this layout */
	unsigned mutex_size, mutex_lock, mutex_count, mutex_owner, mutex_kind;
	unsigned cond_size, cond_signals; /**< __g_signals[0]; [1] follows it */
	/** 0 when the rwlock layout is not known for this version (owners are then not read). */
	unsigned rwlock_size, rwlock_readers, rwlock_wrphase, rwlock_writers_futex, rwlock_cur_writer;
	unsigned sem_size, sem_value;
};

/**
 * The layout for @p arch and glibc @p major.@p minor (0.0 when unknown: the mutex rows, stable since
 * glibc 2.0, are used and the rwlock fields are 0). NULL for an architecture without a row.
 */
const struct ct_glibc_layout *ct_glibc_layout_find(const char *arch, unsigned major, unsigned minor);

/* glibc's pthread mutex kind bits (nptl/pthreadP.h) and futex lock-word bits (linux/futex.h). */
#define CT_MUTEX_KIND_MASK 3
#define CT_MUTEX_ROBUST 16
#define CT_MUTEX_PRIO_INHERIT 32
#define CT_MUTEX_PRIO_PROTECT 64
#define CT_MUTEX_PSHARED 128
#define CT_MUTEX_ELISION 256
#define CT_MUTEX_NO_ELISION 512
#define CT_FUTEX_WAITERS 0x80000000u
#define CT_FUTEX_OWNER_DIED 0x40000000u
#define CT_FUTEX_TID_MASK 0x3fffffffu
/* rwlock __readers bits (nptl/pthread_rwlock_common.c). */
#define CT_RWLOCK_WRPHASE 1u
#define CT_RWLOCK_WRLOCKED 2u
#define CT_RWLOCK_RWAITING 4u
#define CT_RWLOCK_READER_SHIFT 3

/* ---- the wait-for graph (waitgraph.c): pure, over hand-buildable inputs ---- */

/** A thread of the graph: it waits for lock `lock` (index), or -1. */
struct ct_wg_thread {
	int tid;
	long lock;
};

/** A lock of the graph: its holder, when the dump says who it is. */
struct ct_wg_lock {
	bool has_owner;
	int owner;
	/** A holder waiting on its own recursive lock would not block: no self edge. */
	bool recursive;
};

/** A tid and where it is (an index into some array of threads), for lookups by tid. */
struct ct_tid_index {
	int tid;
	size_t index;
};
/** Sorts @p n entries by tid, for ct_tid_index_find (waitgraph.c). */
void ct_tid_index_sort(struct ct_tid_index *entries, size_t n);
/** The index recorded for @p tid in @p sorted, -1 when none. */
long ct_tid_index_find(const struct ct_tid_index *sorted, size_t n, int tid);
/** Sorts @p n tids, for ct_tids_contain (waitgraph.c). */
void ct_tids_sort(int *tids, size_t n);
/** True when the sorted @p tids hold @p tid. */
bool ct_tids_contain(const int *tids, size_t n, int tid);

/** Cycles found: order[] holds thread indices, cycle k is order[cycles[k].start .. +length). */
struct ct_wg_result {
	size_t *order; /**< owned */
	size_t num_order;
	struct ct_cycle *cycles; /**< owned */
	size_t num_cycles;
};

/**
 * Finds every cycle of the wait-for graph thread → lock it waits for → the lock's holder. A thread
 * waiting on a non-recursive lock it holds is a cycle of one (self-deadlock). Each cycle starts at
 * its lowest tid. O(n log n). False when out of memory (@p ret zeroed).
 */
bool ct_waitgraph_cycles(const struct ct_wg_thread *threads, size_t num_threads, const struct ct_wg_lock *locks,
			 size_t num_locks, struct ct_wg_result *ret);
void ct_wg_result_deinit(struct ct_wg_result *res);

/* ---- steps over the stage outputs (waitstate.c, locks.c, lockname.c, hang.c) ---- */

/**
 * Decodes the blocking system call of every thread of the stacks into verdict->waits (one per
 * thread, in the stacks' order: syscall, arguments, futex object from glibc's frames). Needs the
 * arch table's syscall fields; leaves waits NULL without them.
 */
void ct_waitstate_decode(const struct ct_triage_input *s, struct ct_verdict *verdict);


/**
 * The glibc object a futex wait is for, from glibc's functions on the stack: @p functions are the
 * names of the innermost frames, innermost first (NULL for a frame without one); the first 12
 * are looked at (glibc's waiting code is a few frames deep). *@p wants_write: a rwlock's writer. CT_WAIT_OBJECT_NONE when no
 * function says (a raw futex).
 */
enum ct_wait_object ct_waitstate_object_from_functions(const char *const *functions, size_t n, bool *wants_write);

/** The index of the first frame in the program's own code, -1 when none. */
long ct_waitstate_own_frame(const struct ct_module_set *mods, const struct ct_thread *t);

/** The ELF symbol (object or function) containing @p address: its start, size and name. */
struct ct_data_symbol {
	uint64_t start, size;
	const char *name; /**< borrowed from libdwfl, valid while the session lives */
};
bool ct_data_symbol(const struct ct_triage_input *s, uint64_t address, struct ct_data_symbol *ret);

/**
 * Names the object at @p address: the DWARF variable and member path holding it ("bank.lock",
 * "locks[1]") when @p use_dwarf, else the ELF symbol ("accounts", "table+0x40"). Pooled, or NULL (heap,
 * stack, no symbol).
 */
const char *ct_lock_name(const struct ct_triage_input *s, uint64_t address, bool use_dwarf);

/**
 * The global variable holding @p address: its ELF symbol into *@p sym and its DWARF type into
 * *@p type (the program's own modules only, as ct_lock_name). False when either is missing.
 */
bool ct_global_type(const struct ct_triage_input *s, uint64_t address, struct ct_data_symbol *sym, Dwarf_Die *type);

/**
 * Names a lock outside any symbol (heap, stack) from the waiting frame @p frame of @p t: "&conn->lock",
 * "&job.mu", "m" (lockframe.c). Pooled or NULL.
 */
const char *ct_lock_name_from_frame(const struct ct_triage_input *s, const struct ct_thread *t, long frame, uint64_t lock);

/**
 * Appends to @p buf the member path (".lock", "[2].mu", "+0x8") of offset @p off inside DWARF type
 * @p type, stopping at glibc's pthread_ and sem_t typedefs (lockname.c). True when it appended anything.
 */
bool ct_lock_member_path(Dwarf_Die *type, uint64_t off, char *buf, size_t size);
/** As ct_lock_member_path; *@p leaf gets the type of the scalar the path ends at (*@p has_leaf). */
bool ct_member_path_type(Dwarf_Die *type, uint64_t off, char *buf, size_t size, Dwarf_Die *leaf, bool *has_leaf);
/** The member of struct (or class) @p type, already peeled, whose storage holds offset @p off: its
 * DIE, its offset in @p type and its type. False when no member covers @p off. */
bool ct_struct_member_at(Dwarf_Die *type, uint64_t off, Dwarf_Die *member, uint64_t *loc, Dwarf_Die *mtype);

/** Builds report->hang.locks from the threads' futex waits and links each wait to its lock (locks.c). */
void ct_locks_build(const struct ct_triage_input *s, const struct ct_glibc_layout *layout, struct ct_verdict *verdict);

/** glibc version of the process from libc's (or a static program's) version definitions; false when unknown. */
bool ct_glibc_version(const struct ct_module_set *mods, unsigned *major, unsigned *minor);

/** Appends @p line (pooled) to the hang's summaries; dropped beyond their cap or when NULL (hang.c). */
void ct_hang_add_summary(struct ct_verdict *verdict, const char *line);

/**
 * The goroutines of a Go process that no goroutine crashed, counted by wait reason and sync call,
 * the sync.Mutex/RWMutex waits by lock, the goroutines that can still run (gohang.c): into
 * verdict->hang.go and its summaries. Nothing when the runtime stage read no goroutines.
 */
void ct_go_hang_analyze(const struct ct_triage_input *s, struct ct_verdict *verdict);
/** "10 sync.Mutex.Lock (semacquire), 2 syscall, 1 chan receive": @p h's counts, most first. Pooled. */
const char *ct_go_hang_counts_text(struct ct_strpool *strings, const struct ct_go_hang *h);

/** The hang analysis of a process core: wait states, locks, graph, summaries (hang.c). */
void ct_hang_analyze(const struct ct_triage_input *s, struct ct_verdict *verdict);

/**
 * The blocking call of the thread whose frames triage reads (the crashing thread, else the first
 * thread of the notes), with its waiting function: "nanosleep(5 s)". Pooled, NULL when none.
 */
const char *ct_hang_blocked_in(const struct ct_triage_input *s, const struct ct_verdict *verdict);

/** Deadlock signature text ("deadlock|f1@lock1|f2@lock2"), pooled; NULL without a cycle (hang.c). */
const char *ct_hang_signature(struct ct_verdict *verdict);

#endif
