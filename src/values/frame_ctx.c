// A frame's evaluation context: its registers as the unwinder recovered them, its CFA and frame
// base, the dump's memory, and the callbacks the expression evaluator calls.
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "modules/cfi_frame.h"
#include "modules/dwarf_ref.h"
#include "util/leb128.h"
#include "values/internal.h"

bool ct_frame_read(const struct ct_values_input *s, uint64_t addr, void *buf, size_t len)
{
	return ct_modules_read_code(s->mods, addr, buf, len);
}

static bool reg_cb(void *arg, unsigned regno, uint64_t *ret)
{
	struct ct_frame_ctx *fc = arg;
	if (ct_raw_frame_reg(fc->raw, &fc->raw->frames[fc->index], regno, ret))
		return true;
	// A float/vector register of the innermost frame (DW_OP_regval_type xmm0 <double>): its low
	// 64 bits, the scalar a typed stack entry of at most 8 bytes holds.
	uint8_t v[CT_VREG_MAX_BYTES];
	size_t len;
	if (!ct_frame_vreg(fc, regno, v, &len) || len < 8)
		return false;
	const uint8_t *low = fc->s->core->big_endian ? v + len - 8 : v;
	uint64_t x = 0;
	for (size_t i = 0; i < 8; i++)
		x = x << 8 | low[fc->s->core->big_endian ? i : 7 - i];
	*ret = x;
	return true;
}

static bool mem_cb(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct ct_frame_ctx *fc = arg;
	return ct_frame_read(fc->s, addr, buf, len);
}

// The CFA by the frame's own CFI, evaluated with its registers.
static bool cfa_from_cfi(struct ct_frame_ctx *fc, uint64_t *ret)
{
	Dwarf_Frame *frame = ct_cfi_frame_at(fc->s->mods->dwfl, fc->lookup);
	if (!frame)
		return false;
	Dwarf_Op *ops = NULL;
	size_t n = 0;
	bool ok = false;
	if (dwarf_frame_cfa(frame, &ops, &n) == 0) {
		// CFA rules never use the CFA or a frame base themselves.
		struct ct_expr_ops o = { .reg = reg_cb, .mem = mem_cb };
		struct ct_expr_ctx ctx = fc->expr;
		ctx.ops = &o;
		ok = ct_dwarf_expr_value(&ctx, ops, n, ret).status == CT_EXPR_OK;
	}
	free(frame);
	return ok;
}

static bool cfa_cb(void *arg, uint64_t *ret)
{
	struct ct_frame_ctx *fc = arg;
	if (!fc->cfa_done) {
		fc->cfa_done = true;
		const struct ct_raw_frame *next = fc->index + 1 < fc->raw->count ? &fc->raw->frames[fc->index + 1] : NULL;
		// A caller unwound through this frame's CFI has sp = this frame's CFA less the ABI's
		// constant (s390's save area, sparc64's stack bias): no second CFI lookup on deep stacks.
		if (next && !next->tail_call && next->trust == CT_TRUST_CFI && next->has_sp) {
			fc->cfa = next->sp + fc->s->core->arch->cfa_sp_offset;
			fc->has_cfa = true;
		} else if (!fc->raw->frames[fc->index].tail_call) {
			fc->has_cfa = cfa_from_cfi(fc, &fc->cfa);
		}
	}
	*ret = fc->cfa;
	return fc->has_cfa;
}

bool ct_frame_expr(struct ct_frame_ctx *fc, Dwarf_Attribute *attr, uint64_t module_pc, Dwarf_Op **ops, size_t *n)
{
	// dwarf_getlocation_addr handles both a single expression and a location list.
	int r = dwarf_getlocation_addr(attr, module_pc, ops, n, 1);
	(void)fc;
	return r == 1;
}

/*
 * A frame base in a block form in a DWARF 4 or later unit, which libdw refuses there ("not a
 * location list value") though DWARF 2/3 wrote frame bases so and Go's linker still does
 * (DW_FORM_block1 holding DW_OP_call_frame_cfa): decoded here for the operations a frame base
 * uses (a register, a register plus an offset, the CFA). False for anything else.
 */
static bool decode_block_frame_base(Dwarf_Attribute *attr, Dwarf_Op *ops, size_t max, size_t *n)
{
	unsigned form = dwarf_whatform(attr);
	Dwarf_Block b;
	if ((form != DW_FORM_block1 && form != DW_FORM_block2 && form != DW_FORM_block4 && form != DW_FORM_block) ||
	    dwarf_formblock(attr, &b) != 0)
		return false;
	const uint8_t *p = b.data, *end = b.data + b.length;
	size_t k = 0;
	while (p < end) {
		if (k == max)
			return false;
		Dwarf_Op *op = &ops[k];
		*op = (Dwarf_Op){ .atom = *p++, .offset = (Dwarf_Word)(p - 1 - b.data) };
		int64_t off;
		uint64_t reg;
		if (op->atom == DW_OP_call_frame_cfa || (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)) {
			// no operand
		} else if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
			if (!ct_sleb128(&p, end, &off))
				return false;
			op->number = (Dwarf_Word)off;
		} else if (op->atom == DW_OP_regx) {
			if (!ct_uleb128(&p, end, &reg))
				return false;
			op->number = reg;
		} else if (op->atom == DW_OP_bregx) {
			if (!ct_uleb128(&p, end, &reg) || !ct_sleb128(&p, end, &off))
				return false;
			op->number = reg;
			op->number2 = (Dwarf_Word)off;
		} else {
			return false;
		}
		k++;
	}
	*n = k;
	return k > 0;
}

static enum ct_expr_status frame_base_cb(void *arg, uint64_t *ret)
{
	struct ct_frame_ctx *fc = arg;
	if (!fc->fb_done) {
		fc->fb_done = true;
		fc->fb_status = CT_EXPR_NO_REGISTER;
		// The scope cache owns the frame base's description: looked up once per pc.
		struct ct_scope *sc = (struct ct_scope *)fc->scope;
		if (sc && sc->subprogram >= 0 && !sc->fb_looked_up) {
			sc->fb_looked_up = true;
			Dwarf_Die sub = sc->dies[sc->subprogram];
			if (!ct_dwarf_attr_integrate(&sub, DW_AT_frame_base, &sc->fb_attr))
				sc->fb_attr.cu = NULL;
			else if (dwarf_whatform(&sc->fb_attr) == DW_FORM_exprloc)
				sc->fb_single = dwarf_getlocation(&sc->fb_attr, &sc->fb_ops, &sc->fb_num_ops) == 0;
			else if (decode_block_frame_base(&sc->fb_attr, sc->fb_block_ops, 4, &sc->fb_num_ops)) {
				sc->fb_ops = sc->fb_block_ops;
				sc->fb_single = true;
			}
		}
		Dwarf_Op *ops = sc ? sc->fb_ops : NULL;
		size_t n = sc ? sc->fb_num_ops : 0;
		if (sc && sc->subprogram >= 0) {
			Dwarf_Attribute attr = sc->fb_attr;
			if (!attr.cu || (!sc->fb_single && !ct_frame_expr(fc, &attr, fc->lookup - sc->bias, &ops, &n))) {
				fc->fb_status = CT_EXPR_CORRUPT;
			} else {
				Dwarf_Attribute *saved = fc->attr;
				fc->attr = &attr;
				struct ct_expr_result r = ct_dwarf_expr_value(&fc->expr, ops, n, &fc->fb);
				fc->attr = saved;
				fc->fb_status = r.status;
			}
		}
	}
	*ret = fc->fb;
	return fc->fb_status;
}

static enum ct_expr_status address_cb(void *arg, const Dwarf_Op *op, uint64_t *ret)
{
	struct ct_frame_ctx *fc = arg;
	uint64_t bias = fc->scope ? fc->scope->bias : 0;
	if (op->atom == DW_OP_addr) {
		*ret = op->number + bias;
		return CT_EXPR_OK;
	}
	Dwarf_Attribute res;
	if (!fc->attr || dwarf_getlocation_attr(fc->attr, (Dwarf_Op *)op, &res) != 0)
		return CT_EXPR_CORRUPT;
	if (op->atom == DW_OP_addrx || op->atom == DW_OP_GNU_addr_index) {
		Dwarf_Addr a;
		if (dwarf_formaddr(&res, &a) != 0)
			return CT_EXPR_CORRUPT;
		*ret = a + bias;
		return CT_EXPR_OK;
	}
	// DW_OP_constx: an address-sized constant that is not relocated (a TLS offset).
	Dwarf_Word w;
	if (dwarf_formudata(&res, &w) != 0)
		return CT_EXPR_CORRUPT;
	*ret = w;
	return CT_EXPR_OK;
}

static enum ct_expr_status implicit_cb(void *arg, const Dwarf_Op *op, const uint8_t **bytes, size_t *len)
{
	struct ct_frame_ctx *fc = arg;
	Dwarf_Block block;
	if (!fc->attr || dwarf_getlocation_implicit_value(fc->attr, op, &block) != 0)
		return CT_EXPR_CORRUPT;
	*bytes = block.data;
	*len = block.length;
	return CT_EXPR_OK;
}

static enum ct_expr_status entry_value_cb(void *arg, const Dwarf_Op *op, uint64_t *ret)
{
	struct ct_frame_ctx *fc = arg;
	Dwarf_Attribute sub;
	Dwarf_Op *ops;
	size_t n;
	if (!fc->attr || dwarf_getlocation_attr(fc->attr, (Dwarf_Op *)op, &sub) != 0 ||
	    dwarf_getlocation(&sub, &ops, &n) != 0 || n != 1)
		return CT_EXPR_UNSUPPORTED;
	// DW_OP_entry_value(DW_OP_regN) as GCC emits it; DW_OP_bregN 0 is the same register value.
	unsigned regno;
	if (!ct_dwarf_entry_register(ops, n, &regno))
		return CT_EXPR_UNSUPPORTED;
	return ct_entry_register(fc, regno, ret);
}

// The base type of a typed operation, from the attribute being evaluated (libdw resolves the
// type's CU-relative offset in the attribute's unit).
static bool base_type_cb(void *arg, const Dwarf_Op *op, unsigned *encoding, unsigned *size)
{
	struct ct_frame_ctx *fc = arg;
	Dwarf_Die type;
	Dwarf_Attribute at;
	Dwarf_Word w;
	if (!fc->attr || dwarf_getlocation_die(fc->attr, op, &type) != 0 || dwarf_tag(&type) != DW_TAG_base_type)
		return false;
	if (!dwarf_attr(&type, DW_AT_encoding, &at) || dwarf_formudata(&at, &w) != 0)
		return false;
	*encoding = (unsigned)w;
	if (!dwarf_attr(&type, DW_AT_byte_size, &at) || dwarf_formudata(&at, &w) != 0)
		return false;
	*size = (unsigned)w;
	return true;
}

static const struct ct_expr_ops frame_ops = {
	.reg = reg_cb,
	.mem = mem_cb,
	.frame_base = frame_base_cb,
	.cfa = cfa_cb,
	.entry_value = entry_value_cb,
	.address = address_cb,
	.implicit = implicit_cb,
	.base_type = base_type_cb,
};

void ct_frame_ctx_init(struct ct_frame_ctx *fc, const struct ct_values_input *s, const struct ct_raw_stack *raw, size_t index,
		       int entry_depth)
{
	const struct ct_raw_frame *f = &raw->frames[index];
	memset(fc, 0, sizeof(*fc));
	fc->s = s;
	fc->raw = raw;
	fc->index = index;
	fc->lookup = f->exact || f->pc == 0 ? f->pc : f->pc - 1;
	fc->scope = ct_scope_lookup(s, fc->lookup);
	fc->entry_depth = entry_depth;
	fc->expr.ops = &frame_ops;
	fc->expr.arg = fc;
	fc->expr.addr_size = s->core->arch->pointer_size;
	fc->expr.big_endian = s->core->big_endian;
	fc->expr.budget = s->budget;
}

struct ct_expr_result ct_frame_eval_value(struct ct_frame_ctx *fc, Dwarf_Attribute *attr, uint64_t *ret)
{
	Dwarf_Op *ops;
	size_t n;
	struct ct_expr_result r = { .status = CT_EXPR_CORRUPT };
	uint64_t pc = fc->scope ? fc->lookup - fc->scope->bias : fc->lookup;
	if (!ct_frame_expr(fc, attr, pc, &ops, &n))
		return r;
	Dwarf_Attribute *saved = fc->attr;
	fc->attr = attr;
	r = ct_dwarf_expr_value(&fc->expr, ops, n, ret);
	fc->attr = saved;
	return r;
}
