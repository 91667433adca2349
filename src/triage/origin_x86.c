// The value-origin walk's x86-64 steps (docs/root-cause.md; the search itself is origin_walk.c's):
// register moves, stack spills and reloads, push/pop pairs and rsp adjustments move the tracked
// location; anything else that writes it is the definition. A register a call clobbers, a slot whose
// frame has escaped, a conditional move: the walk stops and says which.
#include <capstone/capstone.h>
#include <string.h>

#include "triage/insn.h"
#include "triage/origin_walk.h"
#include "util/bytes.h"

#define REG_RBP 6
#define REG_RSP 7
#define REG_RIP 16

static int dwarf_of(x86_reg r)
{
	if (r == X86_REG_RIP)
		return REG_RIP;
	return ct_insn_x86_reg_dwarf(r);
}

static void fill_op(const cs_x86_op *o, struct ct_vop *v)
{
	v->type = o->type == X86_OP_REG   ? CT_VOP_REG
		  : o->type == X86_OP_IMM ? CT_VOP_IMM
		  : o->type == X86_OP_MEM ? CT_VOP_MEM
					  : CT_VOP_NONE;
	v->size = o->size;
	v->access = o->access;
	v->reg = -1;
	v->base = v->index = -1;
	if (o->type == X86_OP_REG) {
		v->reg = (int8_t)dwarf_of(o->reg);
	} else if (o->type == X86_OP_IMM) {
		v->imm = o->imm;
	} else if (o->type == X86_OP_MEM) {
		v->base = o->mem.base == X86_REG_INVALID ? -1 : (int8_t)dwarf_of(o->mem.base);
		v->index = o->mem.index == X86_REG_INVALID ? -1 : (int8_t)dwarf_of(o->mem.index);
		v->scale = (uint8_t)o->mem.scale;
		v->index_size = 8;
		v->disp = o->mem.disp;
		v->seg = o->mem.segment != X86_REG_INVALID;
	}
}

static void fill_writes(csh h, const cs_insn *in, struct ct_vinsn *v)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;
	if (cs_regs_access(h, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		nwr = 0;
	for (uint8_t k = 0; k < nwr; k++) {
		int d = ct_insn_x86_reg_dwarf(wr[k]);
		unsigned size = ct_insn_x86_reg_size(wr[k]);
		if (d < 0 || d > 15)
			continue;
		if (size >= 4)
			v->full_writes |= 1ULL << d;
		else
			v->part_writes |= 1ULL << d;
	}
}

/** Notes what takes a stack address: lea of an rbp/rsp slot, or a copy of rsp/rbp into another register. */
static void note_escape(struct ct_vfunc *fn, const struct ct_vinsn *v)
{
	if (v->nops != 2 || v->op[0].type != CT_VOP_REG || v->op[0].reg == REG_RSP || v->op[0].reg == REG_RBP)
		return;
	const struct ct_vop *src = &v->op[1];
	if (v->id == X86_INS_LEA && (src->base == REG_RBP || src->base == REG_RSP)) {
		fn->stack_escapes = true;
		if (src->base == REG_RSP || src->index >= 0)
			fn->sp_escape = true;
		else if (src->disp < fn->fp_escape_min)
			fn->fp_escape_min = src->disp;
	} else if (v->id == X86_INS_MOV && src->type == CT_VOP_REG && (src->reg == REG_RSP || src->reg == REG_RBP)) {
		fn->stack_escapes = true;
		fn->sp_escape = true; // the whole frame, from either end
	}
}

static void decode_one(csh h, const cs_insn *in, struct ct_vinsn *v)
{
	const cs_x86 *x = &in->detail->x86;
	v->nops = x->op_count < 2 ? x->op_count : 2;
	for (uint8_t k = 0; k < v->nops; k++)
		fill_op(&x->operands[k], &v->op[k]);
	for (uint8_t k = 0; k < x->op_count; k++) {
		if (x->operands[k].type == X86_OP_MEM && (x->operands[k].access & CS_AC_WRITE))
			v->mem_write = true;
	}
	// stos/movs and friends write memory without an explicit written operand.
	if (x->prefix[0] == X86_PREFIX_REP || in->id == X86_INS_STOSB || in->id == X86_INS_STOSQ ||
	    in->id == X86_INS_STOSD || in->id == X86_INS_MOVSB || in->id == X86_INS_MOVSQ)
		v->mem_write = true;
	fill_writes(h, in, v);
	if (cs_insn_group(h, in, CS_GRP_RET)) {
		v->flow = CT_VFLOW_RET;
	} else if (cs_insn_group(h, in, CS_GRP_CALL)) {
		v->flow = CT_VFLOW_CALL;
	} else if (cs_insn_group(h, in, CS_GRP_JUMP)) {
		bool uncond = in->id == X86_INS_JMP || in->id == X86_INS_LJMP;
		v->flow = uncond ? CT_VFLOW_JMP : CT_VFLOW_JCC;
		if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
			v->has_target = true;
			v->target = (uint64_t)x->operands[0].imm;
		} else {
			v->flow = CT_VFLOW_IJMP;
		}
	} else if (in->id == X86_INS_UD2 || in->id == X86_INS_HLT) {
		v->flow = CT_VFLOW_END;
	}
	if (v->flow == CT_VFLOW_CALL && x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
		v->has_target = true;
		v->target = (uint64_t)x->operands[0].imm;
	}
}

static bool is_frame_slot(const struct ct_vop *o)
{
	return o->type == CT_VOP_MEM && (o->base == REG_RBP || o->base == REG_RSP) && o->index < 0 && !o->seg;
}

/** Caller-saved registers of the SysV x86-64 ABI a call may change: rax rdx rcx rsi rdi r8-r11. */
#define CALL_CLOBBERED ((1u << 0) | (1u << 1) | (1u << 2) | (1u << 4) | (1u << 5) | (0xfu << 8))

/**
 * What arithmetic instruction @p v computes into register @p reg as an affine form of the registers
 * before it, on @p d: lea (the operand, also a scaled index the chain follows: lea rdx, [rax*4]),
 * and, in 64 bits, add of a register or an immediate, sub of an immediate, shl by an immediate.
 */
static void arith_operands(const struct ct_vinsn *v, int reg, struct ct_vdef *d)
{
	const struct ct_vop *dst = &v->op[0], *src = &v->op[1];
	if (v->nops != 2 || dst->type != CT_VOP_REG || dst->reg != reg)
		return;
	d->index_size = 8;
	if (v->id == X86_INS_LEA) {
		d->base = src->base;
		d->index = src->index;
		d->scale = src->scale;
		d->disp = src->disp;
		// rip is a constant lea (above); a segment's base is not known.
		d->affine = dst->size == 8 && !src->seg && src->base != REG_RIP && src->index != REG_RIP;
		return;
	}
	if (dst->size != 8)
		return;
	bool reg_src = src->type == CT_VOP_REG && src->size == 8 && src->reg >= 0 && src->reg <= 15;
	if (v->id == X86_INS_ADD && reg_src) {
		*d = (struct ct_vdef){ .kind = d->kind, .loc = d->loc, .copies = d->copies, .base = reg, .index = src->reg,
				       .scale = 1, .index_size = 8, .affine = true };
	} else if ((v->id == X86_INS_ADD || v->id == X86_INS_SUB) && src->type == CT_VOP_IMM) {
		d->base = reg;
		d->disp = v->id == X86_INS_ADD ? src->imm : -src->imm;
		d->affine = true;
	} else if (v->id == X86_INS_SHL && src->type == CT_VOP_IMM && src->imm > 0 && src->imm < 32) {
		d->index = reg;
		d->scale = 1u << src->imm;
		d->affine = true;
	}
}

/** One backward step over instruction @p v (the predecessor) for state @p s. */
static void step_over(struct ct_vwalk *w, uint32_t p, const struct ct_vstate *s)
{
	const struct ct_vfunc *fn = ct_vwalk_fn(w);
	const struct ct_vinsn *v = &fn->insns[p];
	struct ct_vloc l = s->loc;
	struct ct_vdef d = { .loc = l, .copies = s->copies, .base = -1, .index = -1 };
	if (v->flow == CT_VFLOW_CALL) {
		d.has_target = v->has_target;
		d.target = v->target;
		if (!v->has_target && v->op[0].type == CT_VOP_MEM && v->op[0].base == REG_RIP && v->op[0].index < 0) {
			d.has_slot = true;
			d.slot = v->addr + v->size + (uint64_t)v->op[0].disp;
		}
		ct_vwalk_over_call(w, p, s, &d, CALL_CLOBBERED, REG_RSP);
		return;
	}
	if (!l.slot) {
		uint64_t bit = 1ULL << l.reg;
		if (v->part_writes & bit) {
			ct_vwalk_stop(w, v, s, "the register is written in part (8 or 16 bits) before");
			return;
		}
		if (!(v->full_writes & bit)) {
			ct_vwalk_push(w, p, l, s->copies);
			return;
		}
		// v writes the tracked register whole.
		const struct ct_vop *dst = &v->op[0], *src = &v->op[1];
		bool dst_is_l = v->nops >= 1 && dst->type == CT_VOP_REG && dst->reg == l.reg;
		switch (v->id) {
		case X86_INS_MOV:
		case X86_INS_MOVSXD:
		case X86_INS_MOVSX:
		case X86_INS_MOVZX:
			if (!dst_is_l || v->nops != 2)
				break;
			if (src->type == CT_VOP_REG && src->reg >= 0 && src->reg <= 15 && src->reg != REG_RSP) {
				struct ct_vloc n = { .reg = src->reg, .size = src->size };
				ct_vwalk_push(w, p, n, s->copies + 1);
				return;
			}
			if (src->type == CT_VOP_IMM) {
				d.kind = CT_VDEF_CONST;
				d.value = dst->size == 4 ? (uint32_t)src->imm : (uint64_t)src->imm;
				ct_vwalk_define(w, v, d);
				return;
			}
			if (src->type == CT_VOP_MEM && is_frame_slot(src)) {
				struct ct_vloc n = { .slot = true, .reg = src->base, .disp = src->disp, .size = src->size };
				ct_vwalk_push(w, p, n, s->copies + 1);
				return;
			}
			if (src->type == CT_VOP_MEM) {
				d.kind = CT_VDEF_LOAD;
				d.base = src->base;
				d.index = src->index;
				d.scale = src->scale;
				d.disp = src->disp;
				d.loc.size = src->size;
				if (src->base == REG_RIP && src->index < 0 && !src->seg) {
					d.has_abs = true;
					d.abs = v->addr + v->size + (uint64_t)src->disp;
				} else if (src->base < 0 && src->index < 0 && !src->seg) {
					d.has_abs = true;
					d.abs = (uint64_t)src->disp;
				}
				ct_vwalk_define(w, v, d);
				return;
			}
			break;
		case X86_INS_XOR:
		case X86_INS_SUB:
			if (dst_is_l && src->type == CT_VOP_REG && src->reg == l.reg) {
				d.kind = CT_VDEF_CONST;
				d.value = 0;
				ct_vwalk_define(w, v, d);
				return;
			}
			break;
		case X86_INS_LEA:
			if (dst_is_l && src->base == REG_RIP && src->index < 0) {
				d.kind = CT_VDEF_CONST;
				d.value = v->addr + v->size + (uint64_t)src->disp;
				ct_vwalk_define(w, v, d);
				return;
			}
			break;
		case X86_INS_CDQE:
			// rax = sign-extended eax: the same number, from the low half.
			if (l.reg == 0) {
				struct ct_vloc n = { .reg = 0, .size = 4 };
				ct_vwalk_push(w, p, n, s->copies + 1);
				return;
			}
			break;
		case X86_INS_POP:
			if (dst_is_l) {
				// The value was the word at rsp before the pop.
				struct ct_vloc n = { .slot = true, .reg = REG_RSP, .disp = 0, .size = 8 };
				ct_vwalk_push(w, p, n, s->copies + 1);
				return;
			}
			break;
		default:
			if (v->id >= X86_INS_CMOVA && v->id <= X86_INS_CMOVS) {
				ct_vwalk_stop(w, v, s, "a conditional move chooses between two sources");
				return;
			}
			break;
		}
			d.kind = CT_VDEF_ARITH;
		arith_operands(v, l.reg, &d);
		ct_vwalk_define(w, v, d);
		return;
	}
	// A stack slot.
	if ((v->full_writes | v->part_writes) & (1ULL << l.reg)) {
		if (l.reg == REG_RSP) {
			// rsp adjustments move an rsp-relative slot; what they do is known for push, pop,
			// sub and add of an immediate.
			int64_t delta;
			if (v->id == X86_INS_PUSH) {
				if (l.disp == 0 && l.size == 8 && v->op[0].type == CT_VOP_REG && v->op[0].reg >= 0 &&
				    v->op[0].reg <= 15) {
					struct ct_vloc n = { .reg = v->op[0].reg, .size = 8 };
					ct_vwalk_push(w, p, n, s->copies + 1);
					return;
				}
				if (l.disp < 8) {
					ct_vwalk_stop(w, v, s, "the stack slot is written by a push");
					return;
				}
				delta = -8;
			} else if (v->id == X86_INS_POP) {
				delta = 8;
			} else if ((v->id == X86_INS_SUB || v->id == X86_INS_ADD) && v->nops == 2 &&
				   v->op[0].type == CT_VOP_REG && v->op[0].reg == REG_RSP && v->op[1].type == CT_VOP_IMM) {
				delta = v->id == X86_INS_SUB ? -v->op[1].imm : v->op[1].imm;
			} else {
				ct_vwalk_stop(w, v, s, "rsp is set to a value the walk does not follow");
				return;
			}
			// Before v, the slot was at disp + delta from that rsp.
			struct ct_vloc n = l;
			n.disp = l.disp + delta;
			ct_vwalk_push(w, p, n, s->copies);
			return;
		}
		ct_vwalk_stop(w, v, s, "the frame pointer changes before the slot was written");
		return;
	}
	if (!v->mem_write) {
		ct_vwalk_push(w, p, l, s->copies);
		return;
	}
	const struct ct_vop *dst = &v->op[0], *src = &v->op[1];
	if (v->nops >= 1 && is_frame_slot(dst)) {
		if (!ct_vloc_overlaps(&l, dst->base, dst->disp, dst->size)) {
			// A slot of the other base (rbp against rsp) may still be the same memory.
			if (dst->base != l.reg) {
				ct_vwalk_stop(w, v, s, "a store through the other frame register may hit the slot");
				return;
			}
			ct_vwalk_push(w, p, l, s->copies);
			return;
		}
		if (dst->disp != l.disp || dst->size != l.size || v->id != X86_INS_MOV || v->nops != 2) {
			ct_vwalk_stop(w, v, s, "the stack slot is written in part or by a computation");
			return;
		}
		if (src->type == CT_VOP_REG && src->reg >= 0 && src->reg <= 15) {
			struct ct_vloc n = { .reg = src->reg, .size = src->size };
			ct_vwalk_push(w, p, n, s->copies + 1);
			return;
		}
		if (src->type == CT_VOP_IMM) {
			d.kind = CT_VDEF_CONST;
			d.value = dst->size == 4 ? (uint32_t)src->imm : (uint64_t)src->imm;
			ct_vwalk_define(w, v, d);
			return;
		}
		ct_vwalk_stop(w, v, s, "the stack slot is written from a source the walk does not follow");
		return;
	}
	if (ct_vfunc_slot_aliased(fn, &l, REG_RSP)) {
		ct_vwalk_stop(w, v, s, "a store through a pointer may hit the slot (the frame's address escapes)");
		return;
	}
	ct_vwalk_push(w, p, l, s->copies);
}

bool ct_vfunc_div_operand(const struct ct_vfunc *fn, uint64_t pc, struct ct_vloc *ret)
{
	size_t i = ct_vfunc_find(fn, pc);
	if (i == SIZE_MAX)
		return false;
	const struct ct_vinsn *v = &fn->insns[i];
	if ((v->id != X86_INS_DIV && v->id != X86_INS_IDIV) || v->nops != 1)
		return false;
	const struct ct_vop *o = &v->op[0];
	if (o->type == CT_VOP_REG && o->reg >= 0 && o->reg <= 15 && o->size >= 4) {
		struct ct_vloc l = { .reg = o->reg, .size = o->size };
		*ret = l;
		return true;
	}
	if (is_frame_slot(o)) {
		struct ct_vloc l = { .slot = true, .reg = o->base, .disp = o->disp, .size = o->size };
		*ret = l;
		return true;
	}
	return false;
}

/** jmp through the GOT at the end of a block is a tail call (a switch jumps through a register or a table). */
static bool tail_jump(const struct ct_vinsn *v)
{
	return v->nops == 1 && v->op[0].type == CT_VOP_MEM && v->op[0].base == REG_RIP;
}

/** Instructions before a switch's `jmp reg` looked at for its table and bound (gcc and clang emit 6-9). */
#define TABLE_WINDOW 12

/**
 * A position-independent switch (gcc and clang, -O0 to -O2): `cmp idx, N; ja default` (clang -O0:
 * `sub idx, N; ja default`), then in
 * straight-line code a load of a 32-bit entry of the table T that `lea r, [rip + T]` names, the
 * entry sign-extended and added to T, and `jmp reg`: N + 1 targets T + entry[k]. Anything else
 * (an absolute table, a bound the code does not show) is not recognized.
 */
static size_t jump_table(const struct ct_vfunc *fn, size_t i, const struct ct_vmem *mem, uint64_t *targets, size_t max)
{
	const struct ct_vinsn *j = &fn->insns[i];
	if (j->nops != 1 || j->op[0].type != CT_VOP_REG)
		return 0;
	bool has_table = false, has_add = false;
	uint64_t table = 0;
	int64_t bound = -1;
	for (size_t k = i; k-- > 0 && i - k <= TABLE_WINDOW;) {
		const struct ct_vinsn *v = &fn->insns[k];
		if (v->id == X86_INS_ADD && v->nops == 2 && v->op[0].type == CT_VOP_REG && v->op[0].reg == j->op[0].reg &&
		    v->op[1].type == CT_VOP_REG)
			has_add = true;
		if (v->id == X86_INS_LEA && v->nops == 2 && v->op[1].type == CT_VOP_MEM && v->op[1].base == REG_RIP &&
		    v->op[1].index < 0) {
			uint64_t t = v->addr + v->size + (uint64_t)v->op[1].disp;
			if (has_table && t != table)
				return 0; // two tables named: not one switch
			table = t;
			has_table = true;
		}
		// The bound: an unsigned branch past the table's last case right after its compare (or
		// clang's `sub idx, N`, which sets the flags alike).
		const struct ct_vinsn *c = k > 0 ? &fn->insns[k - 1] : NULL;
		if (v->id == X86_INS_JA && c && (c->id == X86_INS_CMP || c->id == X86_INS_SUB) && c->nops == 2 &&
		    c->op[1].type == CT_VOP_IMM) {
			if (!ct_vfunc_entered_in_line(fn, k + 1))
				return 0;
			bound = c->op[1].imm;
			break;
		}
		// Straight-line code from the bound to the jump: nothing else enters it.
		if (!ct_vfunc_straight(fn, k + 1))
			return 0;
	}
	if (!has_table || !has_add || bound < 0 || (uint64_t)bound >= max)
		return 0;
	size_t n = (size_t)bound + 1;
	for (size_t k = 0; k < n; k++) {
		uint8_t e[4];
		if (!mem->read(mem->arg, table + 4 * k, e, sizeof(e)))
			return 0;
		int32_t rel = (int32_t)ct_load32(e, false);
		targets[k] = table + (uint64_t)(int64_t)rel;
	}
	return n;
}

static const struct ct_varch varch_x86_64 = {
	.info = &ct_arch_x86_64,
	.name = "capstone cannot decode x86-64",
	.num_regs = 16,
	.decode_one = decode_one,
	.note = note_escape,
	.tail_jump = tail_jump,
	.jump_table = jump_table,
	.step_over = step_over,
};

bool ct_vfunc_decode_x86(const struct ct_vrange *ranges, size_t nranges, uint64_t entry, struct ct_vfunc **ret,
			 const char **reason_ret)
{
	return ct_vfunc_decode(&varch_x86_64, ranges, nranges, entry, ret, reason_ret);
}

const struct ct_vwalker ct_vwalker_x86_64 = {
	.arch = "x86_64",
	.num_regs = 16,
	.steps = &varch_x86_64,
	.div_operand = ct_vfunc_div_operand,
};
