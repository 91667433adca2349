/**
 * @file strpool.h
 * Interned strings owned by a report: each distinct string is stored once, so a million frames of
 * the same function cost one copy. Pointers stay valid until ct_strpool_deinit().
 */
#ifndef CORETRIAGE_STRPOOL_H
#define CORETRIAGE_STRPOOL_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ct_strpool_block;

struct ct_strpool {
	struct ct_strpool_block *blocks; /**< owned chain of arena blocks */
	const char **slots; /**< open-addressing hash table of interned strings; owned */
	size_t num_slots, count;
};

void ct_strpool_init(struct ct_strpool *pool);
void ct_strpool_deinit(struct ct_strpool *pool);
/** Interns @p len bytes of @p s (need not be NUL-terminated). NULL when out of memory. */
const char *ct_strpool_intern_len(struct ct_strpool *pool, const char *s, size_t len);
/**
 * Copies @p len bytes of @p s (cut at a NUL) into the pool without interning: for text that is
 * seldom repeated (rendered values), where the hash table would cost more than it saves. Equal
 * texts stored twice are two copies. NULL when out of memory.
 */
const char *ct_strpool_store_len(struct ct_strpool *pool, const char *s, size_t len);
/** Interns a NUL-terminated string; NULL in gives NULL out. */
const char *ct_strpool_intern(struct ct_strpool *pool, const char *s);
/** Interns the printf-formatted text; NULL when out of memory. */
const char *ct_strpool_printf(struct ct_strpool *pool, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** ct_strpool_printf with a va_list. */
const char *ct_strpool_vprintf(struct ct_strpool *pool, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#ifdef __cplusplus
}
#endif
#endif
