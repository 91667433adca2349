// The value-origin walk's aarch64 steps (docs/root-cause.md; the search itself is origin_walk.c's),
// over capstone 4's AArch64 decoding: register moves (mov, sxtw), spills and reloads (str/stur/stp,
// ldr/ldur/ldp on sp or x29, pre- and post-index writeback moving sp), bl returning in x0, constants
// (movz/movn with their movk chain, orr of the zero register), adrp pairs (add or a load naming a
// global by its address), and loads from memory. A register a call clobbers (AAPCS64: all but
// x19-x28 and fp, from the arch table), a slot whose frame has escaped, a conditional select, an
// indirect jump (br: a switch table or a tail call, not told apart): the walk stops and says which.
// Registers are numbered as src/arch/aarch64.c's table numbers them (x0-x30 = 0-30, sp = 31).
#include <capstone/capstone.h>
#include <string.h>

#include "arch/arch.h"
#include "triage/insn.h"
#include "triage/origin_walk.h"
#include "util/bytes.h"

/** Instructions looked back over for an adrp or the start of a movk chain: compilers keep them adjacent. */
#define PAIR_WINDOW 8
/** movk instructions in a constant's chain at most: four 16-bit halves make 64 bits. */
#define MAX_MOVK 3

static int reg_of(unsigned r, unsigned *size)
{
	return r == ARM64_REG_INVALID ? -1 : ct_insn_arm64_reg_dwarf(r, size);
}

static int sp_reg(void)
{
	return ct_arch_aarch64.sp_dwarf;
}

static int fp_reg(void)
{
	return ct_arch_aarch64.fp_dwarf;
}

static void fill_op(const cs_arm64_op *o, struct ct_vop *v)
{
	unsigned size = 8;
	v->reg = v->base = v->index = -1;
	v->access = o->access;
	if (o->type == ARM64_OP_REG) {
		v->type = CT_VOP_REG;
		v->reg = (int8_t)reg_of(o->reg, &size);
		v->size = (uint8_t)size;
		// A shifted (or extended and shifted) register: add x10, x10, x11, lsl #2. 0: a shift or an
		// extension of a byte or half that is no multiplication of the register (lsr, asr, uxtb).
		bool narrow = o->ext == ARM64_EXT_UXTB || o->ext == ARM64_EXT_UXTH || o->ext == ARM64_EXT_SXTB ||
			      o->ext == ARM64_EXT_SXTH;
		v->scale = (uint8_t)(narrow							? 0
				     : o->shift.type == ARM64_SFT_INVALID			? 1
				     : o->shift.type == ARM64_SFT_LSL && o->shift.value < 8 ? 1u << o->shift.value
											    : 0);
		v->sext = o->ext == ARM64_EXT_SXTW || o->ext == ARM64_EXT_SXTX;
	} else if (o->type == ARM64_OP_IMM) {
		v->type = CT_VOP_IMM;
		v->imm = o->imm;
	} else if (o->type == ARM64_OP_MEM) {
		v->type = CT_VOP_MEM;
		v->base = (int8_t)reg_of(o->mem.base, &size);
		v->index = (int8_t)reg_of(o->mem.index, &size);
		v->index_size = (uint8_t)size;
		v->sext = o->ext == ARM64_EXT_SXTW || o->ext == ARM64_EXT_SXTX;
		// An index register scaled by lsl #n (or extended and shifted): scale 1 << n.
		v->scale = (uint8_t)(o->shift.type == ARM64_SFT_LSL && o->shift.value < 8 ? 1u << o->shift.value : 1);
		v->disp = o->mem.disp;
	}
}

static void fill_writes(csh h, const cs_insn *in, struct ct_vinsn *v)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;
	if (cs_regs_access(h, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		nwr = 0;
	// movk and the bitfield inserts keep the register's other bits.
	bool part = in->id == ARM64_INS_MOVK || in->id == ARM64_INS_BFI || in->id == ARM64_INS_BFXIL ||
		    in->id == ARM64_INS_BFM;
	for (uint8_t k = 0; k < nwr; k++) {
		unsigned size;
		int d = reg_of(wr[k], &size);
		// A write of a w register clears the upper half: the whole register is new.
		if (d >= 0 && d < 32)
			*(part ? &v->part_writes : &v->full_writes) |= 1ULL << d;
	}
	switch (in->id) {
	case ARM64_INS_CMP:
	case ARM64_INS_CMN:
	case ARM64_INS_TST:
	case ARM64_INS_MSR:
	case ARM64_INS_PRFM:
	case ARM64_INS_PRFUM:
		// capstone 4.0.2 lists the compared (or moved-out) register as written: cmp, cmn and tst
		// write the zero register and the flags only, msr and prfm no general register.
		v->full_writes = v->part_writes = 0;
		break;
	case ARM64_INS_SVC:
		// The kernel returns in x0 and keeps every other register; capstone 4.0.2 says x30.
		v->full_writes = 1ULL << 0;
		v->part_writes = 0;
		break;
	default:
		break;
	}
}

/** Flow, operands and memory access of one instruction. Memory forms keep their data registers in op[0..1] and the operand in op[2]. */
static void decode_one(csh h, const cs_insn *in, struct ct_vinsn *v)
{
	const cs_arm64 *a = &in->detail->arm64;
	enum ct_access access;
	unsigned size;
	bool atomic = ct_insn_arm64_access(h, in, &access, &size);
	int mem = -1;
	for (uint8_t k = 0; k < a->op_count; k++) {
		if (a->operands[k].type == ARM64_OP_MEM && mem < 0)
			mem = k;
	}
	if (mem >= 0) {
		uint8_t regs = 0;
		for (int k = 0; k < mem && regs < 2; k++) {
			if (a->operands[k].type == ARM64_OP_REG)
				fill_op(&a->operands[k], &v->op[regs++]);
		}
		v->nops = regs;
		fill_op(&a->operands[mem], &v->op[2]);
		// Per register: a pair moves two of size / 2.
		unsigned each = regs == 2 ? size / 2 : size;
		for (uint8_t k = 0; k < regs; k++)
			v->op[k].size = (uint8_t)each;
		v->op[2].size = (uint8_t)size;
		if (a->writeback) {
			v->writeback = true;
			// Pre-index ([xn, #imm]!): the displacement is the change. Post-index ([xn], #imm): the
			// immediate operand after the memory operand, the access at xn itself.
			v->wb = mem + 1 < a->op_count && a->operands[mem + 1].type == ARM64_OP_IMM ? a->operands[mem + 1].imm
												  : a->operands[mem].mem.disp;
		}
	} else {
		v->nops = a->op_count < 3 ? a->op_count : 3;
		for (uint8_t k = 0; k < v->nops; k++)
			fill_op(&a->operands[k], &v->op[k]);
		// sbfiz xd, xn, #lsb, #32: the w register sign-extended, shifted (its width is the fourth operand).
		if (in->id == ARM64_INS_SBFIZ && a->op_count == 4 && a->operands[3].type == ARM64_OP_IMM &&
		    a->operands[3].imm == 32 && v->op[1].type == CT_VOP_REG) {
			v->op[1].size = 4;
			v->op[1].sext = true;
		}
		// movz x0, #1, lsl #16; add sp, sp, #1, lsl #12: the immediate's shift.
		for (uint8_t k = 0; k < v->nops; k++) {
			if (v->op[k].type == CT_VOP_IMM && a->operands[k].shift.type == ARM64_SFT_LSL)
				v->shift = (uint8_t)a->operands[k].shift.value;
		}
		if (in->id == ARM64_INS_LDR && v->nops == 2 && v->op[1].type == CT_VOP_IMM) {
			// ldr xt, label: a load from a pc-relative literal address.
			v->has_abs = true;
			v->abs = (uint64_t)v->op[1].imm;
			v->op[2] = (struct ct_vop){ .type = CT_VOP_MEM, .base = -1, .index = -1, .size = v->op[0].size,
						    .reg = -1 };
			v->nops = 1;
		}
	}
	v->mem_write = access == CT_ACCESS_WRITE || atomic;
	v->sets_flags = a->update_flags;
	fill_writes(h, in, v);
	switch (in->id) {
	case ARM64_INS_BL:
	case ARM64_INS_BLR:
		v->flow = CT_VFLOW_CALL;
		if (in->id == ARM64_INS_BL && a->op_count == 1 && a->operands[0].type == ARM64_OP_IMM) {
			v->has_target = true;
			v->target = (uint64_t)a->operands[0].imm;
		}
		break;
	case ARM64_INS_RET:
		v->flow = CT_VFLOW_RET;
		break;
	case ARM64_INS_BR:
		v->flow = CT_VFLOW_IJMP;
		break;
	case ARM64_INS_B:
	case ARM64_INS_CBZ:
	case ARM64_INS_CBNZ:
	case ARM64_INS_TBZ:
	case ARM64_INS_TBNZ:
		// b with a condition code, cbz/cbnz and tbz/tbnz fall through when not taken.
		v->flow = in->id == ARM64_INS_B && a->cc == ARM64_CC_INVALID ? CT_VFLOW_JMP : CT_VFLOW_JCC;
		v->cc = in->id == ARM64_INS_B ? (uint8_t)a->cc : 0;
		if (a->op_count && a->operands[a->op_count - 1].type == ARM64_OP_IMM) {
			v->has_target = true;
			v->target = (uint64_t)a->operands[a->op_count - 1].imm;
		} else {
			v->flow = CT_VFLOW_IJMP;
		}
		break;
	case ARM64_INS_BRK:
	case ARM64_INS_HLT:
		v->flow = CT_VFLOW_END;
		break;
	default:
		break;
	}
}

/** Notes what takes a stack address: add/sub of sp or x29 into another register, mov of sp. */
static void note_escape(struct ct_vfunc *fn, const struct ct_vinsn *v)
{
	if (v->op[2].type == CT_VOP_MEM || v->nops < 2 || v->op[0].type != CT_VOP_REG || v->op[0].reg == sp_reg() ||
	    v->op[0].reg == fp_reg() || v->op[1].type != CT_VOP_REG)
		return;
	int src = v->op[1].reg;
	if (src != sp_reg() && src != fp_reg())
		return;
	fn->stack_escapes = true;
	if ((v->id == ARM64_INS_ADD || v->id == ARM64_INS_SUB) && src == fp_reg() && v->nops == 3 &&
	    v->op[2].type == CT_VOP_IMM) {
		int64_t disp = v->id == ARM64_INS_SUB ? -v->op[2].imm : v->op[2].imm;
		if (disp < fn->fp_escape_min)
			fn->fp_escape_min = disp;
	} else {
		fn->sp_escape = true; // the whole frame, from either end
	}
}

/** br is never taken for a tail call: a switch's is resolved by jump_table, any other leaves the paths unknown. */
static bool tail_jump(const struct ct_vinsn *v)
{
	(void)v;
	return false;
}

/**
 * The address register @p reg holds for instruction @p i when the straight line before it set it by
 * adrp (the page) or by an adrp pair's add (adrp x0, page; add x0, x0, #lo12: the address).
 */
static bool adrp_before(const struct ct_vfunc *fn, size_t i, int reg, uint64_t *page)
{
	for (size_t j = i; j > 0 && i - j < PAIR_WINDOW && ct_vfunc_straight(fn, j); j--) {
		const struct ct_vinsn *p = &fn->insns[j - 1];
		if (!((p->full_writes | p->part_writes) & (1ULL << reg)))
			continue;
		if (p->nops < 2 || p->op[0].type != CT_VOP_REG || p->op[0].reg != reg || p->op[2].type == CT_VOP_MEM)
			return false;
		if (p->id == ARM64_INS_ADD && p->has_abs) {
			*page = p->abs;
			return true;
		}
		if (p->id != ARM64_INS_ADRP || p->nops != 2 || p->op[1].type != CT_VOP_IMM)
			return false;
		*page = (uint64_t)p->op[1].imm;
		return true;
	}
	return false;
}

/**
 * adrp xn, page then add xd, xn, #lo12 or a load/store at [xn, #lo12] (or at [xd, #off] after the
 * add): the address, known by decoding. In address order, so that an add is paired before its load.
 */
static void pair_adrp(struct ct_vfunc *fn)
{
	for (size_t i = 0; i < fn->n; i++) {
		struct ct_vinsn *v = &fn->insns[i];
		uint64_t page;
		if (v->op[2].type == CT_VOP_MEM && v->op[2].base >= 0 && v->op[2].index < 0 && !v->writeback &&
		    !v->has_abs && adrp_before(fn, i, v->op[2].base, &page)) {
			v->has_abs = true;
			v->abs = page + (uint64_t)v->op[2].disp;
		} else if (v->id == ARM64_INS_ADD && v->nops == 3 && v->op[1].type == CT_VOP_REG && v->op[1].reg >= 0 &&
			   v->op[2].type == CT_VOP_IMM && adrp_before(fn, i, v->op[1].reg, &page)) {
			v->has_abs = true;
			v->abs = page + (uint64_t)v->op[2].imm;
		}
	}
}

static uint64_t mask_of(unsigned size)
{
	return size >= 8 ? UINT64_MAX : (1ULL << (8 * size)) - 1;
}

/**
 * The constant a movz/movn and the movk instructions after it build in register @p reg, ending at
 * instruction @p i: false when @p i is not the end of such a chain in one straight line.
 */
static bool const_chain(const struct ct_vfunc *fn, size_t i, int reg, uint64_t *value)
{
	size_t movk[MAX_MOVK + 1];
	size_t n = 0;
	for (size_t j = i + 1; j > 0 && n <= MAX_MOVK && i + 1 - j < 2 * PAIR_WINDOW; j--) {
		const struct ct_vinsn *p = &fn->insns[j - 1];
		if (j - 1 != i && !ct_vfunc_straight(fn, j))
			return false;
		if (!((p->full_writes | p->part_writes) & (1ULL << reg)))
			continue;
		if (p->nops != 2 || p->op[0].reg != reg || p->op[1].type != CT_VOP_IMM)
			return false;
		if (p->id == ARM64_INS_MOVK) {
			movk[n++] = j - 1;
			continue;
		}
		if (p->id != ARM64_INS_MOVZ && p->id != ARM64_INS_MOVN)
			return false;
		uint64_t v = (uint64_t)p->op[1].imm << p->shift;
		v = p->id == ARM64_INS_MOVN ? ~v : v;
		// The movk instructions in program order: each replaces its 16 bits.
		while (n--) {
			const struct ct_vinsn *k = &fn->insns[movk[n]];
			v = (v & ~(0xffffULL << k->shift)) | ((uint64_t)k->op[1].imm & 0xffff) << k->shift;
		}
		*value = v & mask_of(p->op[0].size);
		return true;
	}
	return false;
}

static bool is_frame_slot(const struct ct_vop *o)
{
	return o->type == CT_VOP_MEM && (o->base == sp_reg() || o->base == fp_reg()) && o->index < 0;
}

/** Registers a call may change (AAPCS64 6.1.1): all but the callee-saved ones of the arch table. */
static uint64_t call_clobbered(void)
{
	return ~ct_arch_aarch64.callee_saved & ((1ULL << 31) - 1);
}

/** A load into the tracked register @p l from operand @p m at @p disp (pair: the second register's). */
static void step_load(struct ct_vwalk *w, uint32_t p, const struct ct_vinsn *v, const struct ct_vstate *s, struct ct_vdef d,
		      unsigned size, int64_t extra)
{
	const struct ct_vop *m = &v->op[2];
	if (is_frame_slot(m)) {
		struct ct_vloc n = { .slot = true, .reg = m->base, .disp = m->disp + extra, .size = size };
		ct_vwalk_push(w, p, n, s->copies + 1);
		return;
	}
	d.kind = CT_VDEF_LOAD;
	d.base = m->base;
	d.index = m->index;
	d.scale = m->scale;
	d.disp = m->disp + extra;
	d.loc.size = size;
	if (v->has_abs) {
		d.has_abs = true;
		d.abs = v->abs + (uint64_t)extra;
	}
	ct_vwalk_define(w, v, d);
}

/**
 * What arithmetic instruction @p v computes into its destination as an affine form of the registers
 * before it, on @p d, in 64 bits: add and sub of an immediate (`add x8, sp, #0x14`), add of a
 * (shifted or extended) register (`add x8, x9, x8, lsl #5`, `add x1, x0, w1, sxtw`), lsl by an
 * immediate (also a scaled index the chain follows: lsl x1, x0, #2), sbfiz of a w register.
 */
static void arith_operands(const struct ct_vinsn *v, struct ct_vdef *d)
{
	const struct ct_vop *dst = &v->op[0], *src = &v->op[1], *third = &v->op[2];
	if (v->nops != 3 || dst->size != 8 || src->type != CT_VOP_REG || src->reg < 0 || src->reg > 31)
		return;
	int64_t imm = third->type == CT_VOP_IMM ? third->imm : 0;
	switch (v->id) {
	case ARM64_INS_LSL:
	case ARM64_INS_SBFIZ:
		if (third->type != CT_VOP_IMM || imm <= 0 || imm >= 32 || src->reg == 31 ||
		    (v->id == ARM64_INS_LSL && src->size != 8))
			return;
		d->index = src->reg;
		d->index_size = src->size;
		d->index_sext = src->sext;
		d->scale = 1u << imm;
		d->affine = true;
		return;
	case ARM64_INS_ADD:
	case ARM64_INS_SUB:
		if (src->size != 8)
			return;
		if (third->type == CT_VOP_IMM) {
			d->disp = (v->id == ARM64_INS_ADD ? imm : -imm) * (1LL << v->shift);
		} else if (v->id == ARM64_INS_ADD && third->type == CT_VOP_REG && third->reg >= 0 && third->reg < 31 &&
			   third->scale) {
			d->index = third->reg;
			d->index_size = third->size;
			d->index_sext = third->sext;
			d->scale = third->scale;
		} else {
			return;
		}
		d->base = src->reg;
		d->affine = true;
		return;
	default:
		return;
	}
}

/** One backward step over instruction @p p for a register. */
static void step_reg(struct ct_vwalk *w, uint32_t p, const struct ct_vstate *s)
{
	const struct ct_vfunc *fn = ct_vwalk_fn(w);
	const struct ct_vinsn *v = &fn->insns[p];
	struct ct_vloc l = s->loc;
	struct ct_vdef d = { .loc = l, .copies = s->copies, .base = -1, .index = -1 };
	uint64_t bit = 1ULL << l.reg;
	if (v->part_writes & bit) {
		if (v->id == ARM64_INS_MOVK && const_chain(fn, p, l.reg, &d.value)) {
			d.kind = CT_VDEF_CONST;
			ct_vwalk_define(w, v, d);
		} else {
			ct_vwalk_stop(w, v, s, "the register is written in part (movk or a bitfield insert) before");
		}
		return;
	}
	if (!(v->full_writes & bit)) {
		ct_vwalk_push(w, p, l, s->copies);
		return;
	}
	const struct ct_vop *dst = &v->op[0], *src = &v->op[1];
	bool dst_is_l = v->nops >= 1 && dst->type == CT_VOP_REG && dst->reg == l.reg;
	if (v->op[2].type == CT_VOP_MEM && !v->mem_write) {
		if (dst_is_l) {
			step_load(w, p, v, s, d, dst->size, 0);
			return;
		}
		if (v->nops == 2 && src->type == CT_VOP_REG && src->reg == l.reg) {
			step_load(w, p, v, s, d, src->size, dst->size);
			return;
		}
		// The base register itself, changed by writeback.
		d.kind = CT_VDEF_ARITH;
		ct_vwalk_define(w, v, d);
		return;
	}
	switch (v->id) {
	case ARM64_INS_MOV:
	case ARM64_INS_SXTW:
	case ARM64_INS_UXTW:
		if (!dst_is_l || v->nops != 2 || src->type != CT_VOP_REG)
			break;
		if (src->reg == -2) {
			d.kind = CT_VDEF_CONST;
			d.value = 0;
			ct_vwalk_define(w, v, d);
			return;
		}
		if (src->reg >= 0 && src->reg < 31) {
			struct ct_vloc n = { .reg = src->reg, .size = src->size };
			ct_vwalk_push(w, p, n, s->copies + 1);
			return;
		}
		break;
	case ARM64_INS_MOVZ:
	case ARM64_INS_MOVN:
		if (dst_is_l && const_chain(fn, p, l.reg, &d.value)) {
			d.kind = CT_VDEF_CONST;
			ct_vwalk_define(w, v, d);
			return;
		}
		break;
	case ARM64_INS_ORR:
		// mov xd, #bitmask is orr xd, xzr, #imm.
		if (dst_is_l && v->nops == 3 && src->type == CT_VOP_REG && src->reg == -2 && v->op[2].type == CT_VOP_IMM) {
			d.kind = CT_VDEF_CONST;
			d.value = (uint64_t)v->op[2].imm & mask_of(dst->size);
			ct_vwalk_define(w, v, d);
			return;
		}
		break;
	case ARM64_INS_ADRP:
	case ARM64_INS_ADR:
		if (dst_is_l && v->nops == 2 && src->type == CT_VOP_IMM) {
			d.kind = CT_VDEF_CONST;
			d.value = (uint64_t)src->imm;
			ct_vwalk_define(w, v, d);
			return;
		}
		break;
	case ARM64_INS_ADD:
		if (dst_is_l && v->has_abs) {
			// adrp + add: the address of a global.
			d.kind = CT_VDEF_CONST;
			d.value = v->abs;
			ct_vwalk_define(w, v, d);
			return;
		}
		break;
	case ARM64_INS_CSEL:
	case ARM64_INS_CSINC:
	case ARM64_INS_CSINV:
	case ARM64_INS_CSNEG:
	case ARM64_INS_CSET:
	case ARM64_INS_CSETM:
	case ARM64_INS_CINC:
	case ARM64_INS_CINV:
	case ARM64_INS_CNEG:
		ct_vwalk_stop(w, v, s, "a conditional select chooses between two sources");
		return;
	default:
		break;
	}
	d.kind = CT_VDEF_ARITH;
	if (dst_is_l)
		arith_operands(v, &d);
	ct_vwalk_define(w, v, d);
}

/** A store @p v to frame slots over the tracked slot: a copy of its register, or a stop. */
static void step_slot_store(struct ct_vwalk *w, uint32_t p, const struct ct_vinsn *v, const struct ct_vstate *s, int64_t at)
{
	struct ct_vloc l = s->loc;
	for (uint8_t k = 0; k < v->nops; k++) {
		const struct ct_vop *r = &v->op[k];
		int64_t disp = at + (int64_t)k * r->size;
		if (!ct_vloc_overlaps(&l, l.reg, disp, r->size))
			continue;
		if (disp != l.disp || r->size != l.size || r->type != CT_VOP_REG) {
			ct_vwalk_stop(w, v, s, "the stack slot is written in part or by a computation");
		} else if (r->reg == -2) {
			struct ct_vdef d = { .kind = CT_VDEF_CONST, .loc = l, .copies = s->copies, .base = -1, .index = -1 };
			ct_vwalk_define(w, v, d);
		} else if (r->reg >= 0 && r->reg < 31) {
			struct ct_vloc n = { .reg = r->reg, .size = r->size };
			ct_vwalk_push(w, p, n, s->copies + 1);
		} else {
			ct_vwalk_stop(w, v, s, "the stack slot is written from a source the walk does not follow");
		}
		return;
	}
	ct_vwalk_push(w, p, l, s->copies);
}

/** One backward step over instruction @p p for a stack slot of sp or x29. */
static void step_slot(struct ct_vwalk *w, uint32_t p, const struct ct_vstate *s)
{
	const struct ct_vfunc *fn = ct_vwalk_fn(w);
	const struct ct_vinsn *v = &fn->insns[p];
	struct ct_vloc l = s->loc;
	const struct ct_vop *m = &v->op[2];
	bool slot_store = v->mem_write && m->type == CT_VOP_MEM && is_frame_slot(m);
	if ((v->full_writes | v->part_writes) & (1ULL << l.reg)) {
		if (l.reg != sp_reg()) {
			ct_vwalk_stop(w, v, s, "the frame pointer changes before the slot was written");
			return;
		}
		int64_t delta;
		if (v->writeback && m->base == l.reg) {
			delta = v->wb;
		} else if ((v->id == ARM64_INS_SUB || v->id == ARM64_INS_ADD) && v->nops == 3 && v->op[0].reg == l.reg &&
			   v->op[1].reg == l.reg && v->op[2].type == CT_VOP_IMM) {
			int64_t imm = v->op[2].imm << v->shift;
			delta = v->id == ARM64_INS_SUB ? -imm : imm;
		} else {
			ct_vwalk_stop(w, v, s, "sp is set to a value the walk does not follow");
			return;
		}
		// Before v, the slot was at disp + delta from that sp; a store with writeback wrote at
		// its displacement from the old sp.
		struct ct_vloc n = l;
		n.disp = l.disp + delta;
		if (slot_store && m->base == l.reg) {
			struct ct_vstate before = { s->at, n, s->copies };
			step_slot_store(w, p, v, &before, m->disp);
			return;
		}
		ct_vwalk_push(w, p, n, s->copies);
		return;
	}
	if (!v->mem_write) {
		ct_vwalk_push(w, p, l, s->copies);
		return;
	}
	if (slot_store) {
		if (m->base != l.reg) {
			ct_vwalk_stop(w, v, s, "a store through the other frame register may hit the slot");
			return;
		}
		step_slot_store(w, p, v, s, m->disp);
		return;
	}
	if (ct_vfunc_slot_aliased(fn, &l, sp_reg())) {
		ct_vwalk_stop(w, v, s, "a store through a pointer may hit the slot (the frame's address escapes)");
		return;
	}
	ct_vwalk_push(w, p, l, s->copies);
}

static void step_over(struct ct_vwalk *w, uint32_t p, const struct ct_vstate *s)
{
	const struct ct_vinsn *v = &ct_vwalk_fn(w)->insns[p];
	if (v->flow == CT_VFLOW_CALL) {
		struct ct_vdef d = { .loc = s->loc, .copies = s->copies, .base = -1, .index = -1,
				     .has_target = v->has_target, .target = v->target };
		ct_vwalk_over_call(w, p, s, &d, call_clobbered(), sp_reg());
	} else if (s->loc.slot)
		step_slot(w, p, s);
	else
		step_reg(w, p, s);
}

/** Instructions before a switch's `br` looked at for its table, base and bound (gcc and clang: 6-9). */
#define TABLE_WINDOW 12

/** The bytes and signedness of a table entry that load @p id reads (0: not a table load). */
static unsigned entry_size(unsigned id, bool *is_signed)
{
	*is_signed = id == ARM64_INS_LDRSW || id == ARM64_INS_LDRSB || id == ARM64_INS_LDRSH;
	switch (id) {
	case ARM64_INS_LDRB:
	case ARM64_INS_LDRSB:
		return 1;
	case ARM64_INS_LDRH:
	case ARM64_INS_LDRSH:
		return 2;
	case ARM64_INS_LDRSW:
		return 4;
	default:
		return 0;
	}
}

/**
 * A switch through a table (gcc and clang, -O0 to -O2): `cmp idx, N` (or `subs`) and `b.hi
 * default`, then in straight-line code the table's address (adrp + add), an entry loaded from it
 * by the index (ldrb, ldrh, ldrsw), the base `adr xb, L` and `add xt, xb, entry [, lsl #s]`, and
 * `br xt`: N + 1 targets L + (entry << s). Anything else is not recognized.
 */
static size_t jump_table(const struct ct_vfunc *fn, size_t i, const struct ct_vmem *mem, uint64_t *targets, size_t max)
{
	const struct ct_vinsn *j = &fn->insns[i];
	if (j->id != ARM64_INS_BR || j->nops < 1 || j->op[0].type != CT_VOP_REG || j->op[0].reg < 0)
		return 0;
	int base_reg = -1, entry_reg = -1, table_reg = -1;
	unsigned shift = 0, esize = 0;
	bool esigned = false, has_base = false, has_table = false;
	uint64_t base = 0, table = 0;
	int64_t bound = -1;
	for (size_t k = i; k-- > 0 && i - k <= TABLE_WINDOW;) {
		const struct ct_vinsn *v = &fn->insns[k];
		if (entry_reg < 0 && v->id == ARM64_INS_ADD && v->nops == 3 && v->op[0].reg == j->op[0].reg &&
		    v->op[1].type == CT_VOP_REG && v->op[2].type == CT_VOP_REG && v->op[1].reg >= 0 && v->op[2].reg >= 0) {
			base_reg = v->op[1].reg;
			entry_reg = v->op[2].reg;
			for (unsigned s = v->op[2].scale; s > 1; s >>= 1)
				shift++;
		} else if (base_reg >= 0 && !has_base && v->id == ARM64_INS_ADR && v->nops == 2 && v->op[0].reg == base_reg &&
			   v->op[1].type == CT_VOP_IMM) {
			base = (uint64_t)v->op[1].imm;
			has_base = true;
		} else if (entry_reg >= 0 && !esize && v->nops == 1 && v->op[0].reg == entry_reg && v->op[2].type == CT_VOP_MEM &&
			   v->op[2].base >= 0 && v->op[2].index >= 0 && v->op[2].disp == 0) {
			esize = entry_size(v->id, &esigned);
			// The index scaled by the entry's size: the load reads entry[idx].
			if (!esize || v->op[2].scale != esize)
				return 0;
			table_reg = v->op[2].base;
		} else if (table_reg >= 0 && !has_table && v->id == ARM64_INS_ADD && v->op[0].reg == table_reg && v->has_abs) {
			table = v->abs;
			has_table = true;
		}
		// The bound: an unsigned branch past the last case right after its compare.
		const struct ct_vinsn *c = k > 0 ? &fn->insns[k - 1] : NULL;
		if (v->id == ARM64_INS_B && v->cc == ARM64_CC_HI && c && (c->id == ARM64_INS_CMP || (c->id == ARM64_INS_SUB && c->sets_flags)) &&
		    c->nops >= 2 && c->op[c->nops - 1].type == CT_VOP_IMM && c->shift == 0) {
			if (!ct_vfunc_entered_in_line(fn, k + 1))
				return 0;
			bound = c->op[c->nops - 1].imm;
			break;
		}
		// Straight-line code from the bound to the br: nothing else enters it.
		if (!ct_vfunc_straight(fn, k + 1))
			return 0;
	}
	if (!has_base || !has_table || !esize || bound < 0 || (uint64_t)bound >= max)
		return 0;
	size_t n = (size_t)bound + 1;
	for (size_t k = 0; k < n; k++) {
		uint8_t e[4] = { 0 };
		if (!mem->read(mem->arg, table + esize * k, e, esize))
			return 0;
		uint64_t raw = ct_load32(e, false);
		int64_t value = esigned ? (int64_t)(raw << (64 - 8 * esize)) >> (64 - 8 * esize) : (int64_t)raw;
		targets[k] = base + (uint64_t)(value * ((int64_t)1 << shift));
	}
	return n;
}

static const struct ct_varch varch_aarch64 = {
	.info = &ct_arch_aarch64,
	.name = "capstone cannot decode aarch64",
	.num_regs = 32,
	.decode_one = decode_one,
	.note = note_escape,
	.tail_jump = tail_jump,
	.finish = pair_adrp,
	.jump_table = jump_table,
	.step_over = step_over,
};

const struct ct_vwalker ct_vwalker_aarch64 = {
	.arch = "aarch64",
	.num_regs = 31,
	.steps = &varch_aarch64,
	.div_operand = NULL, // sdiv and udiv by zero give 0, they do not trap (Arm ARM C3.4.8)
};
