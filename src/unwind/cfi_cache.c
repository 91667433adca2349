// The cached CFI step (cfi_cache.h). What libdw's CFI says for a pc (dwarf_cfi_addrframe and
// dwarf_frame_register, as libdwfl's handle_cfi asks) is compiled once into CFA = register +
// offset and one rule per register; applying it to a frame's registers is a few loads. Only the
// shapes libdw produces for the plain rules are compiled (undefined, same value, offset(N),
// val_offset(N), register); anything else leaves the step to libdwfl.
#include <dwarf.h>
#include <stddef.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "modules/cfi_frame.h"
#include "unwind/cfi_cache.h"
#include "util/bytes.h"

/** Table slots (direct-mapped by lookup pc): 4096 x 416 bytes, touched only where used. */
#define CACHE_BITS 12
/** Registers with an offset, val_offset or register rule at one pc; more leave the step to libdwfl. */
#define MAX_RULES 24

enum rule_kind {
	RULE_CFA_MEM, /**< offset(N): saved at CFA + N */
	RULE_CFA_VAL, /**< val_offset(N): the value is CFA + N */
	RULE_REG, /**< register(R) (+ N): another register's value of the callee frame */
};

struct rule {
	uint8_t reg; /**< the register this rule gives the caller */
	uint8_t kind; /**< enum rule_kind */
	uint8_t src; /**< RULE_REG: the callee's register */
	int64_t off;
};

enum entry_state { ENTRY_EMPTY, ENTRY_RULES, ENTRY_LIBDWFL };

struct entry {
	uint64_t pc;
	int64_t cfa_off;
	uint64_t same; /**< registers with the same value in the caller */
	uint8_t state; /**< enum entry_state */
	uint8_t cfa_reg;
	uint8_t ra; /**< the CIE's return-address column */
	uint8_t nrules;
	struct rule rules[MAX_RULES];
};

struct ct_cfi_cache {
	int nregs; /**< libdwfl's frame registers: 0..nregs-1 */
	uint64_t compiled, hits;
	struct entry *slots;
	/** The segment of the last saved-register read, when no other segment overlaps it (see read_word). */
	const struct ct_core *seg_core;
	const struct ct_segment *seg;
};

struct ct_cfi_cache *ct_cfi_cache_new(const struct ct_arch_info *arch)
{
	if (!arch || !arch->cfi_cache_step || arch->num_dwarf <= 0 || arch->num_dwarf > 64)
		return NULL;
	struct ct_cfi_cache *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->slots = calloc(1u << CACHE_BITS, sizeof(*c->slots));
	if (!c->slots) {
		free(c);
		return NULL;
	}
	c->nregs = arch->num_dwarf;
	return c;
}

void ct_cfi_cache_forget_memory(struct ct_cfi_cache *c)
{
	if (c) {
		c->seg_core = NULL;
		c->seg = NULL;
	}
}

void ct_cfi_cache_free(struct ct_cfi_cache *c)
{
	if (!c)
		return;
	free(c->slots);
	free(c);
}

void ct_cfi_cache_stats(const struct ct_cfi_cache *c, uint64_t *compiled, uint64_t *hits)
{
	*compiled = c ? c->compiled : 0;
	*hits = c ? c->hits : 0;
}

// A single-operation "register + offset" (what libdw makes of DW_CFA_def_cfa and register(R)),
// for a register below 64.
static bool reg_plus(const Dwarf_Op *op, unsigned *reg, int64_t *off)
{
	uint64_t r;
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		r = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
	} else if (op->atom == DW_OP_bregx) {
		r = op->number;
		*off = (int64_t)op->number2;
	} else if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31) {
		r = op->atom - DW_OP_reg0;
		*off = 0;
	} else if (op->atom == DW_OP_regx) {
		r = op->number;
		*off = 0;
	} else {
		return false;
	}
	*reg = (unsigned)r;
	return r < 64;
}

// One register's rule in @p frame into @p e; false when it is not a shape the step redoes.
static bool compile_register(struct entry *e, Dwarf_Frame *frame, int regno, bool *unset)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0;
	*unset = false;
	// handle_cfi leaves a register whose rule libdw cannot give unset and goes on.
	if (dwarf_frame_register(frame, regno, mem, &ops, &nops) != 0) {
		*unset = true;
		return true;
	}
	if (nops == 0) {
		if (ops == mem) // undefined: unset in the caller
			*unset = true;
		else if (ops == NULL)
			e->same |= 1ULL << regno;
		else
			*unset = true; // invalid DWARF to handle_cfi
		return true;
	}
	if (e->nrules == MAX_RULES)
		return false;
	struct rule r = { .reg = (uint8_t)regno };
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		// [cfa] or [cfa, plus_uconst N], then [stack_value] for a value: libdwfl's expr_eval
		// reads memory at the result unless the expression ends as a value.
		size_t i = 1;
		if (i < nops && ops[i].atom == DW_OP_plus_uconst)
			r.off = (int64_t)ops[i++].number;
		r.kind = RULE_CFA_MEM;
		if (i < nops && ops[i].atom == DW_OP_stack_value) {
			r.kind = RULE_CFA_VAL;
			i++;
		}
		if (i != nops)
			return false;
	} else {
		unsigned src;
		if (nops != 1 || !reg_plus(&ops[0], &src, &r.off))
			return false;
		r.kind = RULE_REG;
		r.src = (uint8_t)src;
	}
	e->rules[e->nrules++] = r;
	return true;
}

// The rules libdwfl would use at @p pc: the module's .eh_frame first, then its .debug_frame (the
// order of __libdwfl_frame_unwind). False when neither has an FDE or the rules are not all plain.
static bool compile(struct ct_cfi_cache *c, Dwfl *dwfl, uint64_t pc, struct entry *e)
{
	Dwarf_Frame *frame = ct_cfi_frame_at(dwfl, pc);
	if (!frame)
		return false;
	bool ok = false;
	Dwarf_Addr start, end;
	bool signal = false;
	int ra = dwarf_frame_info(frame, &start, &end, &signal);
	Dwarf_Op *cfa_ops = NULL;
	size_t cfa_nops = 0;
	unsigned cfa_reg;
	int64_t cfa_off;
	// A signal frame's caller is exact (libdwfl marks it): left to libdwfl, like a CFA expression.
	if (ra < 0 || ra >= c->nregs || signal || dwarf_frame_cfa(frame, &cfa_ops, &cfa_nops) != 0 ||
	    cfa_nops != 1 || !reg_plus(&cfa_ops[0], &cfa_reg, &cfa_off))
		goto out;
	e->cfa_reg = (uint8_t)cfa_reg;
	e->cfa_off = cfa_off;
	e->ra = (uint8_t)ra;
	for (int r = 0; r < c->nregs; r++) {
		bool unset;
		if (!compile_register(e, frame, r, &unset))
			goto out;
		// An undefined return address ends libdwfl's walk (the outermost frame): its own business.
		if (r == ra && unset)
			goto out;
	}
	ok = true;
out:
	free(frame);
	return ok;
}

static struct entry *lookup_entry(struct ct_cfi_cache *c, Dwfl *dwfl, uint64_t pc)
{
	struct entry *e = &c->slots[(pc * 0x9e3779b97f4a7c15ULL) >> (64 - CACHE_BITS)];
	if (e->state != ENTRY_EMPTY && e->pc == pc) {
		c->hits++;
		return e;
	}
	memset(e, 0, offsetof(struct entry, rules));
	e->pc = pc;
	c->compiled++;
	e->state = compile(c, dwfl, pc, e) ? ENTRY_RULES : ENTRY_LIBDWFL;
	return e;
}

// ct_core_read_word (what libdwfl's memory callback reads with), without its segment search for
// the stack segment every frame reads: a segment that no later one overlaps is the one the search
// finds for each of its addresses (the last one starting at or below the address that holds it).
// Words are 8 bytes: the architectures with the step are 64-bit.
static bool read_word(struct ct_cfi_cache *c, const struct ct_core *core, uint64_t addr, uint64_t *ret)
{
	const struct ct_segment *s = c->seg_core == core ? c->seg : NULL;
	if (!s || addr - s->vaddr >= s->memsz) {
		s = ct_core_find_segment(core, addr);
		size_t i = s ? (size_t)(s - core->segments) : 0;
		bool alone = s && (i + 1 == core->num_segments || core->segments[i + 1].vaddr - s->vaddr >= s->memsz);
		c->seg_core = core;
		c->seg = alone ? s : NULL;
	}
	uint64_t off = addr - (s ? s->vaddr : 0);
	if (!s || off >= s->filesz || s->filesz - off < 8)
		return ct_core_read_word(core, addr, ret); // not saved, or a word across segments
	*ret = ct_load64(core->map + s->offset + off, core->big_endian);
	return true;
}

static bool reg_get(const struct ct_cfi_cache *c, const struct ct_cfi_state *st, unsigned r, uint64_t *v)
{
	if (r >= (unsigned)c->nregs || !(st->set >> r & 1))
		return false;
	*v = st->regs[r];
	return true;
}

bool ct_cfi_step(struct ct_cfi_cache *c, Dwfl *dwfl, const struct ct_core *core, uint64_t lookup,
		 const struct ct_cfi_state *in, struct ct_cfi_state *out)
{
	const struct entry *e = lookup_entry(c, dwfl, lookup);
	if (e->state != ENTRY_RULES)
		return false;
	uint64_t cfa = 0;
	bool has_cfa = reg_get(c, in, e->cfa_reg, &cfa);
	cfa += (uint64_t)e->cfa_off;
	// Same-value registers keep what the callee had; the rest is unset unless a rule gives it
	// (a rule that cannot be evaluated leaves it unset, as in handle_cfi).
	out->set = in->set & e->same;
	for (uint64_t m = out->set; m; m &= m - 1) {
		int r = __builtin_ctzll(m);
		out->regs[r] = in->regs[r];
	}
	for (unsigned i = 0; i < e->nrules; i++) {
		const struct rule *r = &e->rules[i];
		uint64_t v;
		switch (r->kind) {
		case RULE_CFA_MEM:
			if (!has_cfa || !read_word(c, core, cfa + (uint64_t)r->off, &v))
				continue;
			break;
		case RULE_CFA_VAL:
			if (!has_cfa)
				continue;
			v = cfa + (uint64_t)r->off;
			break;
		default:
			if (!reg_get(c, in, r->src, &v))
				continue;
			v += (uint64_t)r->off;
			break;
		}
		out->regs[r->reg] = v;
		out->set |= 1ULL << r->reg;
	}
	// libdwfl's caller pc is the return-address column; unset ends its walk with an error and 0
	// as the outermost frame: both are left to libdwfl.
	if (!(out->set >> e->ra & 1) || out->regs[e->ra] == 0)
		return false;
	out->pc = out->regs[e->ra];
	return true;
}

int ct_cfi_walk(struct ct_cfi_cache *c, Dwfl *dwfl, const struct ct_core *core, const struct ct_cfi_state *start,
		ct_cfi_frame_fn *fn, void *arg, struct ct_cfi_state *resume, int *skip)
{
	// libdwfl must restart from the frame before the one the cache cannot step from: its first
	// frame is "initial" (looked up at its pc, reported exact), so it starts one frame back, at
	// that frame's lookup pc, and the frame it gives first is one already taken. Three states
	// in turn: that frame, the one being taken and its caller.
	struct ct_cfi_state buf[3];
	struct ct_cfi_state *prev = NULL, *cur = &buf[0], *next = &buf[1];
	*cur = *start;
	uint64_t prev_lookup = 0;
	for (;;) {
		uint64_t lookup = prev ? cur->pc - 1 : cur->pc;
		if (!ct_cfi_step(c, dwfl, core, lookup, cur, next)) {
			if (!prev) {
				*resume = *start;
				*skip = 0;
			} else {
				*resume = *prev;
				resume->pc = prev_lookup;
				*skip = 1;
			}
			return 0;
		}
		int rc = fn(arg, cur, prev == NULL);
		if (rc != 0)
			return rc;
		struct ct_cfi_state *free_state = prev ? prev : &buf[2];
		prev = cur;
		prev_lookup = lookup;
		cur = next;
		next = free_state;
	}
}
