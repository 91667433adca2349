// Built-in layouts of Go's runtime structures, for binaries without DWARF (-ldflags=-s or -w).
// Offsets from the DWARF of Debian 12's go 1.19 (golang-1.19, amd64; arm64's runtime.g and runtime.m
// are the same), which runtime_go_stacks holds equal by reading each test program both ways. A version not here is never guessed: the
// stage says "no layout".
#include <stddef.h>

#include "runtime/go.h"

static const struct ct_go_layout layouts[] = {
	{
		.major = 1, .minor = 19, .pointer_size = 8,
		.g_m = 48, .g_sched_sp = 56, .g_sched_pc = 64, .g_sched_lr = 96, .g_syscallsp = 112, .g_syscallpc = 120,
		.g_atomicstatus = 144, .g_goid = 152, .g_waitreason = 176, .g_lockedm = 232, .g_gopc = 296,
		.m_procid = 72, .m_curg = 192,
		.md_gofunc = CT_GO118_MD_GOFUNC_WORD * 8,
	},
};

const struct ct_go_layout *ct_go_layout_find(unsigned major, unsigned minor, unsigned pointer_size)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		const struct ct_go_layout *l = &layouts[i];
		if (l->major == major && l->minor == minor && l->pointer_size == pointer_size)
			return l;
	}
	return NULL;
}

/** runtime2.go's waitReasonStrings of Go 1.19, by waitReason. */
static const char *const wait_reasons_119[] = {
	"", "GC assist marking", "IO wait", "chan receive (nil chan)", "chan send (nil chan)", "dumping heap",
	"garbage collection", "garbage collection scan", "panicwait", "select", "select (no cases)",
	"GC assist wait", "GC sweep wait", "GC scavenge wait", "chan receive", "chan send", "finalizer wait",
	"force gc (idle)", "semacquire", "sleep", "sync.Cond.Wait", "timer goroutine (idle)",
	"trace reader (blocked)", "wait for GC cycle", "GC worker (idle)", "preempted", "debug call",
};

const char *ct_go_wait_reason_builtin(unsigned reason)
{
	return reason && reason < sizeof(wait_reasons_119) / sizeof(wait_reasons_119[0]) ? wait_reasons_119[reason] : NULL;
}
