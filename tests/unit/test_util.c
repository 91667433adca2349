// Unit tests of the error type, the string pool, signal names, recursion-cycle detection and the
// binary search.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coretriage/error.h"
#include "coretriage/report.h"
#include "writers/writers.h"
#include "test.h"
#include "util/bisect.h"
#include "util/bytes.h"
#include "util/dynlib.h"
#include "util/grow.h"

TEST(error_wrap_prepends_context)
{
	struct ct_error *err = ct_error_create(CT_ERROR_CORRUPT, "bad note");
	err = ct_error_wrap(err, "core %s", "c1");
	CHECK_STR(ct_error_message(err), "core c1: bad note");
	CHECK(ct_error_wrap(NULL, "x") == NULL);
	ct_error_destroy(err);
	// Wrapping a static error copies it.
	struct ct_error *w = ct_error_wrap(&ct_not_found, "lookup");
	CHECK(w != &ct_not_found);
	CHECK_STR(ct_error_message(w), "lookup: not found");
	CHECK_STR(ct_error_message(&ct_not_found), "not found");
	CHECK(ct_error_catch(&w, CT_ERROR_NOT_FOUND));
	CHECK(w == NULL);
}

TEST(strpool_interns)
{
	struct ct_strpool p;
	ct_strpool_init(&p);
	const char *a = ct_strpool_intern(&p, "main");
	const char *b = ct_strpool_intern_len(&p, "mainly", 4);
	CHECK(a == b);
	for (int i = 0; i < 5000; i++) {
		char buf[32];
		snprintf(buf, sizeof(buf), "f%d", i);
		CHECK(ct_strpool_intern(&p, buf) != NULL);
	}
	CHECK(ct_strpool_intern(&p, "main") == a);
	// Embedded NUL: interned up to it.
	CHECK(ct_strpool_intern_len(&p, "main\0xyz", 8) == a);
	// Stored text is a copy of its own, not interned, and not found by a later intern.
	const char *v = ct_strpool_store_len(&p, "main\0xyz", 8);
	CHECK_STR(v, "main");
	CHECK(v != a);
	CHECK(ct_strpool_intern(&p, "main") == a);
	CHECK(ct_strpool_store_len(&p, NULL, 3) == NULL);
	CHECK_STR(ct_strpool_printf(&p, "%s-%d", "x", 42), "x-42");
	ct_strpool_deinit(&p);
}

TEST(signal_names)
{
	CHECK_STR(ct_signal_name(11), "SIGSEGV");
	CHECK(ct_signal_name(0) == NULL);
	CHECK(ct_signal_name(1000) == NULL);
	CHECK_STR(ct_signal_code_name(11, 1), "SEGV_MAPERR");
	CHECK_STR(ct_signal_code_name(11, 128), "SI_KERNEL");
	CHECK_STR(ct_signal_code_name(6, -6), "SI_TKILL");
	CHECK_STR(ct_signal_code_name(8, 1), "FPE_INTDIV");
	CHECK_STR(ct_signal_code_name(7, 2), "BUS_ADRERR");
	CHECK(ct_signal_code_name(11, 99) == NULL);
}

TEST(bounds_helpers)
{
	CHECK(ct_in_bounds(10, 0, 10));
	CHECK(!ct_in_bounds(10, 1, 10));
	CHECK(!ct_in_bounds(10, UINT64_MAX, 2));
	CHECK(!ct_in_bounds(10, 2, UINT64_MAX));
	uint64_t r;
	CHECK(!ct_align_up(UINT64_MAX - 1, 4, &r));
	CHECK(ct_align_up(5, 4, &r) && r == 8);
	uint8_t be[4] = { 1, 2, 3, 4 };
	CHECK_EQ(ct_load32(be, true), 0x01020304);
	CHECK_EQ(ct_load32(be, false), 0x04030201);
}

TEST(cycle_detection)
{
	struct ct_thread t = { 0 };
	// a b (c d)x20 e: the period-2 cycle is found at index 2 and spans 40 frames.
	uint64_t pcs[] = { 1, 2 };
	for (int i = 0; i < 2; i++)
		ct_thread_add_frame(&t)->pc = pcs[i];
	for (int i = 0; i < 20; i++) {
		ct_thread_add_frame(&t)->pc = 3;
		ct_thread_add_frame(&t)->pc = 4;
	}
	ct_thread_add_frame(&t)->pc = 5;
	size_t period, repeats;
	CHECK(!ct_find_cycle(&t, 0, 16, &period, &repeats));
	CHECK(ct_find_cycle(&t, 2, 16, &period, &repeats));
	CHECK_EQ(period, 2);
	CHECK_EQ(repeats, 20);
	CHECK(!ct_find_cycle(&t, 2, 41, &period, &repeats));
	free(t.frames);
}

TEST(report_model_details_and_diagnostics)
{
	struct ct_report r;
	CHECK(ct_report_init(&r));
	CHECK_STR(ct_class_to_string(r.crash.cls), "unknown");
	CHECK(!ct_report_has_warnings(&r));
	ct_report_diag(&r, CT_SEVERITY_INFO, 0, CT_DIAG_LIMIT, "info %d", 1);
	CHECK(!ct_report_has_warnings(&r));
	ct_report_diag(&r, CT_SEVERITY_WARNING, 7, CT_DIAG_NO_MEMORY, "warn");
	CHECK(ct_report_has_warnings(&r));
	ct_crash_add_detail_int(&r.crash, &r.strings, "k", 1);
	ct_crash_add_detail_string(&r.crash, &r.strings, "k", "v"); // same key replaces
	CHECK_EQ(r.crash.num_details, 1);
	CHECK_STR(r.crash.details[0].string, "v");
	struct ct_module *m = ct_report_add_module(&r);
	m->base = 0x1000;
	m->end = 0x2000;
	CHECK(ct_report_find_module(&r, 0x1fff) == m);
	CHECK(ct_report_find_module(&r, 0x2000) == NULL);
	ct_report_deinit(&r);
}

TEST(grow_doubles_under_a_cap)
{
	int *a = NULL;
	size_t cap = 0;
	CHECK(CT_GROW(a, cap, 1, 4, 0));
	CHECK_EQ(cap, 4);
	a[3] = 7;
	CHECK(CT_GROW(a, cap, 4, 4, 0)); // enough already: unchanged
	CHECK_EQ(cap, 4);
	CHECK(CT_GROW(a, cap, 5, 4, 0));
	CHECK_EQ(cap, 8);
	CHECK_EQ(a[3], 7);
	CHECK(CT_GROW(a, cap, 33, 4, 0)); // several doublings at once
	CHECK_EQ(cap, 64);
	CHECK(CT_GROW(a, cap, 65, 4, 100)); // the last doubling stops at the cap
	CHECK_EQ(cap, 100);
	int *before = a;
	CHECK(!CT_GROW(a, cap, 101, 4, 100)); // beyond the cap: refused, the array kept
	CHECK(a == before);
	CHECK_EQ(cap, 100);
	CHECK(!CT_GROW(a, cap, (size_t)-1, 4, 0)); // a count no doubling reaches
	CHECK_EQ(cap, 100);
	free(a);
}

struct bisect_probe {
	const unsigned *v;
	unsigned key;
	size_t probes, fail_at;
};

static bool below_key(const void *ctx, size_t i)
{
	struct bisect_probe *p = (struct bisect_probe *)ctx;
	p->probes++;
	return p->v[i] < p->key;
}

static enum ct_bisect_answer below_key_or_fail(const void *ctx, size_t i)
{
	struct bisect_probe *p = (struct bisect_probe *)ctx;
	p->probes++;
	if (i == p->fail_at)
		return CT_BISECT_ERROR;
	return p->v[i] < p->key ? CT_BISECT_BEFORE : CT_BISECT_AFTER;
}

static bool always(const void *ctx, size_t i)
{
	(void)i;
	(*(size_t *)ctx)++;
	return true;
}

// util/bisect.h: the partition point against a linear scan on every key of a table with repeats,
// the empty table, a failing probe, and the probe count on the largest size_t range.
TEST(bisect_finds_the_partition_point)
{
	static const unsigned v[] = { 1, 3, 3, 3, 7, 9, 9, 12 };
	size_t n = sizeof(v) / sizeof(v[0]);
	for (unsigned key = 0; key <= 13; key++) {
		for (size_t len = 0; len <= n; len++) {
			size_t want = 0;
			while (want < len && v[want] < key)
				want++;
			struct bisect_probe p = { v, key, 0, SIZE_MAX };
			CHECK_EQ(ct_bisect(len, below_key, &p), want);
			CHECK(p.probes <= 4); // ceil(log2(9)) probes at most
			size_t got = 99;
			p.probes = 0;
			CHECK(ct_bisect_try(len, below_key_or_fail, &p, &got));
			CHECK_EQ(got, want);
		}
	}
	// A probe that cannot answer ends the search, the result untouched.
	struct bisect_probe p = { v, 9, 0, n / 2 };
	size_t got = 99;
	CHECK(!ct_bisect_try(n, below_key_or_fail, &p, &got));
	CHECK_EQ(got, 99);
	CHECK_EQ(p.probes, 1);
	// A hostile length: 64 probes for the whole size_t range, never more.
	size_t probes = 0;
	CHECK_EQ(ct_bisect(SIZE_MAX, always, &probes), SIZE_MAX);
	CHECK(probes <= 64);
}

// Optional libraries on first use (util/dynlib.h): a real one resolves and keeps its answer, a
// missing one is NULL and one line naming it and what needs it.
TEST(dynlib_loads_on_first_use_and_names_a_missing_library)
{
	static struct ct_dynlib libm = { .soname = "libm.so.6", .what = "this test needs" };
	static void *slot;
	void *cos_fn = ct_dynlib_sym(&libm, "cos", &slot);
	CHECK(cos_fn != NULL);
	CHECK(slot == cos_fn);
	CHECK(ct_dynlib_sym(&libm, "cos", &slot) == cos_fn);
	CHECK(ct_dynlib_require(&libm) == NULL);
	static struct ct_dynlib none = { .soname = "libcoretriage-test-missing.so.0", .what = "this test needs" };
	static void *slot2;
	CHECK(ct_dynlib_sym(&none, "f", &slot2) == NULL);
	struct ct_error *err = ct_dynlib_require(&none);
	CHECK(err != NULL);
	const char *msg = err ? ct_error_message(err) : "";
	CHECK(strstr(msg, "this test needs libcoretriage-test-missing.so.0, which cannot be loaded") == msg);
	CHECK(strchr(msg, '\n') == NULL);
	ct_error_destroy(err);
}

TEST_MAIN()
