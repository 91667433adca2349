/**
 * @file keyhash.h
 * A keyed hash for tables indexed by what a dump says (stacks, paths, addresses). The key is
 * random per table, so whoever made the dump cannot choose inputs that all collide and turn a
 * linear pass into a quadratic one.
 */
#ifndef CT_UTIL_KEYHASH_H
#define CT_UTIL_KEYHASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>

/** splitmix64's finalizer: every input bit reaches every output bit. */
static inline uint64_t ct_hash_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/** A fresh random key (getrandom; else the address of @p salt, which ASLR hides). */
static inline uint64_t ct_hash_key(const void *salt)
{
	uint64_t key;
	if (getrandom(&key, sizeof(key), GRND_NONBLOCK) != (ssize_t)sizeof(key))
		key = (uint64_t)(uintptr_t)salt;
	return key;
}

/** Keyed hash of @p n bytes. */
static inline uint64_t ct_hash_bytes(const void *p, size_t n, uint64_t key)
{
	const unsigned char *s = p;
	uint64_t h = ct_hash_mix(key ^ n);
	for (; n >= 8; s += 8, n -= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = ct_hash_mix(h ^ w) + key;
	}
	uint64_t w = 0;
	memcpy(&w, s, n);
	return ct_hash_mix(h ^ w ^ key);
}

#endif
