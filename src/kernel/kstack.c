// A CPU's kernel stack, unwound from the dump alone: frame 0 from the saved registers, then a scan of
// the stack for return addresses into kernel text, each validated by a call instruction just before it
// (trust "scan"). The kernel's own ORC unwinder would be exact, but its tables need vmlinux-specific
// layouts that VMCOREINFO does not publish; the scan is what the kernel's "? func" lines are too.
#include <inttypes.h>
#include <string.h>

#include "arch/arch.h"
#include "kernel/vmcore.h"
#include "util/bytes.h"

// x86-64 THREAD_SIZE is 16 KiB (32 KiB with KASAN, whose dumps then lose the top half of the scan).
#define STACK_SIZE (16u * 1024)
// Frames reported per CPU: a 16 KiB stack has at most 2048 words.
#define MAX_SCAN_FRAMES 256
// The module area on x86-64 (arch/x86/include/asm/pgtable_64_types.h MODULES_VADDR..MODULES_END):
// module text has no kallsyms entry in the core tables, but a validated return address there counts.
#define MODULES_START 0xffffffffc0000000ull
#define MODULES_END 0xffffffffff000000ull

static bool in_modules(uint64_t a)
{
	return a >= MODULES_START && a < MODULES_END;
}

static void fill_frame(const struct ct_kallsyms *ks, struct ct_report *r, struct ct_frame *f, uint64_t pc,
		       uint64_t lookup)
{
	f->pc = pc;
	const struct ct_ksym *s = ct_kallsyms_lookup(ks, lookup);
	if (s) {
		f->function = ct_report_strdup(r, s->name);
		f->offset = pc - s->address;
		f->module = ct_report_strdup(r, "vmlinux");
	}
}

static bool after_call(struct ct_vmcore *vm, uint64_t ret_addr)
{
	uint8_t before[8];
	if (!ct_vmcore_try_read(vm, ret_addr - sizeof(before), before, sizeof(before)))
		return false;
	return ct_arch_x86_64.is_after_call(before, sizeof(before));
}

void ct_kstack_unwind(struct ct_vmcore *vm, const struct ct_kallsyms *ks, const struct ct_cpu_state *cpu,
		      struct ct_report *report, struct ct_thread *thread, size_t max_frames)
{
	uint64_t pc = cpu->regs[CT_X86_RIP], sp = cpu->regs[CT_X86_RSP];
	if (max_frames == 0)
		return;
	struct ct_frame *f = ct_thread_add_frame(thread);
	if (!f)
		return;
	fill_frame(ks, report, f, pc, pc);
	f->trust = CT_TRUST_CONTEXT;
	f->has_sp = true;
	f->sp = sp;
	// User-mode registers (an idle CPU in a QEMU dump can be in user space): no kernel stack to scan.
	if (sp >> 47 != 0x1ffff) {
		thread->stop_reason = ct_report_strdup(report, "stack pointer is not a kernel address");
		return;
	}
	uint64_t top = (sp | (STACK_SIZE - 1)) + 1;
	uint8_t stack[STACK_SIZE];
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
	struct ct_bytes b = { .data = stack, .size = have };
	size_t limit = max_frames < MAX_SCAN_FRAMES ? max_frames : MAX_SCAN_FRAMES;
	// Scan from sp (plus its misalignment) upward, word by word.
	for (uint64_t off = (8 - (sp & 7)) & 7; off + 8 <= have; off += 8) {
		uint64_t w = ct_bytes_uint_or0(&b, off, 8);
		if (!ct_kallsyms_is_text(ks, w) && !in_modules(w))
			continue;
		if (!after_call(vm, w))
			continue;
		if (thread->num_frames >= limit) {
			thread->truncated = true;
			thread->stop_reason = ct_report_printf(report, "frame cap %zu reached", limit);
			return;
		}
		f = ct_thread_add_frame(thread);
		if (!f)
			return;
		// Look up pc - 1: a call at the very end of a function returns into the next one.
		fill_frame(ks, report, f, w, w - 1);
		f->trust = CT_TRUST_SCAN;
		f->has_sp = true;
		f->sp = sp + off;
	}
	thread->has_stack = true;
	thread->stack_start = top - STACK_SIZE;
	thread->stack_end = top;
	thread->stop_reason = ct_report_printf(report, "end of stack scan (%zu bytes from sp)", have);
}
