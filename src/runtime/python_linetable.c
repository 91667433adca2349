// CPython 3.11's location table (co_linetable; the locations notes in CPython's Objects/): entries of a first byte
// 1CCCCLLL (code, length - 1 in code units) and varint payloads. Only the start line is needed:
// it is a running value, a delta per entry from co_firstlineno. A table that ends inside an entry
// (a hostile dump) ends the walk: the instruction has no line.
#include <stdint.h>

#include "runtime/python.h"

/** Bytes of a code unit (_Py_CODEUNIT). */
#define CODE_UNIT 2

enum { LOC_ONE_LINE0 = 10, LOC_ONE_LINE2 = 12, LOC_NO_COLUMNS = 13, LOC_LONG = 14, LOC_NONE = 15 };

// Unsigned varint of 6-bit chunks, least significant first, bit 6 set on all but the last.
static bool read_varint(const uint8_t *t, size_t len, size_t *pos, uint32_t *ret)
{
	uint32_t val = 0;
	for (unsigned shift = 0; *pos < len && shift < 32; shift += 6) {
		uint8_t b = t[(*pos)++];
		val |= (uint32_t)(b & 63) << shift;
		if (!(b & 64)) {
			*ret = val;
			return true;
		}
	}
	return false;
}

int ct_py_linetable_line(const uint8_t *table, size_t len, int first, int64_t addrq)
{
	if (addrq < 0)
		return first;
	int64_t line = first;
	int64_t addr = 0;
	size_t pos = 0;
	while (pos < len) {
		uint8_t head = table[pos++];
		if (!(head & 0x80))
			return -1; // not at an entry's first byte: the table does not hold together
		unsigned code = (head >> 3) & 15;
		int64_t end = addr + (int64_t)((head & 7) + 1) * CODE_UNIT;
		int64_t delta = 0;
		uint32_t v;
		if (code == LOC_NO_COLUMNS || code == LOC_LONG) {
			if (!read_varint(table, len, &pos, &v))
				return -1;
			delta = v & 1 ? -(int64_t)(v >> 1) : (int64_t)(v >> 1);
		} else if (code >= LOC_ONE_LINE0 && code <= LOC_ONE_LINE2) {
			delta = code - LOC_ONE_LINE0;
		}
		line += delta;
		if (line < INT32_MIN || line > INT32_MAX)
			return -1;
		// The rest of the entry (columns, end line) is skipped: up to the next first byte.
		while (pos < len && !(table[pos] & 0x80))
			pos++;
		if (addrq < end)
			return code == LOC_NONE ? -1 : (int)line;
		addr = end;
	}
	return -1;
}
