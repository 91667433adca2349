// The rules-order table (issue 21): for each pair of process rules that can both match one set of
// facts, hand-built facts on which both conditions hold, and the rule that must win. The test checks
// that both really match (ct_rule_matches), that the winner comes first in the table and that the
// classifier decides the winner's class — so a reordering, or a rule that stops matching, fails here.
#include <stdlib.h>

#include "fault_facts.h"
#include "test.h"
#include "triage/facts.h"
#include "triage/triage.h"

static struct ct_report report;
static struct ct_verdict verdict;

/** fault() of a signal sent by @p sender (si_code <= 0), or a kernel fault. */
static struct ct_facts base(int signo, int code, int sender)
{
	struct ct_facts f = fault(signo, code);
	f.noexcept_frame = -1;
	if (code <= 0) {
		f.sig.has_sender = true;
		f.sig.sender_pid = sender;
		f.sig.from_self = sender == 100;
	}
	return f;
}

#define LIB(fn) { .pc = 0x7f0000001000, .function = fn, .module = "libc.so.6", .library = true }
#define OWN(fn) { .pc = 0x555555555100, .function = fn, .module = "prog", .own = true }

static struct ct_frame_fact abort_frames[] = { LIB("raise"), LIB("abort"), OWN("main") };
static struct ct_frame_fact assert_frames[] = { LIB("raise"), LIB("abort"), LIB("__assert_fail"), OWN("main") };
static struct ct_frame_fact smash_frames[] = { LIB("abort"), LIB("__fortify_fail"), LIB("__stack_chk_fail"), OWN("main") };
static struct ct_frame_fact malloc_frames[] = { LIB("abort"), LIB("malloc_printerr"), LIB("free"), OWN("main") };
static struct ct_frame_fact terminate_frames[] = { LIB("abort"), LIB("std::terminate()"), OWN("main") };
/* The overflow: the recursion meets the guard page at a call inside an interposed calloc. */
static struct ct_frame_fact calloc_frames[] = {
	{ .pc = 0x7f0000002000, .function = "calloc", .module = "libshim.so", .library = true },
	OWN("descend"), OWN("descend"), OWN("descend"), OWN("descend"), OWN("main"),
};

static void set_frames(struct ct_facts *f, struct ct_frame_fact *frames, size_t n)
{
	f->frames = frames;
	f->num_frames = n;
	f->blame = ct_find_blame(frames, n);
}

static struct ct_facts external_vs_abort(void)
{
	struct ct_facts f = base(CT_SIGABRT, CT_SI_USER, 4242); // a watchdog's kill(pid, SIGABRT)
	set_frames(&f, abort_frames, 3);
	return f;
}

static struct ct_facts assertion_vs_abort(void)
{
	struct ct_facts f = base(CT_SIGABRT, CT_SI_TKILL, 100);
	set_frames(&f, assert_frames, 4);
	return f;
}

static struct ct_facts smashing_vs_fortify(void)
{
	struct ct_facts f = base(CT_SIGABRT, CT_SI_TKILL, 100);
	set_frames(&f, smash_frames, 4);
	return f;
}

static struct ct_facts heap_abort_vs_abort(void)
{
	struct ct_facts f = base(CT_SIGABRT, CT_SI_TKILL, 100);
	set_frames(&f, malloc_frames, 4);
	return f;
}

static struct ct_facts uncaught_vs_abort(void)
{
	struct ct_facts f = base(CT_SIGABRT, CT_SI_TKILL, 100);
	set_frames(&f, terminate_frames, 3);
	return f;
}

/** sp 8 bytes below the stack mapping; a call faulting at sp - 8, inside the allocator. */
static struct ct_facts overflow_vs_heap_fault(void)
{
	struct ct_facts f = base(CT_SIGSEGV, CT_SEGV_MAPERR, 0);
	set_frames(&f, calloc_frames, 6);
	f.stack = (struct ct_stack_facts){ .valid = true, .sp = 0x7ffffe000000 - 8, .has_stack = true,
					   .stack_start = 0x7ffffe000000, .stack_end = 0x7ffffffff000,
					   .sp_in_guard = true, .num_frames = 6 };
	ct_find_recursion(f.frames, f.num_frames, &f.stack);
	f.insn.decoded = true;
	f.insn.is_call = true;
	uint64_t a = f.stack.sp - 8;
	f.sig.has_fault_address = true;
	f.sig.fault_address = a;
	f.fault = (struct ct_address_facts){ .valid = true, .address = a, .in_stack_guard = true };
	return f;
}

/** sp left the stack and the access is in unmapped space outside the guard gap. */
static struct ct_facts overflow_vs_wild(void)
{
	struct ct_facts f = base(CT_SIGSEGV, CT_SEGV_MAPERR, 0);
	set_frames(&f, calloc_frames + 1, 5);
	f.stack = (struct ct_stack_facts){ .valid = true, .sp = 0x7ff000000000, .has_stack = true,
					   .stack_start = 0x7ffffe000000, .stack_end = 0x7ffffffff000, .sp_outside = true };
	f.sig.has_fault_address = true;
	f.sig.fault_address = 0x7ff000000000 - 8;
	f.fault = (struct ct_address_facts){ .valid = true, .address = 0x7ff000000000 - 8 };
	return f;
}

/** A call through NULL: pc 0, unmapped. */
static struct ct_facts null_call_vs_wild(void)
{
	struct ct_facts f = base(CT_SIGSEGV, CT_SEGV_MAPERR, 0);
	f.pc = 0;
	f.pc_addr = (struct ct_address_facts){ .valid = true, .address = 0, .near_null = true };
	return f;
}

/** A ret popped garbage: pc unmapped and equal to the word just below sp. */
static struct ct_facts corruption_vs_wild(void)
{
	struct ct_facts f = base(CT_SIGSEGV, CT_SEGV_MAPERR, 0);
	f.pc = 0x4141414141;
	f.pc_addr = (struct ct_address_facts){ .valid = true, .address = f.pc };
	f.has_popped_word = true;
	f.popped_word = f.pc;
	return f;
}

/** A read at 0x10: unmapped, and near NULL. */
static struct ct_facts null_deref_vs_wild(void)
{
	struct ct_facts f = base(CT_SIGSEGV, CT_SEGV_MAPERR, 0);
	f.sig.has_fault_address = true;
	f.sig.fault_address = 0x10;
	f.fault = (struct ct_address_facts){ .valid = true, .address = 0x10, .near_null = true };
	return f;
}

static struct ct_facts div_zero_vs_fpe(void)
{
	return base(CT_SIGFPE, CT_FPE_INTDIV, 0);
}

static struct ct_facts trap_vs_illegal(void)
{
	struct ct_facts f = base(CT_SIGILL, CT_ILL_ILLOPN, 0);
	f.insn.decoded = true;
	f.insn.is_trap = true;
	return f;
}

static const struct {
	const char *winner, *loser;
	struct ct_facts (*make)(void);
} pairs[] = {
	{ "external-signal", "abort", external_vs_abort },
	{ "assertion-failure", "abort", assertion_vs_abort },
	{ "stack-buffer-overflow", "fortify-failure", smashing_vs_fortify },
	{ "heap-corruption", "abort", heap_abort_vs_abort },
	{ "uncaught-exception", "abort", uncaught_vs_abort },
	{ "stack-overflow", "heap-corruption", overflow_vs_heap_fault },
	{ "stack-overflow", "wild-pointer", overflow_vs_wild },
	{ "null-call", "wild-pointer", null_call_vs_wild },
	{ "stack-corruption", "wild-pointer", corruption_vs_wild },
	{ "null-deref", "wild-pointer", null_deref_vs_wild },
	{ "divide-by-zero", "floating-point-exception", div_zero_vs_fpe },
	{ "trap", "illegal-instruction", trap_vs_illegal },
};

static size_t rule_index(const char *name)
{
	for (size_t i = 0; ct_rule_name(i); i++) {
		if (strcmp(ct_rule_name(i), name) == 0)
			return i;
	}
	return SIZE_MAX;
}

TEST(rules_order_table)
{
	for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++) {
		struct ct_facts f = pairs[k].make();
		size_t w = rule_index(pairs[k].winner), l = rule_index(pairs[k].loser);
		CHECK(w != SIZE_MAX && l != SIZE_MAX);
		if (w == SIZE_MAX || l == SIZE_MAX)
			continue;
		if (!ct_rule_matches(w, &f) || !ct_rule_matches(l, &f) || w > l)
			fprintf(stderr, "pair %s over %s\n", pairs[k].winner, pairs[k].loser);
		CHECK(ct_rule_matches(w, &f));
		CHECK(ct_rule_matches(l, &f));
		CHECK(w < l);
		ct_verdict_free(&verdict);
		ct_report_deinit(&report);
		ct_report_init(&report);
		ct_verdict_init(&verdict, &report.strings);
		ct_classify(&f, &verdict);
		CHECK_STR(ct_class_to_string(verdict.crash.cls), pairs[k].winner);
	}
	ct_verdict_free(&verdict);
	ct_report_deinit(&report);
}

TEST(overflow_in_interposed_calloc_blames_the_recursion)
{
	struct ct_facts f = overflow_vs_heap_fault();
	ct_report_init(&report);
	ct_verdict_init(&verdict, &report.strings);
	ct_classify(&f, &verdict);
	CHECK_STR(ct_class_to_string(verdict.crash.cls), "stack-overflow");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
	CHECK_EQ(verdict.crash.blame_frame, 1); // the first own frame of the cycle, not calloc
	ct_verdict_free(&verdict);
	ct_report_deinit(&report);
}

TEST_MAIN()
