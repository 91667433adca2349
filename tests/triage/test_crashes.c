// Issue 16's rules over hand-built facts: signal-frame facts and re-raised faults, runtime panics,
// the runtime/blame lists, signature versions, one-frame stack overflows, noexcept, Zydis.
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "triage/facts.h"
#include "triage/triage.h"
#include "triage/insn.h"

static struct ct_report report; // owns the strings
static struct ct_verdict verdict;

static void reset(void)
{
	ct_verdict_free(&verdict);
	ct_report_deinit(&report);
	ct_report_init(&report);
	ct_verdict_init(&verdict, &report.strings);
}

static const char *cls(const struct ct_facts *f)
{
	reset();
	ct_classify(f, &verdict);
	return ct_class_to_string(verdict.crash.cls);
}

static bool has_evidence(const char *needle)
{
	for (size_t i = 0; i < verdict.crash.num_evidence; i++) {
		if (strstr(verdict.crash.evidence[i], needle))
			return true;
	}
	return false;
}

static struct ct_facts base(int signo, int code, bool self)
{
	struct ct_facts f = { 0 };
	f.blame = -1;
	f.insn.fault_mem = -1;
	f.sig = (struct ct_signal_facts){ .fatal = true, .signo = signo, .has_code = true, .code = code,
					  .kernel_sent = code > 0, .user_sent = code <= 0, .has_pid = true, .pid = 100,
					  .has_sender = code <= 0, .sender_pid = self ? 100 : 0, .from_self = self && code <= 0 };
	f.arch = "x86_64";
	f.pointer_size = 8;
	return f;
}

/* ---- signal frames ---- */

TEST(sigframe_page_fault_needs_the_instruction)
{
	struct ct_sigframe_facts sf = { .pc = 0x1000, .has_trap = true, .trapno = 14, .err = 6, .cr2 = 0x8 };
	struct ct_insn_facts in = { .decoded = true, .num_mem = 1, .fault_mem = 0 };
	in.mem[0] = (struct ct_mem_operand){ .has_address = true, .address = 0x8, .size = 8, .access = CT_ACCESS_WRITE };
	ct_sigframe_derive(&sf, true, &in);
	CHECK_EQ(sf.fault_signo, CT_SIGSEGV);
	CHECK_EQ(sf.fault_code, CT_SEGV_MAPERR); // err bit 0 clear: page not present
	CHECK_EQ(sf.fault_addr, 0x8);
	// A stale trap (the instruction at pc does not touch cr2, e.g. a syscall return): no fault.
	in.mem[0].address = 0x7fff0000;
	ct_sigframe_derive(&sf, true, &in);
	CHECK_EQ(sf.fault_signo, 0);
	// trapno 0 is also "never trapped": only a division counts.
	struct ct_sigframe_facts z = { .pc = 0x1000, .has_trap = true, .trapno = 0 };
	struct ct_insn_facts mov = { .decoded = true };
	ct_sigframe_derive(&z, true, &mov);
	CHECK_EQ(z.fault_signo, 0);
	mov.is_div = true;
	ct_sigframe_derive(&z, true, &mov);
	CHECK_EQ(z.fault_signo, CT_SIGFPE);
}

TEST(sigframe_sender_of_an_external_signal)
{
	// A watchdog's SIGABRT (SI_USER from pid 4242) that the handler re-raised: external.
	struct ct_sigframe_facts sf = { .has_siginfo = true, .si_signo = CT_SIGABRT, .si_code = CT_SI_USER, .si_pid = 4242 };
	ct_sigframe_derive_sender(&sf, 100, CT_SIGABRT);
	CHECK(sf.external);
	// The handler called abort() for a SIGTERM: still the first signal's sender.
	sf.si_signo = CT_SIGTERM;
	ct_sigframe_derive_sender(&sf, 100, CT_SIGABRT);
	CHECK(sf.external);
	// Stale bytes (no SA_SIGINFO): another signal than the dumped one, or an impossible pid.
	ct_sigframe_derive_sender(&sf, 100, CT_SIGSEGV);
	CHECK(!sf.external);
	sf.si_signo = CT_SIGSEGV;
	sf.si_pid = 0x7fffffff;
	ct_sigframe_derive_sender(&sf, 100, CT_SIGSEGV);
	CHECK(!sf.external);
	// Sent by the process itself, a kernel fault, or no siginfo: not external.
	sf.si_pid = 100;
	ct_sigframe_derive_sender(&sf, 100, CT_SIGSEGV);
	CHECK(!sf.external);
	sf.si_pid = 4242;
	sf.si_code = CT_SEGV_MAPERR;
	ct_sigframe_derive_sender(&sf, 100, CT_SIGSEGV);
	CHECK(!sf.external);
	sf.si_code = CT_SI_USER;
	sf.has_siginfo = false;
	ct_sigframe_derive_sender(&sf, 100, CT_SIGSEGV);
	CHECK(!sf.external);
}

TEST(sigframe_siginfo_and_esr)
{
	// SA_SIGINFO handler: the kernel's siginfo names the fault.
	struct ct_sigframe_facts sf = { .has_siginfo = true, .si_signo = CT_SIGBUS, .si_code = CT_BUS_ADRERR, .si_addr = 0x5000 };
	ct_sigframe_derive(&sf, true, NULL);
	CHECK_EQ(sf.fault_signo, CT_SIGBUS);
	CHECK_EQ(sf.fault_addr, 0x5000);
	// A sent signal's siginfo (SIGUSR1, SI_TKILL) is not a fault.
	struct ct_sigframe_facts usr = { .has_siginfo = true, .si_signo = 10, .si_code = CT_SI_TKILL };
	ct_sigframe_derive(&usr, true, NULL);
	CHECK_EQ(usr.fault_signo, 0);
	// aarch64: a data abort (EC 0x24), translation fault (DFSC 0x05) at fault_address.
	struct ct_sigframe_facts a = { .has_esr = true, .esr = (0x24ULL << 26) | 0x05, .has_fault_address = true,
				       .fault_address = 0x10 };
	ct_sigframe_derive(&a, false, NULL);
	CHECK_EQ(a.fault_signo, CT_SIGSEGV);
	CHECK_EQ(a.fault_code, CT_SEGV_MAPERR);
	CHECK_EQ(a.fault_addr, 0x10);
	// No ESR record: the signal was not a fault.
	struct ct_sigframe_facts none = { .has_fault_address = true };
	ct_sigframe_derive(&none, false, NULL);
	CHECK_EQ(none.fault_signo, 0);
}

static const struct ct_frame_fact reporter_frames[] = {
	{ .function = "__pthread_kill_implementation", .module = "libc.so.6", .library = true },
	{ .function = "raise", .module = "libc.so.6", .library = true },
	{ .function = "abort", .module = "libc.so.6", .library = true },
	{ .function = "crash_reporter", .module = "prog", .own = true },
	{ .function = "__restore_rt", .module = "libc.so.6", .library = true, .signal_frame = true },
	{ .function = "store_sample", .module = "prog", .own = true },
	{ .function = "main", .module = "prog", .own = true },
};

TEST(reraised_fault_is_the_original_fault)
{
	struct ct_facts f = base(CT_SIGABRT, CT_SI_TKILL, true);
	f.frames = reporter_frames;
	f.num_frames = 7;
	f.blame = 3;
	CHECK_STR(cls(&f), "abort");
	// The handler's signal frame holds the fault: SIGSEGV at 0x8 in store_sample.
	struct ct_facts in = base(CT_SIGSEGV, CT_SEGV_MAPERR, false);
	in.sig.has_fault_address = true;
	in.sig.fault_address = 0x8;
	in.fault = (struct ct_address_facts){ .valid = true, .address = 0x8, .near_null = true };
	in.frames = reporter_frames + 5;
	in.num_frames = 2;
	in.frame_base = 5;
	in.blame = 0;
	f.sigframes[0] = (struct ct_sigframe_facts){ .frame = 4, .has_trap = true, .trapno = 14, .err = 6, .cr2 = 8,
						     .fault_signo = CT_SIGSEGV, .fault_code = CT_SEGV_MAPERR,
						     .fault_source = "test" };
	f.num_sigframes = 1;
	f.reraised = &in;
	CHECK_STR(cls(&f), "null-deref");
	CHECK_EQ(verdict.crash.blame_frame, 5);
	CHECK(has_evidence("raised inside a signal handler: frame #3 crash_reporter"));
	CHECK(has_evidence("trapno 14"));
	CHECK(strstr(verdict.crash.summary, "re-raised as SIGABRT by the handler crash_reporter") != NULL);
}

/* ---- runtime panics ---- */

static const struct ct_frame_fact rust_frames[] = {
	{ .function = "raise", .module = "libc.so.6", .library = true },
	{ .function = "abort", .module = "libc.so.6", .library = true },
	{ .function = "panic_abort::__rust_start_panic::abort::h42aaf1c838f2ed10", .module = "prog", .library = true },
	{ .function = "__rust_start_panic", .module = "prog", .library = true },
	{ .function = "rust_panic", .module = "prog", .library = true },
	{ .function = "core::option::expect_failed::h0123456789abcdef", .module = "prog", .library = true },
	{ .function = "prog::port_for::h66c102c1837610e1", .module = "prog", .own = true },
	{ .function = "prog::main::hd629bb31daa077b4", .module = "prog", .own = true },
};

TEST(rust_panic)
{
	struct ct_facts f = base(CT_SIGABRT, CT_SI_TKILL, true);
	f.frames = rust_frames;
	f.num_frames = 8;
	f.blame = 6;
	ct_panic_find(&f);
	CHECK_STR(f.panic.runtime, "rust");
	CHECK_EQ(f.panic.frame, 3); // __rust_start_panic
	f.panic.message = "service must be configured";
	f.panic.file = "src/main.rs";
	f.panic.line = 7;
	CHECK_STR(cls(&f), "panic");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
	CHECK(strstr(verdict.crash.summary, "Rust panic: service must be configured") != NULL);
	CHECK_EQ(verdict.crash.blame_frame, 6);
	// The signature of another panic differs (another blamed function).
	ct_signature_build(&f, NULL, &verdict);
	CHECK(strstr(verdict.signature.text, "panic|prog::port_for") == verdict.signature.text);
	// The runtime lists: Rust's panic path is not code to blame, user code is.
	CHECK(ct_function_is_rust_panic("std::panicking::rust_panic_with_hook::h57071e38e2bc223f"));
	CHECK(ct_function_is_rust_panic("core::result::Result$LT$T$C$E$GT$::unwrap::h0d225e954070bae8"));
	CHECK(ct_function_is_rust_panic("rust_panic"));
	CHECK(!ct_function_is_rust_panic("rust_panicky_user_fn"));
	CHECK(!ct_function_is_rust_panic("prog::port_for::h66c102c1837610e1"));
}

static const struct ct_frame_fact go_frames[] = {
	{ .function = "runtime.raise.abi0", .module = "prog", .library = true },
	{ .function = "runtime.dieFromSignal", .module = "prog", .library = true },
	{ .function = "runtime.fatalpanic", .module = "prog", .library = true },
	{ .function = "runtime.gopanic", .module = "prog", .library = true },
	{ .function = "runtime.sigpanic", .module = "prog", .library = true },
	{ .function = "main.retries", .module = "prog", .own = true },
	{ .function = "main.main", .module = "prog", .own = true },
};

TEST(go_panic_and_go_fault)
{
	struct ct_facts f = base(CT_SIGABRT, CT_SI_TKILL, true);
	f.frames = go_frames;
	f.num_frames = 7;
	f.blame = 5;
	ct_panic_find(&f);
	CHECK_STR(f.panic.runtime, "go");
	CHECK(f.panic.go_sigpanic);
	CHECK_EQ(f.panic.sigpanic_caller, 5);
	f.panic.message = "runtime error: invalid memory address or nil pointer dereference";
	CHECK_STR(cls(&f), "null-deref");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "high");
	f.panic.message = NULL;
	CHECK_STR(cls(&f), "null-deref");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "medium");
	// Index out of range: no sigpanic, a panic raised by runtime.goPanicIndex.
	struct ct_frame_fact idx[7];
	memcpy(idx, go_frames, sizeof(idx));
	idx[4].function = "runtime.goPanicIndex";
	f.frames = idx;
	ct_panic_find(&f);
	CHECK(!f.panic.go_sigpanic);
	CHECK_STR(f.panic.raiser, "runtime.goPanicIndex");
	CHECK_STR(cls(&f), "panic");
	CHECK(ct_function_is_go_runtime("runtime.sigtramp.abi0"));
	CHECK(!ct_function_is_go_runtime("main.pick"));
}

/* ---- blame ---- */

TEST(runtime_modules_and_preload)
{
	CHECK(ct_module_is_runtime("libc.so.6"));
	CHECK(ct_module_is_runtime("libc-2.27.so"));
	CHECK(ct_module_is_runtime("ld-linux-x86-64.so.2"));
	CHECK(ct_module_is_runtime("libstdc++.so.6.0.30"));
	CHECK(ct_module_is_runtime("libgcc_s.so.1"));
	CHECK(ct_module_is_runtime("libasan.so.8"));
	CHECK(ct_module_is_runtime("libclang_rt.asan-x86_64.so"));
	// Libraries under /usr/lib are code to blame.
	CHECK(!ct_module_is_runtime("libsqlite3.so.0"));
	CHECK(!ct_module_is_runtime("libcrypto.so.3"));
	CHECK(!ct_module_is_runtime("libpython3.11.so.1.0"));
	CHECK(!ct_module_is_runtime("_ctypes.cpython-311-x86_64-linux-gnu.so"));
	CHECK(!ct_module_is_runtime("libcurl.so.4"));
	CHECK(ct_module_is_preloaded("libjemalloc.so.2", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"));
	CHECK(ct_module_is_preloaded("libfault.so", "libshim.so:/opt/x/libfault.so"));
	CHECK(!ct_module_is_preloaded("libfault.so", "libfault.so.1"));
	CHECK(!ct_module_is_preloaded("libfault.so", NULL));
}

static const struct ct_frame_fact overflow_frames[] = {
	{ .function = "format_token", .module = "prog", .own = true },
	{ .function = "expand", .module = "prog", .own = true },
	{ .function = "parse", .module = "prog", .own = true },
	{ .function = "expand", .module = "prog", .own = true },
	{ .function = "parse", .module = "prog", .own = true },
	{ .function = "expand", .module = "prog", .own = true },
	{ .function = "parse", .module = "prog", .own = true },
};

TEST(stack_overflow_blames_the_cycle)
{
	struct ct_facts f = base(CT_SIGSEGV, CT_SEGV_MAPERR, false);
	f.frames = overflow_frames;
	f.num_frames = 7;
	f.blame = 0;
	ct_find_recursion(f.frames, f.num_frames, &f.stack);
	CHECK_EQ(f.stack.cycle_length, 2);
	f.sig.has_fault_address = true;
	f.sig.fault_address = 0x7ffe0000f000;
	f.fault = (struct ct_address_facts){ .valid = true, .address = 0x7ffe0000f000, .in_stack_guard = true };
	CHECK_STR(cls(&f), "stack-overflow");
	CHECK_EQ(verdict.crash.blame_frame, 1); // expand, not the leaf format_token
	ct_signature_build(&f, NULL, &verdict);
	CHECK_STR(verdict.signature.text, "stack-overflow|expand|parse");
	// The overflow cut the cycle elsewhere: same key.
	struct ct_facts g = f;
	g.frames = overflow_frames + 1;
	g.num_frames = 6;
	memset(&g.stack, 0, sizeof(g.stack));
	ct_find_recursion(g.frames, g.num_frames, &g.stack);
	g.stack.cycle_start = 1; // starts at parse
	CHECK_STR(cls(&g), "stack-overflow");
	ct_signature_build(&g, NULL, &verdict);
	CHECK_STR(verdict.signature.text, "stack-overflow|expand|parse");
	CHECK_EQ(verdict.signature.version, CT_SIGNATURE_VERSION);
}

TEST(one_frame_stack_overflow)
{
	struct ct_facts f = base(CT_SIGSEGV, CT_SEGV_MAPERR, false);
	static const struct ct_frame_fact fr[] = { { .function = "build_table", .module = "prog", .own = true },
						   { .function = "main", .module = "prog", .own = true } };
	f.frames = fr;
	f.num_frames = 2;
	f.blame = 0;
	f.sig.has_fault_address = true;
	f.sig.fault_address = 0x7ffcbe6758c0;
	f.fault = (struct ct_address_facts){ .valid = true, .address = 0x7ffcbe6758c0 };
	f.stack = (struct ct_stack_facts){ .valid = true, .sp = 0x7ffcbe6758c0, .has_stack = true,
					   .stack_start = 0x7ffcc2656000, .stack_end = 0x7ffcc2677000,
					   .sp_outside = true, .far_below = true, .frame_size = 67108944 };
	CHECK_STR(cls(&f), "stack-overflow");
	CHECK_STR(ct_confidence_to_string(verdict.crash.confidence), "medium");
	CHECK(has_evidence("one huge frame"));
	// Without the far-below fact (a wild pointer somewhere unmapped): not an overflow.
	f.stack.far_below = false;
	f.stack.has_stack = false;
	CHECK_STR(cls(&f), "wild-pointer");
}

TEST(signature_unsymbolized_frames_by_function_start)
{
	struct ct_facts f = base(CT_SIGSEGV, CT_SEGV_MAPERR, false);
	// Two runs of the same bug: different pcs inside the same function of a stripped library.
	struct ct_frame_fact a[] = { { .module = "libx.so", .has_module_offset = true, .module_offset = 0x1234,
				       .has_function_start = true, .function_start = 0x1200, .own = true } };
	struct ct_frame_fact b[] = { { .module = "libx.so", .has_module_offset = true, .module_offset = 0x1250,
				       .has_function_start = true, .function_start = 0x1200, .own = true } };
	f.frames = a;
	f.num_frames = 1;
	f.blame = 0;
	f.sig.has_fault_address = true;
	f.fault = (struct ct_address_facts){ .valid = true, .address = 0, .near_null = true };
	cls(&f);
	ct_signature_build(&f, NULL, &verdict);
	CHECK_STR(verdict.signature.text, "null-deref|libx.so!0x1200");
	char h1[17];
	strcpy(h1, verdict.signature.hash);
	f.frames = b;
	cls(&f);
	ct_signature_build(&f, NULL, &verdict);
	CHECK_STR(verdict.signature.hash, h1);
}

TEST(summary_names_the_faulting_frame)
{
	// A NULL read inside libc's strlen called by the program: blame parse_line, say where it faulted.
	static const struct ct_frame_fact fr[] = {
		{ .function = "__strlen_avx2", .module = "libc.so.6", .library = true },
		{ .function = "parse_line", .module = "prog", .own = true, .file = "p.c", .line = 9 },
		{ .function = "main", .module = "prog", .own = true },
	};
	struct ct_facts f = base(CT_SIGSEGV, CT_SEGV_MAPERR, false);
	f.frames = fr;
	f.num_frames = 3;
	f.blame = 1;
	f.sig.has_fault_address = true;
	f.fault = (struct ct_address_facts){ .valid = true, .address = 0, .near_null = true };
	CHECK_STR(cls(&f), "null-deref");
	CHECK_EQ(verdict.crash.blame_frame, 1);
	CHECK(strstr(verdict.crash.summary, "in parse_line (p.c:9) (faulted in __strlen_avx2, libc.so.6)") != NULL);
}

/* ---- Zydis ---- */

TEST(zydis_decodes_evex)
{
	uint64_t regs[CT_MAX_DWARF_REGS] = { 0 };
	bool valid[CT_MAX_DWARF_REGS];
	memset(valid, 1, sizeof(valid));
	regs[5] = 0x7f0000100040; // rdi
	// glibc 2.36 __strlen_evex: vpcmpeqb k0, ymm16, ymmword ptr [rdi] (capstone 4 cannot decode it).
	static const uint8_t code[] = { 0x62, 0xf3, 0x7d, 0x20, 0x3f, 0x07, 0x00 };
	struct ct_insn_ctx ctx = { .regs = regs, .valid = valid, .num_regs = CT_MAX_DWARF_REGS, .pc = 0x7f0000163699 };
	struct ct_insn_facts f = { .fault_mem = -1 };
	CHECK(ct_insn_decode(&ct_arch_x86_64, code, sizeof(code), NULL, 0, &ctx, &f));
#if CT_HAVE_ZYDIS
	CHECK(f.decoded);
	CHECK_STR(f.decoder, "zydis");
	CHECK(strstr(f.text, "vpcmp") != NULL);
	CHECK_EQ(f.num_mem, 1);
	CHECK_EQ(f.access, CT_ACCESS_READ);
	CHECK_EQ(f.mem[0].address, 0x7f0000100040);
	CHECK_EQ(f.mem[0].size, 32);
	CHECK_STR(f.mem[0].base, "rdi");
	// An aligned EVEX move needs its operand's alignment: vmovdqa64 zmm16, [rsi + 8].
	static const uint8_t mov[] = { 0x62, 0xe1, 0xfd, 0x48, 0x6f, 0x46, 0x01 };
	regs[4] = 0x1000;
	struct ct_insn_facts g = { .fault_mem = -1 };
	CHECK(ct_insn_decode(&ct_arch_x86_64, mov, sizeof(mov), NULL, 0, &ctx, &g));
	CHECK(g.decoded && g.needs_alignment);
	CHECK_EQ(g.alignment, 64);
	CHECK_EQ(g.mem[0].address, 0x1040);
#else
	CHECK(!f.decoded);
#endif
}

TEST_MAIN()
