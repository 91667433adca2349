// The DWARF expression evaluator over hand-built operation sequences (each op with the byte
// offset it would have in the encoded expression, so branches resolve as in real DWARF) and a
// fake machine: registers, a little memory, a frame base, a CFA, an entry value.
#include <dwarf.h>
#include <string.h>

#include "test.h"
#include "values/dwarf_expr.h"

struct machine {
	uint64_t regs[32];
	bool valid[32];
	uint64_t mem_base;
	uint8_t mem[64];
	uint64_t frame_base, cfa, entry;
	const uint8_t *implicit;
	size_t implicit_len;
};

static bool reg_cb(void *arg, unsigned regno, uint64_t *ret)
{
	struct machine *m = arg;
	if (regno >= 32 || !m->valid[regno])
		return false;
	*ret = m->regs[regno];
	return true;
}

static bool mem_cb(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct machine *m = arg;
	if (addr < m->mem_base || addr - m->mem_base > sizeof(m->mem) - len)
		return false;
	memcpy(buf, m->mem + (addr - m->mem_base), len);
	return true;
}

static enum ct_expr_status fb_cb(void *arg, uint64_t *ret)
{
	*ret = ((struct machine *)arg)->frame_base;
	return CT_EXPR_OK;
}

static bool cfa_cb(void *arg, uint64_t *ret)
{
	*ret = ((struct machine *)arg)->cfa;
	return true;
}

static enum ct_expr_status entry_cb(void *arg, const Dwarf_Op *op, uint64_t *ret)
{
	(void)op;
	*ret = ((struct machine *)arg)->entry;
	return CT_EXPR_OK;
}

static enum ct_expr_status addr_cb(void *arg, const Dwarf_Op *op, uint64_t *ret)
{
	(void)arg;
	*ret = op->number + 0x1000; // the load bias
	return CT_EXPR_OK;
}

static enum ct_expr_status implicit_cb(void *arg, const Dwarf_Op *op, const uint8_t **bytes, size_t *len)
{
	struct machine *m = arg;
	(void)op;
	*bytes = m->implicit;
	*len = m->implicit_len;
	return CT_EXPR_OK;
}

// The test's base types, by the type offset a typed operation carries: 0x100 double, 0x104 float,
// 0x108 int (8 bytes), 0x110 long double (16 bytes).
static bool base_type_cb(void *arg, const Dwarf_Op *op, unsigned *encoding, unsigned *size)
{
	(void)arg;
	Dwarf_Word t = op->atom == DW_OP_regval_type || op->atom == DW_OP_deref_type ? op->number2 : op->number;
	switch (t) {
	case 0x100: *encoding = DW_ATE_float; *size = 8; return true;
	case 0x104: *encoding = DW_ATE_float; *size = 4; return true;
	case 0x108: *encoding = DW_ATE_signed; *size = 8; return true;
	case 0x110: *encoding = DW_ATE_float; *size = 16; return true;
	default: return false;
	}
}

static const struct ct_expr_ops ops = {
	.reg = reg_cb, .mem = mem_cb, .frame_base = fb_cb, .cfa = cfa_cb,
	.entry_value = entry_cb, .address = addr_cb, .implicit = implicit_cb, .base_type = base_type_cb,
};

static struct machine M;
static struct ct_expr_ctx ctx = { .ops = &ops, .arg = &M, .addr_size = 8 };

static void reset(void)
{
	memset(&M, 0, sizeof(M));
	M.mem_base = 0x7000;
	for (int i = 0; i < 64; i++)
		M.mem[i] = (uint8_t)i;
	M.regs[7] = 0x7010; // rsp
	M.valid[7] = true;
	M.regs[3] = 42; // rbx
	M.valid[3] = true;
	ctx.addr_size = 8;
	ctx.big_endian = false;
}

#define OP(a, n1, n2, off) { .atom = (a), .number = (n1), .number2 = (n2), .offset = (off) }

static struct ct_expr_result loc(const Dwarf_Op *o, size_t n, struct ct_location *l)
{
	memset(l, 0xee, sizeof(*l));
	return ct_dwarf_expr_location(&ctx, o, n, l);
}

TEST(stack_value_arithmetic)
{
	reset();
	// DW_OP_lit5 DW_OP_lit7 DW_OP_mul DW_OP_plus_uconst 3 DW_OP_stack_value: 38
	Dwarf_Op o[] = { OP(DW_OP_lit5, 0, 0, 0), OP(DW_OP_lit7, 0, 0, 1), OP(DW_OP_mul, 0, 0, 2),
			 OP(DW_OP_plus_uconst, 3, 0, 3), OP(DW_OP_stack_value, 0, 0, 5) };
	struct ct_location l;
	CHECK(loc(o, 5, &l).status == CT_EXPR_OK);
	CHECK(l.num_pieces == 1 && l.pieces[0].kind == CT_PIECE_VALUE && l.pieces[0].value == 38);
	uint64_t v = 0;
	CHECK(ct_dwarf_expr_value(&ctx, o, 5, &v).status == CT_EXPR_OK && v == 38);
}

TEST(memory_and_register_locations)
{
	reset();
	struct ct_location l;
	Dwarf_Op breg[] = { OP(DW_OP_breg7, (Dwarf_Word)-8, 0, 0) };
	CHECK(loc(breg, 1, &l).status == CT_EXPR_OK);
	CHECK(l.pieces[0].kind == CT_PIECE_MEMORY && l.pieces[0].address == 0x7008 && l.pieces[0].size == 0);
	Dwarf_Op fb[] = { OP(DW_OP_fbreg, (Dwarf_Word)-20, 0, 0) };
	M.frame_base = 0x8000;
	CHECK(loc(fb, 1, &l).status == CT_EXPR_OK && l.pieces[0].address == 0x8000 - 20);
	Dwarf_Op cfa[] = { OP(DW_OP_call_frame_cfa, 0, 0, 0), OP(DW_OP_consts, (Dwarf_Word)-16, 0, 1),
			   OP(DW_OP_plus, 0, 0, 2) };
	M.cfa = 0x9000;
	CHECK(loc(cfa, 3, &l).status == CT_EXPR_OK && l.pieces[0].address == 0x9000 - 16);
	Dwarf_Op reg[] = { OP(DW_OP_reg3, 0, 0, 0) };
	CHECK(loc(reg, 1, &l).status == CT_EXPR_OK && l.pieces[0].kind == CT_PIECE_REGISTER && l.pieces[0].reg == 3);
	uint64_t v = 0;
	CHECK(ct_dwarf_expr_value(&ctx, reg, 1, &v).status == CT_EXPR_OK && v == 42);
	Dwarf_Op regx[] = { OP(DW_OP_regx, 17, 0, 0) };
	CHECK(loc(regx, 1, &l).status == CT_EXPR_OK && l.pieces[0].reg == 17);
	Dwarf_Op addr[] = { OP(DW_OP_addr, 0x4010, 0, 0) };
	CHECK(loc(addr, 1, &l).status == CT_EXPR_OK && l.pieces[0].address == 0x5010);
}

TEST(pieces)
{
	reset();
	// DW_OP_reg3 DW_OP_piece 4, DW_OP_piece 4 (optimized out), DW_OP_lit9 DW_OP_stack_value DW_OP_piece 8
	Dwarf_Op o[] = { OP(DW_OP_reg3, 0, 0, 0), OP(DW_OP_piece, 4, 0, 1), OP(DW_OP_piece, 4, 0, 3),
			 OP(DW_OP_lit9, 0, 0, 5), OP(DW_OP_stack_value, 0, 0, 6), OP(DW_OP_piece, 8, 0, 7) };
	struct ct_location l;
	CHECK(loc(o, 6, &l).status == CT_EXPR_OK);
	CHECK(l.num_pieces == 3);
	CHECK(l.pieces[0].kind == CT_PIECE_REGISTER && l.pieces[0].size == 4);
	CHECK(l.pieces[1].kind == CT_PIECE_OPTIMIZED && l.pieces[1].size == 4);
	CHECK(l.pieces[2].kind == CT_PIECE_VALUE && l.pieces[2].value == 9 && l.pieces[2].size == 8);
	// A composite is not a value.
	uint64_t v;
	CHECK(ct_dwarf_expr_value(&ctx, o, 6, &v).status != CT_EXPR_OK);
}

TEST(implicit_entry_and_empty)
{
	reset();
	static const uint8_t bytes[] = { 0x00, 0x00, 0x20, 0x40 }; // 2.5f
	M.implicit = bytes;
	M.implicit_len = 4;
	struct ct_location l;
	Dwarf_Op imp[] = { OP(DW_OP_implicit_value, 4, 0, 0) };
	CHECK(loc(imp, 1, &l).status == CT_EXPR_OK);
	CHECK(l.pieces[0].kind == CT_PIECE_IMPLICIT && l.pieces[0].num_bytes == 4 && l.pieces[0].bytes == bytes);
	// DW_OP_entry_value(DW_OP_reg5) DW_OP_stack_value
	M.entry = 0x1234;
	Dwarf_Op ev[] = { OP(DW_OP_entry_value, 1, 0, 0), OP(DW_OP_stack_value, 0, 0, 3) };
	CHECK(loc(ev, 2, &l).status == CT_EXPR_OK && l.pieces[0].kind == CT_PIECE_VALUE && l.pieces[0].value == 0x1234);
	CHECK(loc(NULL, 0, &l).status == CT_EXPR_OK && l.num_pieces == 0);
}

TEST(deref_and_byte_order)
{
	reset();
	Dwarf_Op o[] = { OP(DW_OP_breg7, 0, 0, 0), OP(DW_OP_deref, 0, 0, 2), OP(DW_OP_stack_value, 0, 0, 3) };
	uint64_t v = 0;
	CHECK(ct_dwarf_expr_value(&ctx, o, 3, &v).status == CT_EXPR_OK && v == 0x1716151413121110ULL);
	Dwarf_Op o2[] = { OP(DW_OP_breg7, 0, 0, 0), OP(DW_OP_deref_size, 2, 0, 2), OP(DW_OP_stack_value, 0, 0, 4) };
	CHECK(ct_dwarf_expr_value(&ctx, o2, 3, &v).status == CT_EXPR_OK && v == 0x1110);
	ctx.big_endian = true;
	CHECK(ct_dwarf_expr_value(&ctx, o2, 3, &v).status == CT_EXPR_OK && v == 0x1011);
}

TEST(branches)
{
	reset();
	// acc = 0; for (n = 4; n != 0; n--) acc += n; with the byte offsets of the encoding (DW_OP_bra
	// and DW_OP_skip take 3 bytes, their targets count from the next operation).
	Dwarf_Op o[] = {
		OP(DW_OP_lit0, 0, 0, 0),
		OP(DW_OP_lit4, 0, 0, 1),
		OP(DW_OP_dup, 0, 0, 2), // loop head
		OP(DW_OP_bra, 3, 0, 3), // n != 0: to offset 9
		OP(DW_OP_skip, 9, 0, 6), // done: to offset 18
		OP(DW_OP_swap, 0, 0, 9), // n acc
		OP(DW_OP_over, 0, 0, 10), // n acc n
		OP(DW_OP_plus, 0, 0, 11), // n acc+n
		OP(DW_OP_swap, 0, 0, 12), // acc n
		OP(DW_OP_lit1, 0, 0, 13),
		OP(DW_OP_minus, 0, 0, 14), // acc n-1
		OP(DW_OP_skip, (Dwarf_Word)-16, 0, 15), // to offset 2 (15 + 3 - 16)
		OP(DW_OP_drop, 0, 0, 18), // acc
		OP(DW_OP_stack_value, 0, 0, 19),
	};
	uint64_t v = 0;
	CHECK(ct_dwarf_expr_value(&ctx, o, sizeof(o) / sizeof(o[0]), &v).status == CT_EXPR_OK);
	CHECK(v == 10);
}

TEST(caps_and_errors)
{
	reset();
	uint64_t v;
	// An endless loop: DW_OP_skip -3 jumps to itself.
	Dwarf_Op loop[] = { OP(DW_OP_skip, (Dwarf_Word)-3, 0, 0) };
	CHECK(ct_dwarf_expr_value(&ctx, loop, 1, &v).status == CT_EXPR_LIMIT);
	Dwarf_Op deep[CT_EXPR_MAX_STACK + 1];
	for (size_t i = 0; i < CT_EXPR_MAX_STACK + 1; i++)
		deep[i] = (Dwarf_Op)OP(DW_OP_lit1, 0, 0, i);
	CHECK(ct_dwarf_expr_value(&ctx, deep, CT_EXPR_MAX_STACK + 1, &v).status == CT_EXPR_LIMIT);
	Dwarf_Op under[] = { OP(DW_OP_lit1, 0, 0, 0), OP(DW_OP_plus, 0, 0, 1) };
	CHECK(ct_dwarf_expr_value(&ctx, under, 2, &v).status == CT_EXPR_CORRUPT);
	Dwarf_Op div0[] = { OP(DW_OP_lit1, 0, 0, 0), OP(DW_OP_lit0, 0, 0, 1), OP(DW_OP_div, 0, 0, 2) };
	CHECK(ct_dwarf_expr_value(&ctx, div0, 3, &v).status == CT_EXPR_CORRUPT);
	Dwarf_Op bad_branch[] = { OP(DW_OP_skip, 100, 0, 0), OP(DW_OP_lit1, 0, 0, 3) };
	CHECK(ct_dwarf_expr_value(&ctx, bad_branch, 2, &v).status != CT_EXPR_OK);
	Dwarf_Op unreadable[] = { OP(DW_OP_lit0, 0, 0, 0), OP(DW_OP_deref, 0, 0, 1) };
	struct ct_expr_result r = ct_dwarf_expr_value(&ctx, unreadable, 2, &v);
	CHECK(r.status == CT_EXPR_UNREADABLE && r.fault_address == 0);
	Dwarf_Op noreg[] = { OP(DW_OP_breg0, 0, 0, 0) };
	CHECK(ct_dwarf_expr_value(&ctx, noreg, 1, &v).status == CT_EXPR_NO_REGISTER);
	Dwarf_Op tls[] = { OP(DW_OP_lit0, 0, 0, 0), OP(DW_OP_form_tls_address, 0, 0, 1) };
	r = ct_dwarf_expr_value(&ctx, tls, 2, &v);
	CHECK(r.status == CT_EXPR_UNSUPPORTED && r.atom == DW_OP_form_tls_address);
	// After a register location only a piece may follow.
	Dwarf_Op after_reg[] = { OP(DW_OP_reg3, 0, 0, 0), OP(DW_OP_lit1, 0, 0, 1) };
	struct ct_location l;
	CHECK(ct_dwarf_expr_location(&ctx, after_reg, 2, &l).status == CT_EXPR_CORRUPT);
}

TEST(address_size_32)
{
	reset();
	ctx.addr_size = 4;
	Dwarf_Op o[] = { OP(DW_OP_lit0, 0, 0, 0), OP(DW_OP_lit1, 0, 0, 1), OP(DW_OP_minus, 0, 0, 2),
			 OP(DW_OP_stack_value, 0, 0, 3) };
	uint64_t v = 0;
	CHECK(ct_dwarf_expr_value(&ctx, o, 4, &v).status == CT_EXPR_OK && v == 0xffffffffULL);
	// Signed comparison sees the 32-bit value as -1.
	Dwarf_Op lt[] = { OP(DW_OP_lit0, 0, 0, 0), OP(DW_OP_lit1, 0, 0, 1), OP(DW_OP_minus, 0, 0, 2),
			  OP(DW_OP_lit0, 0, 0, 3), OP(DW_OP_lt, 0, 0, 4), OP(DW_OP_stack_value, 0, 0, 5) };
	CHECK(ct_dwarf_expr_value(&ctx, lt, 6, &v).status == CT_EXPR_OK && v == 1);
}

static uint64_t dbits(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

TEST(typed_float_stack)
{
	reset();
	// GCC's call-site value: DW_OP_regval_type xmm3 <double> DW_OP_const_type <double> 1.5 DW_OP_mul
	M.regs[20] = dbits(2.5);
	M.valid[20] = true;
	uint8_t one_and_half[9] = { 8 };
	uint64_t b = dbits(1.5);
	memcpy(one_and_half + 1, &b, 8);
	Dwarf_Op mul[] = { OP(DW_OP_regval_type, 20, 0x100, 0), OP(DW_OP_const_type, 0x100, (Dwarf_Word)(uintptr_t)one_and_half, 3),
			   OP(DW_OP_mul, 0, 0, 14), OP(DW_OP_stack_value, 0, 0, 15) };
	uint64_t v = 0;
	CHECK(ct_dwarf_expr_value(&ctx, mul, 4, &v).status == CT_EXPR_OK && v == dbits(3.75));
	// Comparisons of doubles give integers; a double converted to int truncates.
	Dwarf_Op cmp[] = { OP(DW_OP_regval_type, 20, 0x100, 0), OP(DW_OP_dup, 0, 0, 3), OP(DW_OP_neg, 0, 0, 4),
			   OP(DW_OP_lt, 0, 0, 5), OP(DW_OP_stack_value, 0, 0, 6) };
	CHECK(ct_dwarf_expr_value(&ctx, cmp, 5, &v).status == CT_EXPR_OK && v == 0); // 2.5 < -2.5
	Dwarf_Op swap[] = { OP(DW_OP_regval_type, 20, 0x100, 0), OP(DW_OP_lit1, 0, 0, 3), OP(DW_OP_swap, 0, 0, 4),
			    OP(DW_OP_convert, 0x108, 0, 5), OP(DW_OP_plus, 0, 0, 7), OP(DW_OP_stack_value, 0, 0, 8) };
	CHECK(ct_dwarf_expr_value(&ctx, swap, 6, &v).status == CT_EXPR_OK && v == 3); // 1 + (int)2.5
	// A double and an integer in one operation, a float in a bit operation: unsupported, not garbage.
	Dwarf_Op mixed[] = { OP(DW_OP_regval_type, 20, 0x100, 0), OP(DW_OP_lit1, 0, 0, 3), OP(DW_OP_plus, 0, 0, 4),
			     OP(DW_OP_stack_value, 0, 0, 5) };
	CHECK(ct_dwarf_expr_value(&ctx, mixed, 4, &v).status == CT_EXPR_UNSUPPORTED);
	Dwarf_Op bits[] = { OP(DW_OP_regval_type, 20, 0x100, 0), OP(DW_OP_dup, 0, 0, 3), OP(DW_OP_and, 0, 0, 4),
			    OP(DW_OP_stack_value, 0, 0, 5) };
	CHECK(ct_dwarf_expr_value(&ctx, bits, 4, &v).status == CT_EXPR_UNSUPPORTED);
	// A long double does not fit the stack.
	Dwarf_Op ld[] = { OP(DW_OP_regval_type, 20, 0x110, 0), OP(DW_OP_stack_value, 0, 0, 3) };
	CHECK(ct_dwarf_expr_value(&ctx, ld, 2, &v).status == CT_EXPR_UNSUPPORTED);
	// float: 32 bits; float to double and back; rot keeps each entry's type.
	float f = 0.5f;
	uint32_t fb32;
	memcpy(&fb32, &f, 4);
	M.regs[21] = 0xdeadbeef00000000ULL | fb32; // the upper half of the register is not the float
	M.valid[21] = true;
	Dwarf_Op fl[] = { OP(DW_OP_lit0, 0, 0, 0), OP(DW_OP_lit0, 0, 0, 1), OP(DW_OP_regval_type, 21, 0x104, 2),
			  OP(DW_OP_convert, 0x100, 0, 5), OP(DW_OP_rot, 0, 0, 7), OP(DW_OP_drop, 0, 0, 8), OP(DW_OP_drop, 0, 0, 9),
			  OP(DW_OP_stack_value, 0, 0, 10) };
	CHECK(ct_dwarf_expr_value(&ctx, fl, 8, &v).status == CT_EXPR_OK && v == dbits(0.5));
	Dwarf_Op ffl[] = { OP(DW_OP_regval_type, 21, 0x104, 0), OP(DW_OP_dup, 0, 0, 3), OP(DW_OP_plus, 0, 0, 4),
			   OP(DW_OP_stack_value, 0, 0, 5) };
	float one = 1.0f;
	uint32_t one_bits;
	memcpy(&one_bits, &one, 4);
	CHECK(ct_dwarf_expr_value(&ctx, ffl, 4, &v).status == CT_EXPR_OK && v == one_bits);
	// A double on a 32-bit target keeps its 64 bits.
	ctx.addr_size = 4;
	Dwarf_Op d32[] = { OP(DW_OP_regval_type, 20, 0x100, 0), OP(DW_OP_stack_value, 0, 0, 3) };
	struct ct_location l;
	CHECK(loc(d32, 2, &l).status == CT_EXPR_OK && l.pieces[0].kind == CT_PIECE_VALUE && l.pieces[0].value == dbits(2.5));
	// Integer typed operations are unchanged: an int-typed register value.
	ctx.addr_size = 8;
	Dwarf_Op it[] = { OP(DW_OP_regval_type, 3, 0x108, 0), OP(DW_OP_lit1, 0, 0, 3), OP(DW_OP_plus, 0, 0, 4),
			  OP(DW_OP_stack_value, 0, 0, 5) };
	CHECK(ct_dwarf_expr_value(&ctx, it, 4, &v).status == CT_EXPR_OK && v == 43);
}

TEST_MAIN()
