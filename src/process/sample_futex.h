/**
 * @file sample_futex.h
 * The root frame of a thread `coretriage sample` caught in a futex wait (sample_futex.c): the glibc
 * object from glibc's functions on its stack, its holder from the bytes copied around the word at
 * the stop.
 */
#ifndef CT_PROCESS_SAMPLE_FUTEX_H
#define CT_PROCESS_SAMPLE_FUTEX_H

#include <stdbool.h>
#include <stddef.h>

#include "coretriage/profile.h"
#include "live/live.h"
#include "triage/hang.h"

/**
 * Names the root frame of a thread waiting on futex @p f: "futex(mutex 0x… owned by thread N)",
 * "futex(rwlock 0x… owned by thread N)", "…, not in the process)" when the holder is not among the
 * tick's @p tids (sorted), "futex(condition 0x…)", "futex(0x…)" for a raw futex. @p functions: the
 * innermost frames' names, innermost first. @p L: the process' glibc layout (NULL: no holder is
 * read). @p big_endian, @p pointer_size: the process'. *@p info gets the same in fields. Returns a
 * string to free, NULL when out of memory.
 */
char *ct_sample_futex_root(const struct ct_glibc_layout *L, bool big_endian, unsigned pointer_size,
			   const struct ct_live_futex *f, const char *const *functions, size_t n, const int *tids,
			   size_t num_tids, struct ct_profile_futex *info);

#endif
