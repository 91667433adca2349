// Names of Linux signals and si_codes in the asm-generic numbering every dump's signals are turned into
// (arch/signal_numbers.h). Source: include/uapi/asm-generic/signal.h and siginfo.h, Linux 6.1;
// tests/unit/test_signals.c checks every name against those headers.
#include <stddef.h>

#include "arch/signal_numbers.h"
#include "coretriage/report.h"

#define NAME(sig) [CT_##sig] = #sig
static const char *const signal_names[] = {
	NAME(SIGHUP),  NAME(SIGINT),  NAME(SIGQUIT),   NAME(SIGILL),  NAME(SIGTRAP),   NAME(SIGABRT),
	NAME(SIGBUS),  NAME(SIGFPE),  NAME(SIGKILL),   NAME(SIGUSR1), NAME(SIGSEGV),   NAME(SIGUSR2),
	NAME(SIGPIPE), NAME(SIGALRM), NAME(SIGTERM),   NAME(SIGSTKFLT), NAME(SIGCHLD), NAME(SIGCONT),
	NAME(SIGSTOP), NAME(SIGTSTP), NAME(SIGTTIN),   NAME(SIGTTOU), NAME(SIGURG),    NAME(SIGXCPU),
	NAME(SIGXFSZ), NAME(SIGVTALRM), NAME(SIGPROF), NAME(SIGWINCH), NAME(SIGIO),    NAME(SIGPWR),
	NAME(SIGSYS),
};
#undef NAME

const char *ct_signal_name(int signo)
{
	if (signo > 0 && (size_t)signo < sizeof(signal_names) / sizeof(signal_names[0]))
		return signal_names[signo];
	return NULL;
}

struct code_name {
	int code;
	const char *name;
};

static const struct code_name generic_codes[] = {
	{ 0, "SI_USER" },     { 0x80, "SI_KERNEL" }, { -1, "SI_QUEUE" },  { -2, "SI_TIMER" },
	{ -3, "SI_MESGQ" },   { -4, "SI_ASYNCIO" },  { -5, "SI_SIGIO" },  { -6, "SI_TKILL" },
	{ -7, "SI_DETHREAD" }, { -60, "SI_ASYNCNL" },
};
static const struct code_name segv_codes[] = {
	{ 1, "SEGV_MAPERR" }, { 2, "SEGV_ACCERR" }, { 3, "SEGV_BNDERR" }, { 4, "SEGV_PKUERR" },
	{ 5, "SEGV_ACCADI" }, { 6, "SEGV_ADIDERR" }, { 7, "SEGV_ADIPERR" }, { 8, "SEGV_MTEAERR" },
	{ 9, "SEGV_MTESERR" }, { 10, "SEGV_CPERR" },
};
static const struct code_name bus_codes[] = {
	{ 1, "BUS_ADRALN" }, { 2, "BUS_ADRERR" }, { 3, "BUS_OBJERR" },
	{ 4, "BUS_MCEERR_AR" }, { 5, "BUS_MCEERR_AO" },
};
static const struct code_name fpe_codes[] = {
	{ 1, "FPE_INTDIV" }, { 2, "FPE_INTOVF" }, { 3, "FPE_FLTDIV" }, { 4, "FPE_FLTOVF" },
	{ 5, "FPE_FLTUND" }, { 6, "FPE_FLTRES" }, { 7, "FPE_FLTINV" }, { 8, "FPE_FLTSUB" },
	{ 14, "FPE_FLTUNK" }, { 15, "FPE_CONDTRAP" },
};
static const struct code_name ill_codes[] = {
	{ 1, "ILL_ILLOPC" }, { 2, "ILL_ILLOPN" }, { 3, "ILL_ILLADR" }, { 4, "ILL_ILLTRP" },
	{ 5, "ILL_PRVOPC" }, { 6, "ILL_PRVREG" }, { 7, "ILL_COPROC" }, { 8, "ILL_BADSTK" },
	{ 9, "ILL_BADIADDR" },
};
static const struct code_name trap_codes[] = {
	{ 1, "TRAP_BRKPT" }, { 2, "TRAP_TRACE" }, { 3, "TRAP_BRANCH" }, { 4, "TRAP_HWBKPT" },
	{ 5, "TRAP_UNK" }, { 6, "TRAP_PERF" },
};
static const struct code_name chld_codes[] = {
	{ 1, "CLD_EXITED" }, { 2, "CLD_KILLED" }, { 3, "CLD_DUMPED" }, { 4, "CLD_TRAPPED" },
	{ 5, "CLD_STOPPED" }, { 6, "CLD_CONTINUED" },
};

static const char *lookup(const struct code_name *table, size_t n, int code)
{
	for (size_t i = 0; i < n; i++) {
		if (table[i].code == code)
			return table[i].name;
	}
	return NULL;
}

#define LOOKUP(table, code) lookup(table, sizeof(table) / sizeof(table[0]), code)

const char *ct_signal_code_name(int signo, int code)
{
	// Codes <= 0 and SI_KERNEL mean the same for every signal; positive codes are per signal.
	if (code <= 0 || code == CT_SI_KERNEL)
		return LOOKUP(generic_codes, code);
	switch (signo) {
	case CT_SIGSEGV: return LOOKUP(segv_codes, code);
	case CT_SIGBUS: return LOOKUP(bus_codes, code);
	case CT_SIGFPE: return LOOKUP(fpe_codes, code);
	case CT_SIGILL: return LOOKUP(ill_codes, code);
	case CT_SIGTRAP: return LOOKUP(trap_codes, code);
	case CT_SIGCHLD: return LOOKUP(chld_codes, code);
	default: return NULL;
	}
}
