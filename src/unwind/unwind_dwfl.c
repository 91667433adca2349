// The unwinding policy loop over libdwfl with our own thread callbacks: registers come from the
// parsed NT_PRSTATUS, memory from the mmapped core through a sorted segment table. (libdwfl's
// dwfl_core_file_attach reads memory through elf_getdata_rawchunk, which is quadratic in elfutils
// 0.188 on deep stacks: 117 s for 100k frames against 0.05 s this way.)
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "modules/cfi_frame.h"
#include "modules/symbolize.h"
#include "unwind/cfa_sp.h"
#include "unwind/cfi_cache.h"
#include "unwind/step.h"
#include "unwind/unwind.h"
#include "util/grow.h"

/** Restarts of the libdwfl walk after a recovery step; each must move sp outward. */
#define MAX_RESTARTS 256
/** Signal frames a walk may follow to an inward sp (nested signals on alternate stacks). */
#define MAX_INWARD_SIGNALS 4
/** Small direct-mapped cache of "has CFI for this pc" answers (deep recursion repeats pcs). */
#define CFI_CACHE 1024

bool ct_raw_stack_push(struct ct_raw_stack *st, const struct ct_raw_frame *f)
{
	if (!CT_GROW(st->frames, st->capacity, st->count + 1, 64, 0))
		return false;
	st->frames[st->count++] = *f;
	return true;
}

bool ct_raw_stack_insert(struct ct_raw_stack *st, size_t pos, const struct ct_raw_frame *f)
{
	if (pos > st->count || !ct_raw_stack_push(st, f))
		return false;
	memmove(&st->frames[pos + 1], &st->frames[pos], (st->count - 1 - pos) * sizeof(*st->frames));
	st->frames[pos] = *f;
	return true;
}

bool ct_raw_stack_set_regs(struct ct_raw_stack *st, size_t index, const bool *valid, const uint64_t *values, int num)
{
	struct ct_raw_frame *f = &st->frames[index];
	f->reg_mask = 0;
	f->reg_first = (uint32_t)st->num_regs;
	if (num > CT_FRAME_REGS)
		num = CT_FRAME_REGS;
	// The pool is indexed by 32 bits: a stack that large keeps its frames but not their registers.
	if (st->num_regs + (size_t)num > UINT32_MAX)
		return false;
	if (!CT_GROW(st->regs, st->capacity_regs, st->num_regs + (size_t)num, 1024, 0))
		return false;
	for (int r = 0; r < num; r++) {
		if (!valid[r])
			continue;
		f->reg_mask |= 1ULL << r;
		st->regs[st->num_regs++] = values[r];
	}
	return true;
}

bool ct_raw_frame_reg(const struct ct_raw_stack *st, const struct ct_raw_frame *f, unsigned regno, uint64_t *ret)
{
	if (regno >= CT_FRAME_REGS || !(f->reg_mask & (1ULL << regno)))
		return false;
	size_t i = f->reg_first + (size_t)__builtin_popcountll(f->reg_mask & ((1ULL << regno) - 1));
	if (i >= st->num_regs)
		return false;
	*ret = st->regs[i];
	return true;
}

void ct_raw_stack_free(struct ct_raw_stack *st)
{
	free(st->regs);
	free(st->frames);
	memset(st, 0, sizeof(*st));
}

struct ct_stop ct_raw_stack_stop(const struct ct_raw_stack *st, struct ct_strpool *strings)
{
	struct ct_stop stop = ct_stop_make(st->stop_reason, CT_STOP_DETAIL_NONE, 0);
	if (st->stop_reason == CT_STOP_LIBRARY && st->stop_detail) {
		stop.detail = CT_STOP_DETAIL_TEXT;
		stop.text = ct_strpool_intern(strings, st->stop_detail);
	}
	return stop;
}

/** Where one libdwfl walk starts: handed to set_initial_registers as libdwfl's thread argument. */
struct walk_start {
	const struct ct_arch_info *arch;
	const uint64_t *regs; /**< by DWARF number */
	const bool *valid;
	uint64_t pc;
};

/** libdwfl's process argument (dwfl_attach_state): owned by the Dwfl, freed by its detach callback. */
struct ct_dwfl_walker {
	const struct ct_core *core;
	/** The start of the walk dwfl_getthread_frames is running (NULL between walks). */
	const struct walk_start *start;
	/** Rules of the cached CFI step by pc, for every thread (NULL: libdwfl takes every step). */
	struct ct_cfi_cache *cfi;
	/** Range of the function holding the program's entry point (AT_ENTRY): the outermost frame
	 * of the main thread. entry_hi 0: a sizeless symbol (in_entry_function). */
	uint64_t entry_lo, entry_hi;
};

static pid_t next_thread_cb(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	// Walks go through get_thread by tid; enumeration is never needed.
	return 0;
}

static bool get_thread_cb(Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
	const struct ct_dwfl_walker *u = dwfl_arg;
	*thread_argp = (void *)u->start;
	return u->start != NULL;
}

static bool memory_read_cb(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
	const struct ct_dwfl_walker *u = dwfl_arg;
	uint64_t v;
	if (!ct_core_read_word(u->core, addr, &v))
		return false;
	*result = v;
	return true;
}

static bool set_initial_registers_cb(Dwfl_Thread *thread, void *thread_arg)
{
	const struct walk_start *start = thread_arg;
	const struct ct_arch_info *arch = start->arch;
	for (int r = 0; r < arch->num_dwarf && r < CT_MAX_DWARF_REGS; r++) {
		if (!start->valid[r])
			continue;
		Dwarf_Word v = start->regs[r];
		if (!dwfl_thread_state_registers(thread, r, 1, &v))
			return false;
	}
	// Always explicit: without it libdwfl takes the pc from the ABI's return-address column
	// (arm's lr, not r15).
	dwfl_thread_state_register_pc(thread, start->pc);
	return true;
}

static void detach_cb(Dwfl *dwfl, void *dwfl_arg)
{
	struct ct_dwfl_walker *u = dwfl_arg;
	ct_cfi_cache_free(u->cfi);
	free(u);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread_cb,
	.get_thread = get_thread_cb,
	.memory_read = memory_read_cb,
	.set_initial_registers = set_initial_registers_cb,
	.detach = detach_cb,
};

struct ct_error *ct_unwind_attach(struct ct_module_set *s, struct ct_dwfl_walker **ret)
{
	if (!s->core->arch)
		return ct_error_create(CT_ERROR_UNSUPPORTED, "unwinding: not supported on %s", s->core->arch_name);
	// The core's Elf (made by ct_modules_load) gives libdwfl the dump's architecture.
	Elf *elf = s->core_elf;
	// The function holding the entry point (_start) is the outermost frame of the main thread:
	// what lies above it on the stack is argc/argv, not a caller.
	uint64_t entry, entry_lo = 0, entry_hi = 0;
	if (ct_core_auxv(s->core, AT_ENTRY, &entry)) {
		Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, entry);
		GElf_Off off;
		GElf_Sym sym;
		const char *name = mod ? dwfl_module_addrinfo(mod, entry, &off, &sym, NULL, NULL, NULL) : NULL;
		if (name && sym.st_size && off < sym.st_size) {
			entry_lo = entry - off;
			entry_hi = entry - off + sym.st_size;
		} else if (name && name[0] != '$' && off == 0) {
			entry_lo = entry; // a sized-less entry symbol: see in_entry_function()
		} else if (mod) {
			// The nearest symbol may be an ARM mapping symbol ("$x") of size 0: look for the
			// function symbol that starts at the entry point.
			int n = dwfl_module_getsymtab(mod);
			for (int i = 1; i < n && i < 1000000; i++) {
				GElf_Addr value;
				if (dwfl_module_getsym_info(mod, i, &sym, &value, NULL, NULL, NULL) &&
				    value == entry && GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_size) {
					entry_lo = entry;
					entry_hi = entry + sym.st_size;
					break;
				}
			}
		}
	}
	pid_t pid = s->core->has_prpsinfo && s->core->pid > 0 ? s->core->pid : 1;
	struct ct_dwfl_walker *u = calloc(1, sizeof(*u));
	if (!u)
		return &ct_enomem;
	u->core = s->core;
	u->entry_lo = entry_lo;
	u->entry_hi = entry_hi;
	u->cfi = ct_cfi_cache_new(s->core->arch);
	if (!dwfl_attach_state(s->dwfl, elf, pid, &thread_callbacks, u)) {
		ct_cfi_cache_free(u->cfi);
		free(u);
		return ct_error_create(CT_ERROR_LIBRARY, "dwfl_attach_state: %s", dwfl_errmsg(-1));
	}
	*ret = u;
	return NULL;
}

struct cfi_cache_entry {
	uint64_t pc;
	int8_t has_cfi; // -1 unknown
	bool has_kept;
	uint64_t kept; // callee-saved registers the CFI at pc has no rule for (valid with has_kept)
};

struct walk {
	struct ct_module_set *s;
	const struct ct_dwfl_walker *u; /**< the walker's entry function range */
	struct ct_raw_stack *out;
	size_t max_frames;
	enum ct_trust first_trust;
	size_t in_walk; // frames in this walk
	// Last frame's registers, for recovery.
	struct ct_unwind_regs last;
	bool last_exact;
	bool stop; // a stop condition was met (cap, loop): no recovery
	bool bad_pc; // stopped at a pc outside code
	enum ct_stop_reason reason;
	const char *detail; // CT_STOP_LIBRARY: libdwfl's message
	struct cfi_cache_entry *cfi_cache;
	uint64_t stack_end;
	// A caller that replaces libdwfl's frame-pointer step (see take_frame): scanned, or from the
	// pclntab of a Go executable without CFI (override_trust says which).
	struct ct_unwind_regs override;
	bool has_override, override_exact;
	bool override_same_sp; /**< the override keeps sp (a frameless function where its thread stopped) */
	enum ct_trust override_trust;
	// libdwfl took a step without CFI in this walk (see link_register_echo).
	bool fallback_seen;
	// The walk restarts at a context a signal frame saved: its first pc is exact.
	bool first_exact;
	/** Signal frames whose interrupted sp is inward of the handler's (an alternate signal stack
	 * above the interrupted one): capped, as a loop through stale frames would repeat them. */
	unsigned inward_signals;
	// Frames libdwfl gives that the cached CFI step already took (see run_walk).
	int skip;
};

static bool pc_has_cfi(struct walk *w, uint64_t pc)
{
	struct cfi_cache_entry *e = &w->cfi_cache[(pc >> 2) % CFI_CACHE];
	if (e->has_cfi >= 0 && e->pc == pc)
		return e->has_cfi;
	bool found = false;
	Dwfl_Module *mod = dwfl_addrmodule(w->s->dwfl, pc);
	if (mod) {
		Dwarf_Addr bias;
		Dwarf_CFI *cfis[2] = { dwfl_module_eh_cfi(mod, &bias), NULL };
		Dwarf_Addr bias2;
		cfis[1] = dwfl_module_dwarf_cfi(mod, &bias2);
		for (int i = 0; i < 2 && !found; i++) {
			if (!cfis[i])
				continue;
			Dwarf_Frame *frame = NULL;
			if (dwarf_cfi_addrframe(cfis[i], pc - (i ? bias2 : bias), &frame) == 0) {
				found = true;
				free(frame);
			}
		}
	}
	if (e->pc != pc)
		e->has_kept = false;
	e->pc = pc;
	e->has_cfi = found;
	return found;
}

// The callee-saved registers the CFI at @p pc (a callee's lookup pc) has no rule for: the callee
// leaves them alone, so its caller has the same values.
static uint64_t cfi_kept(struct walk *w, uint64_t pc)
{
	struct cfi_cache_entry *e = &w->cfi_cache[(pc >> 2) % CFI_CACHE];
	if (e->has_kept && e->pc == pc)
		return e->kept;
	uint64_t kept = 0;
	Dwarf_Frame *frame = ct_cfi_frame_at(w->s->dwfl, pc);
	if (frame) {
		uint64_t cs = w->s->core->arch->callee_saved;
		for (int r = 0; r < CT_FRAME_REGS; r++) {
			Dwarf_Op mem[3], *ops = NULL;
			size_t n = 0;
			// No operations: "undefined" or "same value"; for a callee-saved register both
			// mean the function did not touch it (elfutils 0.188's x86-64 ABI defaults mark
			// %rax instead of %rbx as preserved, so libdwfl loses %rbx on every frame).
			if ((cs >> r & 1) && dwarf_frame_register(frame, r, mem, &ops, &n) == 0 && n == 0)
				kept |= 1ULL << r;
		}
		free(frame);
	}
	if (e->pc != pc)
		e->has_cfi = -1;
	e->pc = pc;
	e->kept = kept;
	e->has_kept = true;
	return kept;
}

// A caller frame's registers by the ABI: only callee-saved ones (and sp, pc) are known; those
// libdwfl did not recover but the callee's CFI leaves alone come from the callee frame.
static void caller_registers(struct walk *w, const struct ct_raw_frame *callee, bool *valid, uint64_t *vals, int n)
{
	const struct ct_arch_info *arch = w->s->core->arch;
	uint64_t kept = 0;
	bool have_kept = false;
	uint64_t regs = n >= 64 ? ~0ULL : (1ULL << n) - 1;
	uint64_t sp_pc = 1ULL << arch->sp_dwarf | (arch->pc_dwarf >= 0 ? 1ULL << arch->pc_dwarf : 0);
	// Bit by bit over the registers concerned (this runs for every frame of a deep stack).
	for (uint64_t m = regs & ~(arch->callee_saved | sp_pc); m; m &= m - 1)
		valid[__builtin_ctzll(m)] = false;
	for (uint64_t m = regs & arch->callee_saved & ~sp_pc & callee->reg_mask; m; m &= m - 1) {
		int r = __builtin_ctzll(m);
		uint64_t v;
		if (valid[r] || !ct_raw_frame_reg(w->out, callee, (unsigned)r, &v))
			continue;
		if (!have_kept) {
			kept = cfi_kept(w, callee->exact ? callee->pc : callee->pc - 1);
			have_kept = true;
		}
		if (kept >> r & 1) {
			valid[r] = true;
			vals[r] = v;
		}
	}
}

// True when @p addr is in the function holding the program's entry point. Entry symbols written in
// assembly often have no size: then the symbol containing @p addr must start where the entry's does.
static bool in_entry_function(const struct ct_dwfl_walker *u, struct ct_module_set *s, uint64_t addr)
{
	if (!u->entry_lo || addr < u->entry_lo)
		return false;
	if (u->entry_hi)
		return addr < u->entry_hi;
	if (addr - u->entry_lo >= 4096)
		return false;
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
	GElf_Off off;
	GElf_Sym sym;
	return mod && dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL) && addr - off == u->entry_lo;
}

// libdwfl's fallback for a link-register architecture without CFI (the ppc64 and aarch64 backends)
// takes the pc from the link register, which still holds the return address the frame before was
// reached by: its first such step repeats the previous frame (eu-stack shows it too). Only that
// first step of a walk, with the same pc and an outer sp, is such an echo.
static bool link_register_echo(struct walk *w, const struct ct_raw_frame *f, uint64_t pc, uint64_t sp, bool has_sp)
{
	const struct ct_arch_info *arch = w->s->core->arch;
	const struct ct_raw_stack *out = w->out;
	if (arch->bad_call != CT_BAD_CALL_LINK_REGISTER || w->in_walk == 0 || f->trust != CT_TRUST_FRAME_POINTER ||
	    w->fallback_seen)
		return false;
	w->fallback_seen = true;
	const struct ct_raw_frame *prev = &out->frames[out->count - 1];
	return prev->pc == pc && has_sp && prev->has_sp && sp > prev->sp;
}

// Takes frame @p f (from libdwfl or from a step of our own) into the stack, with the checks every
// frame passes: the frame cap, sp moving outward, the entry function, a pc in code.
static int accept_frame(struct walk *w, const struct ct_raw_frame *f, const struct ct_unwind_regs *regs)
{
	struct ct_module_set *s = w->s;
	struct ct_raw_stack *out = w->out;
	if (out->count >= w->max_frames) {
		out->truncated = true;
		w->reason = CT_STOP_FRAME_CAP;
		w->stop = true;
		return DWARF_CB_ABORT;
	}
	if (out->count > 0 && w->in_walk > 0) {
		const struct ct_raw_frame *prev = &out->frames[out->count - 1];
		// The policy of every walk (step.h): one stack, an equal sp for a leaf without a frame.
		static const struct ct_unwind_policy one_stack = { .equal_cfa_ok = true };
		unsigned switches = 0;
		// The frame a signal interrupted is wherever the signal found it: below the handler's
		// alternate stack too (gdb does not ask a signal frame's caller to be outward). Few such.
		bool interrupted = prev->signal_trampoline && f->has_sp && prev->has_sp && f->sp < prev->sp &&
				   w->inward_signals < MAX_INWARD_SIGNALS;
		if (interrupted)
			w->inward_signals++;
		else if (f->has_sp && prev->has_sp &&
			 ct_unwind_policy_check(&one_stack, &switches, prev->sp, prev->pc, f->sp, f->pc) != CT_POLICY_OK) {
			w->reason = CT_STOP_SP_NOT_OUTWARD;
			out->truncated = true;
			w->stop = true;
			return DWARF_CB_ABORT;
		}
	}
	if (!ct_raw_stack_push(out, f)) {
		w->reason = CT_STOP_NO_MEMORY;
		out->truncated = true;
		w->stop = true;
		return DWARF_CB_ABORT;
	}
	w->in_walk++;
	w->last = *regs;
	w->last_exact = f->exact;
	uint64_t lookup = f->exact ? f->pc : f->pc - 1;
	if (out->count > 1 && in_entry_function(w->u, s, lookup)) {
		w->reason = CT_STOP_ENTRY_POINT;
		w->stop = true;
		return DWARF_CB_ABORT;
	}
	if (f->pc == 0 || !ct_modules_is_code(s, f->pc)) {
		// Nothing to unwind from here with CFI: let the policy decide.
		w->bad_pc = true;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

/** @p callee is Go's runtime.sigpanic (whose caller's pc is the faulting pc itself). */
static bool caller_of_sigpanic(struct ct_module_set *s, const struct ct_raw_frame *callee)
{
	uint64_t lookup = callee->exact ? callee->pc : callee->pc - 1;
	// The symbolizer's outermost entry is the function itself (inlined calls come first); it
	// names a stripped Go binary's code from the pclntab.
	const struct ct_sym *syms;
	size_t n = ct_symbolize(s, lookup, &syms);
	const char *name = syms[n - 1].function;
	return name && strcmp(name, "runtime.sigpanic") == 0;
}

/** A frame of a walk: libdwfl's, or one the cached CFI step made (then state is NULL). */
struct walk_frame {
	Dwfl_Frame *state;
	const struct ct_cfi_state *cached;
};

static bool frame_reg(const struct walk_frame *in, int regno, uint64_t *ret)
{
	if (in->cached) {
		if (regno < 0 || regno >= 64 || !(in->cached->set >> regno & 1))
			return false;
		*ret = in->cached->regs[regno];
		return true;
	}
	Dwarf_Word v;
	if (dwfl_frame_reg(in->state, (unsigned)regno, &v) != 0)
		return false;
	*ret = v;
	return true;
}

static int take_frame(struct walk *w, const struct walk_frame *in, uint64_t pc, bool exact)
{
	struct ct_module_set *s = w->s;
	const struct ct_arch_info *arch = s->core->arch;
	if (arch->pc_mask)
		pc &= arch->pc_mask;
	uint64_t sp = 0, fp = 0, ra = 0;
	bool has_sp = frame_reg(in, arch->sp_dwarf, &sp);
	bool has_fp = frame_reg(in, arch->fp_dwarf, &fp);
	bool has_ra = arch->ra_dwarf != arch->pc_dwarf && frame_reg(in, arch->ra_dwarf, &ra);
	struct ct_raw_stack *out = w->out;
	if (has_sp)
		sp += arch->stack_bias;
	else if (w->in_walk > 0)
		// libdwfl lost the caller's sp (an s390x leaf keeps r15 in f0, not in qemu-user's cores).
		has_sp = ct_unwind_caller_sp_from_cfa(s, w->out, &w->out->frames[w->out->count - 1], &sp);

	struct ct_raw_frame f = { .pc = pc, .sp = sp, .has_sp = has_sp, .exact = exact };
	if (w->in_walk == 0) {
		f.trust = w->first_trust;
		// Only the dump's own pc (or a signal frame's saved one) is exact; a restart begins at a
		// return address.
		f.exact = out->count == 0 || w->first_exact;
	} else if (exact) {
		// libdwfl reports two activations in a row at a signal: the sigreturn trampoline (its
		// pc is the trampoline's start, not a return address) and then the interrupted frame.
		if (out->frames[out->count - 1].signal_trampoline) {
			f.trust = CT_TRUST_SIGNAL;
		} else {
			f.trust = CT_TRUST_CFI;
			f.signal_trampoline = true;
		}
	} else {
		const struct ct_raw_frame *prev = &out->frames[out->count - 1];
		bool cfi = pc_has_cfi(w, prev->exact ? prev->pc : prev->pc - 1);
		// A sigreturn trampoline without CFI (qemu-user's, glibc's arm restorers): libdwfl's guess
		// from it is wrong; the policy resumes at the context the signal frame saved instead.
		if (!cfi && ct_unwind_is_restorer(s, prev->pc))
			return DWARF_CB_ABORT;
		f.trust = cfi ? CT_TRUST_CFI : CT_TRUST_FRAME_POINTER;
		// On arm64 Go's signal handler saved the faulting function's link register just below
		// its sp before it faked the call to runtime.sigpanic (preparePanic): libdwfl's caller of
		// sigpanic has sp that much too low and looks up pc - 1, which may be another function.
		// The walk goes on from the faulting pc itself, with that sp and link register.
		uint64_t saved_lr;
		if (arch->go_injected_lr_slot && has_sp && !prev->exact && caller_of_sigpanic(s, prev) &&
		    ct_core_read_word(s->core, sp, &saved_lr)) {
			w->override = (struct ct_unwind_regs){ .pc = pc, .sp = sp + arch->go_injected_lr_slot, .ra = saved_lr,
							       .has_ra = true };
			w->has_override = true;
			w->override_trust = CT_TRUST_CFI;
			w->override_exact = true;
			w->override_same_sp = false;
			return DWARF_CB_ABORT;
		}
		// Go's CFI describes a function that switched stacks (mcall, systemstack, morestack onto
		// g0) as an ordinary frame: past it are stale words of the other stack. Go's traceback
		// ends there unless it is the innermost frame, and so does this walk (as the pclntab walk
		// of a stripped build does).
		struct ct_go_frame gf;
		if (cfi && out->count > 1 && !prev->exact && ct_go_frame_at(s, prev->pc - 1, &gf) && gf.spwrite) {
			w->reason = CT_STOP_OUTERMOST;
			w->stop = true;
			return DWARF_CB_ABORT;
		}
		// A Go executable without CFI says each frame's size in its pclntab: that caller, not
		// the frame pointer's guess (an assembly leaf such as runtime.raise sets up none), and
		// no caller above a goroutine's or thread's top frame (goexit, mstart).
		struct ct_unwind_regs go;
		bool go_top = false, go_exact = false;
		bool stopped = out->count == 1 || prev->exact;
		if (!cfi && ct_unwind_go_pclntab(s, &w->last, stopped, &go, &go_top, &go_exact)) {
			if (go.pc != pc || !has_sp || go.sp != sp || go_exact) {
				w->override = go;
				w->has_override = true;
				w->override_trust = CT_TRUST_PCLNTAB;
				w->override_exact = go_exact;
				// A frameless function where its thread stopped (an arm64 leaf): its caller
				// has its sp.
				w->override_same_sp = stopped && go.sp == w->last.sp;
				return DWARF_CB_ABORT;
			}
			f.trust = CT_TRUST_PCLNTAB;
		} else if (!cfi && go_top) {
			w->reason = CT_STOP_OUTERMOST;
			w->stop = true;
			return DWARF_CB_ABORT;
		}
		// Without unwind information libdwfl follows the frame pointer, but a function that
		// never set one up (a libc leaf, say) still holds its caller's: the step then skips
		// frames up to the function F that owns the frame pointer. The return address into F
		// is the outermost validated one below F's frame (deeper slots may hold stale return
		// addresses of finished calls), and F keeps the frame pointer. Not for a Go frame whose
		// step the pclntab just confirmed: its frame size is known, and the scan below the frame
		// pointer found a stale return address inside it (runtime.minitSignals above sysmon).
		struct ct_unwind_regs cand;
		if (!cfi && f.trust != CT_TRUST_PCLNTAB && w->last.has_fp && w->last.fp > w->last.sp &&
		    ct_unwind_scan_below(s, &w->last, w->last.fp, &cand) && cand.pc != pc) {
			cand.fp = w->last.fp;
			cand.has_fp = true;
			w->override = cand;
			w->has_override = true;
			w->override_trust = CT_TRUST_SCAN;
			w->override_exact = false;
			w->override_same_sp = false;
			return DWARF_CB_ABORT;
		}
	}
	struct ct_unwind_regs regs = { .pc = pc, .sp = sp, .fp = fp, .has_fp = has_fp, .ra = ra, .has_ra = has_ra };
	if (link_register_echo(w, &f, pc, sp, has_sp)) {
		w->in_walk++;
		w->last = regs;
		return DWARF_CB_OK;
	}
	// Every register CFI recovered for this frame, for the values of its variables. A caller's
	// caller-saved registers stay unknown: libdwfl leaves them unset. A caller frame keeps only
	// callee-saved registers, sp and pc (caller_registers()): the others are not asked for.
	bool rvalid[CT_FRAME_REGS];
	uint64_t rvals[CT_FRAME_REGS];
	int nregs = arch->num_dwarf < CT_FRAME_REGS ? arch->num_dwarf : CT_FRAME_REGS;
	bool caller = w->in_walk > 0 && !f.exact;
	if (in->cached) {
		// The same selection from the cached step's mask, without a call per register.
		uint64_t want = ~0ULL;
		if (caller)
			want = arch->callee_saved | 1ULL << arch->sp_dwarf | (arch->pc_dwarf >= 0 ? 1ULL << arch->pc_dwarf : 0);
		uint64_t have = in->cached->set & want;
		for (int r = 0; r < nregs; r++) {
			rvalid[r] = have >> r & 1;
			rvals[r] = rvalid[r] ? in->cached->regs[r] : 0;
		}
	} else {
		for (int r = 0; r < nregs; r++) {
			uint64_t v;
			rvalid[r] = (!caller || (arch->callee_saved >> r & 1) || r == arch->sp_dwarf ||
				     r == arch->pc_dwarf) &&
				    frame_reg(in, r, &v);
			rvals[r] = rvalid[r] ? v : 0;
		}
	}
	size_t before = out->count;
	int rc = accept_frame(w, &f, &regs);
	if (out->count > before) {
		if (caller && out->count >= 2)
			caller_registers(w, &out->frames[out->count - 2], rvalid, rvals, nregs);
		ct_raw_stack_set_regs(out, out->count - 1, rvalid, rvals, nregs);
	}
	return rc;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	if (w->skip > 0) {
		w->skip--;
		return DWARF_CB_OK;
	}
	Dwarf_Addr pc;
	bool exact = false;
	if (!dwfl_frame_pc(state, &pc, &exact))
		return DWARF_CB_ABORT;
	struct walk_frame in = { .state = state };
	return take_frame(w, &in, pc, exact);
}

static int cached_frame_cb(void *arg, const struct ct_cfi_state *frame, bool exact)
{
	struct walk_frame in = { .cached = frame };
	return take_frame(arg, &in, frame->pc, exact);
}

// One libdwfl walk from @p start; the cached CFI step takes its first frames when it can and
// libdwfl walks on from where it stopped, so the frames are libdwfl's either way.
static int run_walk(struct ct_module_set *s, struct ct_dwfl_walker *u, pid_t tid, struct walk *w,
		    struct walk_start *start)
{
	const struct ct_arch_info *arch = start->arch;
	uint64_t regs[CT_MAX_DWARF_REGS];
	bool valid[CT_MAX_DWARF_REGS];
	if (u->cfi) {
		struct ct_cfi_state st = { .pc = start->pc }, resume;
		for (int r = 0; r < arch->num_dwarf && r < 64; r++) {
			if (start->valid[r]) {
				st.set |= 1ULL << r;
				st.regs[r] = start->regs[r];
			}
		}
		int rc = ct_cfi_walk(u->cfi, s->dwfl, s->core, &st, cached_frame_cb, w, &resume, &w->skip);
		if (rc != 0)
			return rc;
		memset(valid, 0, sizeof(valid));
		for (int r = 0; r < arch->num_dwarf && r < 64; r++) {
			valid[r] = resume.set >> r & 1;
			regs[r] = resume.regs[r];
		}
		start->regs = regs;
		start->valid = valid;
		start->pc = resume.pc;
	}
	u->start = start;
	int r = dwfl_getthread_frames(s->dwfl, tid, frame_cb, w);
	u->start = NULL;
	w->skip = 0;
	return r;
}

// One frame of a walk without libdwfl: from the thread's registers (the first) or a recovery step.
static void own_frame(struct walk *w, const struct ct_arch_info *arch, uint64_t pc, const uint64_t *regs,
		      const bool *valid)
{
	struct ct_raw_frame f = {
		.pc = pc,
		.sp = regs[arch->sp_dwarf] + arch->stack_bias,
		.has_sp = valid[arch->sp_dwarf],
		.exact = w->out->count == 0 || w->first_exact,
		.trust = w->first_trust,
	};
	struct ct_unwind_regs r = {
		.pc = pc,
		.sp = f.sp,
		.fp = regs[arch->fp_dwarf],
		.has_fp = valid[arch->fp_dwarf],
		.ra = regs[arch->ra_dwarf],
		.has_ra = arch->ra_dwarf != arch->pc_dwarf && valid[arch->ra_dwarf],
	};
	if (accept_frame(w, &f, &r) == DWARF_CB_OK)
		w->bad_pc = false; // a frame in code: the policy steps on from it
}

// Stack end for bounds of frame-pointer and scan steps: the end of the mapping holding sp.
static uint64_t stack_end_for(struct ct_module_set *s, uint64_t sp)
{
	const struct ct_segment *seg = ct_core_find_segment(s->core, sp);
	return seg ? seg->vaddr + seg->memsz : sp;
}

void ct_unwind_memory_changed(struct ct_dwfl_walker *u)
{
	if (u)
		ct_cfi_cache_forget_memory(u->cfi);
}

// Go's arm64 CFI marks the return address of a TOPFRAME function undefined (runtime.sigtramp), so
// libdwfl ends the walk there. When the pclntab's step from that frame reaches a signal trampoline,
// the walk goes on through the signal frame to the interrupted code, as on x86, where the CFI
// steps from runtime.sigtramp to runtime.sigreturn.
static bool go_top_returns_to_signal(struct ct_module_set *s, const struct walk *w)
{
	struct ct_go_frame gf;
	struct ct_unwind_regs next;
	bool top, exact;
	return w->out->count && ct_go_frame_at(s, w->last.pc, &gf) && gf.top && !gf.spwrite &&
	       ct_unwind_go_pclntab(s, &w->last, false, &next, &top, &exact) && ct_unwind_is_restorer(s, next.pc);
}

void ct_unwind_thread_dwfl(struct ct_module_set *s, struct ct_dwfl_walker *u, const struct ct_core_thread *t,
			   size_t max_frames, struct ct_raw_stack *out)
{
	const struct ct_arch_info *arch = s->core->arch;
	uint64_t regs[CT_MAX_DWARF_REGS];
	bool valid[CT_MAX_DWARF_REGS];
	memcpy(regs, t->dwarf, sizeof(regs));
	memcpy(valid, t->valid, sizeof(valid));
	uint64_t pc = t->pc;
	struct cfi_cache_entry *cache = calloc(CFI_CACHE, sizeof(*cache));
	if (!cache) {
		out->stop_reason = CT_STOP_NO_MEMORY;
		out->truncated = true;
		return;
	}
	for (size_t i = 0; i < CFI_CACHE; i++)
		cache[i].has_cfi = -1;
	struct walk w = {
		.s = s,
		.u = u,
		.out = out,
		.max_frames = max_frames,
		.first_trust = CT_TRUST_CONTEXT,
		.cfi_cache = cache,
	};
	uint64_t stack_end = stack_end_for(s, t->sp);
	w.stack_end = stack_end;
	bool own_walk = false;
	const char *own_reason = NULL;
	for (int restart = 0; restart <= MAX_RESTARTS; restart++) {
		struct walk_start start = { .arch = arch, .regs = regs, .valid = valid, .pc = pc };
		w.in_walk = 0;
		w.fallback_seen = false;
		w.bad_pc = false;
		w.has_override = false;
		size_t before = out->count;
		int r = -1;
		if (!own_walk)
			r = run_walk(s, u, t->tid, &w, &start);
		if (!own_walk && r != 0 && out->count == 0) {
			// libdwfl cannot unwind this architecture at all (elfutils 0.188 has no mips
			// backend): the frames come from the registers and the recovery steps alone.
			own_walk = true;
			own_reason = dwfl_errmsg(-1);
		}
		if (own_walk)
			own_frame(&w, arch, pc, regs, valid);
		w.first_exact = false;
		if (w.stop)
			break;
		// After a recovery step only pc and sp are known: CFI that needs another register (arm's
		// r7-based CFA) ends the walk as if the frame were the outermost; the recovery steps go on.
		bool partial_regs = restart > 0 && w.first_trust != CT_TRUST_BAD_CALL && w.in_walk == 1;
		if (r == 0 && !w.bad_pc && !partial_regs && !go_top_returns_to_signal(s, &w)) {
			w.reason = CT_STOP_OUTERMOST;
			break;
		}
		if (out->count == before) {
			if (own_walk || r < 0) {
				w.reason = CT_STOP_LIBRARY;
				w.detail = own_walk ? own_reason : dwfl_errmsg(-1);
			} else {
				w.reason = CT_STOP_NO_FRAME;
			}
			out->truncated = true;
			break;
		}
		// The walk stopped early: try the recovery steps from the last frame.
		struct ct_unwind_regs next;
		enum ct_trust trust;
		// The registers of the dump or of a signal frame's saved context are all exact: the steps
		// for an innermost frame (bad call, a leaf's link register) apply to both.
		bool first_frame = out->count == 1 || (w.in_walk == 1 && out->frames[out->count - 1].trust == CT_TRUST_SIGNAL),
		     same_sp = false, go_top = false;
		// The last frame is where its thread stopped (the dump's or a signal's context, or an exact pc).
		bool stopped = first_frame || out->frames[out->count - 1].exact;
		// A sigreturn trampoline libdwfl could not step through (Go's runtime.sigreturn has no
		// CFI): the walk resumes at the context the kernel saved, with every register.
		// The interrupted sp is outward of the handler's, or a genuine switch from a signal stack
		// placed above it (Go's gsignal stacks and goroutine stacks share one arena; a C thread's
		// sigaltstack may lie anywhere): the trampoline was returned to, not scanned, and few such.
		struct ct_sigcontext sc;
		const struct ct_raw_frame *tramp = out->count ? &out->frames[out->count - 1] : NULL;
		if (!w.has_override && tramp &&
		    ct_sigcontext_read(s->core, ct_unwind_sigframe_at(s, w.last.pc), w.last.sp, &sc) &&
		    (sc.sp + arch->stack_bias > w.last.sp ||
		     (tramp->trust != CT_TRUST_SCAN && sc.sp + arch->stack_bias != w.last.sp &&
		      ct_modules_is_code(s, sc.pc) && w.inward_signals++ < MAX_INWARD_SIGNALS))) {
			out->frames[out->count - 1].signal_trampoline = true;
			out->frames[out->count - 1].exact = true;
			memcpy(regs, sc.regs, sizeof(regs));
			memcpy(valid, sc.valid, sizeof(valid));
			pc = sc.pc;
			if (arch->pc_dwarf >= 0) {
				regs[arch->pc_dwarf] = sc.pc;
				valid[arch->pc_dwarf] = true;
			}
			regs[arch->sp_dwarf] = sc.sp;
			valid[arch->sp_dwarf] = true;
			w.first_trust = CT_TRUST_SIGNAL;
			w.first_exact = true;
			continue;
		}
		// Go's signal handler makes the faulting function "call" runtime.sigpanic with the
		// faulting pc as return address: that frame's pc is exact (pc - 1 may be outside the
		// function). libdwfl looked up pc - 1 and stopped; walk again from that frame, exact.
		if (w.in_walk >= 2 && !w.bad_pc &&
		    !out->frames[out->count - 1].exact && caller_of_sigpanic(s, &out->frames[out->count - 2])) {
			struct ct_raw_frame *last = &out->frames[out->count - 1];
			out->count--;
			memset(valid, 0, sizeof(valid));
			pc = last->pc;
			if (arch->pc_dwarf >= 0) {
				regs[arch->pc_dwarf] = pc;
				valid[arch->pc_dwarf] = true;
			}
			regs[arch->sp_dwarf] = w.last.sp;
			valid[arch->sp_dwarf] = true;
			if (w.last.has_fp) {
				regs[arch->fp_dwarf] = w.last.fp;
				valid[arch->fp_dwarf] = true;
			}
			w.first_trust = last->trust;
			w.first_exact = true;
			w.has_override = false;
			continue;
		}
		if (w.has_override) {
			next = w.override;
			trust = w.override_trust;
			w.first_exact = w.override_exact;
			same_sp = w.override_same_sp;
			memset(valid, 0, sizeof(valid));
		} else if (w.bad_pc && first_frame && ct_unwind_bad_call(s, &w.last, &next)) {
			trust = CT_TRUST_BAD_CALL;
			// Registers other than pc and sp are still the caller's at a bad call.
		} else if (!w.bad_pc && ct_unwind_go_pclntab(s, &w.last, stopped, &next, &go_top, &w.first_exact)) {
			trust = CT_TRUST_PCLNTAB;
			// A frameless function where its thread stopped (an arm64 leaf): its caller has its sp.
			same_sp = stopped && next.sp == w.last.sp;
			memset(valid, 0, sizeof(valid));
		} else if (go_top) {
			w.reason = CT_STOP_OUTERMOST;
			break;
		} else if (own_walk && ct_unwind_prologue(s, &w.last, first_frame, &next)) {
			trust = CT_TRUST_PROLOGUE;
			memset(valid, 0, sizeof(valid));
		} else if (own_walk && first_frame && ct_unwind_link_register(s, &w.last, &next)) {
			// Validated like a scanned candidate: a call precedes the return address.
			trust = CT_TRUST_SCAN;
			same_sp = true;
			memset(valid, 0, sizeof(valid));
		} else if (!w.bad_pc && ct_unwind_frame_pointer(s, &w.last, stack_end, &next)) {
			trust = CT_TRUST_FRAME_POINTER;
			memset(valid, 0, sizeof(valid));
		} else if (ct_unwind_scan(s, &w.last, stack_end, &next)) {
			trust = CT_TRUST_SCAN;
			memset(valid, 0, sizeof(valid));
		} else {
			w.reason = w.bad_pc ? CT_STOP_BAD_PC : CT_STOP_NO_CALLER;
			out->truncated = !w.bad_pc || out->count > 1;
			break;
		}
		if (next.sp <= w.last.sp && trust != CT_TRUST_BAD_CALL && !same_sp) {
			w.reason = CT_STOP_RECOVERY_NOT_OUTWARD;
			out->truncated = true;
			break;
		}
		pc = next.pc;
		if (arch->pc_dwarf >= 0) {
			regs[arch->pc_dwarf] = next.pc;
			valid[arch->pc_dwarf] = true;
		}
		regs[arch->sp_dwarf] = next.sp - arch->stack_bias;
		valid[arch->sp_dwarf] = true;
		if (next.has_fp) {
			regs[arch->fp_dwarf] = next.fp;
			valid[arch->fp_dwarf] = true;
		}
		if (next.has_ra && arch->ra_dwarf >= 0 && arch->ra_dwarf != arch->pc_dwarf) {
			regs[arch->ra_dwarf] = next.ra;
			valid[arch->ra_dwarf] = true;
		}
		w.first_trust = trust;
		if (restart == MAX_RESTARTS) {
			w.reason = CT_STOP_TOO_MANY_RECOVERIES;
			out->truncated = true;
		}
	}
	out->stop_reason = w.reason;
	out->stop_detail = w.detail;
	free(cache);
}
