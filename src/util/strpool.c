// String interning for the report model: arena blocks plus an open-addressing hash set.
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coretriage/strpool.h"

// 64 KiB blocks: large enough that a typical report needs a handful, small enough not to waste.
#define BLOCK_SIZE (64 * 1024)

struct ct_strpool_block {
	struct ct_strpool_block *next;
	size_t used, size;
	char data[];
};

void ct_strpool_init(struct ct_strpool *pool)
{
	memset(pool, 0, sizeof(*pool));
}

void ct_strpool_deinit(struct ct_strpool *pool)
{
	struct ct_strpool_block *b = pool->blocks;
	while (b) {
		struct ct_strpool_block *next = b->next;
		free(b);
		b = next;
	}
	free(pool->slots);
	memset(pool, 0, sizeof(*pool));
}

static uint64_t hash_bytes(const char *s, size_t len)
{
	// FNV-1a: simple and good enough for symbol names.
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static char *arena_alloc(struct ct_strpool *pool, size_t n)
{
	struct ct_strpool_block *b = pool->blocks;
	if (!b || b->size - b->used < n) {
		size_t size = n > BLOCK_SIZE / 4 ? n : BLOCK_SIZE;
		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = size;
		if (n > BLOCK_SIZE / 4 && pool->blocks) {
			// A big string gets its own block behind the current one, so the
			// current block's free space is not abandoned.
			b->next = pool->blocks->next;
			pool->blocks->next = b;
		} else {
			b->next = pool->blocks;
			pool->blocks = b;
		}
	}
	char *p = b->data + b->used;
	b->used += n;
	return p;
}

/** @p len bytes of @p s, NUL-terminated, in the arena. */
static char *arena_copy(struct ct_strpool *pool, const char *s, size_t len)
{
	char *copy = arena_alloc(pool, len + 1);
	if (copy) {
		memcpy(copy, s, len);
		copy[len] = '\0';
	}
	return copy;
}

static bool grow(struct ct_strpool *pool)
{
	size_t n = pool->num_slots ? pool->num_slots * 2 : 1024;
	const char **slots = calloc(n, sizeof(*slots));
	if (!slots)
		return false;
	for (size_t i = 0; i < pool->num_slots; i++) {
		const char *s = pool->slots[i];
		if (!s)
			continue;
		size_t j = hash_bytes(s, strlen(s)) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = s;
	}
	free(pool->slots);
	pool->slots = slots;
	pool->num_slots = n;
	return true;
}

const char *ct_strpool_intern_len(struct ct_strpool *pool, const char *s, size_t len)
{
	if (!s)
		return NULL;
	// Bytes from a dump may hold a NUL: the interned form ends there, so hash that form.
	len = strnlen(s, len);
	if ((pool->count + 1) * 2 > pool->num_slots && !grow(pool))
		return NULL;
	size_t mask = pool->num_slots - 1;
	size_t j = hash_bytes(s, len) & mask;
	for (; pool->slots[j]; j = (j + 1) & mask) {
		const char *t = pool->slots[j];
		if (strncmp(t, s, len) == 0 && t[len] == '\0')
			return t;
	}
	char *copy = arena_copy(pool, s, len);
	if (!copy)
		return NULL;
	pool->slots[j] = copy;
	pool->count++;
	return copy;
}

const char *ct_strpool_store_len(struct ct_strpool *pool, const char *s, size_t len)
{
	if (!s)
		return NULL;
	return arena_copy(pool, s, strnlen(s, len));
}

const char *ct_strpool_intern(struct ct_strpool *pool, const char *s)
{
	return s ? ct_strpool_intern_len(pool, s, strlen(s)) : NULL;
}

const char *ct_strpool_vprintf(struct ct_strpool *pool, const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	const char *ret = ct_strpool_intern(pool, s);
	free(s);
	return ret;
}

const char *ct_strpool_printf(struct ct_strpool *pool, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *ret = ct_strpool_vprintf(pool, fmt, ap);
	va_end(ap);
	return ret;
}
