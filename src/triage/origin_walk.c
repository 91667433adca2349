// The value-origin walk's shared part (docs/root-cause.md): decode one function whole with capstone,
// find each instruction's predecessors (fall-through and direct jumps), then search backwards from an
// instruction over every path for the instruction that defined the tracked location. What each
// instruction does to the location is the architecture's step (origin_x86.c, origin_arm64.c); the
// paths' findings merge here: one definition, or a stop that says why.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "triage/origin_walk.h"
#include "util/bisect.h"

/** States (instruction, location) visited at most per walk: a bound on hostile or huge functions. */
#define MAX_STATES 8192
/** Distinct definitions kept before the walk gives up as a merge. */
#define MAX_DEFS 8

struct insn_key {
	const struct ct_vfunc *fn;
	uint64_t addr;
};

static bool insn_below(const void *ctx, size_t i)
{
	const struct insn_key *k = ctx;
	return k->fn->insns[i].addr < k->addr;
}

size_t ct_vfunc_find(const struct ct_vfunc *fn, uint64_t addr)
{
	size_t lo = ct_bisect(fn->n, insn_below, &(struct insn_key){ fn, addr });
	return lo < fn->n && fn->insns[lo].addr == addr ? lo : SIZE_MAX;
}

static bool is_jump(const struct ct_vinsn *v)
{
	return (v->flow == CT_VFLOW_JMP || v->flow == CT_VFLOW_JCC) && v->has_target;
}

static bool build_preds(struct ct_vfunc *fn)
{
	free(fn->pred_start);
	free(fn->preds);
	fn->preds = NULL;
	fn->pred_start = calloc(fn->n + 1, sizeof(*fn->pred_start));
	if (!fn->pred_start)
		return false;
	size_t total = 0;
	for (size_t i = 0; i < fn->n; i++) {
		size_t t = is_jump(&fn->insns[i]) ? ct_vfunc_find(fn, fn->insns[i].target) : SIZE_MAX;
		if (t != SIZE_MAX) {
			fn->pred_start[t + 1]++;
			total++;
		}
	}
	for (size_t e = 0; e < fn->num_table_edges; e++) {
		fn->pred_start[fn->table_edges[e][1] + 1]++;
		total++;
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
		size_t t = is_jump(&fn->insns[i]) ? ct_vfunc_find(fn, fn->insns[i].target) : SIZE_MAX;
		if (t != SIZE_MAX)
			fn->preds[fn->pred_start[t] + fill[t]++] = (uint32_t)i;
	}
	for (size_t e = 0; e < fn->num_table_edges; e++) {
		uint32_t t = fn->table_edges[e][1];
		fn->preds[fn->pred_start[t] + fill[t]++] = fn->table_edges[e][0];
	}
	free(fill);
	return true;
}

bool ct_vfunc_entered_in_line(const struct ct_vfunc *fn, size_t i)
{
	return !fn->insns[i].range_start && fn->pred_start[i] == fn->pred_start[i + 1];
}

bool ct_vfunc_straight(const struct ct_vfunc *fn, size_t i)
{
	return i > 0 && ct_vfunc_entered_in_line(fn, i) && fn->insns[i - 1].flow == CT_VFLOW_NEXT;
}

/** Targets of one switch table taken (a table of more cases is left unresolved). */
#define MAX_TABLE_TARGETS 1024

bool ct_vfunc_resolve_tables(struct ct_vfunc *fn, const struct ct_vmem *mem)
{
	if (!fn->has_indirect_jump || !fn->arch->jump_table || !mem)
		return true;
	uint64_t *targets = malloc(MAX_TABLE_TARGETS * sizeof(*targets));
	if (!targets)
		return false;
	size_t cap = 0, n = 0;
	uint32_t(*edges)[2] = NULL;
	bool all = true, ok = true;
	for (size_t i = 0; i < fn->n && all && ok; i++) {
		if (fn->insns[i].flow != CT_VFLOW_IJMP || fn->arch->tail_jump(&fn->insns[i]))
			continue;
		size_t k = fn->arch->jump_table(fn, i, mem, targets, MAX_TABLE_TARGETS);
		all = k > 0;
		for (size_t j = 0; j < k && ok; j++) {
			size_t t = ct_vfunc_find(fn, targets[j]);
			if (t == SIZE_MAX) {
				all = false;
				break;
			}
			if (n == cap) {
				size_t ncap = cap ? 2 * cap : 64;
				uint32_t(*ne)[2] = realloc(edges, ncap * sizeof(*edges));
				if (!ne) {
					ok = false;
					break;
				}
				edges = ne;
				cap = ncap;
			}
			edges[n][0] = (uint32_t)i;
			edges[n][1] = (uint32_t)t;
			n++;
		}
	}
	free(targets);
	if (!ok || !all) {
		free(edges);
		return ok;
	}
	free(fn->table_edges);
	fn->table_edges = edges;
	fn->num_table_edges = n;
	if (!build_preds(fn))
		return false;
	fn->has_indirect_jump = false;
	return true;
}

/** Decodes range @p r into @p fn (its bytes at @p copied of code_copy); a reason when it cannot. */
static const char *decode_range(csh h, cs_insn *in, struct ct_vfunc *fn, size_t *cap, const struct ct_vrange *r,
				size_t copied)
{
	memcpy(fn->code_copy + copied, r->code, r->len);
	const uint8_t *p = r->code;
	size_t left = r->len;
	uint64_t addr = r->start;
	bool first = true;
	while (left) {
		if (fn->n == CT_VFUNC_MAX_INSNS)
			return "the function has more instructions than the walk decodes";
		size_t off = copied + (size_t)(p - r->code);
		if (!cs_disasm_iter(h, &p, &left, &addr, in))
			return "an instruction of the function does not decode";
		if (fn->n == *cap) {
			*cap *= 2;
			struct ct_vinsn *grown = realloc(fn->insns, *cap * sizeof(*grown));
			if (!grown)
				return "out of memory";
			fn->insns = grown;
		}
		struct ct_vinsn *v = &fn->insns[fn->n++];
		memset(v, 0, sizeof(*v));
		v->addr = in->address;
		v->off = (uint32_t)off;
		v->size = (uint8_t)in->size;
		v->id = in->id;
		v->range_start = first;
		first = false;
		fn->arch->decode_one(h, in, v);
		fn->arch->note(fn, v);
	}
	return NULL;
}

bool ct_vfunc_decode(const struct ct_varch *arch, const struct ct_vrange *ranges, size_t nranges, uint64_t entry,
		     struct ct_vfunc **ret, const char **reason_ret)
{
	csh h;
	if (cs_open((cs_arch)arch->info->cs_arch, (cs_mode)arch->info->cs_mode, &h) != CS_ERR_OK) {
		*reason_ret = arch->name;
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
	fn->arch = arch;
	fn->entry = entry;
	const char *reason = NULL;
	size_t copied = 0;
	for (size_t r = 0; r < nranges && !reason; r++) {
		// Ranges in address order, so that instructions stay sorted for the lookups.
		if (r && ranges[r].start < ranges[r - 1].start + ranges[r - 1].len)
			reason = "the function's parts overlap or are out of order";
		else
			reason = decode_range(h, in, fn, &cap, &ranges[r], copied);
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
	// An indirect jump may go anywhere inside the function (a switch table): then no instruction's
	// predecessors are known, unless the architecture knows it for a tail call.
	for (size_t i = 0; i < fn->n; i++) {
		if (fn->insns[i].flow == CT_VFLOW_IJMP && !arch->tail_jump(&fn->insns[i]))
			fn->has_indirect_jump = true;
	}
	if (arch->finish)
		arch->finish(fn);
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
	free(fn->table_edges);
	free(fn);
}

struct ct_vwalk {
	const struct ct_vfunc *fn;
	bool has_value;
	uint64_t value;
	struct ct_vstate *work;
	size_t nwork;
	struct ct_vstate *seen;
	size_t nseen;
	struct ct_vdef defs[MAX_DEFS];
	size_t ndefs;
	bool overflow;
};

const struct ct_vfunc *ct_vwalk_fn(const struct ct_vwalk *w)
{
	return w->fn;
}

static bool same_loc(const struct ct_vloc *a, const struct ct_vloc *b)
{
	return a->slot == b->slot && a->reg == b->reg && (!a->slot || (a->disp == b->disp && a->size == b->size));
}

void ct_vwalk_push(struct ct_vwalk *w, uint32_t at, struct ct_vloc loc, unsigned copies)
{
	for (size_t i = 0; i < w->nseen; i++) {
		if (w->seen[i].at == at && same_loc(&w->seen[i].loc, &loc))
			return;
	}
	if (w->nseen == MAX_STATES) {
		w->overflow = true;
		return;
	}
	struct ct_vstate s = { at, loc, copies };
	w->seen[w->nseen++] = s;
	w->work[w->nwork++] = s;
}

static void text_of(const struct ct_vfunc *fn, const struct ct_vinsn *v, char *buf, size_t size)
{
	csh h;
	buf[0] = 0;
	if (cs_open((cs_arch)fn->arch->info->cs_arch, (cs_mode)fn->arch->info->cs_mode, &h) != CS_ERR_OK)
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

void ct_vwalk_define(struct ct_vwalk *w, const struct ct_vinsn *v, struct ct_vdef d)
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

void ct_vwalk_stop(struct ct_vwalk *w, const struct ct_vinsn *v, const struct ct_vstate *s, const char *reason)
{
	struct ct_vdef d = { .kind = CT_VDEF_STOP, .loc = s->loc, .reason = reason, .copies = s->copies };
	ct_vwalk_define(w, v, d);
}

bool ct_vloc_overlaps(const struct ct_vloc *l, int base, int64_t disp, unsigned size)
{
	return l->slot && l->reg == base && disp < l->disp + (int64_t)l->size && l->disp < disp + (int64_t)size;
}

bool ct_vfunc_slot_aliased(const struct ct_vfunc *fn, const struct ct_vloc *l, int sp)
{
	if (!fn->stack_escapes)
		return false;
	if (l->reg == sp || fn->sp_escape)
		return true;
	return fn->fp_escape_min <= l->disp;
}

void ct_vwalk_over_call(struct ct_vwalk *w, uint32_t p, const struct ct_vstate *s, const struct ct_vdef *ret,
			uint64_t clobbered, int sp)
{
	const struct ct_vinsn *v = &w->fn->insns[p];
	const struct ct_vloc *l = &s->loc;
	if (!l->slot && l->reg == 0) {
		struct ct_vdef d = *ret;
		d.kind = CT_VDEF_CALL;
		ct_vwalk_define(w, v, d);
	} else if (!l->slot && (clobbered >> l->reg & 1)) {
		ct_vwalk_stop(w, v, s, "the register does not survive the call before it (caller-saved)");
	} else if (l->slot && l->reg == sp && l->disp < 0) {
		// The callee returns with the stack pointer where it was, but may have written below it.
		ct_vwalk_stop(w, v, s, "the stack slot lies below the stack pointer across a call");
	} else if (l->slot && ct_vfunc_slot_aliased(w->fn, l, sp)) {
		ct_vwalk_stop(w, v, s, "the frame's address escapes and a call may have written the slot");
	} else {
		ct_vwalk_push(w, p, *l, s->copies);
	}
}

/** Predecessors of instruction @p i: the one before it when control falls through, and the jumps into it. */
static void visit(struct ct_vwalk *w, const struct ct_vstate *s)
{
	const struct ct_vfunc *fn = w->fn;
	uint32_t i = s->at;
	bool any = false;
	if (i > 0 && !fn->insns[i].range_start) {
		uint8_t f = fn->insns[i - 1].flow;
		if (f != CT_VFLOW_JMP && f != CT_VFLOW_RET && f != CT_VFLOW_IJMP && f != CT_VFLOW_END) {
			fn->arch->step_over(w, i - 1, s);
			any = true;
		}
	}
	for (uint32_t k = fn->pred_start[i]; k < fn->pred_start[i + 1]; k++) {
		fn->arch->step_over(w, fn->preds[k], s);
		any = true;
	}
	if (fn->insns[i].addr == fn->entry) {
		struct ct_vdef d = { .kind = CT_VDEF_ENTRY, .loc = s->loc, .copies = s->copies, .base = -1, .index = -1 };
		ct_vwalk_define(w, NULL, d);
		return;
	}
	if (!any)
		ct_vwalk_stop(w, &fn->insns[i], s, "the code is reached from outside the decoded function");
}

void ct_vfunc_trace(const struct ct_vfunc *fn, uint64_t at_pc, struct ct_vloc loc, bool has_value, uint64_t value,
		    struct ct_vdef *ret)
{
	struct ct_vdef d = { .kind = CT_VDEF_STOP, .pc = at_pc, .loc = loc, .base = -1, .index = -1 };
	size_t at = ct_vfunc_find(fn, at_pc);
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
	if (loc.reg < 0 || loc.reg >= fn->arch->num_regs || (!loc.slot && loc.reg == fn->arch->info->sp_dwarf)) {
		d.reason = "the operand is not a general register";
		*ret = d;
		return;
	}
	struct ct_vwalk w = { .fn = fn, .has_value = has_value, .value = value };
	w.work = malloc(MAX_STATES * sizeof(*w.work));
	w.seen = malloc(MAX_STATES * sizeof(*w.seen));
	if (!w.work || !w.seen) {
		free(w.work);
		free(w.seen);
		d.reason = "out of memory";
		*ret = d;
		return;
	}
	ct_vwalk_push(&w, (uint32_t)at, loc, 0);
	while (w.nwork && !w.overflow) {
		struct ct_vstate s = w.work[--w.nwork];
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
	size_t from = ct_vfunc_find(fn, from_pc), to = ct_vfunc_find(fn, to_pc);
	if (from == SIZE_MAX || to == SIZE_MAX || to <= from || reg < 0 || reg >= fn->arch->num_regs)
		return false;
	uint64_t bit = 1ULL << reg;
	for (size_t i = from + 1; i < to; i++) {
		const struct ct_vinsn *v = &fn->insns[i];
		if (fn->pred_start[i] != fn->pred_start[i + 1] || v->flow != CT_VFLOW_NEXT || v->range_start ||
		    ((v->full_writes | v->part_writes) & bit))
			return false;
	}
	if (fn->pred_start[to] != fn->pred_start[to + 1] || fn->insns[to].range_start)
		return false;
	// The loading instruction itself may overwrite its base (mov rax, [rax + 8]).
	const struct ct_vinsn *v = &fn->insns[from];
	return !((v->full_writes | v->part_writes) & bit);
}

bool ct_vfunc_mem_operand(const struct ct_vfunc *fn, uint64_t pc, struct ct_vaddr *ret)
{
	size_t i = ct_vfunc_find(fn, pc);
	if (i == SIZE_MAX)
		return false;
	const struct ct_vinsn *v = &fn->insns[i];
	const struct ct_vop *m = NULL;
	for (int k = 0; k < 3; k++) {
		if (v->op[k].type != CT_VOP_MEM)
			continue;
		if (m)
			return false; // two memory operands (movs): which one faulted is not known here
		m = &v->op[k];
	}
	if (!m || m->seg || v->writeback || v->has_abs || (m->base < 0 && m->index < 0) || m->base >= fn->arch->num_regs ||
	    m->index >= fn->arch->num_regs)
		return false;
	*ret = (struct ct_vaddr){ .base = m->base, .index = m->index, .index_size = m->index_size ? m->index_size : 8,
				  .index_sext = m->sext, .scale = m->scale ? m->scale : 1, .disp = m->disp };
	return true;
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
	size_t i = ct_vfunc_find(fn, pc);
	if (i == SIZE_MAX || fn->insns[i].flow != CT_VFLOW_CALL)
		return false;
	*direct_ret = fn->insns[i].has_target;
	*target_ret = fn->insns[i].target;
	return true;
}

size_t ct_vfunc_outside_jumps(const struct ct_vfunc *fn, uint64_t *targets, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < fn->n && n < max; i++) {
		const struct ct_vinsn *v = &fn->insns[i];
		if (is_jump(v) && ct_vfunc_find(fn, v->target) == SIZE_MAX)
			targets[n++] = v->target;
	}
	return n;
}
