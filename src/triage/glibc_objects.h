/**
 * @file glibc_objects.h
 * The one reader of glibc's synchronization objects around a futex word (glibc_objects.c): where
 * the object starts (pthread_mutex_t, pthread_rwlock_t, pthread_cond_t, sem_t) and who holds it,
 * over any memory: a dump's (locks.c) or the window copied around a live thread's futex word
 * (src/process/sample.c). The kind comes from the caller (glibc's functions on the stack), never
 * from the bytes: this reads what the kind says is there.
 */
#ifndef CT_TRIAGE_GLIBC_OBJECTS_H
#define CT_TRIAGE_GLIBC_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coretriage/report.h"
#include "triage/hang.h"

/** Memory glibc objects are read from. */
struct ct_glibc_mem {
	/** Reads @p len bytes at @p addr into @p buf; false when any of them is not there. */
	bool (*read)(const void *ctx, uint64_t addr, void *buf, size_t len);
	/** Optional (NULL: not known): a symbol of exactly @p size bytes starts at @p base. */
	bool (*symbol_is)(const void *ctx, uint64_t base, unsigned size);
	const void *ctx; /**< borrowed, for the callbacks */
	bool big_endian;
	unsigned pointer_size;
};

/** Why a mutex or rwlock read gave no owner (locks.c words it). */
enum ct_glibc_note {
	CT_GLIBC_NOTE_NONE,
	CT_GLIBC_NOTE_NOT_IN_MEMORY, /**< the object's fields could not be read */
	CT_GLIBC_NOTE_BAD_KIND, /**< __kind has bits no glibc mutex has (bad_kind) */
	CT_GLIBC_NOTE_UNLOCKED, /**< robust/PI mutex whose lock word holds no tid */
	CT_GLIBC_NOTE_RELEASED, /**< lock word 0: released just before the copy */
	CT_GLIBC_NOTE_NO_OWNER, /**< locked, __owner 0 */
	CT_GLIBC_NOTE_READERS, /**< rwlock read-locked (readers) */
	CT_GLIBC_NOTE_NO_WRITER, /**< rwlock without __cur_writer */
	CT_GLIBC_NOTE_NUM_
};

/** What a mutex's or rwlock's fields say. */
struct ct_glibc_object {
	bool has_word;
	uint32_t word; /**< mutex __lock, rwlock __readers */
	bool has_owner;
	int owner;
	const char *owner_field; /**< static: "__owner", "lock word", "__cur_writer" */
	bool owner_died;
	/** Mutex: glibc's kind (__kind & 3, PTHREAD_MUTEX_*), -1 when not read. */
	int mutex_kind;
	bool robust, priority_inherit;
	bool has_count;
	unsigned count; /**< recursive mutex: times held */
	bool has_readers;
	unsigned readers;
	enum ct_glibc_note note;
	uint32_t bad_kind; /**< __kind with CT_GLIBC_NOTE_BAD_KIND */
};

/**
 * The start of the @p kind object holding futex word @p addr (@p wants_write: a rwlock's writer)
 * into *@p ret. Mutexes, semaphores and the words of joins, glibc's internal locks, the Go runtime
 * and unknown futexes are placed by the layout alone; condition variables and rwlocks by a symbol
 * of their size when @p m has symbol_is, else by the 8-byte alignment glibc gives them (64-bit
 * targets only). False: not placed.
 */
bool ct_glibc_object_place(const struct ct_glibc_layout *L, const struct ct_glibc_mem *m, enum ct_wait_object kind,
			   uint64_t addr, bool wants_write, uint64_t *ret);

/** Reads the pthread_mutex_t at @p base into *@p ret (always written). */
void ct_glibc_read_mutex(const struct ct_glibc_layout *L, const struct ct_glibc_mem *m, uint64_t base,
			 struct ct_glibc_object *ret);

/** Reads the pthread_rwlock_t at @p base into *@p ret (always written). */
void ct_glibc_read_rwlock(const struct ct_glibc_layout *L, const struct ct_glibc_mem *m, uint64_t base,
			  struct ct_glibc_object *ret);

/** A 32-bit word at @p addr of @p m; false when not there. */
bool ct_glibc_read_u32(const struct ct_glibc_mem *m, uint64_t addr, uint32_t *ret);

#endif
