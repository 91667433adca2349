// The DWARF expression stack machine (DWARF 5 section 2.5/2.6), over libdw's decoded operations.
#include <dwarf.h>
#include <string.h>

#include "util/bisect.h"
#include "values/dwarf_expr.h"

#include "util/budget.h"

static const char *const status_names[CT_EXPR_NUM_] = {
	[CT_EXPR_OK] = "ok",
	[CT_EXPR_NO_REGISTER] = "register not saved",
	[CT_EXPR_UNREADABLE] = "unreadable memory",
	[CT_EXPR_UNSUPPORTED] = "unsupported DWARF operation",
	[CT_EXPR_CORRUPT] = "malformed DWARF expression",
	[CT_EXPR_LIMIT] = "DWARF expression too long",
	[CT_EXPR_NO_ENTRY_VALUE] = "entry value unknown",
	[CT_EXPR_BUDGET] = "work budget of DWARF expression steps reached",
};

const char *ct_expr_status_to_string(enum ct_expr_status status)
{
	return (unsigned)status < CT_EXPR_NUM_ ? status_names[status] : "?";
}

struct machine {
	const struct ct_expr_ctx *ctx;
	uint64_t stack[CT_EXPR_MAX_STACK];
	/** 0: an integer (generic or typed); 4 or 8: the bits of a float or double (typed stack). */
	uint8_t fsize[CT_EXPR_MAX_STACK];
	size_t depth;
	struct ct_expr_result res;
	uint64_t mask; // address-size mask: arithmetic wraps as on the target
};

static bool fail(struct machine *m, enum ct_expr_status st, unsigned atom)
{
	m->res.status = st;
	m->res.atom = atom;
	return false;
}

static bool push(struct machine *m, uint64_t v)
{
	if (m->depth == CT_EXPR_MAX_STACK)
		return fail(m, CT_EXPR_LIMIT, 0);
	m->fsize[m->depth] = 0;
	m->stack[m->depth++] = v & m->mask;
	return true;
}

// Pushes a copy of entry @p from (dup, over, pick): a float stays a float.
static bool push_copy(struct machine *m, size_t from)
{
	if (m->depth == CT_EXPR_MAX_STACK)
		return fail(m, CT_EXPR_LIMIT, 0);
	m->fsize[m->depth] = m->fsize[from];
	m->stack[m->depth++] = m->stack[from];
	return true;
}

static void swap_entries(struct machine *m, size_t i, size_t j)
{
	uint64_t v = m->stack[i];
	uint8_t f = m->fsize[i];
	m->stack[i] = m->stack[j];
	m->fsize[i] = m->fsize[j];
	m->stack[j] = v;
	m->fsize[j] = f;
}

// The float size (4, 8) of the base type typed operation @p op names; 0 for an integer or an
// unknown type; -1 (failed) for a float type the stack cannot hold (long double, _Float128).
static int float_type(struct machine *m, const Dwarf_Op *op)
{
	const struct ct_expr_ops *o = m->ctx->ops;
	unsigned enc = 0, size = 0;
	if (!o->base_type || !o->base_type(m->ctx->arg, op, &enc, &size) || enc != DW_ATE_float)
		return 0;
	if (size != 4 && size != 8) {
		fail(m, CT_EXPR_UNSUPPORTED, op->atom);
		return -1;
	}
	return (int)size;
}

// Pushes @p v with the type typed operation @p op names: a float or double keeps its bits
// unmasked (a double on a 32-bit target is wider than an address).
static bool push_typed(struct machine *m, uint64_t v, const Dwarf_Op *op)
{
	int f = float_type(m, op);
	if (f < 0)
		return false;
	if (f == 0)
		return push(m, v);
	if (m->depth == CT_EXPR_MAX_STACK)
		return fail(m, CT_EXPR_LIMIT, 0);
	m->fsize[m->depth] = (uint8_t)f;
	m->stack[m->depth++] = f == 4 ? v & UINT32_MAX : v;
	return true;
}

// Pushes @p v, the answer of a context callback for operation @p atom, or fails with its status.
static bool push_answer(struct machine *m, enum ct_expr_status st, uint64_t v, unsigned atom)
{
	if (st != CT_EXPR_OK)
		return fail(m, st, atom);
	return push(m, v);
}

static bool pop(struct machine *m, uint64_t *v)
{
	if (!m->depth)
		return fail(m, CT_EXPR_CORRUPT, 0);
	*v = m->stack[--m->depth];
	return true;
}

static bool reg(struct machine *m, unsigned regno, uint64_t *ret)
{
	const struct ct_expr_ops *o = m->ctx->ops;
	if (!o->reg || !o->reg(m->ctx->arg, regno, ret))
		return fail(m, CT_EXPR_NO_REGISTER, regno);
	return true;
}

static bool deref(struct machine *m, uint64_t addr, size_t size, uint64_t *ret)
{
	const struct ct_expr_ops *o = m->ctx->ops;
	uint8_t buf[8] = { 0 };
	if (size == 0 || size > 8)
		return fail(m, CT_EXPR_CORRUPT, DW_OP_deref_size);
	if (!o->mem || !o->mem(m->ctx->arg, addr, buf, size)) {
		m->res.fault_address = addr;
		return fail(m, CT_EXPR_UNREADABLE, DW_OP_deref);
	}
	uint64_t v = 0;
	for (size_t i = 0; i < size; i++) {
		size_t b = m->ctx->big_endian ? i : size - 1 - i;
		v = v << 8 | buf[b];
	}
	*ret = v;
	return true;
}

static int64_t sext(uint64_t v, uint64_t mask)
{
	// Values on the stack are address-sized; signed operations see them sign-extended.
	if (mask == UINT64_MAX)
		return (int64_t)v;
	uint64_t sign = (mask >> 1) + 1;
	return (int64_t)((v & mask) ^ sign) - (int64_t)sign;
}

struct op_key {
	const Dwarf_Op *ops;
	Dwarf_Word target;
};

static bool op_below(const void *ctx, size_t i)
{
	const struct op_key *k = ctx;
	return k->ops[i].offset < k->target;
}

// Index of the operation at byte offset @p target, or -1.
static long op_at(const Dwarf_Op *ops, size_t n, Dwarf_Word target)
{
	size_t lo = ct_bisect(n, op_below, &(struct op_key){ ops, target });
	if (lo < n && ops[lo].offset == target)
		return (long)lo;
	return -1;
}

// Byte offset just past operation @p i (the branch base of DW_OP_skip/bra).
static Dwarf_Word op_end(const Dwarf_Op *ops, size_t i)
{
	// skip and bra are 3 bytes: the opcode and a 2-byte offset.
	return ops[i].offset + 3;
}

// Arithmetic or a comparison @p atom on float entries of the typed stack (dwarf_expr_float.c):
// both operands must be floats of one size; a comparison pushes an integer, the rest a float.
static bool float_op(struct machine *m, unsigned atom)
{
	bool unary = atom == DW_OP_abs || atom == DW_OP_neg;
	size_t need = unary ? 1 : 2;
	if (m->depth < need)
		return fail(m, CT_EXPR_CORRUPT, atom);
	size_t top = m->depth - 1;
	uint8_t size = m->fsize[top];
	if (!unary && m->fsize[top - 1] != size)
		return fail(m, CT_EXPR_UNSUPPORTED, atom); // a float with an integer: a type mismatch
	uint64_t a = unary ? m->stack[top] : m->stack[top - 1], b = m->stack[top], r;
	bool is_float;
	if (!ct_expr_float_binop(atom, size, a, b, &r, &is_float))
		return fail(m, CT_EXPR_UNSUPPORTED, atom); // and, or, shifts, mod on floats
	m->depth -= need;
	if (!is_float)
		return push(m, r);
	m->fsize[m->depth] = size;
	m->stack[m->depth++] = r;
	return true;
}

enum loc_kind { LOC_NONE, LOC_REGISTER, LOC_VALUE, LOC_IMPLICIT };

// Runs the machine. *kind says what the expression ended with, for the caller to turn into a
// location piece; pieces are emitted through @p loc as DW_OP_piece operations are met.
static bool run(struct machine *m, const Dwarf_Op *ops, size_t n, struct ct_location *loc)
{
	const struct ct_expr_ops *o = m->ctx->ops;
	enum loc_kind kind = LOC_NONE;
	unsigned regno = 0;
	const uint8_t *bytes = NULL;
	size_t num_bytes = 0;
	size_t steps = 0;
	size_t addr_size = m->ctx->addr_size;
	for (size_t i = 0; i < n; i++) {
		if (++steps > CT_EXPR_MAX_STEPS)
			return fail(m, CT_EXPR_LIMIT, 0);
		if (!ct_budget_take(m->ctx->budget, CT_BUDGET_EXPR, 1))
			return fail(m, CT_EXPR_BUDGET, 0);
		const Dwarf_Op *op = &ops[i];
		uint8_t atom = op->atom;
		uint64_t a, b, c;
		// After a register, stack value or implicit value only a piece may follow.
		if (kind != LOC_NONE && atom != DW_OP_piece && atom != DW_OP_bit_piece)
			return fail(m, CT_EXPR_CORRUPT, atom);
		if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) {
			if (!push(m, atom - DW_OP_lit0))
				return false;
			continue;
		}
		if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
			kind = LOC_REGISTER;
			regno = atom - DW_OP_reg0;
			continue;
		}
		if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
			if (!reg(m, atom - DW_OP_breg0, &a) || !push(m, a + (uint64_t)(int64_t)op->number))
				return false;
			continue;
		}
		switch (atom) {
		case DW_OP_addr:
		case DW_OP_addrx:
		case DW_OP_constx:
		case DW_OP_GNU_addr_index:
		case DW_OP_GNU_const_index: {
			if (!o->address)
				return fail(m, CT_EXPR_UNSUPPORTED, atom);
			enum ct_expr_status st = o->address(m->ctx->arg, op, &a);
			if (!push_answer(m, st, a, atom))
				return false;
			break;
		}
		case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
		case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
		case DW_OP_constu: case DW_OP_consts:
			// libdw sign-extends the signed forms into number already.
			if (!push(m, op->number))
				return false;
			break;
		case DW_OP_dup:
			if (!m->depth)
				return fail(m, CT_EXPR_CORRUPT, atom);
			if (!push_copy(m, m->depth - 1))
				return false;
			break;
		case DW_OP_drop:
			if (!pop(m, &a))
				return false;
			break;
		case DW_OP_over:
			if (m->depth < 2)
				return fail(m, CT_EXPR_CORRUPT, atom);
			if (!push_copy(m, m->depth - 2))
				return false;
			break;
		case DW_OP_pick:
			if (op->number >= m->depth)
				return fail(m, CT_EXPR_CORRUPT, atom);
			if (!push_copy(m, m->depth - 1 - (size_t)op->number))
				return false;
			break;
		case DW_OP_swap:
			if (m->depth < 2)
				return fail(m, CT_EXPR_CORRUPT, atom);
			swap_entries(m, m->depth - 1, m->depth - 2);
			break;
		case DW_OP_rot:
			// The top moves to third place: (a b c) -> (c a b) from the bottom.
			if (m->depth < 3)
				return fail(m, CT_EXPR_CORRUPT, atom);
			swap_entries(m, m->depth - 1, m->depth - 2);
			swap_entries(m, m->depth - 2, m->depth - 3);
			break;
		case DW_OP_deref:
			if (!pop(m, &a) || !deref(m, a, addr_size, &b) || !push(m, b))
				return false;
			break;
		case DW_OP_deref_size:
			if (!pop(m, &a) || !deref(m, a, (size_t)op->number, &b) || !push(m, b))
				return false;
			break;
		case DW_OP_deref_type:
		case DW_OP_GNU_deref_type:
			// Typed stack (DWARF 5): the size is the operand, the type the second one.
			if (!pop(m, &a) || !deref(m, a, (size_t)op->number, &b) || !push_typed(m, b, op))
				return false;
			break;
		case DW_OP_abs:
			if (m->depth && m->fsize[m->depth - 1]) {
				if (!float_op(m, atom))
					return false;
				break;
			}
			if (!pop(m, &a))
				return false;
			if (!push(m, sext(a, m->mask) < 0 ? -a : a))
				return false;
			break;
		case DW_OP_neg:
			if (m->depth && m->fsize[m->depth - 1]) {
				if (!float_op(m, atom))
					return false;
				break;
			}
			if (!pop(m, &a) || !push(m, -a))
				return false;
			break;
		case DW_OP_not:
			if (!pop(m, &a) || !push(m, ~a))
				return false;
			break;
		case DW_OP_plus_uconst:
			if (m->depth && m->fsize[m->depth - 1])
				return fail(m, CT_EXPR_UNSUPPORTED, atom);
			if (!pop(m, &a) || !push(m, a + op->number))
				return false;
			break;
		case DW_OP_and: case DW_OP_div: case DW_OP_minus: case DW_OP_mod: case DW_OP_mul:
		case DW_OP_or: case DW_OP_plus: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
		case DW_OP_xor: case DW_OP_eq: case DW_OP_ge: case DW_OP_gt: case DW_OP_le:
		case DW_OP_lt: case DW_OP_ne: {
			if (m->depth >= 2 && (m->fsize[m->depth - 1] || m->fsize[m->depth - 2])) {
				if (!float_op(m, atom))
					return false;
				break;
			}
			if (!pop(m, &b) || !pop(m, &a))
				return false;
			int64_t sa = sext(a, m->mask), sb = sext(b, m->mask);
			switch (atom) {
			case DW_OP_and: c = a & b; break;
			case DW_OP_div:
				if (sb == 0 || (sb == -1 && sa == INT64_MIN))
					return fail(m, CT_EXPR_CORRUPT, atom);
				c = (uint64_t)(sa / sb);
				break;
			case DW_OP_mod:
				if (b == 0)
					return fail(m, CT_EXPR_CORRUPT, atom);
				c = a % b;
				break;
			case DW_OP_minus: c = a - b; break;
			case DW_OP_mul: c = a * b; break;
			case DW_OP_or: c = a | b; break;
			case DW_OP_plus: c = a + b; break;
			case DW_OP_shl: c = b >= 64 ? 0 : a << b; break;
			case DW_OP_shr: c = b >= 64 ? 0 : a >> b; break;
			case DW_OP_shra: c = (uint64_t)(b >= 64 ? (sa < 0 ? -1 : 0) : sa >> b); break;
			case DW_OP_xor: c = a ^ b; break;
			case DW_OP_eq: c = sa == sb; break;
			case DW_OP_ge: c = sa >= sb; break;
			case DW_OP_gt: c = sa > sb; break;
			case DW_OP_le: c = sa <= sb; break;
			case DW_OP_lt: c = sa < sb; break;
			default: c = sa != sb; break;
			}
			if (!push(m, c))
				return false;
			break;
		}
		case DW_OP_skip:
		case DW_OP_bra: {
			if (atom == DW_OP_bra) {
				if (!pop(m, &a))
					return false;
				if (a == 0)
					break;
			}
			Dwarf_Word target = op_end(ops, i) + (Dwarf_Word)(int64_t)(int16_t)op->number;
			long j = op_at(ops, n, target);
			if (j < 0) {
				// Branching to one past the last operation ends the expression.
				if (n && target > ops[n - 1].offset) {
					i = n - 1;
					break;
				}
				return fail(m, CT_EXPR_CORRUPT, atom);
			}
			i = (size_t)j - 1; // the loop's i++ lands on j
			break;
		}
		case DW_OP_regx:
			kind = LOC_REGISTER;
			regno = (unsigned)op->number;
			break;
		case DW_OP_bregx:
			if (!reg(m, (unsigned)op->number, &a) || !push(m, a + op->number2))
				return false;
			break;
		case DW_OP_regval_type:
		case DW_OP_GNU_regval_type:
			if (!reg(m, (unsigned)op->number, &a) || !push_typed(m, a, op))
				return false;
			break;
		case DW_OP_const_type:
		case DW_OP_GNU_const_type: {
			// libdw: number is the type DIE offset, number2 points at a length-prefixed block.
			const uint8_t *blk = (const uint8_t *)(uintptr_t)op->number2;
			if (!blk || blk[0] == 0 || blk[0] > 8)
				return fail(m, CT_EXPR_UNSUPPORTED, atom);
			a = 0;
			for (size_t k = 0; k < blk[0]; k++) {
				size_t bi = m->ctx->big_endian ? k : blk[0] - 1 - k;
				a = a << 8 | blk[1 + bi];
			}
			if (!push_typed(m, a, op))
				return false;
			break;
		}
		case DW_OP_convert:
		case DW_OP_GNU_convert:
		case DW_OP_reinterpret:
		case DW_OP_GNU_reinterpret: {
			// Between integers the bits stay (same-sized base types). To or from a float,
			// DW_OP_convert converts the value as a C cast does; DW_OP_reinterpret keeps the bits.
			if (!m->depth)
				return fail(m, CT_EXPR_CORRUPT, atom);
			int to = op->number ? float_type(m, op) : 0; // type 0: the generic type
			if (to < 0)
				return false;
			size_t top = m->depth - 1;
			bool convert = atom == DW_OP_convert || atom == DW_OP_GNU_convert;
			if (convert && (to || m->fsize[top]))
				m->stack[top] = ct_expr_float_convert(m->stack[top], m->fsize[top], (unsigned)to);
			else if (!to && m->fsize[top])
				m->stack[top] &= m->mask;
			m->fsize[top] = (uint8_t)to;
			break;
		}
		case DW_OP_fbreg: {
			if (!o->frame_base)
				return fail(m, CT_EXPR_UNSUPPORTED, atom);
			enum ct_expr_status st = o->frame_base(m->ctx->arg, &a);
			if (st != CT_EXPR_OK)
				return fail(m, st, atom);
			if (!push(m, a + (uint64_t)(int64_t)op->number))
				return false;
			break;
		}
		case DW_OP_call_frame_cfa:
			if (!o->cfa || !o->cfa(m->ctx->arg, &a))
				return fail(m, CT_EXPR_NO_REGISTER, atom);
			if (!push(m, a))
				return false;
			break;
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value: {
			if (!o->entry_value)
				return fail(m, CT_EXPR_NO_ENTRY_VALUE, atom);
			enum ct_expr_status st = o->entry_value(m->ctx->arg, op, &a);
			if (!push_answer(m, st, a, atom))
				return false;
			break;
		}
		case DW_OP_nop:
			break;
		case DW_OP_stack_value:
			kind = LOC_VALUE;
			break;
		case DW_OP_implicit_value: {
			if (!o->implicit)
				return fail(m, CT_EXPR_UNSUPPORTED, atom);
			enum ct_expr_status st = o->implicit(m->ctx->arg, op, &bytes, &num_bytes);
			if (st != CT_EXPR_OK)
				return fail(m, st, atom);
			kind = LOC_IMPLICIT;
			break;
		}
		case DW_OP_piece:
		case DW_OP_bit_piece: {
			uint64_t size = op->number;
			if (atom == DW_OP_bit_piece) {
				// Only whole bytes at offset 0; sub-byte pieces (bit-fields in registers) are rare.
				if (size % 8 || op->number2)
					return fail(m, CT_EXPR_UNSUPPORTED, atom);
				size /= 8;
			}
			if (loc->num_pieces == CT_EXPR_MAX_PIECES || size == 0)
				return fail(m, loc->num_pieces == CT_EXPR_MAX_PIECES ? CT_EXPR_LIMIT : CT_EXPR_CORRUPT, atom);
			struct ct_piece *p = &loc->pieces[loc->num_pieces++];
			*p = (struct ct_piece){ .size = size };
			switch (kind) {
			case LOC_NONE:
				// An empty piece (no location before it): that part is optimized out. A
				// value left on the stack by an earlier operation is a memory address.
				if (m->depth) {
					p->kind = CT_PIECE_MEMORY;
					p->address = m->stack[--m->depth];
				} else {
					p->kind = CT_PIECE_OPTIMIZED;
				}
				break;
			case LOC_REGISTER: p->kind = CT_PIECE_REGISTER; p->reg = regno; break;
			case LOC_VALUE:
				if (!pop(m, &p->value))
					return false;
				p->kind = CT_PIECE_VALUE;
				break;
			case LOC_IMPLICIT:
				p->kind = CT_PIECE_IMPLICIT;
				p->bytes = bytes;
				p->num_bytes = num_bytes;
				break;
			}
			kind = LOC_NONE;
			m->depth = 0;
			break;
		}
		default:
			// DW_OP_form_tls_address, DW_OP_GNU_push_tls_address, DW_OP_implicit_pointer,
			// DW_OP_push_object_address, DW_OP_call2/4/ref, DW_OP_xderef, vendor operations.
			return fail(m, CT_EXPR_UNSUPPORTED, atom);
		}
	}
	if (loc->num_pieces) {
		// Trailing operations after the last piece describe nothing.
		return true;
	}
	struct ct_piece *p = &loc->pieces[0];
	*p = (struct ct_piece){ 0 };
	switch (kind) {
	case LOC_NONE:
		if (n == 0)
			return true; // empty: optimized out
		if (!pop(m, &p->address))
			return false;
		p->kind = CT_PIECE_MEMORY;
		break;
	case LOC_REGISTER: p->kind = CT_PIECE_REGISTER; p->reg = regno; break;
	case LOC_VALUE:
		if (!pop(m, &p->value))
			return false;
		p->kind = CT_PIECE_VALUE;
		break;
	case LOC_IMPLICIT:
		p->kind = CT_PIECE_IMPLICIT;
		p->bytes = bytes;
		p->num_bytes = num_bytes;
		p->size = num_bytes;
		break;
	}
	loc->num_pieces = 1;
	return true;
}

static void machine_init(struct machine *m, const struct ct_expr_ctx *ctx)
{
	m->ctx = ctx;
	m->depth = 0;
	m->res = (struct ct_expr_result){ .status = CT_EXPR_OK };
	m->mask = ctx->addr_size >= 8 ? UINT64_MAX : (1ULL << (ctx->addr_size * 8)) - 1;
}

struct ct_expr_result ct_dwarf_expr_location(const struct ct_expr_ctx *ctx, const Dwarf_Op *ops, size_t n,
					     struct ct_location *ret)
{
	struct machine m;
	machine_init(&m, ctx);
	struct ct_location loc;
	loc.num_pieces = 0;
	if (run(&m, ops, n, &loc))
		*ret = loc;
	return m.res;
}

struct ct_expr_result ct_dwarf_expr_value(const struct ct_expr_ctx *ctx, const Dwarf_Op *ops, size_t n,
					  uint64_t *ret)
{
	struct machine m;
	machine_init(&m, ctx);
	struct ct_location loc;
	loc.num_pieces = 0;
	if (!run(&m, ops, n, &loc))
		return m.res;
	if (loc.num_pieces != 1 || loc.pieces[0].size) {
		m.res.status = loc.num_pieces ? CT_EXPR_UNSUPPORTED : CT_EXPR_CORRUPT;
		return m.res;
	}
	const struct ct_piece *p = &loc.pieces[0];
	uint64_t v = 0;
	switch (p->kind) {
	case CT_PIECE_MEMORY: v = p->address; break; // the value computed is the top of the stack
	case CT_PIECE_VALUE: v = p->value; break;
	case CT_PIECE_REGISTER:
		if (!reg(&m, p->reg, &v))
			return m.res;
		break;
	case CT_PIECE_IMPLICIT:
		for (size_t i = 0; i < p->num_bytes && i < 8; i++) {
			size_t b = ctx->big_endian ? i : (p->num_bytes < 8 ? p->num_bytes : 8) - 1 - i;
			v = v << 8 | p->bytes[b];
		}
		break;
	case CT_PIECE_OPTIMIZED:
		m.res.status = CT_EXPR_CORRUPT;
		return m.res;
	}
	*ret = v & m.mask;
	return m.res;
}
