// Tail-call frames (gdb's dwarf2/frame-tailcall.c rule): a function that ends in a jump to another
// leaves no frame. When the call site at a caller's return address calls X but the callee frame
// runs Y, the chains of call sites marked DW_AT_call_tail_call from X to Y are searched; exactly
// one chain is inserted as frames (trust "call-site"), several are left out with a diagnostic.
#include <dwarf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "values/internal.h"

struct chain {
	// Tail call sites, outermost (in X) first, as return addresses in the process.
	uint64_t pcs[CT_TAILCALL_MAX_CHAIN];
	size_t len;
};

struct search {
	const struct ct_values_input *s;
	const struct ct_scope *callee;
	struct chain path, found;
	size_t num_found, visits;
};

static void dfs(struct search *q, uint64_t fn, size_t depth);

// Visits the tail call sites under @p die (a function or one of its blocks), recursively.
static void visit_sites(struct search *q, const struct ct_scope *sc, Dwarf_Die *die, size_t depth, int nest)
{
	Dwarf_Die child;
	if (nest > 16 || dwarf_child(die, &child) != 0)
		return;
	do {
		if (q->num_found > 1 || ++q->visits > CT_TAILCALL_MAX_VISITS)
			return;
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) {
			visit_sites(q, sc, &child, depth, nest + 1);
			continue;
		}
		Dwarf_Addr rpc;
		if (!ct_callsite_is(&child) || !ct_callsite_is_tail_call(&child) || !ct_callsite_pc(&child, &rpc))
			continue;
		q->path.pcs[depth] = rpc + sc->bias;
		q->path.len = depth + 1;
		int calls = ct_callsite_origin_calls(q->s, &child, sc, q->callee);
		if (calls == 1) {
			if (q->num_found++ == 0)
				q->found = q->path;
			continue;
		}
		uint64_t next;
		if (calls == 0 && depth + 1 < CT_TAILCALL_MAX_CHAIN &&
		    ct_callsite_target_address(q->s, &child, sc, q->callee->mod, &next))
			dfs(q, next, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static void dfs(struct search *q, uint64_t fn, size_t depth)
{
	const struct ct_scope *sc = ct_scope_lookup(q->s, fn);
	if (!sc || sc->subprogram < 0)
		return;
	// Cycles end at the chain length cap (CT_TAILCALL_MAX_CHAIN).
	Dwarf_Die sub = sc->dies[sc->subprogram];
	visit_sites(q, sc, &sub, depth, 0);
}

static uint64_t lookup_pc(const struct ct_raw_frame *f)
{
	return f->exact || f->pc == 0 ? f->pc : f->pc - 1;
}

static void insert_chain(const struct ct_arch_info *arch, struct ct_raw_stack *raw, size_t callee,
			 const struct chain *c)
{
	size_t caller = callee + 1;
	const struct ct_raw_frame *cf = &raw->frames[caller];
	bool valid[CT_FRAME_REGS];
	uint64_t values[CT_FRAME_REGS];
	// At the jump of a tail call the function has restored the callee-saved registers of its own
	// caller: the tail-call frames see the caller's (pc and sp are the caller's own, not theirs).
	for (int r = 0; r < CT_FRAME_REGS; r++)
		valid[r] = ct_raw_frame_reg(raw, cf, (unsigned)r, &values[r]);
	// The caller's pc and sp describe the caller, not the tail-call frames.
	if (arch->pc_dwarf >= 0 && arch->pc_dwarf < CT_FRAME_REGS)
		valid[arch->pc_dwarf] = false;
	if (arch->sp_dwarf >= 0 && arch->sp_dwarf < CT_FRAME_REGS)
		valid[arch->sp_dwarf] = false;
	// Innermost first: the last site of the chain (the one that jumped to the callee) first.
	for (size_t k = 0; k < c->len; k++) {
		struct ct_raw_frame f = {
			.pc = c->pcs[c->len - 1 - k],
			.trust = CT_TRUST_CALL_SITE,
			.tail_call = true,
		};
		if (!ct_raw_stack_insert(raw, callee + 1 + k, &f))
			return;
		ct_raw_stack_set_regs(raw, callee + 1 + k, valid, values, CT_FRAME_REGS);
	}
}

void ct_values_tail_calls(const struct ct_values_input *s, struct ct_raw_stack *raw, int tid, size_t limit)
{
	const struct ct_arch_info *arch = s->core->arch;
	// A new thread's stack (the pipeline reuses one raw stack variable, so its address repeats):
	// entry values remembered for the previous thread must not answer for this one.
	s->values->entry_epoch++;
	// Inserted frames count against the thread's frame cap (@p limit, and so the frames budget) like others.
	for (size_t i = 0; i + 1 < raw->count; i++) {
		const struct ct_raw_frame *callee = &raw->frames[i], *caller = &raw->frames[i + 1];
		if (callee->signal_trampoline || caller->signal_trampoline || caller->exact || callee->tail_call ||
		    caller->tail_call)
			continue;
		Dwarf_Die site;
		Dwarf_Addr bias;
		if (!ct_callsite_at(s, raw, i + 1, &site, &bias))
			continue;
		const struct ct_scope *cs = ct_scope_lookup(s, lookup_pc(callee));
		if (!cs || ct_callsite_calls(s, raw, i + 1, &site, cs) != 0)
			continue;
		const struct ct_scope *site_scope = ct_scope_lookup(s, caller->pc - 1);
		uint64_t target;
		if (!site_scope || !ct_callsite_target_address(s, &site, site_scope, cs->mod, &target))
			continue;
		// Recursion repeats the same pair of frames: search once per pair.
		uint64_t key = (caller->pc ^ (lookup_pc(callee) * 0x9e3779b97f4a7c15ULL)) >> 20;
		struct ct_chain_result *cr = &s->values->chains[key % CT_VALUES_CHAIN_CACHE];
		bool fresh = !cr->used || cr->caller_pc != caller->pc || cr->callee_pc != lookup_pc(callee);
		if (fresh) {
			struct search q = { .s = s, .callee = cs };
			dfs(&q, target, 0);
			*cr = (struct ct_chain_result){ .caller_pc = caller->pc, .callee_pc = lookup_pc(callee), .used = true,
							.num_found = q.num_found > 1 ? 2 : q.num_found, .target = target };
			if (q.num_found == 1) {
				memcpy(cr->pcs, q.found.pcs, sizeof(cr->pcs));
				cr->len = q.found.len;
			}
		}
		const struct ct_scope *ts = ct_scope_lookup(s, target);
		if (cr->num_found == 1 && raw->count + cr->len > limit) {
			break;
		} else if (cr->num_found == 1) {
			struct chain c = { .len = cr->len };
			memcpy(c.pcs, cr->pcs, sizeof(c.pcs));
			// The frame in X itself comes first (its site is c.pcs[0]).
			insert_chain(arch, raw, i, &c);
			s->values->entry_epoch++; // the frames above moved: their indices name other frames now
			i += c.len;
		} else if (cr->num_found > 1 && fresh) {
			ct_sink_diag(&s->out, CT_SEVERITY_INFO, tid, CT_DIAG_TAIL_CALL_AMBIGUOUS,
				       "thread %d: the call at 0x%" PRIx64 " calls 0x%" PRIx64
				       " and more than one chain of tail calls leads from there to 0x%" PRIx64 ": no tail-call frames shown",
				       tid, caller->pc, target, callee->pc);
		} else if (cr->num_found == 0 && fresh && ts && ts->subprogram >= 0) {
			ct_sink_diag(&s->out, CT_SEVERITY_INFO, tid, CT_DIAG_TAIL_CALL_UNKNOWN,
				       "thread %d: the call at 0x%" PRIx64 " calls 0x%" PRIx64
				       ", but no chain of tail calls in its DWARF leads to 0x%" PRIx64,
				       tid, caller->pc, target, callee->pc);
		}
	}
}
