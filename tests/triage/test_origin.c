// The value-origin walk over hand-assembled x86-64 functions (src/triage/origin_x86.c): each test
// is a shape of code whose answer is known, including the ones where the walk must stop.
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "triage/origin.h"

#define BASE 0x1000
#define RAX 0
#define RDX 1
#define RBX 3
#define RDI 5

/** Traces register @p reg before the instruction at @p at_off of @p code (at BASE). */
static struct ct_vdef trace(const uint8_t *code, size_t len, size_t at_off, int reg, bool has_value, uint64_t value)
{
	struct ct_vrange r = { code, len, BASE };
	struct ct_vfunc *fn = NULL;
	const char *reason = NULL;
	struct ct_vdef d = { .kind = CT_VDEF_NUM_ };
	if (!ct_vfunc_decode_x86(&r, 1, BASE, &fn, &reason))
		return d;
	struct ct_vloc loc = { .reg = reg, .size = 8 };
	ct_vfunc_trace(fn, BASE + at_off, loc, has_value, value, &d);
	ct_vfunc_destroy(fn);
	return d;
}

TEST(parameter_through_a_move)
{
	// mov rax, rdi; mov eax, [rax]; ret
	static const uint8_t code[] = { 0x48, 0x89, 0xf8, 0x8b, 0x00, 0xc3 };
	struct ct_vdef d = trace(code, sizeof(code), 3, RAX, true, 0);
	CHECK(d.kind == CT_VDEF_ENTRY);
	CHECK(!d.loc.slot && d.loc.reg == RDI);
	CHECK(d.copies == 1);
}

TEST(return_value_kept_in_a_callee_saved_register)
{
	// call 0x2000; mov rbx, rax; call 0x2000; mov eax, [rbx]; ret
	static const uint8_t code[] = { 0xe8, 0xfb, 0x0f, 0x00, 0x00, 0x48, 0x89, 0xc3, 0xe8, 0xf3,
					0x0f, 0x00, 0x00, 0x8b, 0x03, 0xc3 };
	struct ct_vdef d = trace(code, sizeof(code), 13, RBX, true, 0);
	CHECK(d.kind == CT_VDEF_CALL);
	CHECK(d.pc == BASE);
	CHECK(d.has_target && d.target == 0x2000);
}

TEST(caller_saved_register_across_a_call_stops)
{
	// mov rdx, rdi; call 0x2000; mov eax, [rdx]; ret
	static const uint8_t code[] = { 0x48, 0x89, 0xfa, 0xe8, 0xf8, 0x0f, 0x00, 0x00, 0x8b, 0x02, 0xc3 };
	struct ct_vdef d = trace(code, sizeof(code), 8, RDX, true, 0);
	CHECK(d.kind == CT_VDEF_STOP);
	CHECK(d.pc == BASE + 3);
}

// test rdi, rdi; je L; call 0x2000; jmp M; L: xor eax, eax; M: mov eax, [rax]; ret
static const uint8_t merge[] = { 0x48, 0x85, 0xff, 0x74, 0x07, 0xe8, 0xf3, 0x0f, 0x00, 0x00,
				 0xeb, 0x02, 0x31, 0xc0, 0x8b, 0x00, 0xc3 };

TEST(merge_of_two_sources_stops)
{
	struct ct_vdef d = trace(merge, sizeof(merge), 14, RAX, false, 0);
	CHECK(d.kind == CT_VDEF_STOP);
	// The value 0 fits both the constant and an unknown return value: still undecided.
	d = trace(merge, sizeof(merge), 14, RAX, true, 0);
	CHECK(d.kind == CT_VDEF_STOP);
}

TEST(merge_decided_by_the_value)
{
	// A value that is not the constant 0 can only have come from the call.
	struct ct_vdef d = trace(merge, sizeof(merge), 14, RAX, true, 0x1234);
	CHECK(d.kind == CT_VDEF_CALL);
	CHECK(d.pc == BASE + 5);
}

TEST(spill_and_reload)
{
	// push rbp; mov rbp, rsp; sub rsp, 16; mov [rbp-8], rdi; nop x4; call 0x2000;
	// mov rax, [rbp-8]; mov eax, [rax]; leave; ret
	static const uint8_t code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10, 0x48, 0x89, 0x7d, 0xf8,
					0x90, 0x90, 0x90, 0x90, 0xe8, 0xeb, 0x0f, 0x00, 0x00, 0x48, 0x8b, 0x45, 0xf8,
					0x8b, 0x00, 0xc9, 0xc3 };
	struct ct_vdef d = trace(code, sizeof(code), 25, RAX, true, 0);
	CHECK(d.kind == CT_VDEF_ENTRY);
	CHECK(d.loc.reg == RDI);
	CHECK(d.copies == 2);
}

TEST(spill_with_escaped_frame_across_a_call_stops)
{
	// The same, with lea rdi, [rbp-16] before the call: the callee may write the slot.
	static const uint8_t code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10, 0x48, 0x89, 0x7d, 0xf8,
					0x48, 0x8d, 0x7d, 0xf0, 0xe8, 0xeb, 0x0f, 0x00, 0x00, 0x48, 0x8b, 0x45, 0xf8,
					0x8b, 0x00, 0xc9, 0xc3 };
	struct ct_vdef d = trace(code, sizeof(code), 25, RAX, true, 0);
	CHECK(d.kind == CT_VDEF_STOP);
	CHECK(d.pc == BASE + 16);
}

TEST(push_pop_around_a_call)
{
	// push rdi; call 0x2000; pop rax; mov eax, [rax]; ret
	static const uint8_t code[] = { 0x57, 0xe8, 0xfa, 0x0f, 0x00, 0x00, 0x58, 0x8b, 0x00, 0xc3 };
	struct ct_vdef d = trace(code, sizeof(code), 7, RAX, true, 0);
	CHECK(d.kind == CT_VDEF_ENTRY);
	CHECK(d.loc.reg == RDI);
}

TEST(load_and_constant)
{
	// mov rax, [rdi + 0x10]; mov eax, [rax]; ret
	static const uint8_t load[] = { 0x48, 0x8b, 0x47, 0x10, 0x8b, 0x00, 0xc3 };
	struct ct_vdef d = trace(load, sizeof(load), 4, RAX, true, 0);
	CHECK(d.kind == CT_VDEF_LOAD);
	CHECK(d.base == RDI && d.disp == 0x10);
	// mov eax, 0x40; mov eax, [rax]; ret
	static const uint8_t imm[] = { 0xb8, 0x40, 0x00, 0x00, 0x00, 0x8b, 0x00, 0xc3 };
	d = trace(imm, sizeof(imm), 5, RAX, true, 0x40);
	CHECK(d.kind == CT_VDEF_CONST && d.value == 0x40);
	// A constant that contradicts the value at the fault explains nothing.
	d = trace(imm, sizeof(imm), 5, RAX, true, 0);
	CHECK(d.kind == CT_VDEF_STOP);
}

TEST(conditional_move_and_partial_write_stop)
{
	// cmove rax, rdx; mov eax, [rax]; ret
	static const uint8_t cmov[] = { 0x48, 0x0f, 0x44, 0xc2, 0x8b, 0x00, 0xc3 };
	CHECK(trace(cmov, sizeof(cmov), 4, RAX, true, 0).kind == CT_VDEF_STOP);
	// mov al, 1; mov eax, [rax]; ret
	static const uint8_t part[] = { 0xb0, 0x01, 0x8b, 0x00, 0xc3 };
	CHECK(trace(part, sizeof(part), 2, RAX, true, 0).kind == CT_VDEF_STOP);
}

TEST(switch_table_stops)
{
	// jmp rdx; mov eax, [rax]; ret
	static const uint8_t code[] = { 0xff, 0xe2, 0x8b, 0x00, 0xc3 };
	CHECK(trace(code, sizeof(code), 2, RAX, true, 0).kind == CT_VDEF_STOP);
}

// A gcc-style position-independent switch (as(1) of: cmp edi, 2; ja def; mov edi, edi; lea rdx,
// [rip + tab]; movsxd rax, [rdx + rdi*4]; add rax, rdx; jmp rax; c0: xor eax, eax; jmp use; c1: mov
// eax, 8; jmp use; c2: mov eax, 16; jmp use; def: mov eax, 24; use: mov eax, [rax]; ret), its
// table of three entries relative to it at 0x34, after 0x31 bytes of code.
static const uint8_t switch_code[] = {
	0x83, 0xff, 0x02, 0x77, 0x24, 0x89, 0xff, 0x48, 0x8d, 0x15, 0x26, 0x00, 0x00, 0x00, 0x48, 0x63,
	0x04, 0xba, 0x48, 0x01, 0xd0, 0xff, 0xe0, 0x31, 0xc0, 0xeb, 0x13, 0xb8, 0x08, 0x00, 0x00, 0x00,
	0xeb, 0x0c, 0xb8, 0x10, 0x00, 0x00, 0x00, 0xeb, 0x05, 0xb8, 0x18, 0x00, 0x00, 0x00, 0x8b, 0x00,
	0xc3, 0x0f, 0x1f, 0x00, 0xe3, 0xff, 0xff, 0xff, 0xe7, 0xff, 0xff, 0xff, 0xee, 0xff, 0xff, 0xff,
};
#define SWITCH_CODE_LEN 0x31
#define SWITCH_USE 0x2e

static bool read_buffer(void *arg, uint64_t addr, void *buf, size_t len)
{
	const uint8_t *image = arg;
	if (addr < BASE || addr - BASE > sizeof(switch_code) || len > sizeof(switch_code) - (addr - BASE))
		return false;
	memcpy(buf, image + (addr - BASE), len);
	return true;
}

/** Traces rax before the switch's common use, its table read from @p image (NULL: not read). */
static struct ct_vdef trace_switch(const uint8_t *image, bool has_value, uint64_t value)
{
	struct ct_vrange r = { switch_code, SWITCH_CODE_LEN, BASE };
	struct ct_vfunc *fn = NULL;
	const char *reason = NULL;
	struct ct_vdef d = { .kind = CT_VDEF_NUM_ };
	const struct ct_vmem mem = { read_buffer, (void *)image };
	if (!ct_vfunc_decode_x86(&r, 1, BASE, &fn, &reason) || !ct_vfunc_resolve_tables(fn, image ? &mem : NULL))
		return d;
	struct ct_vloc loc = { .reg = RAX, .size = 8 };
	ct_vfunc_trace(fn, BASE + SWITCH_USE, loc, has_value, value, &d);
	ct_vfunc_destroy(fn);
	return d;
}

TEST(switch_table_read_gives_the_paths)
{
	// The value at the fault (0) rules out the cases that set 8, 16 and 24: case 0 set it.
	struct ct_vdef d = trace_switch(switch_code, true, 0);
	CHECK(d.kind == CT_VDEF_CONST);
	CHECK(d.pc == BASE + 0x17);
	// The value 16: case 2.
	d = trace_switch(switch_code, true, 16);
	CHECK(d.kind == CT_VDEF_CONST && d.pc == BASE + 0x22);
	// Without the value the cases disagree; without the table no path is known.
	CHECK(trace_switch(switch_code, false, 0).kind == CT_VDEF_STOP);
	CHECK(trace_switch(NULL, true, 0).kind == CT_VDEF_STOP);
	// A table entry outside the function: not this switch's table, nothing resolved.
	uint8_t bad[sizeof(switch_code)];
	memcpy(bad, switch_code, sizeof(bad));
	bad[0x3c] = 0x40;
	bad[0x3d] = 0x00;
	bad[0x3e] = 0x00;
	bad[0x3f] = 0x00;
	CHECK(trace_switch(bad, true, 0).kind == CT_VDEF_STOP);
}

TEST(affine_arithmetic_keeps_its_operands)
{
	// movsxd rdx, edx; shl rdx, 3; add rax, rdx; lea rdx, [rax*4]; add rdx, -0x80; add eax, ecx;
	// mov eax, [rdx + rax]; ret (gcc -O0's ggrid[i][j], with an add of an immediate and a 32-bit add)
	static const uint8_t code[] = { 0x48, 0x63, 0xd2, 0x48, 0xc1, 0xe2, 0x03, 0x48, 0x01, 0xd0, 0x48, 0x8d, 0x14, 0x85,
					0x00, 0x00, 0x00, 0x00, 0x48, 0x83, 0xc2, 0x80, 0x01, 0xc8, 0x8b, 0x04, 0x02, 0xc3 };
	struct ct_vdef d = trace(code, sizeof(code), 0x18, RDX, false, 0);
	CHECK(d.kind == CT_VDEF_ARITH && d.affine && d.pc == BASE + 0x12);
	CHECK(d.base == RDX && d.index < 0 && d.disp == -0x80);
	d = trace(code, sizeof(code), 0x12, RDX, false, 0);
	CHECK(d.kind == CT_VDEF_ARITH && d.affine && d.base < 0 && d.index == RAX && d.scale == 4);
	d = trace(code, sizeof(code), 0xa, RAX, false, 0);
	CHECK(d.kind == CT_VDEF_ARITH && d.affine && d.base == RAX && d.index == RDX && d.scale == 1);
	d = trace(code, sizeof(code), 0x7, RDX, false, 0);
	CHECK(d.kind == CT_VDEF_ARITH && d.affine && d.base < 0 && d.index == RDX && d.scale == 8);
	// A 32-bit add wraps: not the sum of the 64-bit registers.
	d = trace(code, sizeof(code), 0x18, RAX, false, 0);
	CHECK(d.kind == CT_VDEF_ARITH && !d.affine);
}

TEST_MAIN()
