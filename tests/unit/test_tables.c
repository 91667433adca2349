// The tables of the verdict's vocabulary (model/verdicts.c) and of the diagnostic codes
// (model/diag_codes.c): complete, unique, sorted where looked up by search. print_tables.c prints
// them for tests/check_tables.py, which holds the docs, the JSON schema and the call sites to them.
#include <stdio.h>
#include <string.h>

#include "coretriage/report.h"
#include "kernel/vmcore.h"
#include "model/diag_codes.h"
#include "test.h"
#include "triage/facts.h"
#include "unwind/unwind.h"
#include "util/budget.h"

TEST(classes_complete_and_unique)
{
	for (int i = 0; i < CT_CLASS_NUM_; i++) {
		const char *n = ct_class_to_string((enum ct_class)i);
		CHECK(n && *n);
		CHECK(ct_class_scope((enum ct_class)i) != 0);
		for (int j = 0; j < i; j++)
			CHECK(strcmp(n, ct_class_to_string((enum ct_class)j)) != 0);
	}
	CHECK_STR(ct_class_to_string(CT_CLASS_NUM_), "unknown");
	CHECK_EQ(ct_class_scope(CT_CLASS_UNKNOWN), CT_CLASS_SCOPE_PROCESS | CT_CLASS_SCOPE_KERNEL);
}

/** The class named @p name, or CT_CLASS_NUM_. */
static enum ct_class class_named(const char *name)
{
	for (int i = 0; i < CT_CLASS_NUM_; i++) {
		if (!strcmp(ct_class_to_string((enum ct_class)i), name))
			return (enum ct_class)i;
	}
	return CT_CLASS_NUM_;
}

TEST(rules_decide_classes_of_their_scope)
{
	// Every kernel rule decides a kernel class; every process rule a process class (go-fault: the
	// fault's class, named for its mechanism; go-deadlock: deadlock, named for Go's checkdead).
	for (size_t i = 0; ct_kernel_rule_name(i); i++) {
		enum ct_class c = class_named(ct_kernel_rule_name(i));
		CHECK(c != CT_CLASS_NUM_ && (ct_class_scope(c) & CT_CLASS_SCOPE_KERNEL));
	}
	for (size_t i = 0; ct_rule_name(i); i++) {
		if (!strcmp(ct_rule_name(i), "go-fault"))
			continue;
		enum ct_class c = class_named(!strcmp(ct_rule_name(i), "go-deadlock") ? "deadlock" : ct_rule_name(i));
		CHECK(c != CT_CLASS_NUM_ && (ct_class_scope(c) & CT_CLASS_SCOPE_PROCESS));
	}
}

TEST(other_verdict_tables_complete)
{
	for (int i = 0; i < CT_ADDRESS_KIND_NUM_; i++)
		CHECK(ct_address_kind_to_string((enum ct_address_kind)i) != NULL);
	CHECK(ct_address_kind_to_string(CT_ADDRESS_KIND_NUM_) == NULL);
	for (int i = 0; i < CT_CONFIDENCE_NUM_; i++)
		CHECK(ct_confidence_to_string((enum ct_confidence)i) != NULL);
	CHECK(ct_access_to_string(CT_ACCESS_NONE) == NULL);
	for (int i = CT_ACCESS_READ; i < CT_ACCESS_NUM_; i++)
		CHECK(ct_access_to_string((enum ct_access)i) != NULL);
	// Every stop reason, of process and kernel stacks, has its one text.
	CHECK(ct_stop_reason_to_string(CT_STOP_NONE) == NULL);
	for (int i = CT_STOP_NONE + 1; i < CT_STOP_REASON_NUM_; i++) {
		const char *t = ct_stop_reason_to_string((enum ct_stop_reason)i);
		CHECK(t != NULL && *t);
		for (int j = CT_STOP_NONE + 1; t && j < i; j++)
			CHECK(strcmp(t, ct_stop_reason_to_string((enum ct_stop_reason)j)) != 0);
	}
	CHECK(ct_stop_reason_to_string(CT_STOP_REASON_NUM_) == NULL);
}

// The model keeps a stop's reason and detail; this one rendering is what every writer says.
TEST(stop_rendering)
{
	static const struct {
		struct ct_stop stop;
		const char *text;
	} cases[] = {
		{ { .reason = CT_STOP_OUTERMOST }, "outermost frame reached" },
		{ { .reason = CT_STOP_FRAME_CAP, .detail = CT_STOP_DETAIL_CAP, .value = 64 }, "frame cap 64 reached" },
		{ { .reason = CT_STOP_FRAME_CAP }, "frame cap reached" },
		{ { .reason = CT_STOP_TASK_FRAME_BUDGET, .detail = CT_STOP_DETAIL_CAP, .value = 4096 },
		  "not unwound: 4096 frames of task stacks reached" },
		{ { .reason = CT_STOP_STACK_NOT_IN_DUMP, .detail = CT_STOP_DETAIL_ADDRESS, .value = 0xffffc90000123000ull },
		  "stack at 0xffffc90000123000 is not in the dump" },
		{ { .reason = CT_STOP_TASK_NO_CONTEXT, .detail = CT_STOP_DETAIL_ADDRESS, .value = 0x10 },
		  "saved context at thread.sp 0x0000000000000010 is not in the dump" },
		{ { .reason = CT_STOP_TASK_NO_CONTEXT }, "its saved context (thread.sp) is not in the dump" },
		{ { .reason = CT_STOP_TASK_ON_CPU, .detail = CT_STOP_DETAIL_CPU, .value = 3 }, "running on CPU 3: its stack is that CPU's" },
		{ { .reason = CT_STOP_SCAN_END, .detail = CT_STOP_DETAIL_BYTES, .value = 16384 }, "end of stack scan (16384 bytes from sp)" },
		{ { .reason = CT_STOP_ORC_BAD_TYPE,
		    .detail = CT_STOP_DETAIL_AT_PC,
		    .value = 0xffffffff81000010ull,
		    .then = CT_STOP_SCAN_END,
		    .then_bytes = 8192 },
		  "ORC: unknown entry type at 0xffffffff81000010; then end of stack scan (8192 bytes from sp)" },
		{ { .reason = CT_STOP_FP_NO_RECORD, .detail = CT_STOP_DETAIL_AT_FP, .value = 0xffff800010003f00ull },
		  "frame record not in the dump at fp 0xffff800010003f00" },
		{ { .reason = CT_STOP_KERNEL_ARCH, .detail = CT_STOP_DETAIL_TEXT, .text = "riscv64" },
		  "kernel stacks of riscv64 are not unwound" },
		{ { .reason = CT_STOP_LIBRARY, .detail = CT_STOP_DETAIL_TEXT, .text = "No DWARF information found" },
		  "No DWARF information found" },
		// No message: the reason's words; a detail out of range: the words alone.
		{ { .reason = CT_STOP_LIBRARY, .detail = CT_STOP_DETAIL_TEXT }, "unwinding library error" },
		{ { .reason = CT_STOP_SCAN_END, .detail = (enum ct_stop_detail)99 }, "end of stack scan" },
	};
	char b[CT_STOP_TEXT_MAX];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR(ct_stop_render(&cases[i].stop, b, sizeof(b)), cases[i].text);
	struct ct_stop s = { .reason = CT_STOP_NONE };
	CHECK(ct_stop_render(&s, b, sizeof(b)) == NULL);
	s.reason = (enum ct_stop_reason)(CT_STOP_REASON_NUM_ + 1);
	CHECK(ct_stop_render(&s, b, sizeof(b)) == NULL);
	// Cut short: bounded, never past the buffer.
	char small[8];
	s = (struct ct_stop){ .reason = CT_STOP_FRAME_CAP, .detail = CT_STOP_DETAIL_CAP, .value = 64, .then = CT_STOP_SCAN_END };
	CHECK_STR(ct_stop_render(&s, small, sizeof(small)), "frame c");
}

TEST(diag_codes_sorted_and_found)
{
	for (int i = 0; i < CT_DIAG_NUM_; i++) {
		const char *n = ct_diag_code_to_string((enum ct_diag_code)i);
		CHECK(n && *n);
		if (i)
			CHECK(strcmp(ct_diag_code_to_string((enum ct_diag_code)(i - 1)), n) < 0);
		enum ct_diag_code c = CT_DIAG_NUM_;
		CHECK(ct_diag_code_from_string(n, &c) && c == (enum ct_diag_code)i);
	}
	enum ct_diag_code c = CT_DIAG_NUM_;
	CHECK(!ct_diag_code_from_string("no-such-code", &c) && c == CT_DIAG_NUM_);
	CHECK(!ct_diag_code_from_string(NULL, &c));
	CHECK_EQ(ct_diag_code_severity(CT_DIAG_NO_NOTES), CT_SEVERITY_ERROR);
	CHECK_EQ(ct_diag_code_severity(CT_DIAG_CORRUPT_NOTE), CT_SEVERITY_WARNING);
	// A budget kind's diagnostic is "budget-" and the kind's name (budget.c's kind_codes).
	for (int k = 0; k < CT_BUDGET_NUM_; k++) {
		char code[64];
		snprintf(code, sizeof(code), "budget-%s", ct_budget_kind_to_string((enum ct_budget_kind)k));
		CHECK(ct_diag_code_from_string(code, &c));
	}
}

TEST_MAIN()
