/**
 * @file leb128.h
 * DWARF's LEB128 numbers, read from a bounded buffer: false when the number runs past @p end or
 * past 64 bits (a corrupt file), with *p left where it stopped.
 */
#ifndef CT_UTIL_LEB128_H
#define CT_UTIL_LEB128_H

#include <stdbool.h>
#include <stdint.h>

static inline bool ct_uleb128(const uint8_t **p, const uint8_t *end, uint64_t *ret)
{
	uint64_t v = 0;
	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*ret = v;
			return true;
		}
	}
	return false;
}

static inline bool ct_sleb128(const uint8_t **p, const uint8_t *end, int64_t *ret)
{
	uint64_t v = 0;
	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (shift + 7 < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << (shift + 7);
			*ret = (int64_t)v;
			return true;
		}
	}
	return false;
}

#endif
