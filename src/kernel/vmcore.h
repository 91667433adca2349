/**
 * @file vmcore.h
 * Internal interfaces of src/kernel/: the open dump (libkdumpfile), VMCOREINFO, the kernel log, the
 * panic record, kallsyms and the stack unwinder. Nothing here is public API.
 */
#ifndef CT_KERNEL_VMCORE_H
#define CT_KERNEL_VMCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coretriage/error.h"
#include "coretriage/report.h"

/* --- vmcoreinfo.c -------------------------------------------------------------------------------- */

/** One "KEY=value" line of VMCOREINFO. Both strings point into struct ct_vmcoreinfo.text. */
struct ct_vmcoreinfo_entry {
	const char *key, *value;
};

/** Parsed VMCOREINFO. Owns its text copy and the entry array. */
struct ct_vmcoreinfo {
	char *text;
	struct ct_vmcoreinfo_entry *entries;
	size_t num_entries;
};

/** Parses @p len bytes of VMCOREINFO text (copied). Lines beyond the cap are dropped. */
struct ct_error *ct_vmcoreinfo_parse(const char *raw, size_t len, struct ct_vmcoreinfo *ret);
void ct_vmcoreinfo_deinit(struct ct_vmcoreinfo *vi);
/** The value of @p key ("OSRELEASE", "SYMBOL(prb)"), borrowed, or NULL. */
const char *ct_vmcoreinfo_get(const struct ct_vmcoreinfo *vi, const char *key);
/** SYMBOL(@p name) (hex without 0x); false when absent or malformed. */
bool ct_vmcoreinfo_symbol(const struct ct_vmcoreinfo *vi, const char *name, uint64_t *ret);
/** OFFSET(@p name) / SIZE(@p name) / LENGTH(@p name) (decimal). */
bool ct_vmcoreinfo_offset(const struct ct_vmcoreinfo *vi, const char *name, uint64_t *ret);
bool ct_vmcoreinfo_size(const struct ct_vmcoreinfo *vi, const char *name, uint64_t *ret);
/** NUMBER(@p name): signed decimal (NUMBER(phys_base) is negative under KASLR). */
bool ct_vmcoreinfo_number(const struct ct_vmcoreinfo *vi, const char *name, int64_t *ret);

/* --- dumpfile.c ---------------------------------------------------------------------------------- */

struct _kdump_ctx;

/** The registers of one CPU as saved in the dump (NT_PRSTATUS, x86-64 layout). */
struct ct_cpu_state {
	int cpu;
	/** pr_pid: a task pid for kdump; for QEMU dumps the vCPU number + 1, not a pid. */
	bool has_pid;
	int pid;
	/** x86-64 user_regs_struct order: r15 … gs (27 registers). */
	uint64_t regs[27];
	bool has_regs;
};

/** Index in ct_cpu_state.regs of the registers the analysis uses (user_regs_struct order). */
enum { CT_X86_RBP = 4, CT_X86_RBX = 5, CT_X86_RAX = 10, CT_X86_RIP = 16, CT_X86_RSP = 19 };
extern const char *const ct_x86_64_reg_names[27];

/** An open vmcore. Owns the libkdumpfile context and the file descriptors. */
struct ct_vmcore {
	struct _kdump_ctx *ctx;
	/** The dump file; for a flattened stream, the memfd holding the rebuilt KDUMP file. */
	int fd;
	/** Input kind from ct_kernel_probe(), static string. */
	const char *kind;
	/** True for dumps written by QEMU (pr_pid is a vCPU number there). */
	bool qemu;
	struct ct_vmcoreinfo vmcoreinfo;
	bool has_kaslr_offset;
	uint64_t kaslr_offset;
	struct ct_cpu_state *cpus; /**< owned */
	size_t num_cpus;
};

/**
 * Opens @p path as a vmcore of @p kind. Diagnostics (e.g. missing VMCOREINFO) go into @p report.
 * Errors: CT_ERROR_OS, CT_ERROR_CORRUPT, CT_ERROR_UNSUPPORTED, CT_ERROR_LIBRARY.
 */
struct ct_error *ct_vmcore_open(const char *path, const char *kind, struct ct_report *report,
				struct ct_vmcore *ret);
void ct_vmcore_close(struct ct_vmcore *vm);
/**
 * Reads @p len bytes of kernel virtual memory at @p addr. Errors: CT_ERROR_FAULT (not mapped or not
 * in the dump), CT_ERROR_NODATA (filtered out of the dump).
 */
struct ct_error *ct_vmcore_read(struct ct_vmcore *vm, uint64_t addr, void *buf, size_t len);
/** ct_vmcore_read() for probing: true when all bytes were read; the error, if any, is dropped. */
bool ct_vmcore_try_read(struct ct_vmcore *vm, uint64_t addr, void *buf, size_t len);
/** Little-endian helpers over ct_vmcore_read (x86-64 is the only architecture read so far). */
struct ct_error *ct_vmcore_read_u64(struct ct_vmcore *vm, uint64_t addr, uint64_t *ret);
struct ct_error *ct_vmcore_read_u32(struct ct_vmcore *vm, uint64_t addr, uint32_t *ret);

/* --- printk.c ------------------------------------------------------------------------------------ */

/** The kernel log decoded from the dump: malloc'ed text of "[    t.tttttt] message\n" lines. */
struct ct_error *ct_printk_read(struct ct_vmcore *vm, char **text_ret, size_t *len_ret);

/* --- panic_parse.c ------------------------------------------------------------------------------- */

/** What the log says about the crash. Strings are pooled in the report given to the parser. */
struct ct_panic_record {
	const char *panic_reason; /**< text after "Kernel panic - not syncing: " */
	const char *headline; /**< "BUG: kernel NULL pointer dereference, address: …", "Oops: …" */
	const char *oops_line; /**< "Oops: 0002 [#1] PREEMPT SMP NOPTI" */
	const char *rip_line; /**< "RIP: 0010:func+0x5/0x11 [mod]" (the kernel-mode one) */
	const char *pf_lines[2]; /**< "#PF: …" lines */
	bool has_address;
	uint64_t address; /**< faulting address: headline "address:", else CR2 */
	bool has_error_code;
	uint64_t error_code;
	bool has_cpu, has_pid;
	int cpu, pid;
	const char *comm, *taint;
	bool has_uptime;
	double uptime;
	const char **call_trace; /**< owned array of pooled lines, "func+0x1/0x2 [mod]", "? func…" */
	size_t num_call_trace;
	const char **modules; /**< owned array of pooled names */
	size_t num_modules;
	/** Special facts for the classifier. */
	bool init_killed, oom, sysrq, lockup_soft, lockup_hard, hung_task, warn, stack_overflow, mce, gpf,
		kernel_bug, page_fault, null_deref;
	bool kdump_loaded;
	bool found; /**< any panic/Oops record at all */
};

/** Parses @p log (NUL-terminated) into @p ret; strings go into @p report's pool. */
void ct_panic_parse(struct ct_report *report, const char *log, struct ct_panic_record *ret);
void ct_panic_record_deinit(struct ct_panic_record *rec);

/* --- kclass.c ------------------------------------------------------------------------------------ */

/** Sets report->crash from the panic record (taxonomy.md, kernel table). */
void ct_kernel_classify(struct ct_report *report, const struct ct_panic_record *rec);

/* --- kallsyms.c ---------------------------------------------------------------------------------- */

struct ct_ksym {
	uint64_t address;
	const char *name; /**< points into ct_kallsyms.names */
	char type; /**< 't', 'T', 'd', … */
};

/** The kernel's own symbol table decoded from the dump. Owns everything. */
struct ct_kallsyms {
	struct ct_ksym *syms; /**< sorted by address */
	size_t num_syms;
	char *names;
	uint64_t text_start, text_end; /**< _stext, _etext */
};

/** Decodes kallsyms through the VMCOREINFO symbols (Linux 6.0+). CT_ERROR_NOT_FOUND when absent. */
struct ct_error *ct_kallsyms_load(struct ct_vmcore *vm, struct ct_kallsyms *ret);
void ct_kallsyms_deinit(struct ct_kallsyms *ks);
/** The function symbol containing @p addr, or NULL (data symbols and addresses past _etext too). */
const struct ct_ksym *ct_kallsyms_lookup(const struct ct_kallsyms *ks, uint64_t addr);
/** The address of @p name, linear search; false when absent. */
bool ct_kallsyms_find(const struct ct_kallsyms *ks, const char *name, uint64_t *ret);
/** True when @p addr is in core kernel text. */
bool ct_kallsyms_is_text(const struct ct_kallsyms *ks, uint64_t addr);

/* --- kstack.c ------------------------------------------------------------------------------------ */

/**
 * Unwinds one CPU's stack from its saved registers into @p thread. Frame 0 comes from the registers
 * (trust context); then the kernel's ORC tables, found through kallsyms, give the frames (trust cfi),
 * crossing pt_regs frames. A frame in module text is stepped over by a validated scan (trust scan).
 * Without ORC symbols the whole stack is scanned, each return address validated by a call
 * instruction just before it. @p max_frames caps the result.
 */
void ct_kstack_unwind(struct ct_vmcore *vm, const struct ct_kallsyms *ks, const struct ct_cpu_state *cpu,
		      struct ct_report *report, struct ct_thread *thread, size_t max_frames);

/* --- vmlinux.c ----------------------------------------------------------------------------------- */

/**
 * Checks @p path's GNU build-id against VMCOREINFO BUILD-ID. A mismatch is an error
 * (CT_ERROR_INVALID_ARGUMENT): symbols from another build would name the wrong functions.
 */
struct ct_error *ct_vmlinux_check(struct ct_vmcore *vm, const char *path, struct ct_report *report);
struct ct_options;
/**
 * Adds file:line (and inline frames) from the DWARF of opts->executable (the vmlinux) to every kernel
 * frame of the report, and to the frames of modules whose .ko is under opts->debug_dirs.
 */
void ct_vmlinux_symbolize(struct ct_vmcore *vm, const struct ct_options *opts, struct ct_report *report);

#endif
