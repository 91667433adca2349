/**
 * @file go.h
 * The Go half of the runtime stage (docs/runtimes.md "Go"): every goroutine of a Go program's
 * core, read from the runtime's own state in the dump: `runtime.allgs` → each `runtime.g` (goid,
 * atomicstatus, waitreason, sched, gopc) → its stack unwound with Go's own pclntab (pcsp for the
 * frame size, pcfile/pcln for the place, the inline tree for inlined calls), as the runtime's
 * traceback does. Layouts come from the binary's DWARF, or from the built-in table of the Go
 * version when the binary is stripped (-ldflags=-s).
 */
#ifndef CT_RUNTIME_GO_H
#define CT_RUNTIME_GO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "modules/go_symbols.h"
#include "runtime/python.h"

/** Goroutines read (allgs' length is refused beyond it). */
#define CT_GO_MAX_GOROUTINES 1000000
/** Frames unwound per goroutine (Go's own traceback prints 100). */
#define CT_GO_MAX_FRAMES 1024
/** Where the fields the stage reads lie (bytes from each structure's start). */
struct ct_go_layout {
	unsigned major, minor, pointer_size;
	/* runtime.g */
	uint32_t g_m, g_sched_sp, g_sched_pc, g_sched_lr, g_syscallsp, g_syscallpc, g_atomicstatus, g_goid,
		g_waitreason, g_lockedm, g_gopc;
	/* runtime.m */
	uint32_t m_procid, m_curg;
	/* runtime.moduledata */
	uint32_t md_gofunc;
};

/** The built-in layout of Go @p major.@p minor, NULL when none. */
const struct ct_go_layout *ct_go_layout_find(unsigned major, unsigned minor, unsigned pointer_size);
/** The layout from the DWARF @p dw (runtime.g, runtime.m, runtime.moduledata). */
bool ct_go_layout_dwarf(Dwarf *dw, unsigned major, unsigned minor, unsigned pointer_size, struct ct_budget *budget,
			struct ct_go_layout *ret);
/** Go 1.19's wait reasons (runtime2.go's waitReasonStrings), for a binary whose symbols are gone. */
const char *ct_go_wait_reason_builtin(unsigned reason);

/**
 * Sets @p g's sync call, lock kind and lock address from its frames and its semaphore (go_sync.c);
 * leaves them NULL/false when its innermost sync function is no wait of a lock or WaitGroup/Cond.
 */
void ct_go_sync_wait(struct ct_goroutine *g);

/**
 * Reads the goroutines of the process in @p in into *@p ret (present = false when the program is
 * not Go). Problems are diagnostics; nothing here fails the analysis.
 */
void ct_runtime_go(const struct ct_runtime_input *in, struct ct_runtime *ret);

#endif
