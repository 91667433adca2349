// A CPU's kernel stack, unwound from the dump alone, through the shared steps of unwind/step.h: frame 0
// from the saved registers, then (arm64) the frame records fp points at, as arch/arm64/kernel/stacktrace.c
// follows them (trust "fp"), or (x86-64) the kernel's own ORC tables (found through kallsyms, orc.c) walk
// the frames like arch/x86/kernel/unwind_orc.c does (trust "cfi"), crossing pt_regs frames of exceptions
// and interrupts. Module text has its ORC tables in struct module, whose layout comes from the dump's BTF
// (kmodules.c); without it, a frame there is stepped over by scanning for the next validated return
// address (trust "scan"). Without ORC symbols, or when the walk fails before its first step, the whole
// stack is scanned for return addresses into kernel text, each validated by a call instruction just before
// it (trust "scan"). What is kernel-specific stays here: which stack, what counts as a return address
// (kernel and module text), kallsyms names, the frames of the stacks stage (struct ct_thread, text pooled in the
// caller's string pool).
#include <inttypes.h>

#include "arch/arch.h"
#include "kernel/orc.h"
#include "kernel/vmcore.h"
#include "unwind/step.h"

// The stack scanned: THREAD_SIZE of the arch table, at most this.
#define MAX_STACK_SIZE (32u * 1024)
// Frames reported per CPU: a 16 KiB stack has at most 2048 words.
#define MAX_SCAN_FRAMES 256
// Stack switches a walk may make (exception/IRQ stack back to the task stack, overflow stack).
#define MAX_STACK_SWITCHES 4

static uint64_t stack_size(const struct ct_vmcore *vm)
{
	uint64_t n = vm->arch->kernel_stack_size ? vm->arch->kernel_stack_size : 16u * 1024;
	return n < MAX_STACK_SIZE ? n : MAX_STACK_SIZE;
}

// Module text has no kallsyms entry in the core tables, but a validated return address there counts.
static bool in_modules(const struct ct_vmcore *vm, uint64_t a)
{
	return ct_arch_in_kernel_modules(vm->arch, a);
}

static void fill_frame(const struct ct_kallsyms *ks, struct ct_strpool *strings, struct ct_frame *f, uint64_t pc,
		       uint64_t lookup)
{
	f->pc = pc;
	struct ct_ksym core;
	const struct ct_ksym *s = ct_kallsyms_lookup(ks, lookup, &core) ? &core : NULL;
	const char *module = "vmlinux";
	if (!s) {
		// Module text: the module's own symbol table (struct module kallsyms, known through BTF).
		const struct ct_kmodule *m = ct_kmodules_find(ks->modules, lookup);
		if (m) {
			module = m->name;
			s = ct_kmodule_lookup(m, lookup);
			if (!s)
				f->module = ct_strpool_intern(strings, module);
		}
	}
	if (s) {
		f->function = ct_strpool_intern(strings, s->name);
		f->offset = pc - s->address;
		f->module = ct_strpool_intern(strings, module);
	}
}

static bool after_call(struct ct_vmcore *vm, uint64_t ret_addr)
{
	uint8_t before[CT_ARCH_CALL_BYTES];
	if (!vm->arch->is_after_call || !ct_vmcore_try_read(vm, ret_addr - sizeof(before), before, sizeof(before)))
		return false;
	return vm->arch->is_after_call(before, sizeof(before));
}

// A direct call (e8 rel32) just before @p ret_addr that calls @p target.
static bool calls_target(struct ct_vmcore *vm, uint64_t ret_addr, uint64_t target)
{
	uint8_t b[5];
	if (!ct_vmcore_try_read(vm, ret_addr - 5, b, sizeof(b)) || b[0] != 0xe8)
		return false;
	int32_t rel = (int32_t)((uint32_t)b[1] | (uint32_t)b[2] << 8 | (uint32_t)b[3] << 16 | (uint32_t)b[4] << 24);
	return ret_addr + (uint64_t)(int64_t)rel == target;
}

/** What a kernel walk shares with its callbacks. */
struct kwalk {
	struct ct_vmcore *vm;
	struct ct_unwind_mem mem;
	const struct ct_kallsyms *ks;
	struct ct_strpool *strings;
	struct ct_thread *thread;
	size_t limit;
	/** The ORC walk: its state, tables, frames it found by ORC (not by scanning). */
	struct ct_orc_state orc;
	struct ct_orc *tables;
	size_t cfi;
	/** The frame-record walk: the record the next step reads and the one after it. */
	uint64_t fp, next_fp;
	/** The scan: a direct call to this function required (0: any call), and what it found. */
	uint64_t target, slot, value;
	bool capped;
};

/** A validated return address into kernel or module text (with target: after a call to it). */
static bool is_return(struct kwalk *w, uint64_t v)
{
	if (!ct_kallsyms_is_text(w->ks, v) && !in_modules(w->vm, v))
		return false;
	return w->target ? calls_target(w->vm, v, w->target) : after_call(w->vm, v);
}

static bool first_return(void *arg, uint64_t slot, uint64_t value)
{
	struct kwalk *w = arg;
	if (!is_return(w, value))
		return false;
	w->slot = slot;
	w->value = value;
	return true;
}

// For a frame without ORC data (module text): the first validated return address at or above sp,
// at most 4 KiB up; with @p target, one that follows a direct call to @p target. Sets the slot.
static bool scan_next(struct kwalk *w, uint64_t sp, uint64_t target)
{
	uint64_t a = (sp + 7) & ~7ull;
	w->target = target;
	bool found = ct_step_scan(&w->mem, a, a + 4096, first_return, w) == CT_SCAN_STOPPED;
	w->target = 0;
	return found;
}

static bool orc_find(void *arg, uint64_t ip, struct ct_orc_entry *ret)
{
	struct kwalk *w = arg;
	return ct_orc_find(w->vm, w->tables, ip, ret);
}

// bp lost in a scanned frame: the return address must follow a direct call to this very function
// (a stale return address of an earlier call, panic's _printk, lies below the real one).
static bool orc_return_slot(void *arg, uint64_t sp, uint64_t ip, uint64_t *slot)
{
	struct kwalk *w = arg;
	struct ct_ksym fn;
	if (!ct_kallsyms_lookup(w->ks, ip, &fn) || !scan_next(w, sp, fn.address))
		return false;
	*slot = w->slot;
	return true;
}

// One step of the x86-64 kernel walk: ORC, or a scan over a frame without ORC data (module text).
static enum ct_step_result korc_step(void *arg, struct ct_unwind_frame *f, enum ct_stop_reason *why)
{
	struct kwalk *w = arg;
	struct ct_orc_state *st = &w->orc;
	const struct ct_orc_ops ops = { .find = orc_find, .return_slot = orc_return_slot, .arg = w };
	enum ct_trust trust = CT_TRUST_CFI;
	enum ct_step_result r = ct_step_orc(&w->mem, &ops, st, why);
	if (r == CT_STEP_OK && st->recovered)
		trust = CT_TRUST_SCAN;
	if (r == CT_STEP_NO_DATA) {
		if (!scan_next(w, st->sp, 0)) {
			*why = CT_STOP_SCAN_NO_RETURN;
			return CT_STEP_FAIL;
		}
		st->ip = w->value;
		st->sp = w->slot + 8;
		st->signal = false;
		st->regs.kind = st->prev_regs.kind = CT_ORC_REGS_NONE;
		st->bp_valid = false;
		trust = CT_TRUST_SCAN;
		r = CT_STEP_OK;
	}
	if (r != CT_STEP_OK)
		return r;
	if (st->ip == 0) {
		*why = CT_STOP_RETURN_ADDRESS_ZERO;
		return CT_STEP_END;
	}
	if (!ct_arch_is_kernel_address(w->vm->arch, st->sp)) {
		*why = CT_STOP_SP_LEFT_KERNEL;
		return CT_STEP_FAIL;
	}
	*f = (struct ct_unwind_frame){ .pc = st->ip, .sp = st->sp, .has_sp = true, .exact = st->signal,
				       .trust = trust, .cfa = st->sp, .resume = st->sp };
	return CT_STEP_OK;
}

// arm64 frame records (arch/arm64/kernel/stacktrace.c unwind_next()): fp points at {the caller's
// fp, the return address}. The chain crosses exception entries (pt_regs->stackframe holds the
// interrupted pc) and ends at the final record {0, 0} of the task's pt_regs.
static enum ct_step_result kfp_step(void *arg, struct ct_unwind_frame *f, enum ct_stop_reason *why)
{
	struct kwalk *w = arg;
	const struct ct_arch_info *arch = w->vm->arch;
	uint64_t ra;
	if (w->fp == 0) {
		*why = CT_STOP_FINAL_FRAME_RECORD;
		return CT_STEP_END;
	}
	if (w->fp & 7 || !ct_arch_is_kernel_address(arch, w->fp)) {
		*why = CT_STOP_FP_NOT_KERNEL_STACK;
		return CT_STEP_FAIL;
	}
	if (!ct_step_frame_record(&w->mem, w->fp, &w->next_fp, &ra)) {
		*why = CT_STOP_FP_NO_RECORD;
		return CT_STEP_FAIL;
	}
	ra = ct_arch_kernel_strip_ra(arch, ra);
	*f = (struct ct_unwind_frame){ .pc = ra, .trust = CT_TRUST_FRAME_POINTER, .cfa = w->next_fp, .resume = w->fp };
	if (ra == 0) {
		*why = CT_STOP_FINAL_FRAME_RECORD;
		return CT_STEP_LAST;
	}
	return CT_STEP_OK;
}

static bool kemit(void *arg, const struct ct_unwind_frame *uf)
{
	struct kwalk *w = arg;
	struct ct_frame *f = ct_thread_add_frame(w->thread);
	if (!f)
		return false;
	// A return address is looked up at pc - 1 (a call at the end of a function returns into the next).
	fill_frame(w->ks, w->strings, f, uf->pc, uf->exact ? uf->pc : uf->pc - 1);
	f->trust = uf->trust;
	f->has_sp = uf->has_sp;
	f->sp = uf->sp;
	if (uf->trust == CT_TRUST_CFI)
		w->cfi++;
	w->fp = w->next_fp;
	return true;
}

// The walk's stop, with what the reason's words do not say (the cap, the place of a failure).
static struct ct_stop walk_stop(const struct kwalk *w, const struct ct_unwind_end *end, bool fp_walk)
{
	if (end->reason == CT_STOP_FRAME_CAP)
		return ct_stop_make(CT_STOP_FRAME_CAP, w->limit ? CT_STOP_DETAIL_CAP : CT_STOP_DETAIL_NONE, w->limit);
	if (!end->failed)
		return ct_stop_make(end->reason, CT_STOP_DETAIL_NONE, 0);
	return fp_walk ? ct_stop_make(end->reason, CT_STOP_DETAIL_AT_FP, w->fp)
		       : ct_stop_make(end->reason, CT_STOP_DETAIL_AT_PC, w->orc.ip);
}

// Walks the stack after frame 0 with ORC (x86-64) or frame records (arm64). Returns the frames added
// (0 after a failure of ORC before its first ORC frame: nothing usable, the caller scans instead);
// *failed when frames may be missing, *stop_sp where a scan of the rest would start.
static size_t walk(struct kwalk *w, const struct ct_core_thread *cpu, bool *failed, uint64_t *stop_sp)
{
	const struct ct_arch_info *arch = w->vm->arch;
	bool fp_walk = arch->kernel_unwind == CT_KUNWIND_FP;
	uint64_t sp = ct_thread_reg(arch, cpu, arch->sp_dwarf);
	struct ct_unwind_loop l = {
		.frames = w->thread->num_frames,
		.max_frames = w->limit,
		.policy = { .stack_size = stack_size(w->vm), .max_switches = MAX_STACK_SWITCHES },
		.not_outward = fp_walk ? CT_STOP_FP_NOT_OUTWARD : CT_STOP_ORC_NOT_OUTWARD,
		.too_many_switches = fp_walk ? CT_STOP_FP_TOO_MANY_SWITCHES : CT_STOP_ORC_TOO_MANY_SWITCHES,
		.step = fp_walk ? kfp_step : korc_step,
		.emit = kemit,
		.arg = w,
	};
	w->orc = (struct ct_orc_state){ .ip = cpu->values[arch->pc_index],
					.sp = sp,
					.bp = ct_thread_reg(arch, cpu, arch->fp_dwarf),
					.signal = !cpu->pc_is_return,
					.regs = { CT_ORC_REGS_SAVED, 0 },
					.full_regs = true,
					.bp_valid = true,
					.saved = cpu->values,
					.num_saved = CT_THREAD_MAX_VALUES };
	w->fp = w->next_fp = ct_thread_reg(arch, cpu, arch->fp_dwarf);
	struct ct_unwind_end end;
	ct_unwind_loop_run(&l, fp_walk ? w->fp : sp, sp, &end);
	if (end.truncated)
		w->thread->truncated = true;
	if (end.reason != CT_STOP_NONE)
		w->thread->stop = walk_stop(w, &end, fp_walk);
	*failed = end.failed;
	*stop_sp = end.resume;
	if (end.failed && !fp_walk && !w->cfi)
		return 0;
	return end.added;
}

static bool scan_frame(void *arg, uint64_t slot, uint64_t value)
{
	struct kwalk *w = arg;
	if (!ct_kallsyms_is_text(w->ks, value) && !in_modules(w->vm, value))
		return false;
	if (!after_call(w->vm, value))
		return false;
	if (w->thread->num_frames >= w->limit) {
		w->thread->truncated = true;
		w->thread->stop =
			ct_stop_make(CT_STOP_FRAME_CAP, w->limit ? CT_STOP_DETAIL_CAP : CT_STOP_DETAIL_NONE, w->limit);
		w->capped = true;
		return true;
	}
	struct ct_frame *f = ct_thread_add_frame(w->thread);
	if (!f) {
		w->capped = true;
		return true;
	}
	// Look up pc - 1: a call at the very end of a function returns into the next one.
	fill_frame(w->ks, w->strings, f, value, value - 1);
	f->trust = CT_TRUST_SCAN;
	f->has_sp = true;
	f->sp = slot;
	return false;
}

// Bytes of the stack from @p sp up to @p top that are in the dump, read page by page so a stack
// whose upper pages are missing still gives its lower frames.
static size_t readable_bytes(struct ct_vmcore *vm, uint64_t sp, uint64_t top)
{
	uint8_t page[4096];
	size_t have = 0;
	for (uint64_t a = sp; a < top;) {
		uint64_t page_end = (a | 4095) + 1, n = (page_end < top ? page_end : top) - a;
		if (!ct_vmcore_try_read(vm, a, page, n))
			break;
		have += n;
		a += n;
	}
	return have;
}

void ct_kstack_unwind(struct ct_vmcore *vm, const struct ct_kallsyms *ks, const struct ct_core_thread *cpu,
		      struct ct_strpool *strings, struct ct_thread *thread, size_t max_frames)
{
	const struct ct_arch_info *arch = vm->arch;
	uint64_t pc = cpu->values[arch->pc_index], sp = ct_thread_reg(arch, cpu, arch->sp_dwarf), size = stack_size(vm);
	if (max_frames == 0)
		return;
	struct ct_frame *f = ct_thread_add_frame(thread);
	if (!f)
		return;
	fill_frame(ks, strings, f, pc, cpu->pc_is_return ? pc - 1 : pc);
	f->trust = CT_TRUST_CONTEXT;
	f->has_sp = true;
	f->sp = sp;
	// User-mode registers (an idle CPU in a QEMU dump can be in user space): no kernel stack to scan.
	if (!ct_arch_is_kernel_address(arch, sp)) {
		thread->stop = ct_stop_make(CT_STOP_SP_NOT_KERNEL, CT_STOP_DETAIL_NONE, 0);
		return;
	}
	if (arch->kernel_unwind == CT_KUNWIND_NONE) {
		thread->stop = (struct ct_stop){ .reason = CT_STOP_KERNEL_ARCH,
						 .detail = CT_STOP_DETAIL_TEXT,
						 .text = ct_strpool_intern(strings, arch->name) };
		return;
	}
	uint64_t top = (sp | (size - 1)) + 1;
	size_t have = readable_bytes(vm, sp, top);
	if (have < 8) {
		thread->truncated = true;
		thread->stop = ct_stop_make(CT_STOP_STACK_NOT_IN_DUMP, CT_STOP_DETAIL_ADDRESS, sp);
		return;
	}
	struct kwalk w = { .vm = vm,
			   .mem = ct_vmcore_mem(vm),
			   .ks = ks,
			   .strings = strings,
			   .thread = thread,
			   .limit = max_frames < MAX_SCAN_FRAMES ? max_frames : MAX_SCAN_FRAMES };
	thread->has_stack = true;
	thread->stack_start = top - size;
	thread->stack_end = top;
	struct ct_orc own;
	w.tables = ks->orc;
	if (arch->kernel_unwind == CT_KUNWIND_ORC && !w.tables && ct_orc_init(vm, ks, &own))
		w.tables = &own;
	uint64_t scan_from = sp;
	if (arch->kernel_unwind == CT_KUNWIND_FP || w.tables) {
		size_t first = thread->num_frames;
		bool failed;
		uint64_t stop_sp = sp;
		size_t added = walk(&w, cpu, &failed, &stop_sp);
		if (added && !failed)
			return;
		if (!added) {
			thread->num_frames = first; // nothing usable: the plain scan below
			thread->truncated = false;
		} else if (stop_sp > sp && stop_sp < top) {
			// Failed mid-walk: scan the rest of the stack above where it stopped.
			scan_from = stop_sp;
		} else {
			return;
		}
	}
	// The walk's own reason when it failed mid-stack; the scan's end follows it.
	struct ct_stop walked = scan_from != sp ? thread->stop : (struct ct_stop){ .reason = CT_STOP_NONE };
	// Scan from sp (plus its misalignment) upward, word by word.
	ct_step_scan(&w.mem, scan_from + ((8 - (sp & 7)) & 7), sp + have, scan_frame, &w);
	if (w.capped)
		return;
	if (walked.reason != CT_STOP_NONE) {
		walked.then = CT_STOP_SCAN_END;
		walked.then_bytes = have;
		thread->stop = walked;
	} else {
		thread->stop = ct_stop_make(CT_STOP_SCAN_END, CT_STOP_DETAIL_BYTES, have);
	}
}
