/**
 * @file test.h
 * A tiny unit-test harness: TEST(name) { CHECK(cond); CHECK_STR(a, b); } and TEST_MAIN().
 * Prints each failing check with file:line and a final "N passed, N failed" line; exits 1 on failure.
 */
#ifndef CT_TEST_H
#define CT_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct ct_test {
	const char *name;
	void (*fn)(void);
	struct ct_test *next;
};

extern struct ct_test *ct_tests;
extern int ct_test_failures;

#define TEST(name)                                                             \
	static void test_##name(void);                                         \
	static struct ct_test test_entry_##name = { #name, test_##name, NULL }; \
	__attribute__((constructor)) static void register_##name(void)         \
	{                                                                      \
		test_entry_##name.next = ct_tests;                             \
		ct_tests = &test_entry_##name;                                 \
	}                                                                      \
	static void test_##name(void)

#define CHECK(cond)                                                                        \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
			ct_test_failures++;                                                \
		}                                                                          \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                           \
			fprintf(stderr, "%s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__, a_ ? a_ : "(null)", \
				b_ ? b_ : "(null)");                                               \
			ct_test_failures++;                                                        \
		}                                                                                  \
	} while (0)

#define CHECK_EQ(a, b)                                                                               \
	do {                                                                                         \
		long long a_ = (long long)(a), b_ = (long long)(b);                                  \
		if (a_ != b_) {                                                                      \
			fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, a_, b_); \
			ct_test_failures++;                                                          \
		}                                                                                    \
	} while (0)

#define TEST_MAIN()                                                                       \
	struct ct_test *ct_tests;                                                         \
	int ct_test_failures;                                                             \
	int main(void)                                                                    \
	{                                                                                 \
		int passed = 0, failed = 0;                                               \
		for (struct ct_test *t = ct_tests; t; t = t->next) {                      \
			int before = ct_test_failures;                                    \
			t->fn();                                                          \
			if (ct_test_failures == before) {                                 \
				passed++;                                                 \
			} else {                                                          \
				failed++;                                                 \
				fprintf(stderr, "FAILED: %s\n", t->name);                 \
			}                                                                 \
		}                                                                         \
		printf("%d passed, %d failed\n", passed, failed);                         \
		return failed ? 1 : 0;                                                    \
	}

#endif
