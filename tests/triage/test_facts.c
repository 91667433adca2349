// Fact helpers: abort-message parsing, address placement, names, recursion, signature, x86 decoding.
#include "arch/arch.h"
#include "test.h"
#include "triage/facts.h"
#include "triage/insn.h"

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
	ct_abort_parse(rep(), "exe: testdata/src/crashme.c:181: checked_div: Assertion `b != 0 && \"divisor must be nonzero\"' failed.\n", &a);
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
	ct_abort_parse(rep(), "prog: a.cpp:7: int f(const char*): Assertion `p' failed.", &a);
	CHECK_STR(a.function, "int f(const char*)");
	CHECK_STR(a.file, "a.cpp");
	CHECK_EQ(a.line, 7);
	CHECK_STR(a.expression, "p");
}

TEST(abort_assert_perror)
{
	struct ct_abort_facts a;
	ct_abort_parse(rep(), "prog: io.c:12: main: Unexpected error: No such file or directory.\n", &a);
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
		ct_abort_parse(rep(), cases[i].text, &a);
		CHECK_EQ(a.kind, cases[i].kind);
		if (cases[i].sub)
			CHECK_STR(a.heap_subclass, cases[i].sub);
	}
	struct ct_abort_facts a;
	ct_abort_parse(rep(), "", &a);
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
	CHECK_STR(ct_normalize_function(rep(), "__GI_raise"), "raise");
	CHECK_STR(ct_normalize_function(rep(), "__GI___libc_free"), "free");
	CHECK_STR(ct_normalize_function(rep(), "__libc_malloc"), "malloc");
	CHECK_STR(ct_normalize_function(rep(), "parse.constprop.0"), "parse");
	CHECK_STR(ct_normalize_function(rep(), "foo.cold"), "foo");
	CHECK_STR(ct_normalize_function(rep(), "std::terminate()"), "std::terminate()");
	CHECK(ct_normalize_function(rep(), NULL) == NULL);
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

static void sign(struct ct_frame_fact *fr, size_t n, long blame, const char *cls, char *text, size_t size, char *hash)
{
	struct ct_facts f = { .frames = fr, .num_frames = n, .blame = blame };
	report.crash.class_id = cls;
	report.crash.subclass = NULL;
	ct_signature_build(&f, rep());
	snprintf(text, size, "%s", report.signature.text);
	strcpy(hash, report.signature.hash);
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
	sign(a, 4, 1, "null-deref", t1, sizeof(t1), h1);
	sign(b, 3, 1, "null-deref", t2, sizeof(t2), h2);
	CHECK_STR(t1, "null-deref|walk|main");
	CHECK_STR(t1, t2);
	CHECK_STR(h1, h2);
	// Different class, same frames: different key.
	sign(b, 3, 1, "wild-pointer", t3, sizeof(t3), h3);
	CHECK(strcmp(h1, h3) != 0);
	// No own frame: library frames without delivery noise, and module+offset for unnamed frames.
	struct ct_frame_fact c[] = { { .function = "raise", .library = true },
				     { .function = "abort", .library = true },
				     { .module = "libfoo.so", .has_module_offset = true, .module_offset = 0x1234, .library = true } };
	sign(c, 3, -1, "abort", t3, sizeof(t3), h3);
	CHECK_STR(t3, "abort|libfoo.so+0x1234");
	CHECK_EQ(report.signature.version, CT_SIGNATURE_VERSION);
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
	CHECK(ct_insn_decode("x86_64", code, len, NULL, 0, &ctx, &f));
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
	CHECK(ct_insn_decode("x86_64", nop, 1, before, 2, &ctx, &f));
	CHECK(f.is_breakpoint);
}

TEST(x86_slot_load)
{
	// mov rax, [rbp - 0x10]; mov rax, [rax + 8]
	static const uint8_t code[] = { 0x48, 0x8b, 0x45, 0xf0, 0x48, 0x8b, 0x40, 0x08 };
	int base;
	int64_t disp;
	CHECK(ct_insn_find_slot_load("x86_64", code, sizeof(code), 0x1000, 0x1004, 0, &base, &disp));
	CHECK_EQ(base, 6);
	CHECK_EQ(disp, -0x10);
	CHECK(!ct_insn_find_slot_load("aarch64", code, sizeof(code), 0x1000, 0x1004, 0, &base, &disp));
}

TEST_MAIN()
