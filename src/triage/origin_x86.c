// The value-origin walk over one x86-64 function (docs/root-cause.md): decode it whole with capstone,
// find each instruction's predecessors (fall-through and direct jumps), then search backwards from an
// instruction over every path for the instruction that defined the tracked location. Register moves,
// stack spills and reloads, push/pop pairs and rsp adjustments move the tracked location; anything
// else that writes it is the definition. Paths that disagree, a register a call clobbers, a slot whose
// frame has escaped, an indirect jump: the walk stops and says which.
#include <capstone/capstone.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "triage/insn.h"
#include "triage/origin.h"
#include "util/bisect.h"

/** States (instruction, location) visited at most per walk: a bound on hostile or huge functions. */
#define MAX_STATES 8192
/** Distinct definitions kept before the walk gives up as a merge. */
#define MAX_DEFS 8

#define REG_RBP 6
#define REG_RSP 7
#define REG_RIP 16

enum flow { FLOW_NEXT, FLOW_JMP, FLOW_JCC, FLOW_RET, FLOW_CALL, FLOW_IJMP, FLOW_END };

struct vop {
	uint8_t type; /**< X86_OP_REG, X86_OP_IMM, X86_OP_MEM */
	uint8_t size;
	uint8_t access;
	int8_t reg; /**< DWARF, -1 not a general register */
	int8_t base, index; /**< DWARF, -1 none, 16 rip */
	uint8_t scale;
	bool seg;
	int64_t disp, imm;
};

struct vinsn {
	uint64_t addr;
	uint32_t off; /**< of its bytes in code_copy */
	uint8_t size;
	/** The first instruction of a range: nothing falls through into it. */
	bool range_start;
	uint8_t flow;
	unsigned id;
	bool has_target;
	uint64_t target;
	uint32_t full_writes; /**< DWARF registers 0..15 written whole (64- or zero-extending 32-bit) */
	uint32_t part_writes; /**< written in part (8- or 16-bit) */
	uint8_t nops;
	struct vop op[2];
	bool mem_write; /**< writes memory through an explicit operand */
};

struct ct_vfunc {
	struct vinsn *insns;
	size_t n;
	uint64_t entry; /**< where the function is called */
	/** Predecessors: preds[pred_start[i] .. pred_start[i + 1]) are the jumps into i. */
	uint32_t *pred_start, *preds;
	bool has_indirect_jump;
	/** Some instruction copies rsp or rbp, or takes the address of a stack slot. */
	bool stack_escapes;
	/** The lowest rbp displacement whose address is taken (slots at or above it may be aliased). */
	int64_t rbp_escape_min;
	bool rsp_escape;
	uint8_t code_copy[]; /**< the bytes, for the text of a definition */
};

static int dwarf_of(x86_reg r)
{
	if (r == X86_REG_RIP)
		return REG_RIP;
	return ct_insn_x86_reg_dwarf(r);
}

static void fill_op(const cs_x86_op *o, struct vop *v)
{
	v->type = (uint8_t)o->type;
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
		v->disp = o->mem.disp;
		v->seg = o->mem.segment != X86_REG_INVALID;
	}
}

static void fill_writes(csh h, const cs_insn *in, struct vinsn *v)
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
			v->full_writes |= 1u << d;
		else
			v->part_writes |= 1u << d;
	}
}

/** Notes what takes a stack address: lea of an rbp/rsp slot, or a copy of rsp/rbp into another register. */
static void note_escape(struct ct_vfunc *fn, const struct vinsn *v)
{
	if (v->nops != 2 || v->op[0].type != X86_OP_REG || v->op[0].reg == REG_RSP || v->op[0].reg == REG_RBP)
		return;
	const struct vop *src = &v->op[1];
	if (v->id == X86_INS_LEA && (src->base == REG_RBP || src->base == REG_RSP)) {
		fn->stack_escapes = true;
		if (src->base == REG_RSP || src->index >= 0)
			fn->rsp_escape = true;
		else if (src->disp < fn->rbp_escape_min)
			fn->rbp_escape_min = src->disp;
	} else if (v->id == X86_INS_MOV && src->type == X86_OP_REG && (src->reg == REG_RSP || src->reg == REG_RBP)) {
		fn->stack_escapes = true;
		fn->rsp_escape = true; // the whole frame, from either end
	}
}

struct insn_key {
	const struct ct_vfunc *fn;
	uint64_t addr;
};

static bool insn_below(const void *ctx, size_t i)
{
	const struct insn_key *k = ctx;
	return k->fn->insns[i].addr < k->addr;
}

static size_t find_index(const struct ct_vfunc *fn, uint64_t addr)
{
	size_t lo = ct_bisect(fn->n, insn_below, &(struct insn_key){ fn, addr });
	return lo < fn->n && fn->insns[lo].addr == addr ? lo : SIZE_MAX;
}

static bool build_preds(struct ct_vfunc *fn)
{
	fn->pred_start = calloc(fn->n + 1, sizeof(*fn->pred_start));
	if (!fn->pred_start)
		return false;
	size_t total = 0;
	for (size_t i = 0; i < fn->n; i++) {
		const struct vinsn *v = &fn->insns[i];
		if ((v->flow == FLOW_JMP || v->flow == FLOW_JCC) && v->has_target) {
			size_t t = find_index(fn, v->target);
			if (t != SIZE_MAX) {
				fn->pred_start[t + 1]++;
				total++;
			}
		}
	}
	for (size_t i = 0; i < fn->n; i++)
		fn->pred_start[i + 1] += fn->pred_start[i];
	fn->preds = malloc((total ? total : 1) * sizeof(*fn->preds));
	uint32_t *fill = calloc(fn->n + 1, sizeof(*fill));
	if (!fn->preds || !fill) {
		free(fill);
		return false;
	}
	for (size_t i = 0; i < fn->n; i++) {
		const struct vinsn *v = &fn->insns[i];
		if ((v->flow == FLOW_JMP || v->flow == FLOW_JCC) && v->has_target) {
			size_t t = find_index(fn, v->target);
			if (t != SIZE_MAX)
				fn->preds[fn->pred_start[t] + fill[t]++] = (uint32_t)i;
		}
	}
	free(fill);
	return true;
}

static void decode_one(csh h, const cs_insn *in, struct vinsn *v)
{
	v->size = (uint8_t)in->size;
	v->id = in->id;
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
		v->flow = FLOW_RET;
	} else if (cs_insn_group(h, in, CS_GRP_CALL)) {
		v->flow = FLOW_CALL;
	} else if (cs_insn_group(h, in, CS_GRP_JUMP)) {
		bool uncond = in->id == X86_INS_JMP || in->id == X86_INS_LJMP;
		v->flow = uncond ? FLOW_JMP : FLOW_JCC;
		if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
			v->has_target = true;
			v->target = (uint64_t)x->operands[0].imm;
		} else {
			v->flow = FLOW_IJMP;
		}
	} else if (in->id == X86_INS_UD2 || in->id == X86_INS_HLT) {
		v->flow = FLOW_END;
	}
	if (v->flow == FLOW_CALL && x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
		v->has_target = true;
		v->target = (uint64_t)x->operands[0].imm;
	}
}

bool ct_vfunc_decode_x86(const struct ct_vrange *ranges, size_t nranges, uint64_t entry, struct ct_vfunc **ret,
			 const char **reason_ret)
{
	csh h;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) {
		*reason_ret = "capstone cannot decode x86-64";
		return false;
	}
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	size_t total = 0;
	for (size_t r = 0; r < nranges; r++)
		total += ranges[r].len;
	struct ct_vfunc *fn = calloc(1, sizeof(*fn) + total);
	cs_insn *in = cs_malloc(h);
	size_t cap = 64;
	if (fn)
		fn->insns = malloc(cap * sizeof(*fn->insns));
	if (!fn || !in || !fn->insns || total > UINT32_MAX) {
		if (in)
			cs_free(in, 1);
		cs_close(&h);
		ct_vfunc_destroy(fn);
		*reason_ret = "out of memory";
		return false;
	}
	fn->entry = entry;
	const char *reason = NULL;
	size_t copied = 0;
	for (size_t r = 0; r < nranges && !reason; r++) {
		// Ranges in address order, so that instructions stay sorted for the lookups.
		if (r && ranges[r].start < ranges[r - 1].start + ranges[r - 1].len) {
			reason = "the function's parts overlap or are out of order";
			break;
		}
		memcpy(fn->code_copy + copied, ranges[r].code, ranges[r].len);
		const uint8_t *p = ranges[r].code;
		size_t left = ranges[r].len;
		uint64_t addr = ranges[r].start;
		bool first = true;
		while (left) {
			if (fn->n == CT_VFUNC_MAX_INSNS) {
				reason = "the function has more instructions than the walk decodes";
				break;
			}
			size_t off = copied + (size_t)(p - ranges[r].code);
			if (!cs_disasm_iter(h, &p, &left, &addr, in)) {
				reason = "an instruction of the function does not decode";
				break;
			}
			if (fn->n == cap) {
				cap *= 2;
				struct vinsn *grown = realloc(fn->insns, cap * sizeof(*grown));
				if (!grown) {
					reason = "out of memory";
					break;
				}
				fn->insns = grown;
			}
			struct vinsn *v = &fn->insns[fn->n++];
			memset(v, 0, sizeof(*v));
			v->addr = in->address;
			v->off = (uint32_t)off;
			v->range_start = first;
			first = false;
			decode_one(h, in, v);
			note_escape(fn, v);
		}
		copied += ranges[r].len;
	}
	cs_free(in, 1);
	cs_close(&h);
	if (!reason && !build_preds(fn))
		reason = "out of memory";
	if (reason) {
		ct_vfunc_destroy(fn);
		*reason_ret = reason;
		return false;
	}
	// An indirect jump that is not the function's last word may go anywhere inside it (a switch
	// table): then no instruction's predecessors are known.
	for (size_t i = 0; i < fn->n; i++) {
		if (fn->insns[i].flow == FLOW_IJMP) {
			const struct vinsn *v = &fn->insns[i];
			// jmp through a register or the GOT at the end of a block is a tail call when
			// nothing inside the function jumps back to the instruction after it.
			bool tail = v->nops == 1 && (v->op[0].type == X86_OP_MEM ? v->op[0].base == REG_RIP : false);
			if (!tail)
				fn->has_indirect_jump = true;
		}
	}
	*ret = fn;
	return true;
}

void ct_vfunc_destroy(struct ct_vfunc *fn)
{
	if (!fn)
		return;
	free(fn->insns);
	free(fn->pred_start);
	free(fn->preds);
	free(fn);
}

struct state {
	uint32_t at; /**< need the definition before this instruction */
	struct ct_vloc loc;
	unsigned copies;
};

struct walk {
	const struct ct_vfunc *fn;
	bool has_value;
	uint64_t value;
	struct state *work;
	size_t nwork, capwork;
	struct state *seen;
	size_t nseen;
	struct ct_vdef defs[MAX_DEFS];
	size_t ndefs;
	bool overflow;
};

static bool same_loc(const struct ct_vloc *a, const struct ct_vloc *b)
{
	return a->slot == b->slot && a->reg == b->reg && (!a->slot || (a->disp == b->disp && a->size == b->size));
}

static void push_state(struct walk *w, uint32_t at, struct ct_vloc loc, unsigned copies)
{
	for (size_t i = 0; i < w->nseen; i++) {
		if (w->seen[i].at == at && same_loc(&w->seen[i].loc, &loc))
			return;
	}
	if (w->nseen == MAX_STATES) {
		w->overflow = true;
		return;
	}
	struct state s = { at, loc, copies };
	w->seen[w->nseen++] = s;
	w->work[w->nwork++] = s;
}

static void text_of(const struct ct_vfunc *fn, const struct vinsn *v, char *buf, size_t size)
{
	csh h;
	buf[0] = 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return;
	cs_insn *in = NULL;
	if (cs_disasm(h, fn->code_copy + v->off, v->size, v->addr, 1, &in) == 1) {
		// mnemonic and operands, cut to the buffer (an instruction's text is under 96 bytes).
		size_t m = strnlen(in->mnemonic, sizeof(in->mnemonic) < size ? sizeof(in->mnemonic) : size - 1);
		memcpy(buf, in->mnemonic, m);
		if (in->op_str[0] && m + 1 < size) {
			buf[m++] = ' ';
			size_t o = strnlen(in->op_str, size - 1 - m);
			memcpy(buf + m, in->op_str, o);
			m += o;
		}
		buf[m] = 0;
		cs_free(in, 1);
	}
	cs_close(&h);
}

static void add_def(struct walk *w, const struct vinsn *v, struct ct_vdef d)
{
	d.pc = v ? v->addr : w->fn->entry;
	// A constant that is not the value known at the fault is a path the value did not take.
	if (d.kind == CT_VDEF_CONST && w->has_value) {
		uint64_t mask = d.loc.size >= 8 ? UINT64_MAX : (1ULL << (8 * d.loc.size)) - 1;
		if ((d.value & mask) != (w->value & mask))
			return;
	}
	for (size_t i = 0; i < w->ndefs; i++) {
		if (w->defs[i].kind == d.kind && w->defs[i].pc == d.pc && same_loc(&w->defs[i].loc, &d.loc)) {
			if (d.copies < w->defs[i].copies)
				w->defs[i].copies = d.copies;
			return;
		}
	}
	if (w->ndefs == MAX_DEFS) {
		w->overflow = true;
		return;
	}
	if (v)
		text_of(w->fn, v, d.text, sizeof(d.text));
	w->defs[w->ndefs++] = d;
}

static void stop_at(struct walk *w, const struct vinsn *v, const struct state *s, const char *reason)
{
	struct ct_vdef d = { .kind = CT_VDEF_STOP, .loc = s->loc, .reason = reason, .copies = s->copies };
	add_def(w, v, d);
}

static bool is_frame_slot(const struct vop *o)
{
	return o->type == X86_OP_MEM && (o->base == REG_RBP || o->base == REG_RSP) && o->index < 0 && !o->seg;
}

static bool overlaps(const struct ct_vloc *l, int base, int64_t disp, unsigned size)
{
	return l->slot && l->reg == base && disp < l->disp + (int64_t)l->size && l->disp < disp + (int64_t)size;
}

/** Caller-saved registers of the SysV x86-64 ABI a call may change: rax rdx rcx rsi rdi r8-r11. */
#define CALL_CLOBBERED ((1u << 0) | (1u << 1) | (1u << 2) | (1u << 4) | (1u << 5) | (0xfu << 8))

/** The slot may be written through a pointer: its frame's address escaped at or below it. */
static bool slot_aliased(const struct ct_vfunc *fn, const struct ct_vloc *l)
{
	if (!fn->stack_escapes)
		return false;
	if (l->reg == REG_RSP || fn->rsp_escape)
		return true;
	return fn->rbp_escape_min <= l->disp;
}

/** One backward step over instruction @p v (the predecessor) for state @p s. */
static void step_over(struct walk *w, uint32_t p, const struct state *s)
{
	const struct vinsn *v = &w->fn->insns[p];
	struct ct_vloc l = s->loc;
	struct ct_vdef d = { .loc = l, .copies = s->copies, .base = -1, .index = -1 };
	if (!l.slot) {
		uint32_t bit = 1u << l.reg;
		if (v->flow == FLOW_CALL) {
			if (l.reg == 0) {
				d.kind = CT_VDEF_CALL;
				d.has_target = v->has_target;
				d.target = v->target;
				if (!v->has_target && v->op[0].type == X86_OP_MEM && v->op[0].base == REG_RIP &&
				    v->op[0].index < 0) {
					d.has_slot = true;
					d.slot = v->addr + v->size + (uint64_t)v->op[0].disp;
				}
				add_def(w, v, d);
				return;
			}
			if (bit & CALL_CLOBBERED) {
				stop_at(w, v, s, "the register does not survive the call before it (caller-saved)");
				return;
			}
			push_state(w, p, l, s->copies);
			return;
		}
		if (v->part_writes & bit) {
			stop_at(w, v, s, "the register is written in part (8 or 16 bits) before");
			return;
		}
		if (!(v->full_writes & bit)) {
			push_state(w, p, l, s->copies);
			return;
		}
		// v writes the tracked register whole.
		const struct vop *dst = &v->op[0], *src = &v->op[1];
		bool dst_is_l = v->nops >= 1 && dst->type == X86_OP_REG && dst->reg == l.reg;
		switch (v->id) {
		case X86_INS_MOV:
		case X86_INS_MOVSXD:
		case X86_INS_MOVSX:
		case X86_INS_MOVZX:
			if (!dst_is_l || v->nops != 2)
				break;
			if (src->type == X86_OP_REG && src->reg >= 0 && src->reg <= 15 && src->reg != REG_RSP) {
				struct ct_vloc n = { .reg = src->reg, .size = src->size };
				push_state(w, p, n, s->copies + 1);
				return;
			}
			if (src->type == X86_OP_IMM) {
				d.kind = CT_VDEF_CONST;
				d.value = dst->size == 4 ? (uint32_t)src->imm : (uint64_t)src->imm;
				add_def(w, v, d);
				return;
			}
			if (src->type == X86_OP_MEM && is_frame_slot(src)) {
				struct ct_vloc n = { .slot = true, .reg = src->base, .disp = src->disp, .size = src->size };
				push_state(w, p, n, s->copies + 1);
				return;
			}
			if (src->type == X86_OP_MEM) {
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
				add_def(w, v, d);
				return;
			}
			break;
		case X86_INS_XOR:
		case X86_INS_SUB:
			if (dst_is_l && src->type == X86_OP_REG && src->reg == l.reg) {
				d.kind = CT_VDEF_CONST;
				d.value = 0;
				add_def(w, v, d);
				return;
			}
			break;
		case X86_INS_LEA:
			if (dst_is_l && src->base == REG_RIP && src->index < 0) {
				d.kind = CT_VDEF_CONST;
				d.value = v->addr + v->size + (uint64_t)src->disp;
				add_def(w, v, d);
				return;
			}
			break;
		case X86_INS_CDQE:
			// rax = sign-extended eax: the same number, from the low half.
			if (l.reg == 0) {
				struct ct_vloc n = { .reg = 0, .size = 4 };
				push_state(w, p, n, s->copies + 1);
				return;
			}
			break;
		case X86_INS_POP:
			if (dst_is_l) {
				// The value was the word at rsp before the pop.
				struct ct_vloc n = { .slot = true, .reg = REG_RSP, .disp = 0, .size = 8 };
				push_state(w, p, n, s->copies + 1);
				return;
			}
			break;
		default:
			if (v->id >= X86_INS_CMOVA && v->id <= X86_INS_CMOVS) {
				stop_at(w, v, s, "a conditional move chooses between two sources");
				return;
			}
			break;
		}
		d.kind = CT_VDEF_ARITH;
		if (v->id == X86_INS_LEA && dst_is_l && v->nops == 2) {
			// The operand, for a scaled index the chain can follow further (lea rdx, [rax*4]).
			d.base = src->base;
			d.index = src->index;
			d.scale = src->scale;
			d.disp = src->disp;
		}
		add_def(w, v, d);
		return;
	}
	// A stack slot.
	if (v->full_writes & (1u << l.reg) || v->part_writes & (1u << l.reg)) {
		if (l.reg == REG_RSP) {
			// rsp adjustments move an rsp-relative slot; what they do is known for push, pop,
			// sub and add of an immediate.
			int64_t delta;
			if (v->id == X86_INS_PUSH) {
				if (l.disp == 0 && l.size == 8 && v->op[0].type == X86_OP_REG && v->op[0].reg >= 0 &&
				    v->op[0].reg <= 15) {
					struct ct_vloc n = { .reg = v->op[0].reg, .size = 8 };
					push_state(w, p, n, s->copies + 1);
					return;
				}
				if (l.disp < 8) {
					stop_at(w, v, s, "the stack slot is written by a push");
					return;
				}
				delta = -8;
			} else if (v->id == X86_INS_POP) {
				delta = 8;
			} else if ((v->id == X86_INS_SUB || v->id == X86_INS_ADD) && v->nops == 2 &&
				   v->op[0].type == X86_OP_REG && v->op[0].reg == REG_RSP && v->op[1].type == X86_OP_IMM) {
				delta = v->id == X86_INS_SUB ? -v->op[1].imm : v->op[1].imm;
			} else if (v->flow == FLOW_CALL) {
				// The callee returns with rsp where it was, but may have written below it.
				if (l.disp < 0) {
					stop_at(w, v, s, "the stack slot lies below rsp across a call");
					return;
				}
				if (slot_aliased(w->fn, &l)) {
					stop_at(w, v, s, "the frame's address escapes and a call may have written the slot");
					return;
				}
				push_state(w, p, l, s->copies);
				return;
			} else {
				stop_at(w, v, s, "rsp is set to a value the walk does not follow");
				return;
			}
			// Before v, the slot was at disp + delta from that rsp.
			struct ct_vloc n = l;
			n.disp = l.disp + delta;
			push_state(w, p, n, s->copies);
			return;
		}
		stop_at(w, v, s, "the frame pointer changes before the slot was written");
		return;
	}
	if (v->flow == FLOW_CALL) {
		if (slot_aliased(w->fn, &l)) {
			stop_at(w, v, s, "the frame's address escapes and a call may have written the slot");
			return;
		}
		push_state(w, p, l, s->copies);
		return;
	}
	if (!v->mem_write) {
		push_state(w, p, l, s->copies);
		return;
	}
	const struct vop *dst = &v->op[0], *src = &v->op[1];
	if (v->nops >= 1 && is_frame_slot(dst)) {
		if (!overlaps(&l, dst->base, dst->disp, dst->size)) {
			// A slot of the other base (rbp against rsp) may still be the same memory.
			if (dst->base != l.reg) {
				stop_at(w, v, s, "a store through the other frame register may hit the slot");
				return;
			}
			push_state(w, p, l, s->copies);
			return;
		}
		if (dst->disp != l.disp || dst->size != l.size || v->id != X86_INS_MOV || v->nops != 2) {
			stop_at(w, v, s, "the stack slot is written in part or by a computation");
			return;
		}
		if (src->type == X86_OP_REG && src->reg >= 0 && src->reg <= 15) {
			struct ct_vloc n = { .reg = src->reg, .size = src->size };
			push_state(w, p, n, s->copies + 1);
			return;
		}
		if (src->type == X86_OP_IMM) {
			d.kind = CT_VDEF_CONST;
			d.value = dst->size == 4 ? (uint32_t)src->imm : (uint64_t)src->imm;
			add_def(w, v, d);
			return;
		}
		stop_at(w, v, s, "the stack slot is written from a source the walk does not follow");
		return;
	}
	if (slot_aliased(w->fn, &l)) {
		stop_at(w, v, s, "a store through a pointer may hit the slot (the frame's address escapes)");
		return;
	}
	push_state(w, p, l, s->copies);
}

/** Predecessors of instruction @p i: the one before it when control falls through, and the jumps into it. */
static void visit(struct walk *w, const struct state *s)
{
	const struct ct_vfunc *fn = w->fn;
	uint32_t i = s->at;
	bool any = false;
	if (i > 0 && !fn->insns[i].range_start) {
		uint8_t f = fn->insns[i - 1].flow;
		if (f != FLOW_JMP && f != FLOW_RET && f != FLOW_IJMP && f != FLOW_END) {
			step_over(w, i - 1, s);
			any = true;
		}
	}
	for (uint32_t k = fn->pred_start[i]; k < fn->pred_start[i + 1]; k++) {
		step_over(w, fn->preds[k], s);
		any = true;
	}
	if (fn->insns[i].addr == fn->entry) {
		struct ct_vdef d = { .kind = CT_VDEF_ENTRY, .loc = s->loc, .copies = s->copies, .base = -1, .index = -1 };
		add_def(w, NULL, d);
		return;
	}
	if (!any)
		stop_at(w, &fn->insns[i], s, "the code is reached from outside the decoded function");
}

void ct_vfunc_trace(const struct ct_vfunc *fn, uint64_t at_pc, struct ct_vloc loc, bool has_value, uint64_t value,
		    struct ct_vdef *ret)
{
	struct ct_vdef d = { .kind = CT_VDEF_STOP, .pc = at_pc, .loc = loc, .base = -1, .index = -1 };
	size_t at = find_index(fn, at_pc);
	if (at == SIZE_MAX) {
		d.reason = "pc is not at an instruction of the decoded function";
		*ret = d;
		return;
	}
	if (fn->has_indirect_jump) {
		d.reason = "the function jumps through a table: the paths into pc are not known";
		*ret = d;
		return;
	}
	if (loc.reg < 0 || loc.reg > 15 || (!loc.slot && loc.reg == REG_RSP)) {
		d.reason = "the operand is not a general register";
		*ret = d;
		return;
	}
	struct walk w = { .fn = fn, .has_value = has_value, .value = value };
	w.work = malloc(MAX_STATES * sizeof(*w.work));
	w.seen = malloc(MAX_STATES * sizeof(*w.seen));
	if (!w.work || !w.seen) {
		free(w.work);
		free(w.seen);
		d.reason = "out of memory";
		*ret = d;
		return;
	}
	push_state(&w, (uint32_t)at, loc, 0);
	while (w.nwork && !w.overflow) {
		struct state s = w.work[--w.nwork];
		visit(&w, &s);
	}
	free(w.work);
	free(w.seen);
	if (w.overflow) {
		d.reason = "too many paths lead to pc";
	} else if (w.ndefs == 0) {
		d.reason = "no path into pc explains the value";
	} else if (w.ndefs > 1) {
		// A stop on one path and a definition on another is still undecided.
		d.reason = "paths with different sources meet before pc";
		d.copies = w.defs[0].copies;
	} else {
		d = w.defs[0];
	}
	*ret = d;
}

bool ct_vfunc_unchanged(const struct ct_vfunc *fn, uint64_t from_pc, uint64_t to_pc, int reg)
{
	size_t from = find_index(fn, from_pc), to = find_index(fn, to_pc);
	if (from == SIZE_MAX || to == SIZE_MAX || to <= from || reg < 0 || reg > 15)
		return false;
	for (size_t i = from + 1; i < to; i++) {
		const struct vinsn *v = &fn->insns[i];
		if (fn->pred_start[i] != fn->pred_start[i + 1] || v->flow != FLOW_NEXT || v->range_start ||
		    ((v->full_writes | v->part_writes) & (1u << reg)))
			return false;
	}
	if (fn->pred_start[to] != fn->pred_start[to + 1] || fn->insns[to].range_start)
		return false;
	// The loading instruction itself may overwrite its base (mov rax, [rax + 8]).
	const struct vinsn *v = &fn->insns[from];
	return !((v->full_writes | v->part_writes) & (1u << reg));
}

bool ct_vfunc_insn_ending(const struct ct_vfunc *fn, uint64_t end, uint64_t *pc_ret)
{
	for (size_t i = 0; i < fn->n; i++) {
		if (fn->insns[i].addr + fn->insns[i].size == end) {
			*pc_ret = fn->insns[i].addr;
			return true;
		}
	}
	return false;
}

bool ct_vfunc_call_target(const struct ct_vfunc *fn, uint64_t pc, bool *direct_ret, uint64_t *target_ret)
{
	size_t i = find_index(fn, pc);
	if (i == SIZE_MAX || fn->insns[i].flow != FLOW_CALL)
		return false;
	*direct_ret = fn->insns[i].has_target;
	*target_ret = fn->insns[i].target;
	return true;
}

bool ct_vfunc_div_operand(const struct ct_vfunc *fn, uint64_t pc, struct ct_vloc *ret)
{
	size_t i = find_index(fn, pc);
	if (i == SIZE_MAX)
		return false;
	const struct vinsn *v = &fn->insns[i];
	if ((v->id != X86_INS_DIV && v->id != X86_INS_IDIV) || v->nops != 1)
		return false;
	const struct vop *o = &v->op[0];
	if (o->type == X86_OP_REG && o->reg >= 0 && o->reg <= 15 && o->size >= 4) {
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

size_t ct_vfunc_outside_jumps(const struct ct_vfunc *fn, uint64_t *targets, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < fn->n && n < max; i++) {
		const struct vinsn *v = &fn->insns[i];
		if ((v->flow == FLOW_JMP || v->flow == FLOW_JCC) && v->has_target && find_index(fn, v->target) == SIZE_MAX)
			targets[n++] = v->target;
	}
	return n;
}

const struct ct_vwalker ct_vwalker_x86_64 = {
	.arch = "x86_64",
	.num_regs = 16,
	.decode = ct_vfunc_decode_x86,
	.destroy = ct_vfunc_destroy,
	.trace = ct_vfunc_trace,
	.unchanged = ct_vfunc_unchanged,
	.insn_ending = ct_vfunc_insn_ending,
	.call_target = ct_vfunc_call_target,
	.div_operand = ct_vfunc_div_operand,
	.outside_jumps = ct_vfunc_outside_jumps,
};
