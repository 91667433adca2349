// Go's goroutines, read from the dump (docs/runtimes.md "Go"). The program is Go when its
// executable has a .go.buildinfo section (the version) and a .gopclntab (Go's symbol table, which
// unwinds every goroutine as the runtime's own traceback does). runtime.allgs and
// runtime.firstmoduledata come from the symbol table, or, in a stripped binary, from a search
// of the data sections checked by the shape of what they hold. Every pointer is the dump's: each
// read is bounded, allgs' length and each walk spend the work budget.
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdwfl.h>

#include "arch/arch.h"
#include "modules/elf_section.h"
#include "runtime/go.h"
#include "util/budget.h"
#include "util/bytes.h"

/** atomicstatus' scan bit (runtime2.go _Gscan): the status is the bits below it. */
#define GSCAN 0x1000u
/** Wait reasons read from runtime.waitReasonStrings (1.19 has 27). */
#define MAX_WAIT_REASONS 64

struct go_walk {
	const struct ct_runtime_input *in;
	const struct ct_go_layout *l;
	struct ct_go_pcln pcln;
	uint64_t gofunc; /**< moduledata.gofunc: the base of funcdata offsets; 0 when unknown */
	uint64_t wait_strings; /**< runtime.waitReasonStrings, 0 when not found */
	const char *wait_cache[MAX_WAIT_REASONS];
	size_t unreadable;
};

static bool rd_word(const struct go_walk *w, uint64_t addr, uint64_t *ret)
{
	uint8_t b[8];
	if (!ct_core_read_fast(w->in->core, addr, b, w->l->pointer_size))
		return false;
	*ret = w->l->pointer_size == 8 ? ct_load64(b, false) : ct_load32(b, false);
	return true;
}

static bool rd_u32(const struct go_walk *w, uint64_t addr, uint32_t *ret)
{
	uint8_t b[4];
	if (!ct_core_read_fast(w->in->core, addr, b, 4))
		return false;
	*ret = ct_load32(b, false);
	return true;
}

// The Go version from .go.buildinfo (Go 1.18+: "\xff Go buildinf:", pointer size, flags with bit
// 2 set, then the version as a varint-prefixed string at 32): "go1.19.8".
static const char *build_version(const struct ct_runtime_input *in, const struct ct_elf_section *s, unsigned *major,
				 unsigned *minor)
{
	static const char magic[] = "\xff Go buildinf:";
	if (!s->bytes || s->size < 33 || memcmp(s->bytes, magic, 14) != 0 || !(s->bytes[15] & 2))
		return NULL;
	size_t len = 0, at = 32;
	for (unsigned shift = 0; at < s->size && shift < 28; shift += 7) {
		uint8_t b = s->bytes[at++];
		len |= (size_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	if (!len || len > 64 || !ct_in_bounds(s->size, at, len))
		return NULL;
	char v[65];
	memcpy(v, s->bytes + at, len);
	v[len] = '\0';
	for (size_t i = 0; i < len; i++) {
		if (v[i] < 0x21 || v[i] > 0x7e)
			return NULL;
	}
	if (sscanf(v, "go%u.%u", major, minor) != 2)
		return NULL;
	return ct_strpool_intern(in->out.strings, v);
}

// Whether @p g looks like a goroutine with id @p goid (or any id when 0): its status is one Go
// defines and its goid is positive.
static bool plausible_g(const struct go_walk *w, uint64_t g, int64_t want)
{
	uint64_t goid;
	uint32_t status;
	if (!g || !rd_word(w, g + w->l->g_goid, &goid) || !rd_u32(w, g + w->l->g_atomicstatus, &status))
		return false;
	return (status & ~GSCAN) <= 9 && (int64_t)goid > 0 && (!want || (int64_t)goid == want);
}

// A stripped binary's runtime.allgs: a slice (pointer, length, capacity) in .bss whose first
// element is goroutine 1 (runtime.main's, always allgs[0]) and whose next ones are goroutines too.
static uint64_t search_allgs(const struct go_walk *w, const struct ct_elf_section *bss)
{
	const unsigned ps = w->l->pointer_size;
	uint8_t buf[3 * 8];
	for (uint64_t a = bss->addr; a + 3 * ps <= bss->addr + bss->size && (a - bss->addr) / ps < CT_GO_MAX_SEARCH_WORDS;
	     a += ps) {
		if (!ct_core_read_fast(w->in->core, a, buf, 3 * ps))
			continue;
		uint64_t ptr = ct_load64(buf, false), len = ct_load64(buf + 8, false), cap = ct_load64(buf + 16, false);
		if (ps == 4) {
			ptr = ct_load32(buf, false);
			len = ct_load32(buf + 4, false);
			cap = ct_load32(buf + 8, false);
		}
		if (!ptr || !len || len > cap || cap > CT_GO_MAX_GOROUTINES || ptr % ps)
			continue;
		uint64_t g0, g1 = 0;
		if (!rd_word(w, ptr, &g0) || !plausible_g(w, g0, 1))
			continue;
		if (len > 1 && (!rd_word(w, ptr + ps, &g1) || !plausible_g(w, g1, 0)))
			continue;
		return a;
	}
	return 0;
}

// The wait reason's text: runtime.waitReasonStrings[reason] from the binary, or Go 1.19's table.
static const char *wait_reason(struct go_walk *w, unsigned reason)
{
	if (!reason || reason >= MAX_WAIT_REASONS)
		return NULL;
	if (w->wait_cache[reason])
		return w->wait_cache[reason];
	const char *text = NULL;
	uint64_t ptr, len;
	char buf[65];
	const unsigned ps = w->l->pointer_size;
	uint8_t b[16];
	uint64_t at = w->wait_strings + (uint64_t)reason * 2 * ps;
	if (w->wait_strings && ct_modules_read_code(w->in->mods, at, b, 2 * ps)) {
		ptr = ps == 8 ? ct_load64(b, false) : ct_load32(b, false);
		len = ps == 8 ? ct_load64(b + 8, false) : ct_load32(b + 4, false);
		if (len && len < sizeof(buf) && ct_modules_read_code(w->in->mods, ptr, buf, (size_t)len)) {
			buf[len] = '\0';
			bool ok = true;
			for (size_t i = 0; i < len; i++)
				ok = ok && buf[i] >= 0x20 && buf[i] < 0x7f;
			if (ok)
				text = ct_strpool_intern(w->in->out.strings, buf);
		}
	}
	if (!text && !w->wait_strings && w->l->major == 1 && w->l->minor == 19)
		text = ct_go_wait_reason_builtin(reason);
	return w->wait_cache[reason] = text;
}

static void unreadable(struct go_walk *w, int64_t goid, const char *what, uint64_t addr)
{
	if (w->unreadable++ == 0)
		ct_sink_diag(&w->in->out, CT_SEVERITY_WARNING, 0, CT_DIAG_RUNTIME_UNREADABLE,
			     "goroutine %" PRId64 ": %s at 0x%" PRIx64
			     " is not in the dump or not what it should be; its stack is cut there",
			     goid, what, addr);
}

static struct ct_runtime_frame *add_frame(struct ct_goroutine *g, size_t *cap)
{
	if (g->num_frames == *cap) {
		size_t n = *cap ? *cap * 2 : 8;
		struct ct_runtime_frame *f = realloc(g->frames, n * sizeof(*f));
		if (!f)
			return NULL;
		g->frames = f;
		*cap = n;
	}
	struct ct_runtime_frame *f = &g->frames[g->num_frames++];
	*f = (struct ct_runtime_frame){ .native_frame = -1 };
	return f;
}

static const char *pooled(const struct go_walk *w, const char *s)
{
	return s ? ct_strpool_intern(w->in->out.strings, s) : NULL;
}

// A frame of function @p nameoff at @p tracepc of @p f's code (an inlined call's place is the
// place in @p f).
static bool add_place(struct go_walk *w, struct ct_goroutine *g, size_t *cap, const struct ct_go_func *f,
		      uint64_t tracepc, int32_t nameoff, bool inlined)
{
	struct ct_runtime_frame *fr = add_frame(g, cap);
	if (!fr)
		return false;
	const char *file;
	int line;
	ct_go_pcln_line(&w->pcln, f, tracepc, &file, &line);
	fr->function = pooled(w, ct_go_pcln_name(&w->pcln, nameoff));
	fr->file = pooled(w, file);
	fr->line = line;
	fr->pc = tracepc;
	fr->inlined = inlined;
	return true;
}

// One physical frame's frames: its inlined calls (innermost first), then the function itself.
// Every frame is kept, wrappers and the runtime's own included, as GOTRACEBACK=system and crash
// print them (the default level leaves some out). Returns false when out of memory.
static bool emit_frames(struct go_walk *w, struct ct_goroutine *g, size_t *cap, const struct ct_go_func *f,
			uint64_t tracepc)
{
	struct ct_go_place places[CT_GO_MAX_INLINE];
	size_t n = ct_go_places(w->in->mods, &w->pcln, w->gofunc, f, tracepc, places, CT_GO_MAX_INLINE);
	for (size_t i = 0; i < n; i++) {
		if (!add_place(w, g, cap, f, places[i].tracepc, places[i].nameoff, places[i].inlined))
			return false;
	}
	return true;
}

static bool is_semacquire(const struct go_walk *w, const struct ct_go_func *f)
{
	const char *name = ct_go_pcln_name(&w->pcln, f->nameoff);
	return name && strcmp(name, "runtime.semacquire1") == 0;
}

// Register @p dwarf of the context a signal frame saved (its mcontext at @p mc); 0 when unknown.
static uint64_t saved_register(const struct go_walk *w, const struct ct_arch_sigframe *sf, uint64_t mc, int dwarf)
{
	uint64_t v;
	for (size_t i = 0; i < sf->num_regs; i++) {
		if (sf->regs[i].dwarf == dwarf)
			return rd_word(w, mc + sf->regs[i].offset, &v) ? v : 0;
	}
	return 0;
}

// The stack from (@p pc, @p sp, and on a link-register machine @p lr: 0 when unknown), as the
// runtime's gentraceback walks it: each function's frame size from pcsp; a caller's place is
// looked up at its return address - 1 (the call), except after sigpanic (the faulting instruction
// itself). The return address lies above the frame on x86 (the call pushed it); on arm64 a
// function's prologue stores the link register at its new sp, so it is at sp unless the innermost
// function has no frame yet (then it is still in @p lr).
static void unwind(struct go_walk *w, struct ct_goroutine *g, uint64_t pc, uint64_t sp, uint64_t lr0, bool from_thread)
{
	const struct ct_go_pcln *p = &w->pcln;
	const struct ct_arch_info *arch = w->in->core->arch;
	const struct ct_arch_sigframe *sf = arch ? arch->sigframe : NULL;
	bool uses_lr = arch && arch->bad_call == CT_BAD_CALL_LINK_REGISTER;
	size_t cap = 0;
	// A pc from the thread's registers is the interrupted instruction itself, as after sigpanic.
	bool waspanic = from_thread, left_signal_stack = !from_thread;
	// The frame is where its thread stopped (the innermost, or the pc a signal interrupted): its
	// function may not have set up its frame yet, and @p lr0 is that moment's link register.
	bool interrupted = true, resume_interrupted = false;
	for (size_t n = 0;; n++, interrupted = resume_interrupted, resume_interrupted = false) {
		if (n >= CT_GO_MAX_FRAMES || !ct_budget_take(w->in->budget, CT_BUDGET_FRAMES, 1)) {
			g->truncated = true;
			return;
		}
		struct ct_go_func f;
		if (!ct_go_pcln_func(p, pc, &f)) {
			unreadable(w, g->id, "a frame's pc (not in Go's function table)", pc);
			g->truncated = true;
			return;
		}
		uint64_t tracepc = pc > f.entry && !waspanic ? pc - 1 : pc;
		if (!emit_frames(w, g, &cap, &f, tracepc)) {
			ct_sink_diag(&w->in->out, CT_SEVERITY_ERROR, 0, CT_DIAG_NO_MEMORY, "out of memory reading goroutines");
			g->truncated = true;
			return;
		}
		uint8_t flag = f.flag;
		// The top of a stack (goexit, mstart, the signal handler's sigtramp) or a function
		// that moves sp as pcsp cannot say: Go's traceback stops there, and so does the walk,
		// except at the signal handler's top on the way from a thread's registers.
		bool stop = flag & CT_GO_FLAG_TOPFRAME || (flag & CT_GO_FLAG_SPWRITE && n > 0);
		if (stop && left_signal_stack)
			return;
		int32_t delta;
		uint64_t lr;
		if (!ct_go_pcln_value(p, &f, f.pcsp, pc, &delta) || delta < 0) {
			if (stop)
				return;
			unreadable(w, g->id, "a frame's size (pcsp)", pc);
			g->truncated = true;
			return;
		}
		uint64_t fp = sp + (uint64_t)delta + (uses_lr ? 0 : w->l->pointer_size);
		// runtime.semacquire1(addr *uint32, …) keeps addr across its gopark in the argument's
		// spill slot at its frame's top (the register ABI has no callee-saved registers): the
		// semaphore the goroutine sleeps on, as the runtime's traceback prints it. arm64's
		// spill slots lie one word above the frame (the caller's saved link register slot).
		if (g->wait && !g->has_sema && is_semacquire(w, &f))
			g->has_sema = rd_word(w, fp + (uses_lr ? w->l->pointer_size : 0), &g->sema) && g->sema;
		// As gentraceback: on an LR machine the slot at sp, unless the innermost function has
		// no frame yet and the link register is known.
		uint64_t slot = !uses_lr ? fp - w->l->pointer_size : sp;
		bool from_lr = uses_lr && interrupted && sp == fp && lr0;
		if (from_lr) {
			lr = lr0;
		} else if (!rd_word(w, slot, &lr)) {
			if (stop)
				return;
			unreadable(w, g->id, "a return address", slot);
			g->truncated = true;
			return;
		}
		if (!lr)
			return;
		waspanic = f.funcid == CT_GO_FUNCID_SIGPANIC;
		bool injected = waspanic || f.funcid == CT_GO_FUNCID_ASYNC_PREEMPT || f.funcid == CT_GO_FUNCID_DEBUG_CALL_V2;
		pc = lr;
		sp = fp;
		lr0 = 0;
		uint8_t code[16];
		bool sigframe = sf && sf->restorer_len <= sizeof(code) && !sf->ucontext_indirect &&
				ct_modules_read_code(w->in->mods, lr, code, sf->restorer_len) &&
				memcmp(code, sf->restorer, sf->restorer_len) == 0;
		if (stop && !sigframe)
			return;
		if (sigframe) {
			// The return address is the signal trampoline (runtime.sigreturn): the kernel's
			// signal frame holds the interrupted context, the sp after the pop is its ucontext.
			uint64_t mc = fp + (uint64_t)sf->ucontext_at + sf->mcontext;
			if (sf->pc < 0 || sf->sp < 0 || !rd_word(w, mc + (uint64_t)sf->pc, &pc) ||
			    !rd_word(w, mc + (uint64_t)sf->sp, &sp)) {
				unreadable(w, g->id, "a signal frame", fp);
				g->truncated = true;
				return;
			}
			lr0 = uses_lr ? saved_register(w, sf, mc, arch->ra_dwarf) : 0;
			// The handler's frames ran on the signal stack: the goroutine's own stack starts
			// at the instruction the signal interrupted.
			if (!left_signal_stack)
				g->num_frames = 0;
			left_signal_stack = true;
			waspanic = true;
		}
		if (!sigframe && uses_lr && injected && arch->go_injected_lr_slot) {
			// Go's signal handler made the interrupted function "call" this one: it saved that
			// function's link register just below its sp first (preparePanic, pushCall), as
			// gentraceback undoes for an injected call.
			if (!rd_word(w, sp, &lr0)) {
				unreadable(w, g->id, "the link register a signal handler saved", sp);
				g->truncated = true;
				return;
			}
			sp += arch->go_injected_lr_slot;
		}
		// The next frame is an interrupted one (the loop's step clears the mark first).
		resume_interrupted = sigframe || (uses_lr && injected);
	}
}

// The go statement that made the goroutine (Go's printcreatedby: the function of gopc, its line
// at the call).
static void created_by(struct go_walk *w, struct ct_goroutine *g, uint64_t gopc)
{
	struct ct_go_func f;
	if (g->id == 1 || !gopc || !ct_go_pcln_func(&w->pcln, gopc, &f))
		return;
	uint64_t tracepc = gopc > f.entry ? gopc - 1 : gopc;
	const char *file;
	int line;
	ct_go_pcln_line(&w->pcln, &f, tracepc, &file, &line);
	g->created_by = (struct ct_runtime_frame){ .function = pooled(w, ct_go_pcln_name(&w->pcln, f.nameoff)),
						   .file = pooled(w, file), .line = line, .pc = tracepc, .native_frame = -1 };
}

static const struct ct_core_thread *core_thread(const struct ct_core *core, int tid)
{
	for (size_t i = 0; i < core->num_threads; i++) {
		if (core->threads[i].tid == tid)
			return &core->threads[i];
	}
	return NULL;
}

// One goroutine; false when its runtime.g is not in the dump (it is left out and counted).
static bool read_goroutine(struct go_walk *w, uint64_t gp, int crashed_tid, struct ct_goroutine *g)
{
	const struct ct_go_layout *l = w->l;
	uint64_t goid = 0, m = 0, sched_sp = 0, sched_pc = 0, sched_lr = 0, sys_sp = 0, sys_pc = 0, lockedm = 0, gopc = 0,
		 procid = 0;
	uint32_t status = 0;
	uint8_t reason = 0;
	w->unreadable = 0;
	if (!rd_word(w, gp + l->g_goid, &goid) || !rd_u32(w, gp + l->g_atomicstatus, &status))
		return false;
	g->id = (int64_t)goid;
	g->raw_status = status;
	uint32_t s = status & ~GSCAN;
	// Go's _Gidle.._Gwaiting are 0-4, _Gdead 6, _Gcopystack 8, _Gpreempted 9 (5 and 7 unused).
	g->status = s <= 4 ? (enum ct_go_status)s
		  : s == 6 ? CT_GO_DEAD
		  : s == 8 ? CT_GO_COPYSTACK
		  : s == 9 ? CT_GO_PREEMPTED
			   : CT_GO_UNKNOWN;
	rd_word(w, gp + l->g_m, &m);
	rd_word(w, gp + l->g_sched_sp, &sched_sp);
	rd_word(w, gp + l->g_sched_pc, &sched_pc);
	rd_word(w, gp + l->g_sched_lr, &sched_lr);
	rd_word(w, gp + l->g_syscallsp, &sys_sp);
	rd_word(w, gp + l->g_syscallpc, &sys_pc);
	rd_word(w, gp + l->g_lockedm, &lockedm);
	rd_word(w, gp + l->g_gopc, &gopc);
	ct_core_read_fast(w->in->core, gp + l->g_waitreason, &reason, 1);
	if (m && rd_word(w, m + l->m_procid, &procid) && procid < INT32_MAX) {
		uint64_t curg = 0;
		// The M runs this goroutine (m.curg): its thread is the goroutine's.
		if (rd_word(w, m + l->m_curg, &curg) && curg == gp)
			g->tid = (int)procid;
	}
	g->locked_to_thread = lockedm != 0;
	g->crashed = g->status == CT_GO_RUNNING && g->tid && g->tid == crashed_tid;
	if (g->status == CT_GO_WAITING)
		g->wait = wait_reason(w, reason);
	created_by(w, g, gopc);
	if (g->status == CT_GO_DEAD)
		return true;
	// A goroutine in a system call is unwound from where it entered it (as Go's traceback does);
	// a switched-out one from g.sched; a running one that gogo left with sched.sp = 0 runs on
	// its thread, whose native stack is its stack.
	const struct ct_core_thread *t = g->tid ? core_thread(w->in->core, g->tid) : NULL;
	const struct ct_arch_info *a = w->in->core->arch;
	int sp_index = a ? ct_arch_reg_index(a, a->sp_dwarf) : -1;
	if (g->status == CT_GO_SYSCALL && sys_sp) {
		g->stack_from = CT_GO_STACK_SYSCALL;
		unwind(w, g, sys_pc, sys_sp, 0, false);
	} else if (sched_sp) {
		g->stack_from = CT_GO_STACK_SCHED;
		unwind(w, g, sched_pc, sched_sp, sched_lr, false);
	} else if (g->status == CT_GO_RUNNING && t && t->has_regs && sp_index >= 0 &&
		   (size_t)sp_index < t->num_values && (size_t)a->pc_index < t->num_values) {
		g->stack_from = CT_GO_STACK_THREAD;
		int lr_index = a->bad_call == CT_BAD_CALL_LINK_REGISTER ? ct_arch_reg_index(a, a->ra_dwarf) : -1;
		uint64_t lr = lr_index >= 0 && (size_t)lr_index < t->num_values ? t->values[lr_index] : 0;
		unwind(w, g, t->values[a->pc_index], t->values[sp_index], lr, true);
	}
	if (g->wait)
		ct_go_sync_wait(g);
	return true;
}

// The crashed goroutine first, then by id (Go's traceback order after it).
static int by_crash_then_id(const void *a, const void *b)
{
	const struct ct_goroutine *x = a, *y = b;
	if (x->crashed != y->crashed)
		return x->crashed ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

void ct_runtime_go(const struct ct_runtime_input *in, struct ct_runtime *ret)
{
	*ret = (struct ct_runtime){ 0 };
	const struct ct_module_state *m = NULL;
	for (size_t i = 0; i < in->mods->num_modules; i++) {
		if (in->mods->modules[i].is_main)
			m = &in->mods->modules[i];
	}
	Dwarf_Addr bias = 0;
	Elf *elf = m && m->dwfl_module && m->match != 0 ? dwfl_module_getelf(m->dwfl_module, &bias) : NULL;
	struct ct_elf_section buildinfo, pclntab, noptrdata, bss;
	if (!elf || !ct_elf_section(elf, bias, ".go.buildinfo", &buildinfo) ||
	    !ct_elf_section(elf, bias, ".gopclntab", &pclntab))
		return;
	unsigned major = 0, minor = 0;
	const char *version = build_version(in, &buildinfo, &major, &minor);
	unsigned psize = in->core->arch ? in->core->arch->pointer_size : 8;
	const struct ct_go_layout *table = version ? ct_go_layout_find(major, minor, psize) : NULL;
	struct go_walk w = { .in = in, .l = table };
	if (!table || !in->core->arch || !in->core->arch->go_stacks || in->core->big_endian || !pclntab.bytes ||
	    pclntab.size > CT_GO_MAX_PCLNTAB ||
	    !ct_go_pcln_init(&w.pcln, pclntab.bytes, (size_t)pclntab.size, pclntab.addr) || w.pcln.ptr_size != psize) {
		ct_sink_diag(&in->out, CT_SEVERITY_WARNING, 0, CT_DIAG_RUNTIME_NO_LAYOUT,
			     "Go %s: no layout or an unknown pclntab; its goroutines are not read", version ? version : "(no version)");
		return;
	}
	// The table says which versions are understood; the DWARF, when there is some, where the
	// fields of that version lie in this build.
	struct ct_go_layout dwarf;
	Dwarf_Addr dbias;
	Dwarf *dw = dwfl_module_getdwarf(m->dwfl_module, &dbias);
	bool from_dwarf = dw && ct_go_layout_dwarf(dw, major, minor, psize, in->budget, &dwarf);
	if (from_dwarf)
		w.l = &dwarf;
	enum { SYM_ALLGS, SYM_MODULEDATA, SYM_WAIT, SYM_NUM };
	const char *names[SYM_NUM] = { "runtime.allgs", "runtime.firstmoduledata", "runtime.waitReasonStrings" };
	uint64_t sym[SYM_NUM] = { 0 };
	bool found[SYM_NUM] = { false };
	ct_modules_symbols(m, names, SYM_NUM, sym, found);
	uint64_t moduledata = found[SYM_MODULEDATA] ? sym[SYM_MODULEDATA] : 0;
	uint64_t allgs = found[SYM_ALLGS] ? sym[SYM_ALLGS] : 0;
	w.wait_strings = found[SYM_WAIT] ? sym[SYM_WAIT] : 0;
	bool searched = false;
	if (!moduledata && ct_elf_section(elf, bias, ".noptrdata", &noptrdata)) {
		moduledata = ct_go_moduledata_search(&w.pcln, noptrdata.bytes, noptrdata.size, noptrdata.addr,
						     CT_GO_MAX_SEARCH_WORDS);
		searched = true;
	}
	if (!allgs && ct_elf_section(elf, bias, ".bss", &bss)) {
		allgs = search_allgs(&w, &bss);
		searched = true;
	}
	if (moduledata)
		ct_modules_read_code(in->mods, moduledata + w.l->md_gofunc, &w.gofunc, sizeof(w.gofunc));
	ret->present = true;
	ret->language = ct_strpool_intern(in->out.strings, "go");
	ret->version = version;
	ret->layout = ct_strpool_intern(in->out.strings, from_dwarf ? "dwarf" : "table");
	ret->found_by = ct_strpool_intern(in->out.strings, searched ? "search" : "symbols");
	uint64_t array = 0, len = 0;
	if (!allgs || !rd_word(&w, allgs, &array) || !rd_word(&w, allgs + psize, &len)) {
		ct_sink_diag(&in->out, CT_SEVERITY_WARNING, 0, CT_DIAG_RUNTIME_UNREADABLE,
			     "Go's runtime.allgs %s: no goroutines", allgs ? "is not in the dump" : "was not found");
		return;
	}
	if (len > CT_GO_MAX_GOROUTINES) {
		ct_sink_diag(&in->out, CT_SEVERITY_WARNING, 0, CT_DIAG_RUNTIME_UNREADABLE,
			     "Go's runtime.allgs holds %" PRIu64 " goroutines, more than %u: only the first are read", len,
			     CT_GO_MAX_GOROUTINES);
		len = CT_GO_MAX_GOROUTINES;
		ret->goroutines_truncated = true;
	}
	if (!w.gofunc)
		ct_sink_diag(&in->out, CT_SEVERITY_WARNING, 0, CT_DIAG_RUNTIME_UNREADABLE,
			     "Go's module data was not found: inlined calls are not shown");
	const struct ct_thread *subject = ct_stacks_subject(in->stacks);
	int crashed_tid = subject ? subject->tid : 0;
	size_t unreadable_gs = 0, cap = 0;
	for (uint64_t i = 0; i < len; i++) {
		uint64_t gp;
		if (!ct_budget_take(in->budget, CT_BUDGET_ELEMENTS, 1)) {
			ret->goroutines_truncated = true;
			break;
		}
		// The array grows with what is read, not with what allgs claims.
		if (ret->num_goroutines == cap) {
			size_t n = cap ? cap * 2 : 64;
			struct ct_goroutine *more = realloc(ret->goroutines, n * sizeof(*more));
			if (!more) {
				ct_sink_diag(&in->out, CT_SEVERITY_ERROR, 0, CT_DIAG_NO_MEMORY, "out of memory reading goroutines");
				ret->goroutines_truncated = true;
				break;
			}
			ret->goroutines = more;
			cap = n;
		}
		struct ct_goroutine *g = &ret->goroutines[ret->num_goroutines];
		*g = (struct ct_goroutine){ 0 };
		if (!rd_word(&w, array + i * psize, &gp) || !gp || !read_goroutine(&w, gp, crashed_tid, g)) {
			unreadable_gs++;
			continue;
		}
		// Go's traceback leaves out dead goroutines (free for reuse): so does the report.
		if (g->status == CT_GO_DEAD) {
			free(g->frames);
			*g = (struct ct_goroutine){ 0 };
			continue;
		}
		ret->num_goroutines++;
	}
	if (unreadable_gs) {
		ret->goroutines_truncated = true;
		ct_sink_diag(&in->out, CT_SEVERITY_WARNING, 0, CT_DIAG_RUNTIME_UNREADABLE,
			     "%zu elements of Go's runtime.allgs (or the goroutines they point to) are not in the dump: "
			     "those goroutines are left out",
			     unreadable_gs);
	}
	if (ret->num_goroutines > 1)
		qsort(ret->goroutines, ret->num_goroutines, sizeof(*ret->goroutines), by_crash_then_id);
}
