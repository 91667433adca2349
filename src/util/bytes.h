/**
 * @file bytes.h
 * Bounded, endian-aware readers for untrusted bytes. Every read from a dump goes through these
 * (or through ct_core_read), so an offset or size taken from the input can never leave the buffer.
 */
#ifndef CT_BYTES_H
#define CT_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/** A read-only view of bytes with its size and byte order. Borrowed memory. */
struct ct_bytes {
	const uint8_t *data;
	size_t size;
	bool big_endian;
};

/** True when [off, off+len) lies inside a buffer of @p size bytes (overflow-safe). */
static inline bool ct_in_bounds(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

/** a + b into *ret; false on overflow. */
static inline bool ct_add_overflow(uint64_t a, uint64_t b, uint64_t *ret)
{
	return __builtin_add_overflow(a, b, ret);
}

static inline bool ct_mul_overflow(uint64_t a, uint64_t b, uint64_t *ret)
{
	return __builtin_mul_overflow(a, b, ret);
}

static inline uint16_t ct_load16(const uint8_t *p, bool be)
{
	return be ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static inline uint32_t ct_load32(const uint8_t *p, bool be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline uint64_t ct_load64(const uint8_t *p, bool be)
{
	uint64_t hi = ct_load32(p + (be ? 0 : 4), be), lo = ct_load32(p + (be ? 4 : 0), be);
	return hi << 32 | lo;
}

/** The low @p bits (1..64) of @p v as a two's complement signed value (an instruction's immediate). */
static inline int64_t ct_sign_extend(uint64_t v, unsigned bits)
{
	uint64_t m = 1ULL << (bits - 1);
	v &= bits < 64 ? (1ULL << bits) - 1 : ~0ULL;
	return (int64_t)((v ^ m) - m);
}

/** Reads an unsigned value of @p width (1, 2, 4, 8) bytes at @p off into *ret; false if out of bounds. */
static inline bool ct_bytes_uint(const struct ct_bytes *b, uint64_t off, unsigned width, uint64_t *ret)
{
	if (!ct_in_bounds(b->size, off, width))
		return false;
	const uint8_t *p = b->data + off;
	switch (width) {
	case 1: *ret = p[0]; return true;
	case 2: *ret = ct_load16(p, b->big_endian); return true;
	case 4: *ret = ct_load32(p, b->big_endian); return true;
	case 8: *ret = ct_load64(p, b->big_endian); return true;
	default: return false;
	}
}

/** Like ct_bytes_uint but returns 0 when out of bounds (for fields already bounds-checked as a block). */
static inline uint64_t ct_bytes_uint_or0(const struct ct_bytes *b, uint64_t off, unsigned width)
{
	uint64_t v = 0;
	return ct_bytes_uint(b, off, width, &v) ? v : 0;
}

/** A sub-view [off, off+len); false if out of bounds. */
static inline bool ct_bytes_sub(const struct ct_bytes *b, uint64_t off, uint64_t len, struct ct_bytes *ret)
{
	if (!ct_in_bounds(b->size, off, len))
		return false;
	ret->data = b->data + off;
	ret->size = len;
	ret->big_endian = b->big_endian;
	return true;
}

/** Aligns @p v up to @p a (a power of two); false on overflow. */
static inline bool ct_align_up(uint64_t v, uint64_t a, uint64_t *ret)
{
	uint64_t t;
	if (ct_add_overflow(v, a - 1, &t))
		return false;
	*ret = t & ~(a - 1);
	return true;
}

#endif
