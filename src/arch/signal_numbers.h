/**
 * @file signal_numbers.h
 * Linux signal numbers and si_codes as libcoretriage keeps them: the asm-generic numbering
 * (include/uapi/asm-generic/signal.h and siginfo.h), whatever the target. A dump's own numbers are
 * turned into these when its notes are read (ct_arch_generic_signal with the architecture's
 * generic_signal table: mips and sparc number some signals differently), so everything above dump/
 * compares against these names only.
 *
 * Defined here once, not taken from the host's <signal.h> (the host may be a mips or sparc and its
 * numbers are the host ABI's, not the dump's); tests/unit/test_signals.c checks every value and the
 * names of model/signals.c against the kernel's <asm-generic/signal.h> and <asm-generic/siginfo.h>.
 */
#ifndef CT_ARCH_SIGNAL_NUMBERS_H
#define CT_ARCH_SIGNAL_NUMBERS_H

#include <stdbool.h>

#define CT_SIGHUP 1
#define CT_SIGINT 2
#define CT_SIGQUIT 3
#define CT_SIGILL 4
#define CT_SIGTRAP 5
#define CT_SIGABRT 6
#define CT_SIGBUS 7
#define CT_SIGFPE 8
#define CT_SIGKILL 9
#define CT_SIGUSR1 10
#define CT_SIGSEGV 11
#define CT_SIGUSR2 12
#define CT_SIGPIPE 13
#define CT_SIGALRM 14
#define CT_SIGTERM 15
#define CT_SIGSTKFLT 16
#define CT_SIGCHLD 17
#define CT_SIGCONT 18
#define CT_SIGSTOP 19
#define CT_SIGTSTP 20
#define CT_SIGTTIN 21
#define CT_SIGTTOU 22
#define CT_SIGURG 23
#define CT_SIGXCPU 24
#define CT_SIGXFSZ 25
#define CT_SIGVTALRM 26
#define CT_SIGPROF 27
#define CT_SIGWINCH 28
#define CT_SIGIO 29
#define CT_SIGPWR 30
#define CT_SIGSYS 31
/** Signals above the classic ones (real-time signals) up to this number are valid. */
#define CT_SIGMAX 64

/* si_code values the analysis decides on (the full name tables are in model/signals.c). */
#define CT_SI_USER 0
#define CT_SI_KERNEL 0x80
#define CT_SI_QUEUE (-1)
#define CT_SI_TKILL (-6)
#define CT_ILL_ILLOPN 2
#define CT_FPE_INTDIV 1
#define CT_FPE_INTOVF 2
#define CT_FPE_FLTINV 7
#define CT_SEGV_MAPERR 1
#define CT_SEGV_ACCERR 2
#define CT_BUS_ADRALN 1
#define CT_BUS_ADRERR 2
#define CT_BUS_OBJERR 3
#define CT_BUS_MCEERR_AR 4
#define CT_BUS_MCEERR_AO 5
#define CT_TRAP_BRKPT 1

/** The signals a fault raises, whose siginfo carries si_addr: SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGSEGV. */
static inline bool ct_signal_is_fault(int signo)
{
	return signo == CT_SIGSEGV || signo == CT_SIGBUS || signo == CT_SIGFPE || signo == CT_SIGILL ||
	       signo == CT_SIGTRAP;
}

#endif
