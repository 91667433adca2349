// The value-origin walk over hand-assembled aarch64 functions (src/triage/origin_arm64.c): each test
// is a shape of code compilers emit, with its known answer, including the ones where the walk must
// stop. The words are GNU as's encodings (aarch64-linux-gnu-as 2.40), little-endian.
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "triage/origin.h"

#define BASE 0x1000
#define X0 0
#define X1 1
#define X2 2
#define X8 8
#define X19 19
#define MAX_WORDS 16

/** Traces register @p reg before word @p at of @p words (at BASE). */
static struct ct_vdef trace(const uint32_t *words, size_t n, size_t at, int reg, bool has_value, uint64_t value)
{
	uint8_t code[MAX_WORDS * 4];
	for (size_t i = 0; i < n && i < MAX_WORDS; i++)
		for (int b = 0; b < 4; b++)
			code[i * 4 + b] = (uint8_t)(words[i] >> (8 * b));
	struct ct_vrange r = { code, n * 4, BASE };
	struct ct_vfunc *fn = NULL;
	const char *reason = NULL;
	struct ct_vdef d = { .kind = CT_VDEF_NUM_ };
	if (!ct_vfunc_decode(ct_vwalker_aarch64.steps, &r, 1, BASE, &fn, &reason))
		return d;
	struct ct_vloc loc = { .reg = reg, .size = 8 };
	ct_vfunc_trace(fn, BASE + at * 4, loc, has_value, value, &d);
	ct_vfunc_destroy(fn);
	return d;
}

#define TRACE(words, at, reg, has_value, value) trace(words, sizeof(words) / sizeof(words[0]), at, reg, has_value, value)

TEST(parameter_spilled_across_a_call_with_writeback)
{
	// stp x29, x30, [sp, #-32]!; mov x29, sp; str x0, [sp, #24]; bl BASE; ldr x0, [sp, #24];
	// ldr w0, [x0, #8]; ldp x29, x30, [sp], #32; ret
	static const uint32_t code[] = { 0xa9be7bfd, 0x910003fd, 0xf9000fe0, 0x97fffffd,
					 0xf9400fe0, 0xb9400800, 0xa8c27bfd, 0xd65f03c0 };
	struct ct_vdef d = TRACE(code, 5, X0, true, 0);
	CHECK(d.kind == CT_VDEF_ENTRY);
	CHECK(!d.loc.slot && d.loc.reg == X0);
	CHECK(d.copies == 2);
}

TEST(return_value_kept_in_a_callee_saved_register)
{
	// bl BASE; mov x19, x0; bl BASE; ldr w0, [x19]; ret
	static const uint32_t code[] = { 0x94000000, 0xaa0003f3, 0x97fffffe, 0xb9400260, 0xd65f03c0 };
	struct ct_vdef d = TRACE(code, 3, X19, true, 0);
	CHECK(d.kind == CT_VDEF_CALL);
	CHECK(d.pc == BASE);
	CHECK(d.has_target && d.target == BASE);
}

TEST(caller_saved_register_across_a_call_stops)
{
	// mov x1, x0; bl BASE; ldr w0, [x1]; ret
	static const uint32_t code[] = { 0xaa0003e1, 0x97ffffff, 0xb9400020, 0xd65f03c0 };
	struct ct_vdef d = TRACE(code, 2, X1, true, 0);
	CHECK(d.kind == CT_VDEF_STOP);
	CHECK(d.pc == BASE + 4);
}

TEST(movz_movk_constant)
{
	// mov x0, #0x1234; movk x0, #0x5678, lsl #16; ldr w0, [x0]; ret
	static const uint32_t code[] = { 0xd2824680, 0xf2aacf00, 0xb9400000, 0xd65f03c0 };
	struct ct_vdef d = TRACE(code, 2, X0, true, 0x56781234);
	CHECK(d.kind == CT_VDEF_CONST && d.value == 0x56781234);
	CHECK(d.pc == BASE + 4);
	// Another value at the fault: not this constant's path.
	CHECK(TRACE(code, 2, X0, true, 0x1234).kind == CT_VDEF_STOP);
}

TEST(bitmask_constant_and_scaled_index)
{
	// mov x0, #0x5555555555555555 (orr x0, xzr, #imm); ldr w0, [x0]; ret
	static const uint32_t orr[] = { 0xb200f3e0, 0xb9400000, 0xd65f03c0 };
	struct ct_vdef d = TRACE(orr, 1, X0, true, 0x5555555555555555ULL);
	CHECK(d.kind == CT_VDEF_CONST && d.value == 0x5555555555555555ULL);
	// lsl x1, x0, #2; ldr w0, [x1]; ret: a computation the chain can follow as a scaled index.
	static const uint32_t lsl[] = { 0xd37ef401, 0xb9400020, 0xd65f03c0 };
	d = TRACE(lsl, 1, X1, true, 0x40);
	CHECK(d.kind == CT_VDEF_ARITH);
	CHECK(d.base < 0 && d.index == X0 && d.scale == 4);
}

TEST(compares_do_not_write_the_register)
{
	// mov x1, x0; cmp x1, #0x1; tst x1, #0x1; ldr w0, [x1]; ret (capstone 4 lists x1 as written by both)
	static const uint32_t code[] = { 0xaa0003e1, 0xf100043f, 0xf240003f, 0xb9400020, 0xd65f03c0 };
	struct ct_vdef d = TRACE(code, 3, X1, true, 0);
	CHECK(d.kind == CT_VDEF_ENTRY && !d.loc.slot && d.loc.reg == X0);
}

TEST(adrp_add_load_names_the_address)
{
	// adrp x8, BASE + 0x5000; add x8, x8, #0x98; ldr x8, [x8, #8]; ldr w0, [x8]; ret
	static const uint32_t code[] = { 0xb0000028, 0x91026108, 0xf9400508, 0xb9400100, 0xd65f03c0 };
	struct ct_vdef d = TRACE(code, 3, X8, true, 0);
	CHECK(d.kind == CT_VDEF_LOAD);
	CHECK(d.has_abs && d.abs == BASE + 0x5000 + 0x98 + 8);
	CHECK(d.base == X8 && d.disp == 8);
}

TEST(store_with_pre_index_then_reload)
{
	// str x0, [sp, #-16]!; ldr x1, [sp]; ldr w0, [x1]; add sp, sp, #16; ret
	static const uint32_t code[] = { 0xf81f0fe0, 0xf94003e1, 0xb9400020, 0x910043ff, 0xd65f03c0 };
	struct ct_vdef d = TRACE(code, 2, X1, true, 0);
	CHECK(d.kind == CT_VDEF_ENTRY && !d.loc.slot && d.loc.reg == X0);
}

TEST(escaped_frame_across_a_call_stops)
{
	// sub sp, sp, #32; add x1, sp, #8; str x0, [sp, #8]; bl BASE; ldr x2, [sp, #8]; ldr w0, [x2];
	// add sp, sp, #32; ret
	static const uint32_t code[] = { 0xd10083ff, 0x910023e1, 0xf90007e0, 0x97fffffd,
					 0xf94007e2, 0xb9400040, 0x910083ff, 0xd65f03c0 };
	struct ct_vdef d = TRACE(code, 5, X2, true, 0);
	CHECK(d.kind == CT_VDEF_STOP);
	CHECK(d.pc == BASE + 12);
}

TEST(conditional_select_and_table_jump_stop)
{
	// cmp x1, #0; csel x0, x1, x2, eq; ldr w0, [x0]; ret
	static const uint32_t csel[] = { 0xf100003f, 0x9a820020, 0xb9400000, 0xd65f03c0 };
	CHECK(TRACE(csel, 2, X0, true, 0).kind == CT_VDEF_STOP);
	// adr x1, BASE; br x1; ldr w0, [x0]; ret
	static const uint32_t table[] = { 0x10000001, 0xd61f0020, 0xb9400000, 0xd65f03c0 };
	struct ct_vdef d = TRACE(table, 2, X0, true, 0);
	CHECK(d.kind == CT_VDEF_STOP && d.reason && strstr(d.reason, "table"));
}

// A clang-style switch (as(1) and ld -Ttext=0x1000 of: cmp w0, #2; b.hi def; adrp x9, tab; mov
// w8, w0; add x9, x9, :lo12:tab; adr x10, c0; ldrb w11, [x9, x8]; add x10, x10, x11, lsl #2; br x10;
// c0: mov x0, xzr; b use; c1: mov x0, #8; b use; c2: mov x0, #16; b use; def: mov x0, #24; use: ldr
// w0, [x0]; ret; tab: .byte 0, 2, 4, 0): the table's word after 18 words of code.
static const uint32_t switch_words[] = { 0x7100081f, 0x540001c8, 0x90000009, 0x2a0003e8, 0x91012129, 0x1000008a, 0x3868692b,
					 0x8b0b094a, 0xd61f0140, 0xaa1f03e0, 0x14000006, 0xd2800100, 0x14000004, 0xd2800200,
					 0x14000002, 0xd2800300, 0xb9400000, 0xd65f03c0, 0x00040200 };
#define SWITCH_WORDS 18
#define SWITCH_USE 16

static bool read_image(void *arg, uint64_t addr, void *buf, size_t len)
{
	const uint8_t *image = arg;
	size_t size = sizeof(switch_words);
	if (addr < BASE || addr - BASE > size || len > size - (addr - BASE))
		return false;
	memcpy(buf, image + (addr - BASE), len);
	return true;
}

/** Traces x0 before the switch's common load, its table read from @p words (NULL: not read). */
static struct ct_vdef trace_switch(const uint32_t *words, bool has_value, uint64_t value)
{
	uint8_t image[sizeof(switch_words)];
	for (size_t i = 0; i < sizeof(switch_words) / 4; i++)
		for (int b = 0; b < 4; b++)
			image[i * 4 + b] = (uint8_t)((words ? words : switch_words)[i] >> (8 * b));
	struct ct_vrange r = { image, SWITCH_WORDS * 4, BASE };
	struct ct_vfunc *fn = NULL;
	const char *reason = NULL;
	struct ct_vdef d = { .kind = CT_VDEF_NUM_ };
	const struct ct_vmem mem = { read_image, image };
	if (!ct_vfunc_decode(ct_vwalker_aarch64.steps, &r, 1, BASE, &fn, &reason) ||
	    !ct_vfunc_resolve_tables(fn, words ? &mem : NULL))
		return d;
	struct ct_vloc loc = { .reg = X0, .size = 8 };
	ct_vfunc_trace(fn, BASE + SWITCH_USE * 4, loc, has_value, value, &d);
	ct_vfunc_destroy(fn);
	return d;
}

TEST(switch_table_read_gives_the_paths)
{
	// The value at the fault (0) rules out the cases that set 8, 16 and 24: case 0 (mov x0, xzr).
	struct ct_vdef d = trace_switch(switch_words, true, 0);
	CHECK(d.kind == CT_VDEF_CONST && d.pc == BASE + 9 * 4);
	d = trace_switch(switch_words, true, 16);
	CHECK(d.kind == CT_VDEF_CONST && d.pc == BASE + 13 * 4);
	CHECK(trace_switch(switch_words, false, 0).kind == CT_VDEF_STOP);
	CHECK(trace_switch(NULL, true, 0).kind == CT_VDEF_STOP);
	// An entry past the function's end: nothing resolved.
	uint32_t bad[sizeof(switch_words) / 4];
	memcpy(bad, switch_words, sizeof(bad));
	bad[18] = 0x00400200;
	CHECK(trace_switch(bad, true, 0).kind == CT_VDEF_STOP);
}

TEST(affine_arithmetic_keeps_its_operands)
{
	// sbfiz x0, x0, #3, #32; add x0, x0, w1, sxtw; add x8, x9, x0, lsl #5; add x2, x8, x1, lsr #2;
	// ldr w0, [x8, w1, sxtw #2]; ret
	static const uint32_t code[] = { 0x937d7c00, 0x8b21c000, 0x8b001528, 0x8b410902, 0xb861d900, 0xd65f03c0 };
	struct ct_vdef d = TRACE(code, 1, X0, false, 0);
	CHECK(d.kind == CT_VDEF_ARITH && d.affine && d.base < 0 && d.index == X0 && d.scale == 8);
	CHECK(d.index_size == 4 && d.index_sext);
	d = TRACE(code, 2, X0, false, 0);
	CHECK(d.kind == CT_VDEF_ARITH && d.affine && d.base == X0 && d.index == X1 && d.scale == 1);
	CHECK(d.index_size == 4 && d.index_sext);
	d = TRACE(code, 3, X8, false, 0);
	CHECK(d.kind == CT_VDEF_ARITH && d.affine && d.base == 9 && d.index == X0 && d.scale == 32 && d.index_size == 8);
	// A right shift is no multiplication.
	d = TRACE(code, 4, X2, false, 0);
	CHECK(d.kind == CT_VDEF_ARITH && !d.affine);
	// The load's operand: the index a sign-extended w register.
	uint8_t bytes[sizeof(code)];
	for (size_t i = 0; i < sizeof(code); i++)
		bytes[i] = (uint8_t)(code[i / 4] >> (8 * (i % 4)));
	struct ct_vrange r = { bytes, sizeof(bytes), BASE };
	struct ct_vfunc *fn = NULL;
	const char *reason = NULL;
	CHECK(ct_vfunc_decode(ct_vwalker_aarch64.steps, &r, 1, BASE, &fn, &reason));
	struct ct_vaddr m;
	CHECK(fn && ct_vfunc_mem_operand(fn, BASE + 16, &m));
	CHECK(m.base == X8 && m.index == X1 && m.index_size == 4 && m.index_sext && m.scale == 4 && m.disp == 0);
	CHECK(fn && !ct_vfunc_mem_operand(fn, BASE + 12, &m));
	ct_vfunc_destroy(fn);
}

TEST_MAIN()
