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

#include "runtime/python.h"

/** Goroutines read (allgs' length is refused beyond it). */
#define CT_GO_MAX_GOROUTINES 1000000
/** Frames unwound per goroutine (Go's own traceback prints 100). */
#define CT_GO_MAX_FRAMES 1024
/** Longest pclntab read (bytes). */
#define CT_GO_MAX_PCLNTAB (512u << 20)

/** A pclntab (go_pclntab.c): borrowed bytes of the executable and the header's offsets. */
struct ct_go_pcln {
	const uint8_t *data;
	size_t size;
	uint64_t addr; /**< where the table is mapped */
	unsigned ptr_size, min_lc;
	uint64_t nfunc, text, funcname, cutab, filetab, pctab, pcln;
};

/** One function's _func entry. */
struct ct_go_func {
	uint64_t off; /**< of the _func in the table */
	uint64_t entry;
	int32_t nameoff;
	uint32_t pcsp, pcfile, pcln, npcdata, cu;
	uint8_t funcid, nfuncdata;
};

/** Go 1.19's funcID values (runtime/symtab.go) the walk needs. */
enum {
	CT_GO_FUNCID_GOEXIT = 7,
	CT_GO_FUNCID_GOPANIC = 9,
	CT_GO_FUNCID_MCALL = 11,
	CT_GO_FUNCID_MORESTACK = 12,
	CT_GO_FUNCID_MSTART = 13,
	CT_GO_FUNCID_PANICWRAP = 14,
	CT_GO_FUNCID_RT0_GO = 15,
	CT_GO_FUNCID_SIGPANIC = 18,
	CT_GO_FUNCID_WRAPPER = 21,
};

/** Checks the header of the table at @p data (@p size bytes, mapped at @p addr). */
bool ct_go_pcln_init(struct ct_go_pcln *p, const uint8_t *data, size_t size, uint64_t addr);
/** The function holding @p pc. */
bool ct_go_pcln_func(const struct ct_go_pcln *p, uint64_t pc, struct ct_go_func *ret);
/** A name of the function name table (NULL when outside it). */
const char *ct_go_pcln_name(const struct ct_go_pcln *p, int32_t nameoff);
/** The value at @p target of the pc-value table at @p off of pctab (Go's pcvalue). */
bool ct_go_pcln_value(const struct ct_go_pcln *p, const struct ct_go_func *f, uint32_t off, uint64_t target,
		      int32_t *ret);
/** pcdata table @p index at @p target, -1 when none. */
int32_t ct_go_pcln_pcdata(const struct ct_go_pcln *p, const struct ct_go_func *f, uint32_t index, uint64_t target);
/** The offset from moduledata.gofunc of funcdata @p index, UINT32_MAX when none. */
uint32_t ct_go_pcln_funcdata(const struct ct_go_pcln *p, const struct ct_go_func *f, uint32_t index);
/** File @p fileno of the function's compilation unit. */
const char *ct_go_pcln_file(const struct ct_go_pcln *p, const struct ct_go_func *f, int32_t fileno);
/** The file and line of @p pc (either may be missing: NULL, 0). */
bool ct_go_pcln_line(const struct ct_go_pcln *p, const struct ct_go_func *f, uint64_t pc, const char **file, int *line);

struct ct_module_state;
/**
 * The pclntab of the Go executable @p m (its .gopclntab section: kept by -ldflags=-s, which drops
 * the symbol table), with pointers of @p pointer_size. False when @p m is no Go binary of that kind.
 * Triage names the frames of a stripped Go binary with it (issue 26).
 */
bool ct_go_pcln_of(const struct ct_module_state *m, unsigned pointer_size, struct ct_go_pcln *ret);

/** Where the fields the stage reads lie (bytes from each structure's start). */
struct ct_go_layout {
	unsigned major, minor, pointer_size;
	/* runtime.g */
	uint32_t g_m, g_sched_sp, g_sched_pc, g_syscallsp, g_syscallpc, g_atomicstatus, g_goid, g_waitreason,
		g_lockedm, g_gopc;
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
 * Reads the goroutines of the process in @p in into *@p ret (present = false when the program is
 * not Go). Problems are diagnostics; nothing here fails the analysis.
 */
void ct_runtime_go(const struct ct_runtime_input *in, struct ct_runtime *ret);

#endif
