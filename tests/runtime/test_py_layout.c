// The built-in CPython 3.11 layout (src/runtime/python_layout.c) against the DWARF of the
// interpreters installed here (Debian's python3.11 through python3.11-dbg's debug file, LTO units
// included, and the debug interpreter python3.11d), read by the stage's own DWARF reader.
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime/python.h"
#include "test.h"

static char *debuginfo_path = "-:.debug:/usr/lib/debug";

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static void check_interpreter(const char *path)
{
	if (access(path, R_OK) != 0) {
		printf("%s not installed: not compared\n", path);
		return;
	}
	Dwfl *dwfl = dwfl_begin(&callbacks);
	CHECK(dwfl != NULL);
	if (!dwfl)
		return;
	Dwfl_Module *mod = dwfl_report_offline(dwfl, "python", path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	CHECK(mod != NULL);
	struct ct_module_state m = { .dwfl_module = mod };
	struct ct_py_layout got;
	const struct ct_py_layout *want = ct_py_layout_find(3, 11, 8);
	CHECK(want != NULL);
	uint64_t anchors[CT_PY_NUM_ANCHORS];
	bool found[CT_PY_NUM_ANCHORS];
	bool ok = mod && ct_modules_symbols(&m, ct_py_dwarf_anchors, CT_PY_NUM_ANCHORS, anchors, found) &&
		  ct_py_layout_dwarf(&m, anchors, found, 3, 11, 8, &got);
	if (!ok)
		fprintf(stderr, "%s: no layout from its DWARF (is python3.11-dbg installed?)\n", path);
	CHECK(ok);
	if (ok && want) {
		const uint32_t *a = (const uint32_t *)&got, *b = (const uint32_t *)want;
		for (size_t i = 0; i < sizeof(got) / sizeof(uint32_t); i++) {
			if (a[i] != b[i]) {
				fprintf(stderr, "%s: field %zu of struct ct_py_layout: DWARF %u, table %u\n", path, i, a[i], b[i]);
				ct_test_failures++;
			}
		}
		printf("%s: DWARF layout equals the built-in 3.11 table\n", path);
	}
	dwfl_end(dwfl);
}

TEST(table_matches_dwarf)
{
	check_interpreter("/usr/bin/python3.11");
	check_interpreter("/usr/bin/python3.11d");
}

TEST(unknown_versions_have_no_table)
{
	CHECK(ct_py_layout_find(3, 12, 8) == NULL);
	CHECK(ct_py_layout_find(3, 10, 8) == NULL);
	CHECK(ct_py_layout_find(3, 11, 4) == NULL);
}

TEST_MAIN()
