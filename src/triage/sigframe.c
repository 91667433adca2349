// Signal frames (issue 16): what the kernel saved when it delivered a signal to a handler — the
// interrupted registers, the x86 trap facts (trapno, err, cr2) or the aarch64 fault_address and ESR,
// and the siginfo of SA_SIGINFO handlers — and which fault, if any, that context was interrupted by.
// Layouts come from the architecture's table (struct ct_arch_sigframe).
#include <string.h>

#include "triage/gather.h"
#include "unwind/unwind.h"

/* x86 exception vectors (arch/x86/include/asm/trapnr.h) and page-fault error bits. */
#define X86_TRAP_DE 0
#define X86_TRAP_BP 3
#define X86_TRAP_UD 6
#define X86_TRAP_GP 13
#define X86_TRAP_PF 14
#define X86_TRAP_MF 16
#define X86_TRAP_AC 17
#define X86_TRAP_XF 19
#define X86_PF_PROT 1

/* aarch64 ESR_ELx exception classes (arch/arm64/include/asm/esr.h). */
#define ESR_EC_UNKNOWN 0x00
#define ESR_EC_IABT_LOW 0x20
#define ESR_EC_PC_ALIGN 0x22
#define ESR_EC_DABT_LOW 0x24
#define ESR_EC_SP_ALIGN 0x26
#define ESR_EC_FP_EXC64 0x2c
#define ESR_EC_BRK64 0x3c

/** The instruction at the interrupted pc accesses memory at (or just below) @p addr. */
static bool insn_touches(const struct ct_insn_facts *in, uint64_t addr, uint64_t pc)
{
	if (addr == pc)
		return true; // the instruction fetch itself
	if (!in || !in->decoded)
		return false;
	for (size_t i = 0; i < in->num_mem; i++) {
		const struct ct_mem_operand *m = &in->mem[i];
		unsigned size = m->size > 16 ? m->size : 16;
		if (m->has_address && addr >= m->address && addr - m->address < size)
			return true;
	}
	return in->has_implicit_address && addr >= in->implicit_address && addr - in->implicit_address < 16;
}

static void set_fault(struct ct_sigframe_facts *sf, int signo, int code, bool has_addr, uint64_t addr,
		      const char *source)
{
	sf->fault_signo = signo;
	sf->fault_code = code;
	sf->fault_has_address = has_addr;
	sf->fault_addr = addr;
	sf->fault_source = source;
}

// x86: trapno/err/cr2 are the thread's last trap (thread.trap_nr), possibly stale from an earlier
// fault, and 0 (= #DE) when there never was one: they count only when the interrupted instruction
// agrees with them.
static void derive_x86(struct ct_sigframe_facts *sf, const struct ct_insn_facts *in)
{
	bool decoded = in && in->decoded;
	switch (sf->trapno) {
	case X86_TRAP_PF:
		if (insn_touches(in, sf->cr2, sf->pc))
			set_fault(sf, CT_SIGSEGV, sf->err & X86_PF_PROT ? CT_SEGV_ACCERR : CT_SEGV_MAPERR, true, sf->cr2,
				  "trapno 14 (page fault) at cr2, touched by the interrupted instruction");
		break;
	case X86_TRAP_GP:
		// #GP has no address: a non-canonical or misaligned operand of the interrupted instruction.
		if (decoded && in->num_mem)
			set_fault(sf, CT_SIGSEGV, CT_SI_KERNEL, false, 0,
				  "trapno 13 (general protection) and a memory operand in the interrupted instruction");
		break;
	case X86_TRAP_DE:
		if (decoded && in->is_div)
			set_fault(sf, CT_SIGFPE, CT_FPE_INTDIV, true, sf->pc,
				  "trapno 0 (divide error) at a division instruction");
		break;
	case X86_TRAP_UD:
		if (!decoded || in->is_trap)
			set_fault(sf, CT_SIGILL, CT_ILL_ILLOPN, true, sf->pc, "trapno 6 (invalid opcode)");
		break;
	case X86_TRAP_BP:
		if (decoded && in->is_breakpoint)
			set_fault(sf, CT_SIGTRAP, CT_SI_KERNEL, false, 0, "trapno 3 (breakpoint) after an int3");
		break;
	case X86_TRAP_AC:
		set_fault(sf, CT_SIGBUS, CT_BUS_ADRALN, false, 0, "trapno 17 (alignment check)");
		break;
	case X86_TRAP_MF:
	case X86_TRAP_XF:
		if (decoded)
			set_fault(sf, CT_SIGFPE, CT_FPE_FLTINV, false, 0, "trapno 16/19 (floating-point exception)");
		break;
	default:
		break;
	}
}

// aarch64: the kernel adds the esr_context record only when the signal came from a fault.
static void derive_aarch64(struct ct_sigframe_facts *sf)
{
	if (!sf->has_esr)
		return;
	unsigned ec = (unsigned)(sf->esr >> 26) & 0x3f;
	switch (ec) {
	case ESR_EC_DABT_LOW:
	case ESR_EC_DABT_LOW + 1:
	case ESR_EC_IABT_LOW:
	case ESR_EC_IABT_LOW + 1: {
		unsigned fsc = (unsigned)sf->esr & 0x3f;
		// DFSC 0x21: alignment fault; 0x0c-0x0f: permission faults; else translation faults.
		if (fsc == 0x21)
			set_fault(sf, CT_SIGBUS, CT_BUS_ADRALN, sf->has_fault_address, sf->fault_address, "ESR data abort");
		else
			set_fault(sf, CT_SIGSEGV, fsc >= 0x0c && fsc <= 0x0f ? CT_SEGV_ACCERR : CT_SEGV_MAPERR,
				  sf->has_fault_address, sf->fault_address, "ESR data or instruction abort");
		break;
	}
	case ESR_EC_PC_ALIGN:
	case ESR_EC_SP_ALIGN:
		set_fault(sf, CT_SIGBUS, CT_BUS_ADRALN, sf->has_fault_address, sf->fault_address, "ESR alignment fault");
		break;
	case ESR_EC_BRK64:
		set_fault(sf, CT_SIGTRAP, CT_TRAP_BRKPT, true, sf->pc, "ESR brk");
		break;
	case ESR_EC_FP_EXC64:
		set_fault(sf, CT_SIGFPE, CT_FPE_FLTINV, true, sf->pc, "ESR floating-point exception");
		break;
	case ESR_EC_UNKNOWN:
		set_fault(sf, CT_SIGILL, CT_ILL_ILLOPN, true, sf->pc, "ESR unknown instruction");
		break;
	default:
		break;
	}
}

void ct_sigframe_derive(struct ct_sigframe_facts *sf, bool x86, const struct ct_insn_facts *insn)
{
	sf->fault_signo = 0;
	// A handler's siginfo (SA_SIGINFO) that says the kernel raised a fault signal is the best witness.
	if (sf->has_siginfo && ct_signal_is_fault(sf->si_signo) && sf->si_code > 0) {
		bool addr = sf->si_signo != CT_SIGTRAP && sf->si_code != CT_SI_KERNEL;
		set_fault(sf, sf->si_signo, sf->si_code, addr, sf->si_addr, "the handler's siginfo");
		return;
	}
	// Otherwise (no siginfo, or one naming a sent signal: it may be stale bytes) the trap facts,
	// which count only when the interrupted instruction agrees with them.
	if (x86 && sf->has_trap)
		derive_x86(sf, insn);
	else if (!x86)
		derive_aarch64(sf);
}

/** Linux's PID_MAX_LIMIT on 64-bit (include/linux/threads.h): no pid is larger. */
#define PID_MAX_LIMIT 4194304

void ct_sigframe_derive_sender(struct ct_sigframe_facts *sf, int pid, int dumped_signo)
{
	sf->external = sf->has_siginfo && sf->si_code <= 0 && sf->si_pid > 0 && sf->si_pid <= PID_MAX_LIMIT &&
		       sf->si_pid != pid && (sf->si_signo == dumped_signo || dumped_signo == CT_SIGABRT);
}

/* ---- reading (the only part that touches the core) ---- */

/** Looks for the ESR record in aarch64's __reserved area (a list of {magic, size} headers). */
static void read_esr(const struct ct_core *core, uint64_t reserved, struct ct_sigframe_facts *sf)
{
	// arch/arm64/include/uapi/asm/sigcontext.h: ESR_MAGIC 0x45535201, records end with magic 0.
	// 4096 bytes of records at most, and a few dozen of them.
	uint64_t at = reserved;
	for (int n = 0; n < 32 && at + 8 <= reserved + 4096; n++) {
		uint64_t magic, size;
		if (!ct_sigcontext_field(core, at, 4, &magic) || !ct_sigcontext_field(core, at + 4, 4, &size) || magic == 0 || size < 8)
			return;
		if (magic == 0x45535201) {
			sf->has_esr = ct_sigcontext_field(core, at + 8, 8, &sf->esr);
			return;
		}
		at += size;
	}
}

bool ct_sigframe_read(const struct ct_core *core, const struct ct_arch_sigframe *l, size_t frame, uint64_t sp,
		      struct ct_sigframe_facts *ret)
{
	struct ct_sigcontext c;
	if (!ct_sigcontext_read(core, l, sp, &c))
		return false;
	const struct ct_arch_info *arch = core->arch;
	struct ct_sigframe_facts sf = { .frame = frame, .pc = c.pc, .sp = c.sp };
	memcpy(sf.regs, c.regs, sizeof(sf.regs));
	memcpy(sf.valid, c.valid, sizeof(sf.valid));
	uint64_t sc = c.mcontext;
	if (l->trapno >= 0)
		sf.has_trap = ct_sigcontext_field(core, sc + (uint64_t)l->trapno, l->word, &sf.trapno) &&
			      ct_sigcontext_field(core, sc + (uint64_t)l->err, l->word, &sf.err) &&
			      ct_sigcontext_field(core, sc + (uint64_t)l->cr2, l->word, &sf.cr2);
	if (l->fault_address >= 0)
		sf.has_fault_address = ct_sigcontext_field(core, sc + (uint64_t)l->fault_address, l->word, &sf.fault_address);
	if (l->reserved >= 0)
		read_esr(core, sc + (uint64_t)l->reserved, &sf);
	// siginfo: si_signo, si_errno, si_code (ints; mips: si_code before si_errno), then the union
	// (si_addr at 16 on 64-bit, 12 on 32-bit). Filled only for SA_SIGINFO handlers: otherwise
	// whatever the stack held.
	uint64_t signo, code;
	unsigned ps = arch->pointer_size;
	if (c.siginfo && ct_sigcontext_field(core, c.siginfo, 4, &signo) &&
	    ct_sigcontext_field(core, c.siginfo + (arch->siginfo_code_first ? 4 : 8), 4, &code) && signo >= 1 &&
	    signo <= CT_SIGMAX) {
		sf.has_siginfo = true;
		sf.si_signo = ct_arch_generic_signal(arch, (int)signo);
		sf.si_code = (int)(int32_t)code;
		ct_sigcontext_field(core, c.siginfo + (ps == 8 ? 16 : 12), ps, &sf.si_addr);
		uint64_t spid, suid;
		if (ct_sigcontext_field(core, c.siginfo + (ps == 8 ? 16 : 12), 4, &spid) &&
		    ct_sigcontext_field(core, c.siginfo + (ps == 8 ? 20 : 16), 4, &suid)) {
			sf.si_pid = (int)(int32_t)spid;
			sf.si_uid = (int)(int32_t)suid;
		}
	}
	*ret = sf;
	return true;
}
