// Recovery steps used when CFI cannot continue: bad call, frame-pointer chain, validated stack scan.
// The frame-record and scan steps are the shared ones of step.h (the kernel walks use them too); what
// is a return address of a process (code of a module, after a call) is decided here.
#include <elf.h>

#include "modules/go_symbols.h"
#include "unwind/step.h"
#include "unwind/unwind.h"

/** Stack scan reach: 256 KiB covers frames with large local arrays without reading whole stacks. */
#define SCAN_LIMIT (256 * 1024)
/** Validated candidates a scan looks at for one whose call targets the current function. */
#define SCAN_PREFER 8
/** Bytes of a function read for its prologue: the pc must lie this close to the function's start. */
#define PROLOGUE_READ 4096

static bool ct_unwind_is_return_address(struct ct_module_set *s, uint64_t addr)
{
	const struct ct_arch_info *arch = s->core->arch;
	if (!ct_modules_is_code(s, addr) || addr < CT_ARCH_CALL_BYTES)
		return false;
	// A signal handler returns to the sigreturn trampoline, which follows no call (and may start
	// its page: qemu-user's).
	if (ct_unwind_is_restorer(s, addr))
		return true;
	uint8_t before[CT_ARCH_CALL_BYTES];
	if (!ct_modules_read_code(s, addr - CT_ARCH_CALL_BYTES, before, CT_ARCH_CALL_BYTES))
		return false;
	return arch->is_after_call(before, CT_ARCH_CALL_BYTES);
}

bool ct_unwind_bad_call(struct ct_module_set *s, const struct ct_unwind_regs *cur, struct ct_unwind_regs *ret)
{
	const struct ct_arch_info *arch = s->core->arch;
	struct ct_unwind_regs next = *cur;
	if (arch->bad_call == CT_BAD_CALL_STACK) {
		uint64_t ra;
		if (!ct_core_read_word(s->core, cur->sp, &ra) || !ct_modules_is_code(s, ra))
			return false;
		next.pc = ra;
		next.sp = cur->sp + (arch->stack_slot ? arch->stack_slot : arch->pointer_size);
	} else {
		uint64_t ra = cur->ra + arch->ra_offset;
		if (arch->pc_mask)
			ra &= arch->pc_mask;
		if (!cur->has_ra || !ct_modules_is_code(s, ra))
			return false;
		next.pc = ra;
		next.has_ra = false;
	}
	*ret = next;
	return true;
}

// The ppc back chain: [sp] is the caller's sp, whose frame holds our saved return address at
// fp_saved_ra_offset (the ABI's LR save slot). Needs no frame pointer: every ppc frame has it.
static bool back_chain(struct ct_module_set *s, const struct ct_unwind_regs *cur, uint64_t stack_end,
		       struct ct_unwind_regs *ret)
{
	const struct ct_arch_info *arch = s->core->arch;
	uint64_t caller_sp, ra;
	if (!ct_core_read_word(s->core, cur->sp + arch->fp_saved_fp_offset, &caller_sp) || caller_sp <= cur->sp ||
	    caller_sp >= stack_end || !ct_core_read_word(s->core, caller_sp + arch->fp_saved_ra_offset, &ra) ||
	    !ct_unwind_is_return_address(s, ra))
		return false;
	ret->pc = ra;
	ret->sp = caller_sp;
	ret->has_fp = false;
	ret->has_ra = false;
	return true;
}

bool ct_unwind_prologue(struct ct_module_set *s, const struct ct_unwind_regs *cur, bool first_frame,
			struct ct_unwind_regs *ret)
{
	const struct ct_arch_info *arch = s->core->arch;
	if (!arch->prologue || !cur->pc)
		return false;
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, cur->pc);
	GElf_Off off;
	GElf_Sym sym;
	const char *name = mod ? dwfl_module_addrinfo(mod, cur->pc, &off, &sym, NULL, NULL, NULL) : NULL;
	if (!name || off > PROLOGUE_READ)
		return false;
	uint8_t code[PROLOGUE_READ];
	size_t len = (size_t)off;
	if (len && !ct_modules_read_code(s, cur->pc - off, code, len))
		return false;
	uint64_t frame_size;
	int64_t ra_offset;
	if (!arch->prologue(arch, code, len, &frame_size, &ra_offset))
		return false;
	uint64_t ra;
	if (ra_offset >= 0) {
		if (!ct_core_read_word(s->core, cur->sp + (uint64_t)ra_offset, &ra))
			return false;
	} else if (first_frame && cur->has_ra) {
		ra = cur->ra; // a leaf: the return address never left the link register
	} else {
		return false;
	}
	if (!ct_unwind_is_return_address(s, ra + arch->ra_offset))
		return false;
	ret->pc = ra + arch->ra_offset;
	ret->sp = cur->sp + frame_size;
	ret->has_fp = false;
	ret->has_ra = false;
	return ret->sp > cur->sp;
}

bool ct_unwind_go_pclntab(struct ct_module_set *s, const struct ct_unwind_regs *cur, bool stopped_here,
			  struct ct_unwind_regs *ret, bool *top, bool *exact)
{
	const struct ct_arch_info *arch = s->core->arch;
	struct ct_go_frame gf;
	uint64_t ra;
	*top = *exact = false;
	// Go's frames on a machine whose calls push the return address (x86): it lies just above the
	// frame pcsp gives. On a link-register machine (arm64) the prologue stores the link register
	// at the new sp: read there, unless the frame is where the thread stopped and has no size yet
	// (then it is still in the register), as gentraceback does.
	bool lr_machine = arch->bad_call == CT_BAD_CALL_LINK_REGISTER;
	if ((!lr_machine && arch->bad_call != CT_BAD_CALL_STACK) || !cur->pc || !ct_go_frame_at(s, cur->pc, &gf))
		return false;
	*top = gf.top;
	if (gf.spwrite && !stopped_here)
		return false;
	uint64_t slot = lr_machine ? cur->sp : cur->sp + gf.size;
	uint64_t caller_sp = lr_machine ? cur->sp + gf.size : slot + arch->pointer_size;
	if (slot < cur->sp || caller_sp < cur->sp)
		return false;
	if (lr_machine && stopped_here && gf.size == 0) {
		if (!cur->has_ra)
			return false;
		ra = cur->ra;
	} else if (!ct_core_read_word(s->core, slot, &ra)) {
		return false;
	}
	// Go's signal handler makes the faulting function "call" sigpanic with the faulting pc as the
	// return address (preparePanic), and the runtime starts each goroutine with goexit+1 as its
	// function's return address (gostartcallfn): code, but after no call. Above a stack's top
	// function only a real return address goes on: the signal trampoline above runtime.sigtramp,
	// runtime.clone's return above mstart; goexit's has none.
	struct ct_go_frame caller;
	// On a link-register machine Go's CFI ends at every top function (its return address column
	// undefined): there only the signal handler's return to its trampoline goes on, the walk that
	// go_top_returns_to_signal continues with symbols too.
	if (lr_machine && gf.top && !ct_unwind_is_restorer(s, ra))
		return false;
	bool ok = ct_unwind_is_return_address(s, ra) ||
		  (!gf.top && ct_modules_is_code(s, ra) &&
		   (gf.sigpanic || (ct_go_frame_at(s, ra, &caller) && caller.top)));
	if (!ok)
		return false;
	*top = false;
	*exact = gf.sigpanic;
	ret->pc = ra;
	ret->sp = caller_sp;
	// The caller's frame pointer is not known from pcsp (an assembly function may save none):
	// the next step is pclntab's again.
	ret->has_fp = false;
	ret->has_ra = false;
	if (lr_machine && gf.sigpanic && arch->go_injected_lr_slot) {
		// Go's signal handler saved the faulting function's link register below its sp before
		// it faked the call to sigpanic (preparePanic): that function's sp and link register.
		if (!ct_core_read_word(s->core, caller_sp, &ret->ra))
			return false;
		ret->has_ra = true;
		ret->sp = caller_sp + arch->go_injected_lr_slot;
	}
	return true;
}

bool ct_unwind_link_register(struct ct_module_set *s, const struct ct_unwind_regs *cur, struct ct_unwind_regs *ret)
{
	const struct ct_arch_info *arch = s->core->arch;
	if (arch->bad_call != CT_BAD_CALL_LINK_REGISTER || !cur->has_ra)
		return false;
	uint64_t ra = cur->ra + arch->ra_offset;
	if (arch->pc_mask)
		ra &= arch->pc_mask;
	if (ra == cur->pc || !ct_unwind_is_return_address(s, ra))
		return false;
	*ret = *cur;
	ret->pc = ra;
	ret->has_ra = false;
	return true;
}

bool ct_unwind_frame_pointer(struct ct_module_set *s, const struct ct_unwind_regs *cur, uint64_t stack_end,
			     struct ct_unwind_regs *ret)
{
	const struct ct_arch_info *arch = s->core->arch;
	if (arch->fp_rule == CT_FP_BACK_CHAIN)
		return back_chain(s, cur, stack_end, ret);
	if (arch->fp_rule != CT_FP_CHAIN || !cur->has_fp || cur->fp < cur->sp || cur->fp >= stack_end)
		return false;
	uint64_t saved_fp, ra;
	struct ct_unwind_mem mem = ct_unwind_core_mem(s->core);
	if (!ct_step_frame_record(&mem, cur->fp, &saved_fp, &ra))
		return false;
	if (!ct_unwind_is_return_address(s, ra))
		return false;
	ret->pc = ra;
	ret->sp = cur->fp + arch->fp_saved_ra_offset + (arch->stack_slot ? arch->stack_slot : arch->pointer_size);
	ret->fp = saved_fp;
	ret->has_fp = saved_fp > cur->fp && saved_fp < stack_end;
	ret->has_ra = false;
	return ret->sp > cur->sp;
}

// The start of the function symbol holding @p addr, 0 when it has none. Thumb symbols have bit 0
// set (arm's pc_mask clears it): addr is looked up one byte in, so a call target finds its own.
static uint64_t function_start(struct ct_module_set *s, uint64_t addr)
{
	const struct ct_arch_info *arch = s->core->arch;
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr + 1);
	GElf_Off off;
	GElf_Sym sym;
	const char *name = mod ? dwfl_module_addrinfo(mod, addr + 1, &off, &sym, NULL, NULL, NULL) : NULL;
	if (!name || name[0] == '$' || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
		return 0;
	return arch->pc_mask ? (addr + 1 - off) & arch->pc_mask : addr + 1 - off;
}

// True when the call before return address @p ra is a direct call of the function the frame is in
// (the table decodes the call: arch->call_target).
static bool calls_here(struct ct_module_set *s, const struct ct_unwind_regs *cur, uint64_t ra)
{
	const struct ct_arch_info *arch = s->core->arch;
	uint8_t before[CT_ARCH_CALL_BYTES];
	uint64_t target, here;
	if (!arch->call_target || !ct_modules_read_code(s, ra - CT_ARCH_CALL_BYTES, before, CT_ARCH_CALL_BYTES) ||
	    !arch->call_target(before, CT_ARCH_CALL_BYTES, ra, &target) || !(here = function_start(s, cur->pc)))
		return false;
	return function_start(s, target) == here;
}

// True when the call before return address @p ra can reach code that no module covers (JIT code):
// an indirect call, or a direct call of code without a function symbol (a JIT's entry stub, asm
// such as LuaJIT's lj_vm_pcall, a PLT stub). A direct call of a named function of a module cannot:
// a word after such a call, found above a JIT frame, is a leftover of a finished call (issue 21).
static bool call_reaches_jit(struct ct_module_set *s, uint64_t ra)
{
	const struct ct_arch_info *arch = s->core->arch;
	uint8_t before[CT_ARCH_CALL_BYTES];
	uint64_t target;
	if (!arch->call_target || !ct_modules_read_code(s, ra - CT_ARCH_CALL_BYTES, before, CT_ARCH_CALL_BYTES) ||
	    !arch->call_target(before, CT_ARCH_CALL_BYTES, ra, &target))
		return true;
	return function_start(s, target) == 0;
}

/** A scan's state: the frame it looks for a caller of, and what it found. */
struct scan {
	struct ct_module_set *s;
	const struct ct_unwind_regs *cur;
	struct ct_unwind_regs *ret;
	bool found;
	unsigned candidates;
	/** The frame is JIT code (its pc in no module): only calls that can reach it corroborate. */
	bool jit_callee;
};

static bool scan_word(void *arg, uint64_t slot, uint64_t v)
{
	struct scan *sc = arg;
	const struct ct_arch_info *arch = sc->s->core->arch;
	if (sc->candidates >= SCAN_PREFER)
		return true;
	if (arch->pc_mask)
		v &= arch->pc_mask;
	// The current pc again is a stale copy (the outermost thread-start frame), not a caller.
	if (v == sc->cur->pc || !ct_unwind_is_return_address(sc->s, v))
		return false;
	sc->candidates++;
	if (sc->jit_callee && !call_reaches_jit(sc->s, v))
		return false;
	// The first candidate, unless one of the next few is a direct call of this very function:
	// the nearer ones are then stale return addresses of finished calls. (A direct call of
	// another function can still be right: its callee may have tail-called this one.)
	bool here = calls_here(sc->s, sc->cur, v);
	if (sc->found && !here)
		return false;
	sc->ret->pc = v;
	sc->ret->sp = slot + arch->pointer_size;
	sc->ret->has_fp = false;
	sc->ret->has_ra = false;
	sc->found = true;
	return here || !arch->call_target;
}

bool ct_unwind_scan(struct ct_module_set *s, const struct ct_unwind_regs *cur, uint64_t stack_end,
		    struct ct_unwind_regs *ret)
{
	unsigned w = s->core->arch->pointer_size;
	uint64_t start = (cur->sp + w - 1) & ~(uint64_t)(w - 1);
	uint64_t limit = stack_end - start > SCAN_LIMIT ? start + SCAN_LIMIT : stack_end;
	// JIT code: executable memory of the process that no module covers (a garbage pc is in none).
	const struct ct_segment *seg = ct_modules_find(s, cur->pc) ? NULL : ct_core_find_segment(s->core, cur->pc);
	struct scan sc = { .s = s, .cur = cur, .ret = ret, .jit_callee = seg && (seg->flags & PF_X) };
	struct ct_unwind_mem mem = ct_unwind_core_mem(s->core);
	ct_step_scan(&mem, start, limit, scan_word, &sc);
	return sc.found;
}

// Every validated return address of the range: the last one found is the outermost.
static bool scan_below_word(void *arg, uint64_t slot, uint64_t v)
{
	struct scan *sc = arg;
	const struct ct_arch_info *arch = sc->s->core->arch;
	if (arch->pc_mask)
		v &= arch->pc_mask;
	if (ct_unwind_is_return_address(sc->s, v)) {
		sc->ret->pc = v;
		sc->ret->sp = slot + arch->pointer_size;
		sc->ret->has_ra = false;
		sc->found = true;
	}
	return false;
}

bool ct_unwind_scan_below(struct ct_module_set *s, const struct ct_unwind_regs *cur, uint64_t limit,
			  struct ct_unwind_regs *ret)
{
	unsigned w = s->core->arch->pointer_size;
	uint64_t start = (cur->sp + w - 1) & ~(uint64_t)(w - 1);
	if (limit <= start || limit - start > SCAN_LIMIT)
		return false;
	struct scan sc = { .s = s, .cur = cur, .ret = ret };
	struct ct_unwind_mem mem = ct_unwind_core_mem(s->core);
	ct_step_scan(&mem, start, limit, scan_below_word, &sc);
	return sc.found;
}
