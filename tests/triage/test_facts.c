// Fact helpers: abort-message parsing, address placement, names, recursion, signature, x86 decoding.
#include "arch/arch.h"
#include "test.h"
#include "triage/facts.h"
#include "triage/insn.h"
#include "triage/triage.h"

static struct ct_report report;

static struct ct_report *rep(void)
{
	static bool ready; // test-only: one pool for the whole run
	if (!ready)
		ready = ct_report_init(&report);
	return &report;
}

TEST(abort_assertion_parts)
{
	struct ct_abort_facts a;
	ct_abort_parse(&rep()->strings, "exe: testdata/src/crashme.c:181: checked_div: Assertion `b != 0 && \"divisor must be nonzero\"' failed.\n", &a);
	CHECK(a.present);
	CHECK_EQ(a.kind, CT_ABORT_ASSERTION);
	CHECK_STR(a.file, "testdata/src/crashme.c");
	CHECK_EQ(a.line, 181);
	CHECK_STR(a.function, "checked_div");
	CHECK_STR(a.expression, "b != 0 && \"divisor must be nonzero\"");
	CHECK_STR(a.text, "exe: testdata/src/crashme.c:181: checked_div: Assertion `b != 0 && \"divisor must be nonzero\"' failed.");
}

TEST(abort_assertion_cxx_function)
{
	struct ct_abort_facts a;
	ct_abort_parse(&rep()->strings, "prog: a.cpp:7: int f(const char*): Assertion `p' failed.", &a);
	CHECK_STR(a.function, "int f(const char*)");
	CHECK_STR(a.file, "a.cpp");
	CHECK_EQ(a.line, 7);
	CHECK_STR(a.expression, "p");
}

TEST(abort_assert_perror)
{
	struct ct_abort_facts a;
	ct_abort_parse(&rep()->strings, "prog: io.c:12: main: Unexpected error: No such file or directory.\n", &a);
	CHECK_EQ(a.kind, CT_ABORT_ASSERTION);
	CHECK_STR(a.expression, "No such file or directory");
	CHECK_STR(a.function, "main");
}

TEST(abort_kinds)
{
	static const struct {
		const char *text;
		enum ct_abort_kind kind;
		const char *sub;
	} cases[] = {
		{ "*** stack smashing detected ***: terminated\n", CT_ABORT_STACK_SMASHING, NULL },
		{ "*** buffer overflow detected ***: terminated\n", CT_ABORT_FORTIFY, NULL },
		{ "*** longjmp causes uninitialized stack frame ***: terminated\n", CT_ABORT_FORTIFY, NULL },
		{ "free(): double free detected in tcache 2\n", CT_ABORT_MALLOC, "double-free" },
		{ "double free or corruption (fasttop)\n", CT_ABORT_MALLOC, "double-free" },
		{ "free(): invalid pointer\n", CT_ABORT_MALLOC, "invalid-free" },
		{ "munmap_chunk(): invalid pointer\n", CT_ABORT_MALLOC, "invalid-free" },
		{ "free(): invalid next size (normal)\n", CT_ABORT_MALLOC, "corrupted-metadata" },
		{ "corrupted size vs. prev_size\n", CT_ABORT_MALLOC, "corrupted-metadata" },
		{ "malloc(): corrupted top size\n", CT_ABORT_MALLOC, "corrupted-metadata" },
		{ "malloc_consolidate(): invalid chunk size\n", CT_ABORT_MALLOC, "corrupted-metadata" },
		{ "*** Error in `./a': double free or corruption (out): 0x0000000001e4e010 ***", CT_ABORT_MALLOC, "double-free" },
		{ "Fatal glibc error: something\n", CT_ABORT_OTHER, NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ct_abort_facts a;
		ct_abort_parse(&rep()->strings, cases[i].text, &a);
		CHECK_EQ(a.kind, cases[i].kind);
		if (cases[i].sub)
			CHECK_STR(ct_heap_subclass_to_string(a.heap_subclass), cases[i].sub);
	}
	struct ct_abort_facts a;
	ct_abort_parse(&rep()->strings, "", &a);
	CHECK(!a.present);
}

static const struct ct_mapping_fact maps[] = {
	{ .present = true, .start = 0x555555554000, .end = 0x555555555000, .flags = CT_PF_R, .file = "/p" },
	{ .present = true, .start = 0x555555555000, .end = 0x555555556000, .flags = CT_PF_R | CT_PF_X, .file = "/p" },
	{ .present = true, .start = 0x7ffff7000000, .end = 0x7ffff7001000, .flags = 0 }, // thread guard
	{ .present = true, .start = 0x7ffff7001000, .end = 0x7ffff7801000, .flags = CT_PF_R | CT_PF_W, .is_stack = true },
	{ .present = true, .start = 0x7ffffffde000, .end = 0x7ffffffff000, .flags = CT_PF_R | CT_PF_W, .is_stack = true },
};
#define NMAPS (sizeof(maps) / sizeof(maps[0]))
#define LIMIT (1ULL << 47)

TEST(place_address)
{
	struct ct_address_facts a;
	ct_place_address(0x8, maps, NMAPS, LIMIT, NULL, &a);
	CHECK(a.near_null && !a.mapping.present && !a.in_stack_guard);
	ct_place_address(0x555555555010, maps, NMAPS, LIMIT, NULL, &a);
	CHECK(a.mapping.present && (a.mapping.flags & CT_PF_X));
	ct_place_address(0xdeadbeefdeadbee0, maps, NMAPS, LIMIT, NULL, &a);
	CHECK(a.non_canonical && !a.mapping.present);
	// Just below the main stack: in the guard gap.
	ct_place_address(0x7ffffffde000 - 8, maps, NMAPS, LIMIT, &maps[4], &a);
	CHECK(a.in_stack_guard && !a.in_thread_stack);
	// In the no-access page below a thread stack.
	ct_place_address(0x7ffff7000ff8, maps, NMAPS, LIMIT, NULL, &a);
	CHECK(a.in_stack_guard && a.mapping.present);
	// Far below the stack: unmapped, not guard; nearest is reported.
	ct_place_address(0x7ffff0000000, maps, NMAPS, LIMIT, NULL, &a);
	CHECK(!a.in_stack_guard && !a.mapping.present && a.nearest.present);
	ct_place_address(0x7ffffffe0000, maps, NMAPS, LIMIT, &maps[4], &a);
	CHECK(a.in_thread_stack);
}

TEST(normalize_names)
{
	CHECK_STR(ct_normalize_function(&rep()->strings, "__GI_raise"), "raise");
	CHECK_STR(ct_normalize_function(&rep()->strings, "__GI___libc_free"), "free");
	CHECK_STR(ct_normalize_function(&rep()->strings, "__libc_malloc"), "malloc");
	CHECK_STR(ct_normalize_function(&rep()->strings, "parse.constprop.0"), "parse");
	CHECK_STR(ct_normalize_function(&rep()->strings, "foo.cold"), "foo");
	CHECK_STR(ct_normalize_function(&rep()->strings, "std::terminate()"), "std::terminate()");
	CHECK(ct_normalize_function(&rep()->strings, NULL) == NULL);
}

TEST(system_paths)
{
	CHECK(ct_path_is_system("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	CHECK(ct_path_is_system("/lib64/ld-linux-x86-64.so.2"));
	CHECK(ct_path_is_system("/usr/include/x86_64-linux-gnu/bits/string_fortified.h"));
	CHECK(!ct_path_is_system("/home/u/build/libstep000.so"));
	CHECK(!ct_path_is_system("/usr/local/lib/libmine.so"));
	CHECK(!ct_path_is_system(NULL));
}

TEST(blame_skips_library_and_unknown)
{
	struct ct_frame_fact fr[] = { { .pc = 0 }, { .function = "raise", .library = true }, { .function = "x", .own = true } };
	CHECK_EQ(ct_find_blame(fr, 3), 2);
	CHECK_EQ(ct_find_blame(fr, 2), -1);
}

TEST(recursion_cycle)
{
	struct ct_frame_fact fr[10];
	fr[0] = (struct ct_frame_fact){ .pc = 1, .function = "leaf" };
	for (int i = 1; i < 9; i++)
		fr[i] = (struct ct_frame_fact){ .pc = (uint64_t)(i % 2 ? 10 : 20), .function = i % 2 ? "a" : "b" };
	fr[9] = (struct ct_frame_fact){ .pc = 99, .function = "main" };
	struct ct_stack_facts st = { 0 };
	ct_find_recursion(fr, 10, &st);
	CHECK_EQ(st.cycle_length, 2);
	CHECK_EQ(st.recursion_depth, 4);
	CHECK_EQ(st.cycle_start, 1);
}

static int sign(struct ct_frame_fact *fr, size_t n, long blame, enum ct_class cls, char *text, size_t size, char *hash)
{
	struct ct_facts f = { .frames = fr, .num_frames = n, .blame = blame };
	struct ct_verdict v;
	ct_verdict_init(&v, &rep()->strings);
	v.crash.cls = cls;
	ct_signature_build(&f, NULL, &v);
	snprintf(text, size, "%s", v.signature.text);
	strcpy(hash, v.signature.hash);
	int version = v.signature.version;
	ct_verdict_free(&v);
	return version;
}

TEST(signature_stable_and_distinct)
{
	rep();
	char t1[256], t2[256], t3[256], h1[17], h2[17], h3[17];
	// Same bug, different addresses (ASLR), different recursion depth: same key.
	struct ct_frame_fact a[] = { { .pc = 0x7f01, .function = "raise", .library = true },
				     { .pc = 0x5501, .function = "walk", .own = true },
				     { .pc = 0x5502, .function = "walk", .own = true },
				     { .pc = 0x5503, .function = "main", .own = true } };
	struct ct_frame_fact b[] = { { .pc = 0x7e01, .function = "raise", .library = true },
				     { .pc = 0x6601, .function = "walk", .own = true },
				     { .pc = 0x6603, .function = "main", .own = true } };
	sign(a, 4, 1, CT_CLASS_NULL_DEREF, t1, sizeof(t1), h1);
	sign(b, 3, 1, CT_CLASS_NULL_DEREF, t2, sizeof(t2), h2);
	CHECK_STR(t1, "null-deref|walk|main");
	CHECK_STR(t1, t2);
	CHECK_STR(h1, h2);
	// Different class, same frames: different key.
	sign(b, 3, 1, CT_CLASS_WILD_POINTER, t3, sizeof(t3), h3);
	CHECK(strcmp(h1, h3) != 0);
	// No own frame: library frames without delivery noise, and module+offset for unnamed frames.
	struct ct_frame_fact c[] = { { .function = "raise", .library = true },
				     { .function = "abort", .library = true },
				     { .module = "libfoo.so", .has_module_offset = true, .module_offset = 0x1234, .library = true } };
	CHECK_EQ(sign(c, 3, -1, CT_CLASS_ABORT, t3, sizeof(t3), h3), CT_SIGNATURE_VERSION);
	CHECK_STR(t3, "abort|libfoo.so!?"); // no FDE known: never the pc offset
}

TEST(fnv1a64)
{
	char h[17];
	ct_fnv1a64_hex("", h);
	CHECK_STR(h, "cbf29ce484222325");
	ct_fnv1a64_hex("a", h);
	CHECK_STR(h, "af63dc4c8601ec8c");
}

/* ---- x86 decoding over hand-written bytes and registers ---- */

struct mem {
	uint64_t addr;
	uint8_t bytes[16];
};

static bool read_mem(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct mem *m = arg;
	if (addr < m->addr || addr + len > m->addr + sizeof(m->bytes))
		return false;
	memcpy(buf, m->bytes + (addr - m->addr), len);
	return true;
}

static struct ct_insn_facts decode(const uint8_t *code, size_t len, uint64_t *regs, bool *valid, struct mem *m)
{
	struct ct_insn_ctx ctx = { .regs = regs, .valid = valid, .num_regs = CT_MAX_DWARF_REGS, .pc = 0x401000,
				   .read = read_mem, .arg = m };
	struct ct_insn_facts f;
	CHECK(ct_insn_decode(&ct_arch_x86_64, code, len, NULL, 0, &ctx, &f));
	return f;
}

TEST(x86_load_null)
{
	uint64_t regs[CT_MAX_DWARF_REGS] = { 0 };
	bool valid[CT_MAX_DWARF_REGS];
	memset(valid, 1, sizeof(valid));
	static const uint8_t code[] = { 0x48, 0x8b, 0x40, 0x08 }; // mov rax, qword ptr [rax + 8]
	struct ct_insn_facts f = decode(code, sizeof(code), regs, valid, NULL);
	CHECK(f.decoded);
	CHECK_EQ(f.access, CT_ACCESS_READ);
	CHECK_EQ(f.fault_mem, 0);
	CHECK_STR(f.mem[0].base, "rax");
	CHECK_EQ(f.mem[0].base_dwarf, 0);
	CHECK_EQ(f.mem[0].address, 8);
	CHECK_STR(f.mem[0].text, "[rax + 0x8]");
}

TEST(x86_store_noncanonical)
{
	uint64_t regs[CT_MAX_DWARF_REGS] = { 0 };
	bool valid[CT_MAX_DWARF_REGS];
	memset(valid, 1, sizeof(valid));
	regs[5] = 0xdeadbeefdeadbee0; // rdi
	static const uint8_t code[] = { 0x89, 0x47, 0x10 }; // mov dword ptr [rdi + 0x10], eax
	struct ct_insn_facts f = decode(code, sizeof(code), regs, valid, NULL);
	CHECK_EQ(f.access, CT_ACCESS_WRITE);
	CHECK_EQ(f.mem[0].address, 0xdeadbeefdeadbef0);
	CHECK_EQ(f.mem[0].size, 4);
}

TEST(x86_ret_and_call)
{
	uint64_t regs[CT_MAX_DWARF_REGS] = { 0 };
	bool valid[CT_MAX_DWARF_REGS];
	memset(valid, 1, sizeof(valid));
	regs[7] = 0x7ffc0000; // rsp
	struct mem m = { .addr = 0x7ffc0000, .bytes = { 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41 } };
	static const uint8_t ret[] = { 0xc3 };
	struct ct_insn_facts f = decode(ret, 1, regs, valid, &m);
	CHECK(f.is_ret && f.has_return_address);
	CHECK_EQ(f.return_address, 0x4141414141414141);
	static const uint8_t call[] = { 0xff, 0xd0 }; // call rax
	regs[0] = 0x1234;
	f = decode(call, 2, regs, valid, &m);
	CHECK(f.is_call && f.is_indirect_branch && f.has_branch_target);
	CHECK_EQ(f.branch_target, 0x1234);
	CHECK(f.has_implicit_address);
	CHECK_EQ(f.implicit_address, 0x7ffc0000 - 8);
	CHECK_EQ(f.access, CT_ACCESS_WRITE);
}

TEST(x86_idiv)
{
	uint64_t regs[CT_MAX_DWARF_REGS] = { 0 };
	bool valid[CT_MAX_DWARF_REGS];
	memset(valid, 1, sizeof(valid));
	regs[0] = 0x8000000000000000ULL; // rax
	regs[1] = ~0ULL; // rdx (cqo)
	regs[3] = (uint64_t)-1; // rbx
	static const uint8_t code[] = { 0x48, 0xf7, 0xfb }; // idiv rbx
	struct ct_insn_facts f = decode(code, sizeof(code), regs, valid, NULL);
	CHECK(f.is_div && f.is_signed_div && f.has_divisor);
	CHECK_EQ(f.divisor, -1);
	CHECK(f.dividend_is_min);
	CHECK_EQ(f.div_size, 8);
	regs[3] = 0;
	f = decode(code, sizeof(code), regs, valid, NULL);
	CHECK_EQ(f.divisor, 0);
}

TEST(x86_alignment_and_traps)
{
	uint64_t regs[CT_MAX_DWARF_REGS] = { 0 };
	bool valid[CT_MAX_DWARF_REGS];
	memset(valid, 1, sizeof(valid));
	regs[1] = 0x1004; // rdx
	static const uint8_t movaps[] = { 0x0f, 0x28, 0x02 }; // movaps xmm0, xmmword ptr [rdx]
	struct ct_insn_facts f = decode(movaps, sizeof(movaps), regs, valid, NULL);
	CHECK(f.needs_alignment);
	CHECK_EQ(f.alignment, 16);
	CHECK_EQ(f.mem[0].address, 0x1004);
	static const uint8_t movups[] = { 0x0f, 0x10, 0x02 }; // movups: no alignment needed
	f = decode(movups, sizeof(movups), regs, valid, NULL);
	CHECK(!f.needs_alignment);
	static const uint8_t ud2[] = { 0x0f, 0x0b };
	f = decode(ud2, 2, regs, valid, NULL);
	CHECK(f.is_trap);
	static const uint8_t bad[] = { 0x06 }; // push es: invalid in 64-bit mode
	f = decode(bad, 1, regs, valid, NULL);
	CHECK(!f.decoded && f.have_bytes);
	static const uint8_t nop[] = { 0x90 }, before[] = { 0x90, 0xcc };
	struct ct_insn_ctx ctx = { .regs = regs, .valid = valid, .num_regs = CT_MAX_DWARF_REGS, .pc = 0x401000 };
	CHECK(ct_insn_decode(&ct_arch_x86_64, nop, 1, before, 2, &ctx, &f));
	CHECK(f.is_breakpoint);
}

TEST(x86_slot_load)
{
	// mov rax, [rbp - 0x10]; mov rax, [rax + 8]
	static const uint8_t code[] = { 0x48, 0x8b, 0x45, 0xf0, 0x48, 0x8b, 0x40, 0x08 };
	int base;
	int64_t disp;
	CHECK(ct_insn_find_slot_load(&ct_arch_x86_64, code, sizeof(code), 0x1000, 0x1004, 0, &base, &disp));
	CHECK_EQ(base, 6);
	CHECK_EQ(disp, -0x10);
	CHECK(!ct_insn_find_slot_load(&ct_arch_aarch64, code, sizeof(code), 0x1000, 0x1004, 0, &base, &disp));
}

/* ---- the call before a return address, and PLT stubs ---- */

TEST(x86_call_before)
{
	struct ct_call_site c;
	// call rel32 ending at 0x1010: e8 with displacement 0x100 → 0x1110.
	static const uint8_t direct[] = { 0x90, 0x90, 0x90, 0xe8, 0x00, 0x01, 0x00, 0x00 };
	CHECK(ct_insn_call_before(&ct_arch_x86_64, direct, sizeof(direct), 0x1010, &c));
	CHECK_EQ(c.address, 0x100b);
	CHECK(c.has_target && !c.has_slot);
	CHECK_EQ(c.target, 0x1110);
	// call qword ptr [rip + 0x2000] (-fno-plt): the GOT slot is relative to the return address.
	static const uint8_t got[] = { 0x90, 0xff, 0x15, 0x00, 0x20, 0x00, 0x00 };
	CHECK(ct_insn_call_before(&ct_arch_x86_64, got, sizeof(got), 0x1010, &c));
	CHECK(c.has_slot && !c.has_target);
	CHECK_EQ(c.slot, 0x3010);
	// call rax: a call, but no target to name.
	static const uint8_t reg[] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0xff, 0xd0 };
	CHECK(ct_insn_call_before(&ct_arch_x86_64, reg, sizeof(reg), 0x1010, &c));
	CHECK(!c.has_target && !c.has_slot);
	CHECK_EQ(c.address, 0x100e);
	// No call ends here.
	static const uint8_t none[] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 };
	CHECK(!ct_insn_call_before(&ct_arch_x86_64, none, sizeof(none), 0x1010, &c));
	// i386: call rel32 wraps at 32 bits.
	static const uint8_t call32[] = { 0xe8, 0xf0, 0xff, 0xff, 0xff };
	CHECK(ct_insn_call_before(&ct_arch_i386, call32, sizeof(call32), 0x1005, &c));
	CHECK_EQ(c.target, 0xff5);
}

TEST(x86_plt_slot)
{
	uint64_t slot = 0;
	// .plt entry: jmp qword ptr [rip + 0x200a62]; push 0; jmp .plt0 (CASR bin/test_canary at 0x5f0).
	static const uint8_t plt[] = { 0xff, 0x25, 0x62, 0x0a, 0x20, 0x00, 0x68, 0x00, 0x00, 0x00, 0x00, 0xe9, 0xe0, 0xff, 0xff, 0xff };
	CHECK(ct_insn_plt_slot(&ct_arch_x86_64, plt, sizeof(plt), 0x5f0, 0, &slot));
	CHECK_EQ(slot, 0x5f6 + 0x200a62);
	// .plt.sec entry (IBT): endbr64; bnd jmp qword ptr [rip + 0x2fe5].
	static const uint8_t sec[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0xf2, 0xff, 0x25, 0xe5, 0x2f, 0x00, 0x00, 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	CHECK(ct_insn_plt_slot(&ct_arch_x86_64, sec, sizeof(sec), 0x1030, 0, &slot));
	CHECK_EQ(slot, 0x103b + 0x2fe5);
	// i386 PIC: jmp dword ptr [ebx + 0xc], ebx = the GOT pointer.
	static const uint8_t pic[] = { 0xff, 0xa3, 0x0c, 0x00, 0x00, 0x00, 0x68, 0x00, 0x00, 0x00, 0x00 };
	CHECK(ct_insn_plt_slot(&ct_arch_i386, pic, sizeof(pic), 0x400, 0x2000, &slot));
	CHECK_EQ(slot, 0x200c);
	CHECK(!ct_insn_plt_slot(&ct_arch_i386, pic, sizeof(pic), 0x400, 0, &slot));
	// Not a stub: push rbp.
	static const uint8_t fn[] = { 0x55, 0x48, 0x89, 0xe5 };
	CHECK(!ct_insn_plt_slot(&ct_arch_x86_64, fn, sizeof(fn), 0x400, 0, &slot));
}

TEST(arm64_call_before_and_plt)
{
	struct ct_call_site c;
	// bl 0x730 at 0x904 (CASR arm_bin/test_heapError main+0x74): 0x97ffff8b.
	static const uint8_t bl[] = { 0x8b, 0xff, 0xff, 0x97 };
	CHECK(ct_insn_call_before(&ct_arch_aarch64, bl, sizeof(bl), 0x908, &c));
	CHECK(c.has_target);
	CHECK_EQ(c.address, 0x904);
	CHECK_EQ(c.target, 0x730);
	static const uint8_t blr[] = { 0x60, 0x00, 0x3f, 0xd6 }; // blr x3
	CHECK(ct_insn_call_before(&ct_arch_aarch64, blr, sizeof(blr), 0x908, &c));
	CHECK(!c.has_target);
	static const uint8_t ret[] = { 0xc0, 0x03, 0x5f, 0xd6 };
	CHECK(!ct_insn_call_before(&ct_arch_aarch64, ret, sizeof(ret), 0x908, &c));
	// PLT entry at 0x6d0: adrp x16, 0x10000; ldr x17, [x16, #3976]; add x16, x16, #3976; br x17.
	static const uint8_t plt[] = { 0x90, 0x00, 0x00, 0x90, 0x11, 0xc6, 0x47, 0xf9,
				       0x10, 0x22, 0x3e, 0x91, 0x20, 0x02, 0x1f, 0xd6 };
	uint64_t slot = 0;
	CHECK(ct_insn_plt_slot(&ct_arch_aarch64, plt, sizeof(plt), 0x6d0, 0, &slot));
	CHECK_EQ(slot, 0x10f88);
	CHECK(!ct_insn_plt_slot(&ct_arch_aarch64, bl, sizeof(bl), 0x6d0, 0, &slot));
}

TEST(riscv64_call_before_and_plt)
{
	struct ct_call_site c;
	// jal 0x680 at 0x820 (CASR riscv_bin/test_canary main+0x94): 0xe61ff0ef.
	static const uint8_t jal[] = { 0xef, 0xf0, 0x1f, 0xe6 };
	CHECK(ct_insn_call_before(&ct_arch_riscv64, jal, sizeof(jal), 0x824, &c));
	CHECK(c.has_target);
	CHECK_EQ(c.target, 0x680);
	// auipc ra, 0x1; jalr ra, -16(ra) at 0x1000 (the `call` pseudo-instruction): 0x1000 + 0x1000 - 16.
	static const uint8_t call[] = { 0x97, 0x10, 0x00, 0x00, 0xe7, 0x80, 0x00, 0xff };
	CHECK(ct_insn_call_before(&ct_arch_riscv64, call, sizeof(call), 0x1008, &c));
	CHECK(c.has_target);
	CHECK_EQ(c.address, 0x1000);
	CHECK_EQ(c.target, 0x1ff0);
	// PLT entry at 0x680: auipc t3, 0x2; ld t3, -1632(t3); jalr t1, t3; nop.
	static const uint8_t plt[] = { 0x17, 0x2e, 0x00, 0x00, 0x03, 0x3e, 0x0e, 0x9a,
				       0x67, 0x03, 0x0e, 0x00, 0x13, 0x00, 0x00, 0x00 };
	uint64_t slot = 0;
	CHECK(ct_insn_plt_slot(&ct_arch_riscv64, plt, sizeof(plt), 0x680, 0, &slot));
	CHECK_EQ(slot, 0x2020);
}

TEST(s390x_plt_slot)
{
	// __cxa_finalize@plt at 0xc20 of the s390x-abort-dynamic cross core: larl %r1, 0x4008;
	// lg %r1, 0(%r1); br %r1 (its slot is in .got.plt, 9 words past DT_PLTGOT 0x3fb8).
	static const uint8_t plt[] = { 0xc0, 0x10, 0x00, 0x00, 0x19, 0xf4, 0xe3, 0x10, 0x10, 0x00, 0x00, 0x04, 0x07, 0xf1 };
	uint64_t slot = 0;
	CHECK(ct_insn_plt_slot(&ct_arch_s390x, plt, sizeof(plt), 0xc20, 0, &slot));
	CHECK_EQ(slot, 0x4008);
	static const uint8_t br[] = { 0x07, 0xf1 };
	CHECK(!ct_insn_plt_slot(&ct_arch_s390x, br, sizeof(br), 0xc20, 0, &slot));
}

/* ---- aarch64 decoding over hand-written bytes and registers ---- */

static struct ct_insn_facts decode_arm64(uint32_t word, uint64_t *regs, bool *valid)
{
	uint8_t code[4] = { (uint8_t)word, (uint8_t)(word >> 8), (uint8_t)(word >> 16), (uint8_t)(word >> 24) };
	struct ct_insn_ctx ctx = { .regs = regs, .valid = valid, .num_regs = CT_MAX_DWARF_REGS, .pc = 0x400000 };
	struct ct_insn_facts f;
	CHECK(ct_insn_decode(&ct_arch_aarch64, code, sizeof(code), NULL, 0, &ctx, &f));
	return f;
}

TEST(arm64_loads_and_stores)
{
	uint64_t regs[CT_MAX_DWARF_REGS] = { 0 };
	bool valid[CT_MAX_DWARF_REGS];
	memset(valid, 1, sizeof(valid));
	regs[1] = 0x1000;
	struct ct_insn_facts f = decode_arm64(0xf9400420, regs, valid); // ldr x0, [x1, #8]
	CHECK(f.decoded);
	CHECK_EQ(f.access, CT_ACCESS_READ);
	CHECK_EQ(f.fault_mem, 0);
	CHECK_STR(f.mem[0].base, "x1");
	CHECK_EQ(f.mem[0].base_dwarf, 1);
	CHECK_EQ(f.mem[0].address, 0x1008);
	CHECK_EQ(f.mem[0].size, 8);
	CHECK_STR(f.mem[0].text, "[x1, #0x8]");
	regs[0] = 0x20;
	f = decode_arm64(0xf9000001, regs, valid); // str x1, [x0]
	CHECK_EQ(f.access, CT_ACCESS_WRITE);
	CHECK_EQ(f.mem[0].address, 0x20);
	regs[31] = 0x7ffff000; // sp
	f = decode_arm64(0xa9bf7bfd, regs, valid); // stp x29, x30, [sp, #-16]!
	CHECK_EQ(f.access, CT_ACCESS_WRITE);
	CHECK_EQ(f.mem[0].address, 0x7fffeff0);
	CHECK_EQ(f.mem[0].size, 16);
	CHECK_EQ(f.mem[0].base_dwarf, 31);
	regs[0] = 0x30;
	f = decode_arm64(0xf8606820, regs, valid); // ldr x0, [x1, x0]
	CHECK_EQ(f.mem[0].address, 0x1030);
	CHECK_STR(f.mem[0].index, "x0");
	regs[2] = 0xfffffffe; // w2 = -2
	f = decode_arm64(0xb862d820, regs, valid); // ldr w0, [x1, w2, sxtw #2]
	CHECK_EQ(f.mem[0].address, 0x1000 - 8);
	CHECK_EQ(f.mem[0].size, 4);
	f = decode_arm64(0x39400c20, regs, valid); // ldrb w0, [x1, #3]
	CHECK_EQ(f.mem[0].size, 1);
	CHECK_EQ(f.mem[0].address, 0x1003);
	f = decode_arm64(0xf8410420, regs, valid); // ldr x0, [x1], #16 (post-index: accesses x1)
	CHECK_EQ(f.mem[0].address, 0x1000);
	// Top-byte-ignore: the tag is not part of the address accessed (and not of si_addr).
	regs[0] = 0x4141414141414141;
	f = decode_arm64(0xf9000001, regs, valid); // str x1, [x0]
	CHECK_EQ(f.mem[0].base_value, 0x4141414141414141);
	CHECK_EQ(f.mem[0].address, 0x0041414141414141);
	// Exclusives need natural alignment; the store-exclusive's status register moves nothing.
	regs[2] = 0x2004;
	f = decode_arm64(0xc85f7c40, regs, valid); // ldxr x0, [x2]
	CHECK(f.needs_alignment);
	CHECK_EQ(f.alignment, 8);
	CHECK_EQ(f.access, CT_ACCESS_READ);
	f = decode_arm64(0xc8037c41, regs, valid); // stxr w3, x1, [x2]
	CHECK_EQ(f.access, CT_ACCESS_WRITE);
	CHECK_EQ(f.mem[0].size, 8);
	// An unknown register leaves the address uncomputed.
	valid[1] = false;
	f = decode_arm64(0xf9400420, regs, valid);
	CHECK(f.decoded && !f.mem[0].has_address);
}

TEST(arm64_branches_and_traps)
{
	uint64_t regs[CT_MAX_DWARF_REGS] = { 0 };
	bool valid[CT_MAX_DWARF_REGS];
	memset(valid, 1, sizeof(valid));
	regs[3] = 0x4141414141414140;
	regs[30] = 0xaaaa0000;
	struct ct_insn_facts f = decode_arm64(0xd63f0060, regs, valid); // blr x3
	CHECK(f.is_call && f.is_indirect_branch && f.has_branch_target);
	CHECK_EQ(f.branch_target, 0x4141414141414140);
	CHECK_EQ(f.access, CT_ACCESS_NONE);
	f = decode_arm64(0xd61f0060, regs, valid); // br x3
	CHECK(f.is_jump && !f.is_call && f.is_indirect_branch);
	f = decode_arm64(0xd65f03c0, regs, valid); // ret
	CHECK(f.is_ret && f.has_return_address);
	CHECK_EQ(f.return_address, 0xaaaa0000);
	f = decode_arm64(0xd4207d00, regs, valid); // brk #0x3e8 (__builtin_trap)
	CHECK(f.decoded && f.is_trap);
	f = decode_arm64(0x00000b0f, regs, valid); // udf #0xb0f (x86 ud2 bytes; CASR arm test_badInstruction)
	CHECK(f.decoded && f.is_trap);
	CHECK_STR(f.text, "udf #0xb0f");
	f = decode_arm64(0x94000040, regs, valid); // bl .+0x100
	CHECK(f.is_call && !f.is_indirect_branch && f.has_branch_target);
	CHECK_EQ(f.branch_target, 0x400100);
}

TEST_MAIN()
