// Rules of the classifier over hand-built fact sets (no core, no libdw).
#include <stdlib.h>

#include "fault_facts.h"
#include "test.h"
#include "triage/facts.h"
#include "triage/triage.h"

static struct ct_report report; // owns the strings
static struct ct_verdict verdict;

static struct ct_report pool_report;
static bool pool_ready;

/** A report that outlives reset(), for strings the facts borrow. */
static struct ct_report *pool(void)
{
	if (!pool_ready)
		pool_ready = ct_report_init(&pool_report);
	return &pool_report;
}

static void reset(void)
{
	ct_verdict_free(&verdict);
	ct_report_deinit(&report);
	ct_report_init(&report);
	ct_verdict_init(&verdict, &report.strings);
}


static void kernel_addr(struct ct_facts *f, uint64_t a)
{
	f->sig.has_fault_address = true;
	f->sig.fault_address = a;
	f->fault = (struct ct_address_facts){ .valid = true, .address = a, .near_null = a < CT_NEAR_NULL_LIMIT };
}

static struct ct_facts sent(int signo, int code, int sender)
{
	struct ct_facts f = fault(signo, code);
	f.sig.has_sender = true;
	f.sig.sender_pid = sender;
	f.sig.sender_uid = 1000;
	f.sig.from_self = sender == 100;
	return f;
}

static const struct ct_frame_fact abort_frames[] = {
	{ .pc = 0x7f0000001000, .function = "__pthread_kill_implementation", .module = "libc.so.6", .library = true },
	{ .pc = 0x7f0000002000, .function = "raise", .module = "libc.so.6", .library = true },
	{ .pc = 0x7f0000003000, .function = "abort", .module = "libc.so.6", .library = true },
	{ .pc = 0x555555555100, .function = "shutdown_on_error", .module = "prog", .own = true, .file = "x.c", .line = 3 },
	{ .pc = 0x555555555200, .function = "main", .module = "prog", .own = true },
};

static const char *cls(const struct ct_facts *f)
{
	reset();
	ct_classify(f, &verdict);
	return ct_class_to_string(verdict.crash.cls);
}

TEST(no_signal)
{
	struct ct_facts f = { .blame = -1 };
	f.sig.signo = 19; // gdb's SIGSTOP siginfo, but no thread carries a signal
	CHECK_STR(cls(&f), "no-signal");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
}

TEST(external_signal)
{
	struct ct_facts f = sent(CT_SIGSEGV, CT_SI_USER, 4242);
	CHECK_STR(cls(&f), "external-signal");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
	bool found = false;
	for (size_t i = 0; i < verdict.crash.num_details; i++)
		found |= strcmp(verdict.crash.details[i].key, "sender_pid") == 0 && verdict.crash.details[i].integer == 4242;
	CHECK(found);
}

TEST(external_signal_unknown_sender_is_low)
{
	struct ct_facts f = fault(CT_SIGSEGV, CT_SI_USER);
	CHECK_STR(cls(&f), "external-signal");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "low");
}

TEST(self_signal)
{
	struct ct_facts f = sent(CT_SIGSEGV, CT_SI_TKILL, 100);
	CHECK_STR(cls(&f), "self-signal");
	f = sent(CT_SIGBUS, CT_SI_USER, 100); // kill(getpid(), SIGBUS) is not a bus error
	CHECK_STR(cls(&f), "self-signal");
}

TEST(raise_sigabrt_without_abort_is_abort_medium)
{
	struct ct_facts f = sent(CT_SIGABRT, CT_SI_TKILL, 100);
	CHECK_STR(cls(&f), "abort");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "medium");
}

TEST(abort_with_frames)
{
	struct ct_facts f = sent(CT_SIGABRT, CT_SI_TKILL, 100);
	f.frames = abort_frames;
	f.num_frames = 5;
	f.blame = 3;
	CHECK_STR(cls(&f), "abort");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
	CHECK_EQ(verdict.crash.blame_frame, 3);
	CHECK(strstr(verdict.crash.summary, "shutdown_on_error (x.c:3)") != NULL);
}

TEST(assertion_message_and_frame_agree)
{
	struct ct_frame_fact frames[] = {
		{ .function = "abort", .library = true },
		{ .function = "__assert_fail", .library = true },
		{ .function = "checked_div", .own = true },
	};
	struct ct_facts f = sent(CT_SIGABRT, CT_SI_TKILL, 100);
	f.frames = frames;
	f.num_frames = 3;
	f.blame = 2;
	ct_abort_parse(&pool()->strings, "prog: t.c:3: checked_div: Assertion `b != 0' failed.\n", &f.abort_msg);
	CHECK_STR(cls(&f), "assertion-failure");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
	CHECK(strstr(verdict.crash.summary, "`b != 0`") != NULL);
}

TEST(assertion_conflicts_lower_confidence)
{
	// The message says assertion but the frames show no __assert_fail: say so, medium.
	struct ct_facts f = sent(CT_SIGABRT, CT_SI_TKILL, 100);
	f.frames = abort_frames;
	f.num_frames = 5;
	f.blame = 3;
	ct_abort_parse(&pool()->strings, "prog: t.c:3: other_fn: Assertion `x' failed.", &f.abort_msg);
	CHECK_STR(cls(&f), "assertion-failure");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "medium");
	bool conflict = false;
	for (size_t i = 0; i < verdict.crash.num_evidence; i++)
		conflict |= strncmp(verdict.crash.evidence[i], "conflict:", 9) == 0;
	CHECK(conflict);
}

TEST(stack_smashing_before_fortify)
{
	// glibc's __stack_chk_fail calls __fortify_fail: the stack-protector rule must win.
	struct ct_frame_fact frames[] = {
		{ .function = "abort", .library = true },
		{ .function = "__fortify_fail", .library = true },
		{ .function = "__stack_chk_fail", .library = true },
		{ .function = "parse_header", .own = true },
	};
	struct ct_facts f = sent(CT_SIGABRT, CT_SI_TKILL, 100);
	f.frames = frames;
	f.num_frames = 4;
	f.blame = 3;
	ct_abort_parse(&pool()->strings, "*** stack smashing detected ***: terminated\n", &f.abort_msg);
	CHECK_STR(cls(&f), "stack-buffer-overflow");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
}

TEST(fortify)
{
	struct ct_frame_fact frames[] = {
		{ .function = "abort", .library = true },
		{ .function = "__fortify_fail", .library = true },
		{ .function = "__chk_fail", .library = true },
		{ .function = "memcpy", .library = true, .inlined = true, .file = "/usr/include/x86_64-linux-gnu/bits/string_fortified.h" },
		{ .function = "store_label", .own = true },
	};
	struct ct_facts f = sent(CT_SIGABRT, CT_SI_TKILL, 100);
	f.frames = frames;
	f.num_frames = 5;
	f.blame = 4;
	ct_abort_parse(&pool()->strings, "*** buffer overflow detected ***: terminated", &f.abort_msg);
	CHECK_STR(cls(&f), "fortify-failure");
	CHECK(strstr(verdict.crash.summary, "memcpy") != NULL);
}

TEST(heap_abort_subclasses)
{
	struct ct_facts f = sent(CT_SIGABRT, CT_SI_TKILL, 100);
	struct ct_frame_fact frames[] = { { .function = "malloc_printerr", .library = true }, { .function = "f", .own = true } };
	f.frames = frames;
	f.num_frames = 2;
	f.blame = 1;
	ct_abort_parse(&pool()->strings, "free(): double free detected in tcache 2\n", &f.abort_msg);
	CHECK_STR(cls(&f), "heap-corruption");
	CHECK_STR(verdict.crash.subclass, "double-free");
	ct_abort_parse(&pool()->strings, "free(): invalid pointer", &f.abort_msg);
	CHECK_STR(cls(&f), "heap-corruption");
	CHECK_STR(verdict.crash.subclass, "invalid-free");
	ct_abort_parse(&pool()->strings, "free(): invalid next size (normal)", &f.abort_msg);
	CHECK_STR(cls(&f), "heap-corruption");
	CHECK_STR(verdict.crash.subclass, "corrupted-metadata");
}

TEST(heap_fault_inside_allocator)
{
	struct ct_frame_fact frames[] = { { .function = "_int_free", .library = true },
					  { .function = "free", .library = true },
					  { .function = "rebuild", .own = true } };
	struct ct_facts f = fault(CT_SIGSEGV, CT_SI_KERNEL);
	f.frames = frames;
	f.num_frames = 3;
	f.blame = 2;
	CHECK_STR(cls(&f), "heap-corruption");
	CHECK_STR(verdict.crash.subclass, "corrupted-metadata");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "medium");
}

TEST(uncaught_exception)
{
	struct ct_frame_fact frames[] = { { .function = "abort", .library = true },
					  { .function = "std::terminate()", .library = true },
					  { .function = "__cxa_throw", .library = true },
					  { .function = "parse", .own = true } };
	struct ct_facts f = sent(CT_SIGABRT, CT_SI_TKILL, 100);
	f.frames = frames;
	f.num_frames = 4;
	f.blame = 3;
	f.exception_type = "std::runtime_error";
	CHECK_STR(cls(&f), "uncaught-exception");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
	CHECK(strstr(verdict.crash.summary, "std::runtime_error") != NULL);
	// Own code named like a library function is not evidence: a program's own "abort" frame.
	struct ct_frame_fact own[] = { { .function = "std::terminate()", .own = true } };
	f.frames = own;
	f.num_frames = 1;
	f.blame = 0;
	f.exception_type = NULL;
	CHECK_STR(cls(&f), "abort");
}

/* ---- the abort family from the program's last call (no libc symbols, no abort message) ---- */

// A core from another machine: libc's frames are anonymous, only the program's frame is named.
static const struct ct_frame_fact anonymous_libc_frames[] = {
	{ .pc = 0x7f0000001000, .module = "libc-2.27.so" },
	{ .pc = 0x7f0000002000, .module = "libc-2.27.so" },
	{ .pc = 0x555555555100, .function = "main", .module = "prog", .own = true, .file = "t.c", .line = 30 },
};

static struct ct_facts last_call_abort(const char *symbol)
{
	struct ct_facts f = sent(CT_SIGABRT, CT_SI_TKILL, 100);
	f.frames = anonymous_libc_frames;
	f.num_frames = 3;
	f.blame = 2;
	f.last_call = (struct ct_call_facts){ .present = true, .site = 0x5555555550fb, .has_target = true,
					      .target = 0x555555554600, .symbol = symbol, .display = symbol, .via = "plt",
					      .resolved_module = "libc-2.27.so" };
	return f;
}

static bool has_evidence(const char *needle)
{
	for (size_t i = 0; i < verdict.crash.num_evidence; i++) {
		if (strstr(verdict.crash.evidence[i], needle))
			return true;
	}
	return false;
}

TEST(last_call_names_the_abort_family)
{
	static const struct {
		const char *symbol, *class_id, *confidence;
	} cases[] = {
		{ "__stack_chk_fail", "stack-buffer-overflow", "medium" },
		{ "__assert_fail", "assertion-failure", "medium" },
		{ "__strcpy_chk", "fortify-failure", "medium" },
		{ "__memcpy_chk", "fortify-failure", "medium" },
		{ "__chk_fail", "fortify-failure", "medium" },
		{ "free", "heap-corruption", "medium" },
		{ "_ZdlPvm", "heap-corruption", "medium" }, // operator delete(void*, unsigned long)
		{ "__cxa_throw", "uncaught-exception", "medium" },
		{ "_ZSt9terminatev", "uncaught-exception", "medium" },
		{ "abort", "abort", "high" }, // the program called abort() itself
		{ "pthread_mutex_lock", "abort", "medium" }, // says nothing about the cause
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ct_facts f = last_call_abort(cases[i].symbol);
		CHECK_STR(cls(&f), cases[i].class_id);
		CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), cases[i].confidence);
		CHECK(has_evidence(cases[i].symbol));
	}
	struct ct_facts f = last_call_abort("__memcpy_chk");
	cls(&f);
	CHECK(strstr(verdict.crash.summary, "memcpy() called from main (t.c:30)") != NULL);
	f = last_call_abort("free");
	cls(&f);
	CHECK(verdict.crash.subclass == NULL); // double free or invalid pointer: the call cannot tell
	CHECK(strstr(verdict.crash.summary, "during free()") != NULL);
}

TEST(last_call_is_weaker_than_message_and_frames)
{
	// The message says malloc: a stale __stack_chk_fail call must not override it.
	struct ct_facts f = last_call_abort("__stack_chk_fail");
	ct_abort_parse(&pool()->strings, "free(): double free detected in tcache 2\n", &f.abort_msg);
	CHECK_STR(cls(&f), "heap-corruption");
	CHECK(has_evidence("conflict: the program's last call"));
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "low"); // message alone (medium), lowered by the conflict
	// The message and the last call agree: high.
	f = last_call_abort("__stack_chk_fail");
	ct_abort_parse(&pool()->strings, "*** stack smashing detected ***: terminated\n", &f.abort_msg);
	CHECK_STR(cls(&f), "stack-buffer-overflow");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
	// A named __assert_fail frame wins over a free@plt last call.
	struct ct_frame_fact frames[] = { { .function = "__assert_fail", .library = true },
					  { .function = "f", .own = true, .pc = 0x5555 } };
	f = last_call_abort("free");
	f.frames = frames;
	f.num_frames = 2;
	f.blame = 1;
	CHECK_STR(cls(&f), "assertion-failure");
	// A scanned calling frame makes abort@plt medium: its return address may be stale.
	f = last_call_abort("abort");
	f.last_call.scanned = true;
	CHECK_STR(cls(&f), "abort");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "medium");
}

TEST(last_call_bound_to_own_code_is_not_evidence)
{
	// The program defines its own free() (bound into the executable): not glibc's checks.
	struct ct_facts f = last_call_abort("free");
	f.last_call.resolved_own = true;
	f.last_call.resolved_module = "prog";
	CHECK_STR(cls(&f), "abort");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "medium");
	CHECK(has_evidence("bound to the program's own code"));
	// And the last call never decides a non-abort signal.
	f = last_call_abort("__stack_chk_fail");
	f.sig = sent(CT_SIGSEGV, CT_SI_USER, 4242).sig;
	CHECK_STR(cls(&f), "external-signal");
}

TEST(null_call)
{
	struct ct_facts f = fault(CT_SIGSEGV, CT_SEGV_MAPERR);
	kernel_addr(&f, 0);
	f.pc = 0;
	f.pc_addr = (struct ct_address_facts){ .valid = true, .near_null = true };
	f.has_sp_word = true;
	f.sp_word = 0x555555555123;
	f.sp_word_after_call = true;
	CHECK_STR(cls(&f), "null-call");
	CHECK_STR(ct_access_to_string(verdict.crash.access), "exec");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
}

TEST(exec_non_executable)
{
	struct ct_facts f = fault(CT_SIGSEGV, CT_SEGV_ACCERR);
	f.pc = 0x5555566662a0;
	kernel_addr(&f, f.pc);
	f.pc_addr = (struct ct_address_facts){ .valid = true, .address = f.pc,
					       .mapping = { .present = true, .start = 0x555556666000, .end = 0x555556687000,
							    .flags = CT_PF_R | CT_PF_W } };
	f.fault.mapping = f.pc_addr.mapping;
	CHECK_STR(cls(&f), "exec-non-executable");
}

TEST(stack_overflow)
{
	struct ct_frame_fact frames[8];
	for (int i = 0; i < 8; i++)
		frames[i] = (struct ct_frame_fact){ .pc = 0x555555555100, .function = "expand", .own = true };
	struct ct_facts f = fault(CT_SIGSEGV, CT_SEGV_MAPERR);
	kernel_addr(&f, 0x7ffffe000ff8);
	f.fault.in_stack_guard = true;
	f.frames = frames;
	f.num_frames = 8;
	f.blame = 0;
	ct_find_recursion(frames, 8, &f.stack);
	CHECK_EQ(f.stack.recursion_depth, 8);
	CHECK_STR(cls(&f), "stack-overflow");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
	CHECK(strstr(verdict.crash.summary, "recursion in expand") != NULL);
	// Without recursion: one huge frame; still a stack overflow, medium.
	f.stack.recursion_depth = 0;
	CHECK_STR(cls(&f), "stack-overflow");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "medium");
}

TEST(stack_corruption_at_ret)
{
	struct ct_facts f = fault(CT_SIGSEGV, CT_SI_KERNEL);
	kernel_addr(&f, 0);
	f.insn.decoded = true;
	strcpy(f.insn.text, "ret");
	f.insn.is_ret = true;
	f.insn.has_return_address = true;
	f.insn.return_address = 0x4141414141414141;
	f.computed = (struct ct_address_facts){ .valid = true, .address = 0x4141414141414141, .non_canonical = true };
	CHECK_STR(cls(&f), "stack-corruption");
	CHECK_STR(ct_address_kind_to_string(verdict.crash.address_kind), "non-canonical");
}

TEST(stack_corruption_after_ret)
{
	struct ct_facts f = fault(CT_SIGSEGV, CT_SEGV_MAPERR);
	f.pc = 0x414141414141;
	kernel_addr(&f, f.pc);
	f.pc_addr = (struct ct_address_facts){ .valid = true, .address = f.pc };
	f.has_popped_word = true;
	f.popped_word = f.pc;
	CHECK_STR(cls(&f), "stack-corruption");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
}

TEST(null_deref_kernel_and_computed_agree)
{
	struct ct_facts f = fault(CT_SIGSEGV, CT_SEGV_MAPERR);
	kernel_addr(&f, 0x8);
	f.insn.decoded = true;
	f.insn.access = CT_ACCESS_READ;
	f.insn.fault_mem = 0;
	f.insn.num_mem = 1;
	f.insn.mem[0] = (struct ct_mem_operand){ .text = "[rax + 0x8]", .base = "rax", .has_base_value = true, .disp = 8,
						 .has_address = true, .address = 8, .size = 8, .access = CT_ACCESS_READ };
	f.computed = (struct ct_address_facts){ .valid = true, .address = 8, .near_null = true };
	f.culprit = "`n` (parameter of node_key)";
	CHECK_STR(cls(&f), "null-deref");
	CHECK_STR(ct_access_to_string(verdict.crash.access), "read");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
	CHECK(strstr(verdict.crash.summary, "`n` (parameter of node_key) is NULL") != NULL);
}

TEST(null_deref_conflict_lowers_confidence)
{
	struct ct_facts f = fault(CT_SIGSEGV, CT_SEGV_MAPERR);
	kernel_addr(&f, 0x8);
	f.insn.decoded = true;
	f.insn.fault_mem = 0;
	f.insn.num_mem = 1;
	f.insn.mem[0] = (struct ct_mem_operand){ .has_address = true, .address = 0x5000, .size = 8 };
	f.computed = (struct ct_address_facts){ .valid = true, .address = 0x5000, .near_null = true };
	CHECK_STR(cls(&f), "null-deref");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "medium");
}

TEST(si_kernel_noncanonical_is_wild_not_null)
{
	// #GP: si_addr 0 with SI_KERNEL must not be read as a NULL dereference.
	struct ct_facts f = fault(CT_SIGSEGV, CT_SI_KERNEL);
	kernel_addr(&f, 0);
	f.insn.decoded = true;
	f.insn.access = CT_ACCESS_READ;
	f.insn.fault_mem = 0;
	f.insn.num_mem = 1;
	f.insn.mem[0] = (struct ct_mem_operand){ .base = "rdi", .has_base_value = true, .base_value = 0xdeadbeefdeadbee0,
						 .has_address = true, .address = 0xdeadbeefdeadbee0, .size = 8 };
	f.computed = (struct ct_address_facts){ .valid = true, .address = 0xdeadbeefdeadbee0, .non_canonical = true };
	CHECK_STR(cls(&f), "wild-pointer");
	CHECK_STR(ct_address_kind_to_string(verdict.crash.address_kind), "non-canonical");
	CHECK_EQ(verdict.crash.address, 0xdeadbeefdeadbee0);
}

TEST(si_kernel_without_instruction_is_unknown)
{
	struct ct_facts f = fault(CT_SIGSEGV, CT_SI_KERNEL);
	kernel_addr(&f, 0);
	CHECK_STR(cls(&f), "unknown");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "low");
}

TEST(misaligned)
{
	struct ct_facts f = fault(CT_SIGSEGV, CT_SI_KERNEL);
	kernel_addr(&f, 0);
	f.insn.decoded = true;
	strcpy(f.insn.text, "movaps xmm0, xmmword ptr [rdx]");
	f.insn.needs_alignment = true;
	f.insn.alignment = 16;
	f.computed = (struct ct_address_facts){ .valid = true, .address = 0x555555559224,
						.mapping = { .present = true, .flags = CT_PF_R | CT_PF_W } };
	CHECK_STR(cls(&f), "misaligned-access");
	f.computed.address = 0x555555559220; // aligned: not this rule
	CHECK(strcmp(cls(&f), "misaligned-access") != 0);
}

TEST(wild_unmapped_and_exec)
{
	struct ct_facts f = fault(CT_SIGSEGV, CT_SEGV_MAPERR);
	kernel_addr(&f, 0x7f1fbe5b0c40);
	CHECK_STR(cls(&f), "wild-pointer");
	CHECK_STR(ct_address_kind_to_string(verdict.crash.address_kind), "unmapped");
	// A call to an unmapped address, with a return address right after a call.
	f = fault(CT_SIGSEGV, CT_SEGV_MAPERR);
	f.pc = 0x7f1fbe5b0c40;
	kernel_addr(&f, f.pc);
	f.pc_addr = (struct ct_address_facts){ .valid = true, .address = f.pc };
	f.has_sp_word = true;
	f.sp_word_after_call = true;
	CHECK_STR(cls(&f), "wild-pointer");
	CHECK_STR(ct_access_to_string(verdict.crash.access), "exec");
}

TEST(write_to_readonly)
{
	struct ct_facts f = fault(CT_SIGSEGV, CT_SEGV_ACCERR);
	kernel_addr(&f, 0x555555556190);
	f.fault.mapping = (struct ct_mapping_fact){ .present = true, .start = 0x555555556000, .end = 0x555555557000,
						    .flags = CT_PF_R, .file = "/home/u/prog" };
	f.insn.decoded = true;
	f.insn.access = CT_ACCESS_WRITE;
	CHECK_STR(cls(&f), "write-to-readonly");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
	f.insn.decoded = false; // inferred only
	f.insn.access = CT_ACCESS_NONE;
	CHECK_STR(cls(&f), "write-to-readonly");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "medium");
}

TEST(bus_error_names_file)
{
	struct ct_facts f = fault(CT_SIGBUS, CT_BUS_ADRERR);
	kernel_addr(&f, 0x7f0000001010);
	f.fault.mapping = (struct ct_mapping_fact){ .present = true, .start = 0x7f0000000000, .end = 0x7f0000002000,
						    .flags = CT_PF_R, .file = "/data/data.bin" };
	CHECK_STR(cls(&f), "bus-error");
	CHECK(strstr(verdict.crash.summary, "/data/data.bin") != NULL);
	CHECK(strstr(verdict.crash.summary, "0x1010") != NULL);
}

TEST(division)
{
	struct ct_facts f = fault(CT_SIGFPE, CT_FPE_INTDIV);
	f.insn.decoded = true;
	f.insn.is_div = true;
	f.insn.has_divisor = true;
	f.insn.divisor = 0;
	CHECK_STR(cls(&f), "divide-by-zero");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
	f.insn.divisor = -1;
	f.insn.dividend_is_min = true;
	f.insn.has_dividend = true;
	f.insn.dividend = INT64_MIN;
	f.insn.div_size = 8;
	CHECK_STR(cls(&f), "integer-overflow");
	f.insn.has_divisor = false; // divisor unknown: FPE_INTDIV is most likely a zero divisor
	CHECK_STR(cls(&f), "divide-by-zero");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "medium");
	f = fault(CT_SIGFPE, CT_FPE_INTOVF);
	CHECK_STR(cls(&f), "integer-overflow");
	f = fault(CT_SIGFPE, 3); // FPE_FLTDIV
	CHECK_STR(cls(&f), "floating-point-exception");
}

TEST(traps_and_illegal)
{
	struct ct_facts f = fault(CT_SIGILL, 2);
	f.insn.decoded = true;
	f.insn.is_trap = true;
	strcpy(f.insn.text, "ud2");
	CHECK_STR(cls(&f), "trap");
	f.insn.is_trap = false;
	f.insn.decoded = false;
	f.insn.have_bytes = true;
	f.insn.size = 1;
	f.insn.bytes[0] = 0x06;
	CHECK_STR(cls(&f), "illegal-instruction");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
	f = fault(CT_SIGTRAP, CT_SI_KERNEL);
	f.insn.is_breakpoint = true;
	CHECK_STR(cls(&f), "trap");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
	f.insn.is_breakpoint = false;
	CHECK_STR(cls(&f), "trap");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "medium");
}

TEST(rule_names)
{
	CHECK_STR(ct_rule_name(0), "no-signal");
	size_t n = 0;
	while (ct_rule_name(n))
		n++;
	CHECK_STR(ct_rule_name(n - 1), "unknown");
}

TEST_MAIN()
