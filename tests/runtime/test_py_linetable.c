// CPython 3.11's location table decoder (src/runtime/python_linetable.c) against the interpreter's
// own co_lines() for thousands of real code objects (gen_linetables.py, run by check_linetable.py,
// names the file in CT_PY_LINETABLES), and on hostile tables: cut, without entry heads, huge deltas.
#include <stdlib.h>

#include "runtime/python.h"
#include "test.h"

static size_t unhex(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;
	for (; s[0] && s[1] && n < max; s += 2) {
		unsigned v;
		if (sscanf(s, "%2x", &v) != 1)
			break;
		out[n++] = (uint8_t)v;
	}
	return n;
}

TEST(against_cpython)
{
	const char *path = getenv("CT_PY_LINETABLES");
	if (!path)
		return; // the unit run alone: the hostile cases below
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	if (!f)
		return;
	static char line[1 << 22];
	static uint8_t table[1 << 20];
	size_t codes = 0, checked = 0;
	while (fgets(line, sizeof(line), f)) {
		char *hex = strchr(line, ' ');
		char *pairs = hex ? strchr(hex + 1, ' ') : NULL;
		if (!pairs)
			continue;
		*hex++ = '\0';
		*pairs++ = '\0';
		int first = atoi(line);
		size_t len = strcmp(hex, "-") ? unhex(hex, table, sizeof(table)) : 0;
		codes++;
		for (char *p = pairs; *p && *p != '-' && *p != '\n';) {
			long off = strtol(p, &p, 10);
			long want = *p == ':' ? strtol(p + 1, &p, 10) : -2;
			int got = ct_py_linetable_line(table, len, first, off);
			if (got != want) {
				fprintf(stderr, "first %d offset %ld: %d, CPython says %ld\n", first, off, got, want);
				ct_test_failures++;
			}
			checked++;
			if (*p == ',')
				p++;
		}
	}
	fclose(f);
	printf("%zu code objects, %zu instructions compared with CPython\n", codes, checked);
	CHECK(codes > 1000);
}

TEST(hostile_tables)
{
	// An entry head (bit 7) of a long form whose varint never ends: no line, no overrun.
	const uint8_t cut[] = { 0x80 | 14 << 3, 0x7f, 0x7f };
	CHECK_EQ(ct_py_linetable_line(cut, sizeof(cut), 10, 0), -1);
	// Bytes without an entry head where one must be: the table does not hold together.
	const uint8_t headless[] = { 0x12, 0x34 };
	CHECK_EQ(ct_py_linetable_line(headless, sizeof(headless), 10, 0), -1);
	// Deltas that would run the line past int: refused, not wrapped.
	uint8_t huge[64];
	for (size_t i = 0; i < sizeof(huge); i += 8) {
		huge[i] = 0x80 | 13 << 3; // no-column form, one code unit
		for (size_t k = 1; k < 7; k++)
			huge[i + k] = 0x7e | 0x40; // a long svarint: continuation set
		huge[i + 7] = 0x3e;
	}
	CHECK_EQ(ct_py_linetable_line(huge, sizeof(huge), 1, 14), -1);
	// Beyond the table, and before the first instruction (CPython: the first line).
	const uint8_t one[] = { 0x80 | 10 << 3, 1, 2 }; // one-line form, delta 0, one code unit
	CHECK_EQ(ct_py_linetable_line(one, sizeof(one), 7, 0), 7);
	CHECK_EQ(ct_py_linetable_line(one, sizeof(one), 7, 2), -1);
	CHECK_EQ(ct_py_linetable_line(one, sizeof(one), 7, -2), 7);
	CHECK_EQ(ct_py_linetable_line(NULL, 0, 7, 0), -1);
	// The no-location form (15) has no line.
	const uint8_t none[] = { 0x80 | 15 << 3 };
	CHECK_EQ(ct_py_linetable_line(none, sizeof(none), 7, 0), -1);
}

TEST_MAIN()
