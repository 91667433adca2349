// A CPU's kernel stack, unwound from the dump alone: frame 0 from the saved registers, then (arm64)
// the frame records fp points at, as arch/arm64/kernel/stacktrace.c follows them (trust "fp"), or (x86-64)
// the kernel's own ORC tables (read from the dump through kallsyms, orc.c) walk the frames like
// arch/x86/kernel/unwind_orc.c does (trust "cfi"), crossing pt_regs frames of exceptions and interrupts.
// Module text has its ORC tables in struct module, whose layout comes from the dump's BTF (kmodules.c);
// without it, a frame there is stepped over by scanning for the next validated return address (trust "scan"). Without ORC symbols,
// or when the walk fails before its first step, the whole stack is scanned for return addresses into
// kernel text, each validated by a call instruction just before it (trust "scan"), as before.
#include <inttypes.h>
#include <string.h>

#include "arch/arch.h"
#include "kernel/orc.h"
#include "kernel/vmcore.h"
#include "util/bytes.h"

// The stack read for the scan: THREAD_SIZE of the arch table, at most this (the buffer is on the C stack).
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

static void fill_frame(const struct ct_kallsyms *ks, struct ct_report *r, struct ct_frame *f, uint64_t pc,
		       uint64_t lookup)
{
	f->pc = pc;
	const struct ct_ksym *s = ct_kallsyms_lookup(ks, lookup);
	const char *module = "vmlinux";
	if (!s) {
		// Module text: the module's own symbol table (struct module kallsyms, known through BTF).
		const struct ct_kmodule *m = ct_kmodules_find(ks->modules, lookup);
		if (m) {
			module = m->name;
			s = ct_kmodule_lookup(m, lookup);
			if (!s)
				f->module = ct_report_strdup(r, module);
		}
	}
	if (s) {
		f->function = ct_report_strdup(r, s->name);
		f->offset = pc - s->address;
		f->module = ct_report_strdup(r, module);
	}
}

// True (and the thread marked cut) when @p thread already has @p limit frames.
static bool at_frame_cap(struct ct_report *report, struct ct_thread *thread, size_t limit)
{
	if (thread->num_frames < limit)
		return false;
	thread->truncated = true;
	thread->stop_reason = ct_report_printf(report, "frame cap %zu reached", limit);
	return true;
}

static bool after_call(struct ct_vmcore *vm, uint64_t ret_addr)
{
	uint8_t before[CT_ARCH_CALL_BYTES];
	if (!vm->arch->is_after_call || !ct_vmcore_try_read(vm, ret_addr - sizeof(before), before, sizeof(before)))
		return false;
	return vm->arch->is_after_call(before, sizeof(before));
}

static bool read_u64(struct ct_vmcore *vm, uint64_t addr, uint64_t *ret)
{
	uint8_t b[8];
	if (!ct_vmcore_try_read(vm, addr, b, sizeof(b)))
		return false;
	struct ct_bytes bb = { .data = b, .size = sizeof(b) };
	bb.big_endian = vm->arch->big_endian;
	*ret = ct_bytes_uint_or0(&bb, 0, 8);
	return true;
}

// pt_regs (== user_regs_struct up to ss) word indexes used by the ORC walk.
enum { PT_R13 = 2, PT_BP = 4, PT_R10 = 7, PT_DX = 12, PT_DI = 14, PT_IP = 16, PT_CS = 17, PT_SP = 19 };
// The iret frame (ip, cs, flags, sp, ss) is the tail of pt_regs: regs = iret frame - IRET_FRAME_OFFSET.
#define IRET_FRAME_OFFSET (PT_IP * 8)

// Where the registers of the current frame are known: the dump's saved registers, or a pt_regs on the stack.
struct regs_ref {
	enum { REGS_NONE, REGS_CPU, REGS_STACK } kind;
	uint64_t addr;
};

struct orc_state {
	uint64_t ip, sp, bp;
	bool signal; // ip was interrupted (not a return address): look it up as is, not ip - 1
	struct regs_ref regs, prev_regs;
	bool full_regs;
	bool bp_valid; // false after a scanned frame: the module code may have changed bp unseen
	bool recovered; // this step found bp by scanning (the frame is trust scan)
};

static bool regs_get(struct ct_vmcore *vm, const struct ct_cpu_state *cpu, struct regs_ref r, int idx, uint64_t *ret)
{
	if (r.kind == REGS_CPU) {
		// pt_regs word idx is the register at that offset of NT_PRSTATUS pr_reg (the same struct).
		int i = ct_arch_reg_at_offset(vm->arch, 8u * (unsigned)idx);
		if (i < 0 || i >= CT_KERNEL_MAX_REGS)
			return false;
		*ret = cpu->regs[i];
		return true;
	}
	return r.kind == REGS_STACK && read_u64(vm, r.addr + 8u * (unsigned)idx, ret);
}

// unwind_orc.c get_reg(): full pt_regs, else the full ones a partial frame interrupted.
static bool get_reg(struct ct_vmcore *vm, const struct ct_cpu_state *cpu, const struct orc_state *st, int idx,
		    uint64_t *ret)
{
	if (st->regs.kind == REGS_NONE)
		return false;
	if (st->full_regs)
		return regs_get(vm, cpu, st->regs, idx, ret);
	return regs_get(vm, cpu, st->prev_regs, idx, ret);
}

enum step_result { STEP_OK, STEP_END, STEP_NO_ORC, STEP_FAIL };

static bool scan_next(struct ct_vmcore *vm, const struct ct_kallsyms *ks, uint64_t sp, uint64_t target,
		      uint64_t *slot, uint64_t *ret);

// One step of unwind_orc.c unwind_next_frame() (Linux 6.1). On STEP_END/STEP_FAIL *why says why.
static enum step_result orc_step(struct ct_vmcore *vm, const struct ct_kallsyms *ks, const struct ct_orc *orc,
				 const struct ct_cpu_state *cpu, struct orc_state *st, const char **why)
{
	struct ct_orc_entry e;
	st->recovered = false;
	if (!ct_orc_find(vm, orc, st->signal ? st->ip : st->ip - 1, &e))
		return STEP_NO_ORC;
	if (e.sp_reg == CT_ORC_REG_UNDEFINED) {
		*why = e.end ? "end of stack (ORC end marker)" : "ORC entry with an undefined stack pointer";
		return e.end ? STEP_END : STEP_FAIL;
	}
	uint64_t sp, tmp;
	bool indirect = false;
	switch (e.sp_reg) {
	case CT_ORC_REG_SP:
		sp = st->sp + (uint64_t)(int64_t)e.sp_offset;
		break;
	case CT_ORC_REG_BP:
		if (!st->bp_valid) {
			// bp was lost in a frame stepped over by scanning: take the first validated return
			// address above sp as this frame's (CFA - 8), which gives bp = CFA - sp_offset.
			// The candidate must follow a direct call to this very function: a stale return address
			// of an earlier call (panic's _printk) lies below the real one.
			const struct ct_ksym *fn = ct_kallsyms_lookup(ks, st->signal ? st->ip : st->ip - 1);
			uint64_t slot, w;
			if (!fn || !scan_next(vm, ks, st->sp, fn->address, &slot, &w)) {
				*why = "ORC: frame needs bp, lost in a scanned frame";
				return STEP_FAIL;
			}
			st->bp = slot + 8 - (uint64_t)(int64_t)e.sp_offset;
			st->recovered = true;
		}
		sp = st->bp + (uint64_t)(int64_t)e.sp_offset;
		break;
	case CT_ORC_REG_SP_INDIRECT:
		sp = st->sp;
		indirect = true;
		break;
	case CT_ORC_REG_BP_INDIRECT:
		if (!st->bp_valid) {
			*why = "ORC: frame needs bp, lost in a scanned frame";
			return STEP_FAIL;
		}
		sp = st->bp + (uint64_t)(int64_t)e.sp_offset;
		indirect = true;
		break;
	case CT_ORC_REG_R10:
	case CT_ORC_REG_R13:
	case CT_ORC_REG_DI:
	case CT_ORC_REG_DX: {
		int idx = e.sp_reg == CT_ORC_REG_R10 ? PT_R10
			  : e.sp_reg == CT_ORC_REG_R13 ? PT_R13
			  : e.sp_reg == CT_ORC_REG_DI ? PT_DI
						       : PT_DX;
		if (!get_reg(vm, cpu, st, idx, &sp)) {
			*why = "ORC: the stack pointer is in a register not saved here";
			return STEP_FAIL;
		}
		break;
	}
	default:
		*why = "ORC: unknown stack pointer register";
		return STEP_FAIL;
	}
	if (indirect) {
		if (!read_u64(vm, sp, &sp)) {
			*why = "ORC: indirect stack pointer not in the dump";
			return STEP_FAIL;
		}
		if (e.sp_reg == CT_ORC_REG_SP_INDIRECT)
			sp += (uint64_t)(int64_t)e.sp_offset;
	}
	uint64_t ip, new_sp;
	switch (e.type) {
	case CT_ORC_TYPE_CALL:
		if (!read_u64(vm, sp - 8, &ip)) {
			*why = "ORC: return address not in the dump";
			return STEP_FAIL;
		}
		new_sp = sp;
		st->regs.kind = REGS_NONE;
		st->prev_regs.kind = REGS_NONE;
		st->signal = false;
		break;
	case CT_ORC_TYPE_REGS: {
		uint64_t cs;
		if (!read_u64(vm, sp + 8 * PT_IP, &ip) || !read_u64(vm, sp + 8 * PT_SP, &new_sp) ||
		    !read_u64(vm, sp + 8 * PT_CS, &cs)) {
			*why = "ORC: pt_regs not in the dump";
			return STEP_FAIL;
		}
		if (cs & 3) {
			*why = "reached the user-mode registers of the kernel entry";
			return STEP_END;
		}
		st->regs = (struct regs_ref){ REGS_STACK, sp };
		st->prev_regs.kind = REGS_NONE;
		st->full_regs = true;
		st->signal = true;
		break;
	}
	case CT_ORC_TYPE_REGS_PARTIAL: {
		uint64_t cs;
		if (!read_u64(vm, sp, &ip) || !read_u64(vm, sp + 8, &cs) || !read_u64(vm, sp + 24, &new_sp)) {
			*why = "ORC: iret frame not in the dump";
			return STEP_FAIL;
		}
		if (cs & 3) {
			*why = "reached the user-mode registers of the kernel entry";
			return STEP_END;
		}
		if (st->full_regs)
			st->prev_regs = st->regs;
		else
			st->prev_regs.kind = REGS_NONE;
		st->regs = (struct regs_ref){ REGS_STACK, sp - IRET_FRAME_OFFSET };
		st->full_regs = false;
		st->signal = true;
		break;
	}
	default:
		*why = "ORC: unknown entry type";
		return STEP_FAIL;
	}
	switch (e.bp_reg) {
	case CT_ORC_REG_UNDEFINED:
		if (get_reg(vm, cpu, st, PT_BP, &tmp)) {
			st->bp = tmp;
			st->bp_valid = true;
		}
		break;
	case CT_ORC_REG_PREV_SP:
		if (!read_u64(vm, sp + (uint64_t)(int64_t)e.bp_offset, &st->bp)) {
			*why = "ORC: saved bp not in the dump";
			return STEP_FAIL;
		}
		st->bp_valid = true;
		break;
	case CT_ORC_REG_BP:
		if (!st->bp_valid || !read_u64(vm, st->bp + (uint64_t)(int64_t)e.bp_offset, &st->bp)) {
			*why = "ORC: saved bp not in the dump";
			return STEP_FAIL;
		}
		break;
	default:
		break;
	}
	if (e.type == CT_ORC_TYPE_REGS)
		st->bp_valid = true; // full pt_regs: get_reg() above restored it
	st->ip = ip;
	st->sp = new_sp;
	return STEP_OK;
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

// For a frame without ORC data (module text): the first validated return address at or above sp,
// at most 4 KiB up; with @p target, one that follows a direct call to @p target. Sets the slot address.
static bool scan_next(struct ct_vmcore *vm, const struct ct_kallsyms *ks, uint64_t sp, uint64_t target,
		      uint64_t *slot, uint64_t *ret)
{
	uint64_t a = (sp + 7) & ~7ull, end = a + 4096;
	uint8_t buf[512];
	while (a < end) {
		uint64_t n = sizeof(buf);
		uint64_t page_end = (a | 4095) + 1;
		if (a + n > page_end)
			n = page_end - a;
		if (!ct_vmcore_try_read(vm, a, buf, n))
			return false;
		struct ct_bytes b = { .data = buf, .size = n };
		for (uint64_t off = 0; off + 8 <= n; off += 8) {
			uint64_t w = ct_bytes_uint_or0(&b, off, 8);
			if ((ct_kallsyms_is_text(ks, w) || in_modules(vm, w)) &&
			    (target ? calls_target(vm, w, target) : after_call(vm, w))) {
				*slot = a + off;
				*ret = w;
				return true;
			}
		}
		a += n;
	}
	return false;
}

// Walks the stack with ORC after frame 0. Returns the number of frames added (0: nothing usable, the
// caller falls back to the full scan). *stop_sp is where the walk stopped, for a scan of the rest.
static size_t orc_walk(struct ct_vmcore *vm, const struct ct_kallsyms *ks, const struct ct_orc *orc,
		       const struct ct_cpu_state *cpu, struct ct_report *report, struct ct_thread *thread, size_t limit,
		       bool *failed, uint64_t *stop_sp)
{
	const struct ct_arch_info *arch = vm->arch;
	struct orc_state st = { .ip = ct_cpu_pc(arch, cpu),
				.sp = ct_cpu_reg(arch, cpu, arch->sp_dwarf),
				.bp = ct_cpu_reg(arch, cpu, arch->fp_dwarf),
				.signal = !cpu->pc_is_return,
				.regs = { REGS_CPU, 0 },
				.full_regs = true,
				.bp_valid = true };
	size_t added = 0, cfi = 0, stack_switches = 0;
	const char *why = NULL;
	*failed = false;
	for (;;) {
		*stop_sp = st.sp;
		if (at_frame_cap(report, thread, limit))
			return added;
		uint64_t prev_sp = st.sp;
		enum ct_trust trust = CT_TRUST_CFI;
		enum step_result r = orc_step(vm, ks, orc, cpu, &st, &why);
		if (r == STEP_OK && st.recovered)
			trust = CT_TRUST_SCAN;
		if (r == STEP_NO_ORC) {
			// Module text (or an ip outside the tables): step to the next validated return address.
			uint64_t slot, w;
			if (!scan_next(vm, ks, st.sp, 0, &slot, &w)) {
				why = "no return address found above a frame without ORC data";
				r = STEP_FAIL;
			} else {
				st.ip = w;
				st.sp = slot + 8;
				st.signal = false;
				st.regs.kind = st.prev_regs.kind = REGS_NONE;
				st.bp_valid = false;
				trust = CT_TRUST_SCAN;
				r = STEP_OK;
			}
		}
		if (r == STEP_END) {
			thread->stop_reason = ct_report_strdup(report, why);
			return added;
		}
		if (r == STEP_OK && (st.ip == 0 || !ct_arch_is_kernel_address(arch, st.sp))) {
			why = st.ip == 0 ? "end of stack (return address 0)" : "stack pointer left kernel memory";
			r = st.ip == 0 ? STEP_END : STEP_FAIL;
			if (r == STEP_END) {
				thread->stop_reason = ct_report_strdup(report, why);
				return added;
			}
		}
		if (r == STEP_OK) {
			// The stack must grow outward; a switch to another stack (IRQ/exception stack back to the
			// task stack) is allowed a few times.
			uint64_t size = stack_size(vm);
			bool same_stack = (st.sp & ~(size - 1)) == (prev_sp & ~(size - 1));
			if (same_stack && st.sp <= prev_sp) {
				why = "ORC: the stack pointer did not move outward";
				r = STEP_FAIL;
			} else if (!same_stack && ++stack_switches > MAX_STACK_SWITCHES) {
				why = "ORC: too many stack switches";
				r = STEP_FAIL;
			}
		}
		if (r == STEP_FAIL) {
			*failed = true;
			thread->stop_reason = ct_report_printf(report, "%s at 0x%016" PRIx64, why, st.ip);
			return cfi ? added : 0;
		}
		struct ct_frame *f = ct_thread_add_frame(thread);
		if (!f)
			return added;
		// A return address is looked up at pc - 1 (a call at the end of a function returns into the next).
		fill_frame(ks, report, f, st.ip, st.signal ? st.ip : st.ip - 1);
		f->trust = trust;
		f->has_sp = true;
		f->sp = st.sp;
		added++;
		if (trust == CT_TRUST_CFI)
			cfi++;
	}
}

// arm64 frame records (arch/arm64/kernel/stacktrace.c unwind_next()): fp points at {the caller's
// fp, the return address}. The chain crosses exception entries (pt_regs->stackframe holds the
// interrupted pc) and ends at the final record {0, 0} of the task's pt_regs. Returns the frames added
// (0 with *failed: nothing usable, the caller scans); *stop_sp is the last good record, for a scan above it.
static size_t fp_walk(struct ct_vmcore *vm, const struct ct_kallsyms *ks, const struct ct_cpu_state *cpu,
		      struct ct_report *report, struct ct_thread *thread, size_t limit, bool *failed, uint64_t *stop_sp)
{
	const struct ct_arch_info *arch = vm->arch;
	uint64_t fp = ct_cpu_reg(arch, cpu, arch->fp_dwarf), size = stack_size(vm);
	size_t added = 0, switches = 0;
	const char *why = NULL;
	*failed = false;
	for (;;) {
		if (at_frame_cap(report, thread, limit))
			return added;
		if (fp == 0) {
			thread->stop_reason = ct_report_strdup(report, "end of stack (final frame record)");
			return added;
		}
		uint64_t next, ra;
		if (fp & 7 || !ct_arch_is_kernel_address(arch, fp))
			why = "frame pointer is not a kernel stack address";
		else if (!read_u64(vm, fp + (uint64_t)(int64_t)arch->fp_saved_fp_offset, &next) ||
			 !read_u64(vm, fp + (uint64_t)(int64_t)arch->fp_saved_ra_offset, &ra))
			why = "frame record not in the dump";
		else if (next && (next & ~(size - 1)) == (fp & ~(size - 1)) && next <= fp)
			why = "frame pointer did not move outward";
		else if (next && (next & ~(size - 1)) != (fp & ~(size - 1)) && ++switches > MAX_STACK_SWITCHES)
			why = "too many stack switches";
		if (why) {
			*failed = true;
			thread->stop_reason = ct_report_printf(report, "%s at fp 0x%016" PRIx64, why, fp);
			return added;
		}
		ra = ct_arch_kernel_strip_ra(arch, ra);
		if (ra == 0) {
			thread->stop_reason = ct_report_strdup(report, "end of stack (final frame record)");
			return added;
		}
		struct ct_frame *f = ct_thread_add_frame(thread);
		if (!f)
			return added;
		fill_frame(ks, report, f, ra, ra - 1);
		f->trust = CT_TRUST_FRAME_POINTER;
		*stop_sp = fp;
		added++;
		fp = next;
	}
}

void ct_kstack_unwind(struct ct_vmcore *vm, const struct ct_kallsyms *ks, const struct ct_cpu_state *cpu,
		      struct ct_report *report, struct ct_thread *thread, size_t max_frames)
{
	const struct ct_arch_info *arch = vm->arch;
	uint64_t pc = ct_cpu_pc(arch, cpu), sp = ct_cpu_reg(arch, cpu, arch->sp_dwarf), size = stack_size(vm);
	if (max_frames == 0)
		return;
	struct ct_frame *f = ct_thread_add_frame(thread);
	if (!f)
		return;
	fill_frame(ks, report, f, pc, cpu->pc_is_return ? pc - 1 : pc);
	f->trust = CT_TRUST_CONTEXT;
	f->has_sp = true;
	f->sp = sp;
	// User-mode registers (an idle CPU in a QEMU dump can be in user space): no kernel stack to scan.
	if (!ct_arch_is_kernel_address(arch, sp)) {
		thread->stop_reason = ct_report_strdup(report, "stack pointer is not a kernel address");
		return;
	}
	if (arch->kernel_unwind == CT_KUNWIND_NONE) {
		thread->stop_reason = ct_report_printf(report, "kernel stacks of %s are not unwound", arch->name);
		return;
	}
	uint64_t top = (sp | (size - 1)) + 1;
	uint8_t stack[MAX_STACK_SIZE];
	size_t have = 0;
	// Read page by page so a stack whose upper pages are missing still gives its lower frames.
	for (uint64_t a = sp; a < top;) {
		uint64_t page_end = (a | 4095) + 1, n = (page_end < top ? page_end : top) - a;
		if (!ct_vmcore_try_read(vm, a, stack + have, n))
			break;
		have += n;
		a += n;
	}
	if (have < 8) {
		thread->truncated = true;
		thread->stop_reason = ct_report_printf(report, "stack at 0x%016" PRIx64 " is not in the dump", sp);
		return;
	}
	struct ct_bytes b = { .data = stack, .size = have, .big_endian = arch->big_endian };
	size_t limit = max_frames < MAX_SCAN_FRAMES ? max_frames : MAX_SCAN_FRAMES;
	thread->has_stack = true;
	thread->stack_start = top - size;
	thread->stack_end = top;
	struct ct_orc own;
	const struct ct_orc *orc = ks->orc;
	if (arch->kernel_unwind == CT_KUNWIND_ORC && !orc && ct_orc_init(vm, ks, &own))
		orc = &own;
	uint64_t scan_from = sp;
	if (arch->kernel_unwind == CT_KUNWIND_FP || orc) {
		size_t first = thread->num_frames;
		bool failed;
		uint64_t stop_sp = sp;
		size_t added = arch->kernel_unwind == CT_KUNWIND_FP
				       ? fp_walk(vm, ks, cpu, report, thread, limit, &failed, &stop_sp)
				       : orc_walk(vm, ks, orc, cpu, report, thread, limit, &failed, &stop_sp);
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
	const char *orc_stop = scan_from != sp ? thread->stop_reason : NULL;
	// Scan from sp (plus its misalignment) upward, word by word.
	for (uint64_t off = ((8 - (sp & 7)) & 7) + (scan_from - sp); off + 8 <= have; off += 8) {
		uint64_t w = ct_bytes_uint_or0(&b, off, 8);
		if (!ct_kallsyms_is_text(ks, w) && !in_modules(vm, w))
			continue;
		if (!after_call(vm, w))
			continue;
		if (at_frame_cap(report, thread, limit))
			return;
		f = ct_thread_add_frame(thread);
		if (!f)
			return;
		// Look up pc - 1: a call at the very end of a function returns into the next one.
		fill_frame(ks, report, f, w, w - 1);
		f->trust = CT_TRUST_SCAN;
		f->has_sp = true;
		f->sp = sp + off;
	}
	thread->stop_reason = orc_stop ? ct_report_printf(report, "%s; then end of stack scan (%zu bytes from sp)", orc_stop, have)
				       : ct_report_printf(report, "end of stack scan (%zu bytes from sp)", have);
}
