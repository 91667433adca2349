// Unit tests of the presentation layer: the sanitizer's rules (writers/sanitize.c), thread groups
// and recursion collapsing (writers/present.c), the bucket table (writers/buckets.c), the budget.
#include <stdlib.h>
#include <string.h>

#include "coretriage/coretriage.h"
#include "writers/buckets.h"
#include "writers/present.h"
#include "writers/sanitize.h"
#include "test.h"
#include "util/budget.h"

#define REP "\xef\xbf\xbd"

static char *dup_rule(const char *s, enum ct_text_rule rule)
{
	char *d = ct_text_dup(s, rule);
	return d ? d : strdup("(null)");
}

TEST(sanitize_terminal)
{
	char *s = dup_rule("a\x1b]0;t\x07\nb\tc\r\x7f\xff\xc2\x9b\xe2\x80\xae\xc3\xa9", CT_TEXT_TERMINAL);
	CHECK_STR(s, "a\\x1b]0;t\\x07\\nb\\tc\\r\\x7f\\xff\\u009b\\u202e\xc3\xa9");
	free(s);
	CHECK(ct_text_is_clean("plain ascii and \xc3\xa9", CT_TEXT_TERMINAL));
	CHECK(!ct_text_is_clean("x\x1b", CT_TEXT_TERMINAL));
}

TEST(sanitize_keeps_valid_parts)
{
	char *s = dup_rule("fn\xffname\x1b", CT_TEXT_UTF8);
	CHECK_STR(s, "fn" REP "name\x1b");
	free(s);
	s = dup_rule("<a&\"b\x01\xfe\xef\xbf\xbe>", CT_TEXT_XML);
	CHECK_STR(s, "&lt;a&amp;&quot;b\\x01" REP REP "&gt;");
	free(s);
	s = dup_rule("a;b\x1b\xc2\x85", CT_TEXT_FOLDED);
	CHECK_STR(s, "a:b  ");
	free(s);
	s = dup_rule("`x|*\x1b", CT_TEXT_MD_CELL);
	CHECK_STR(s, "'x\\|*\\x1b");
	free(s);
	s = dup_rule("*_\x1b\xe2\x80\xae", CT_TEXT_MD_INLINE);
	CHECK_STR(s, "\\*\\_\\\\x1b\\\\u202e");
	free(s);
}

// Every bidi control, zero-width and tag character is made visible in text and Markdown (issue 22):
// U+061C, U+200E/F, U+202A-E, U+2066-9, U+200B-D, U+2060, U+FEFF, U+180E, U+E0000-E007F.
TEST(sanitize_invisible_characters)
{
	static const struct {
		const char *in, *text;
	} cases[] = {
		{ "\xd8\x9c", "\\u061c" },	      { "\xe2\x80\x8e", "\\u200e" }, { "\xe2\x80\x8f", "\\u200f" },
		{ "\xe2\x80\xaa", "\\u202a" },      { "\xe2\x80\xae", "\\u202e" }, { "\xe2\x81\xa6", "\\u2066" },
		{ "\xe2\x81\xa9", "\\u2069" },      { "\xe2\x80\x8b", "\\u200b" }, { "\xe2\x80\x8d", "\\u200d" },
		{ "\xe2\x81\xa0", "\\u2060" },      { "\xef\xbb\xbf", "\\ufeff" }, { "\xe1\xa0\x8e", "\\u180e" },
		{ "\xf3\xa0\x80\x81", "\\U000e0001" }, { "\xf3\xa0\x81\xbf", "\\U000e007f" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = dup_rule(cases[i].in, CT_TEXT_TERMINAL);
		CHECK_STR(s, cases[i].text);
		free(s);
		for (int rule = CT_TEXT_MD_INLINE; rule <= CT_TEXT_MD_BLOCK; rule++) {
			s = dup_rule(cases[i].in, (enum ct_text_rule)rule);
			CHECK(strstr(s, cases[i].text) != NULL);
			CHECK(strstr(s, cases[i].in) == NULL);
			free(s);
		}
	}
	// Neighbours that are ordinary characters stay as they are.
	char *s = dup_rule("\xd8\x9b\xe2\x80\x8a\xf3\xa0\x82\x80", CT_TEXT_TERMINAL);
	CHECK_STR(s, "\xd8\x9b\xe2\x80\x8a\xf3\xa0\x82\x80");
	free(s);
}

TEST(sanitize_cuts_on_characters)
{
	char buf[64];
	// Three two-byte characters, at most two of them.
	size_t w = ct_text_format(buf, sizeof(buf), "\xc3\xb1\xc3\xb1\xc3\xb1", CT_TEXT_XML, 2);
	CHECK_STR(buf, "\xc3\xb1\xc3\xb1");
	CHECK_EQ(w, 2);
	// A buffer too small for the next character stops before it.
	ct_text_format(buf, 4, "\xc3\xb1\xc3\xb1", CT_TEXT_XML, SIZE_MAX);
	CHECK_STR(buf, "\xc3\xb1");
	CHECK_EQ(ct_text_chars("a\xc3\xb1\xff"), 3);
}

static void add_thread(struct ct_report *r, int tid, const uint64_t *pcs, size_t n)
{
	struct ct_thread *t = ct_report_add_thread(r);
	t->tid = tid;
	for (size_t i = 0; i < n; i++)
		ct_thread_add_frame(t)->pc = pcs[i];
}

TEST(thread_groups)
{
	struct ct_report r;
	CHECK(ct_report_init(&r));
	uint64_t a[] = { 1, 2, 3 }, b[] = { 1, 2, 4 };
	add_thread(&r, 10, a, 3);
	r.threads[0].crashed = true;
	add_thread(&r, 11, a, 3);
	add_thread(&r, 12, b, 3);
	add_thread(&r, 13, a, 3);
	add_thread(&r, 14, a, 2);
	struct ct_thread_groups g;
	ct_thread_groups_init(&g, &r);
	CHECK_EQ(g.num_groups, 3);
	CHECK_EQ(ct_thread_group_size(&g, 0), 2);
	CHECK_EQ(ct_thread_group_member(&g, 0, 0), 1);
	CHECK_EQ(ct_thread_group_member(&g, 0, 1), 3);
	CHECK_EQ(ct_thread_group_member(&g, 1, 0), 2);
	CHECK_EQ(ct_thread_group_member(&g, 2, 0), 4);
	ct_thread_groups_deinit(&g);
	r.input.pointer_size = 4;
	CHECK_EQ(ct_present_hex_width(&r), 8);
	r.input.pointer_size = 0;
	CHECK_EQ(ct_present_hex_width(&r), 16);
	ct_report_deinit(&r);
}

TEST(bucket_table)
{
	struct ct_buckets t;
	ct_buckets_init(&t);
	const char *hashes[] = { "aa", "bb", "aa", "cc", "bb", "aa" };
	for (size_t i = 0; i < 6; i++) {
		struct ct_bucket b = { .hash = hashes[i], .stack = malloc(8), .has_time = true,
				       .first_seen = (long long)(100 - i), .last_seen = (long long)(100 - i) };
		CHECK(ct_buckets_add(&t, &b, i) != NULL);
	}
	ct_buckets_sort(&t);
	CHECK_EQ(t.num, 3);
	CHECK_STR(t.entries[0].b.hash, "aa");
	CHECK_EQ(t.entries[0].b.count, 3);
	CHECK_EQ(t.entries[0].num_members, 3);
	CHECK_EQ(t.entries[0].members[2], 5);
	CHECK_EQ(t.entries[0].b.first_seen, 95);
	CHECK_EQ(t.entries[0].b.last_seen, 100);
	CHECK_STR(t.entries[1].b.hash, "bb");
	CHECK_STR(t.entries[2].b.hash, "cc");
	ct_buckets_deinit(&t);
}

TEST(budget)
{
	struct ct_options o;
	ct_options_init(&o);
	o.max_memory = UINT64_C(1) << 30;
	struct ct_budget b;
	ct_budget_init(&b, &o);
	CHECK_EQ(b.limit[CT_BUDGET_FRAMES], (UINT64_C(1) << 30) / 1024);
	o.safe = true;
	ct_budget_init(&b, &o);
	CHECK_EQ(b.limit[CT_BUDGET_FRAMES], (UINT64_C(1) << 30) / 2048);
	CHECK_EQ(b.limit[CT_BUDGET_TEMP], UINT64_C(1) << 30);
	// The values' budgets (elements rendered, expression steps): memory / 512 and / 256, halved.
	CHECK_EQ(b.limit[CT_BUDGET_ELEMENTS], (UINT64_C(1) << 30) / 1024);
	CHECK_EQ(b.limit[CT_BUDGET_EXPR], (UINT64_C(1) << 30) / 512);
	CHECK_STR(ct_budget_kind_to_string(CT_BUDGET_EXPR), "expr");
	CHECK(ct_budget_take(&b, CT_BUDGET_FRAMES, b.limit[CT_BUDGET_FRAMES]));
	CHECK(!ct_budget_take(&b, CT_BUDGET_FRAMES, 1));
	CHECK(b.reached[CT_BUDGET_FRAMES]);
	CHECK(ct_budget_take(NULL, CT_BUDGET_TEXT, UINT64_MAX));
}

TEST_MAIN()
