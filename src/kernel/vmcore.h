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
#include "dump/format.h"
#include "dump/thread.h"

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
/**
 * CRASHTIME: the crashing kernel's seconds since the epoch ("%lld"). A number beyond 64 bits is
 * saturated (INT64_MAX or INT64_MIN) so the trail can say it is out of range; false when absent
 * or not a decimal number.
 */
bool ct_vmcoreinfo_crash_time(const struct ct_vmcoreinfo *vi, int64_t *ret);

/* --- dumpfile.c ---------------------------------------------------------------------------------- */

struct _kdump_ctx;
struct ct_orc;

struct ct_arch_info;
/* A CPU of the dump is a struct ct_core_thread (dump/thread.h), the thread type of every dump: tid is
 * the CPU number, has_pid/pid its pr_pid, the registers read by the one pr_reg reader. */

/** An open vmcore. Owns the libkdumpfile context and the file descriptors. */
struct ct_vmcore {
	struct _kdump_ctx *ctx;
	/** The dump file; for a flattened stream, the memfd holding the rebuilt KDUMP file. */
	int fd;
	/** The format's name from the probe chain (dump/format.h), static string. */
	const char *kind;
	/** True for dumps written by QEMU (pr_pid is a vCPU number there). */
	bool qemu;
	/** The dump's architecture (libkdumpfile's, else VMCOREINFO's); NULL when not supported. */
	const struct ct_arch_info *arch;
	struct ct_vmcoreinfo vmcoreinfo;
	bool has_kaslr_offset;
	uint64_t kaslr_offset;
	struct ct_core_thread *cpus; /**< owned, by CPU number */
	size_t num_cpus;
};

/**
 * Opens @p path as a vmcore of @p format (the probe chain's). Diagnostics (e.g. missing VMCOREINFO)
 * go into @p out; *@p truncated is set when the file is shorter than its records say (a cut flattened
 * stream), even on an error. Errors: CT_ERROR_OS, CT_ERROR_CORRUPT, CT_ERROR_UNSUPPORTED, CT_ERROR_LIBRARY.
 */
struct ct_error *ct_vmcore_open(const char *path, const struct ct_dump_format *format, const struct ct_sink *out,
				bool *truncated, struct ct_vmcore *ret);
void ct_vmcore_close(struct ct_vmcore *vm);
/**
 * Reads @p len bytes of kernel virtual memory at @p addr. Errors: CT_ERROR_FAULT (not mapped or not
 * in the dump), CT_ERROR_NODATA (filtered out of the dump).
 */
struct ct_error *ct_vmcore_read(struct ct_vmcore *vm, uint64_t addr, void *buf, size_t len);
/** ct_vmcore_read() for probing: true when all bytes were read; the error, if any, is dropped. */
bool ct_vmcore_try_read(struct ct_vmcore *vm, uint64_t addr, void *buf, size_t len);
struct ct_unwind_mem;
/** The dump's kernel memory as the unwinding steps read it (unwind/step.h), like a process core's. */
struct ct_unwind_mem ct_vmcore_mem(struct ct_vmcore *vm);
/** Helpers over ct_vmcore_read in the dump's byte order. */
struct ct_error *ct_vmcore_read_u64(struct ct_vmcore *vm, uint64_t addr, uint64_t *ret);
struct ct_error *ct_vmcore_read_u32(struct ct_vmcore *vm, uint64_t addr, uint32_t *ret);

/* --- dump_kernel.c ------------------------------------------------------------------------------ */

struct ct_dump;
/** @p vm (borrowed until ct_dump_close, which closes it) as a dump of @p format: its first
 * @p max_threads CPUs (0: all) are the dump's threads, none without an architecture table. */
void ct_dump_from_vmcore(struct ct_vmcore *vm, const struct ct_dump_format *format, size_t max_threads,
			 struct ct_dump *ret);

/* --- printk.c ------------------------------------------------------------------------------------ */

/** The kernel log decoded from the dump: malloc'ed text of "[    t.tttttt] message\n" lines. */
struct ct_error *ct_printk_read(struct ct_vmcore *vm, char **text_ret, size_t *len_ret);

/* --- die_line.c ---------------------------------------------------------------------------------- */

/** An x86 die() header "<what>: <error code> [#N] …" (arch/x86/kernel/dumpstack.c). */
struct ct_die_header {
	const char *what; /**< points into the parsed line: "general protection fault, probably for …" */
	size_t what_len;
	size_t name_len; /**< the exception's name: @p what up to its first comma */
	uint64_t error_code;
	unsigned count; /**< the N of [#N]: 1 for the first Oops since boot */
};

/** True when the @p len bytes at @p s are a die() header. */
bool ct_die_header_parse(const char *s, size_t len, struct ct_die_header *ret);

/** What a "Kernel panic - not syncing: <reason>" says, whatever its exact wording. */
enum ct_panic_reason_kind {
	CT_REASON_NONE, /**< no panic line */
	CT_REASON_FATAL_EXCEPTION, /**< an Oops with panic_on_oops, or in interrupt context */
	CT_REASON_SOFT_LOCKUP,
	CT_REASON_HARD_LOCKUP,
	CT_REASON_HUNG_TASK,
	CT_REASON_RCU_STALL,
	CT_REASON_WARN,
	CT_REASON_STACK_PROTECTOR,
	CT_REASON_STACK_OVERFLOW,
	CT_REASON_INIT_KILLED,
	CT_REASON_OOM,
	CT_REASON_SYSRQ,
	CT_REASON_MCE,
	CT_REASON_OTHER, /**< a panic() text we do not know */
};

/** The kind of @p reason (the text after "Kernel panic - not syncing: "); NULL gives CT_REASON_NONE. */
enum ct_panic_reason_kind ct_panic_reason_classify(const char *reason);

/** Symbol text as %pS/%pB print it: "? func+0x1/0x2 [mod]". */
struct ct_ksym_text {
	char function[128];
	char module[64]; /**< "" for vmlinux */
	bool has_offset;
	uint64_t offset, size;
	bool unreliable; /**< the "? " of a Call Trace entry the unwinder did not vouch for */
};

/** Parses the @p len bytes at @p s; false when they do not start with a function name. */
bool ct_ksym_text_parse(const char *s, size_t len, struct ct_ksym_text *ret);

/* --- panic_parse.c ------------------------------------------------------------------------------- */

/** What the log says about the crash. Strings are pooled in the pool given to the parser. */
struct ct_panic_record {
	const char *panic_reason; /**< text after "Kernel panic - not syncing: " */
	const char *headline; /**< "BUG: kernel NULL pointer dereference, address: …", "Oops: …" */
	const char *oops_line; /**< "Oops: 0002 [#1] PREEMPT SMP NOPTI" */
	const char *rip_line; /**< "RIP: 0010:func+0x5/0x11 [mod]" (the kernel-mode one), arm64 "pc : func+…" */
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
	/** The die() header of the event ("divide error: 0000 [#1] …"); oops_line is its line. */
	bool has_die;
	struct ct_die_header die;
	const char *exception; /**< the die header's exception name, pooled ("divide error") */
	enum ct_panic_reason_kind reason_kind;
	bool rcu_stall, stack_protector;
	/** Where it died, outside the raw log: function, module ("" in vmlinux) and offset, and the log
	 * line that says so (culprit_source: "RIP line", "stack-protector panic", "hung task's Call Trace"). */
	const char *culprit_function, *culprit_module, *culprit_line, *culprit_source;
	bool has_culprit_offset;
	uint64_t culprit_offset;
	/** The blocked task of a hung-task report ("INFO: task insmod:123 blocked for more than …"). */
	const char *blocked_comm;
	bool has_blocked_pid;
	int blocked_pid;
	/** The symbol part of rip_line ("func+0x5/0x11 [mod]", points into it) and what the line is called
	 * ("RIP line", "pc line"). */
	const char *pc_symbol, *pc_source;
};

/**
 * The first Call Trace entry of @p rec outside the scheduler's and the locks' own code (.sched.text,
 * .lock.text, from @p ks) becomes the culprit when the record has none: a hung task's frame 0 is always
 * __schedule; what matters is who waited.
 */
struct ct_kallsyms;
void ct_panic_culprit_from_trace(struct ct_strpool *pool, const struct ct_kallsyms *ks, struct ct_panic_record *rec);
/** Records @p t (from the log line @p line, pooled in @p pool) as the culprit, found by @p source (static text). */
void ct_panic_set_culprit(struct ct_strpool *pool, struct ct_panic_record *rec, const struct ct_ksym_text *t,
			  const char *line, const char *source);

/** Parses @p log (NUL-terminated) into @p ret; strings go into @p pool. */
void ct_panic_parse(struct ct_strpool *pool, const char *log, struct ct_panic_record *ret);
void ct_panic_record_deinit(struct ct_panic_record *rec);

/* --- kclass.c ------------------------------------------------------------------------------------ */

struct ct_verdict;
/** Decides @p verdict (initialized: triage/triage.h) from the panic record: the kernel rule table of
 * docs/classes.md, the same verdict type as a process core's; @p arch may be NULL. */
void ct_kernel_classify(struct ct_verdict *verdict, const struct ct_arch_info *arch, const struct ct_panic_record *rec);
/** Sets @p verdict's signature from its class, the culprit and its callers (ksignature.c): the
 * panic CPU's stack @p crashed (NULL when none) from the blamed frame, else @p rec's Call Trace. */
void ct_kernel_signature(const struct ct_thread *crashed, const struct ct_panic_record *rec, struct ct_verdict *verdict);
/** The name of rule @p index of the kernel rule table, NULL past its end (for docs and tests). */
const char *ct_kernel_rule_name(size_t index);

/* --- kallsyms.c ---------------------------------------------------------------------------------- */

struct ct_ksym {
	uint64_t address;
	const char *name; /**< points into the table that returned it */
	char type; /**< 't', 'T', 'd', … */
};

/**
 * The kernel's own symbol table decoded from the dump, as arrays by symbol index in address order,
 * with a hash of the names for lookups by name. The arrays are the decoder's (kallsyms.c) or a kept
 * index's mapping (kindex.c): the same layout either way. Owns everything.
 */
struct ct_kallsyms {
	size_t num_syms;
	const uint64_t *addrs; /**< sorted ascending */
	/** 't', 'T', 'd', … by index, with CT_KSYM_ABSOLUTE set on the addresses KASLR does not move. */
	const char *types;
	const uint32_t *name_offs; /**< into names, by index */
	const char *names; /**< NUL-terminated names, without the type letter */
	size_t names_size;
	/** Open addressing by the keyed hash of each name (hash_key, util/keyhash.h; each name once, at
	 * its lowest address): index + 1, 0 for an empty slot; num_slots a power of two. */
	const uint32_t *slots;
	size_t num_slots;
	uint64_t hash_key;
	size_t names_stream_len; /**< bytes of kallsyms_names decoded (the kept index samples them) */
	void *owned[5]; /**< what the decoder allocated, freed by deinit */
	void *map; /**< the kept index's mapping (kindex.c), unmapped by deinit */
	size_t map_len;
	uint64_t text_start, text_end; /**< _stext, _etext */
	/** .sched.text and .lock.text (__sched_text_start …): the scheduler's and the locks' own code, where
	 * every sleeping task sits; 0, 0 when unknown. */
	uint64_t sched_start, sched_end, lock_start, lock_end;
	/** Loaded modules (kmodules.c), borrowed; NULL without BTF: module frames are then scanned. */
	const struct ct_kmodules *modules;
	/** The ORC tables found once for all stacks (orc.c), borrowed; NULL: each unwind looks them up.
	 * Not const: ct_orc_find keeps its answers in them for the next stack. */
	struct ct_orc *orc;
};

/** ct_kallsyms.types' flag of an absolute address (a per-CPU symbol under ABSOLUTE_PERCPU). */
#define CT_KSYM_ABSOLUTE 0x80

/** Decodes kallsyms through the VMCOREINFO symbols (Linux 6.0+). CT_ERROR_NOT_FOUND when absent. */
struct ct_error *ct_kallsyms_load(struct ct_vmcore *vm, struct ct_kallsyms *ret);
/** Fills the fields found by name (_stext … __lock_text_end) once the arrays are set. */
void ct_kallsyms_find_sections(struct ct_kallsyms *ks);
void ct_kallsyms_deinit(struct ct_kallsyms *ks);
/** The index of the first of the @p n address-sorted @p syms above @p addr (n when none). */
size_t ct_ksym_upper_bound(const struct ct_ksym *syms, size_t n, uint64_t addr);
/** The function symbol containing @p addr into *ret; false for data symbols and addresses past _etext. */
bool ct_kallsyms_lookup(const struct ct_kallsyms *ks, uint64_t addr, struct ct_ksym *ret);
/** The address of @p name (the lowest of equal names); false when absent. */
bool ct_kallsyms_find(const struct ct_kallsyms *ks, const char *name, uint64_t *ret);
/** True when @p addr is in core kernel text. */
bool ct_kallsyms_is_text(const struct ct_kallsyms *ks, uint64_t addr);
/** True when @p addr is in .sched.text or .lock.text (get_wchan() skips these frames too). */
bool ct_kallsyms_is_sched(const struct ct_kallsyms *ks, uint64_t addr);

/* --- btf.c (the only user of libbpf) ------------------------------------------------------------- */

/** The dumped kernel's BTF (its .BTF section, read from kernel memory). */
struct ct_kbtf;

struct ct_budget;
/** Reads __start_BTF..__stop_BTF and parses it. CT_ERROR_NOT_FOUND without those symbols,
 * CT_ERROR_CORRUPT when it does not parse. Member lookups spend @p budget's nodes (borrowed: it must
 * outlive the handle; NULL for none). */
struct ct_error *ct_kbtf_load(struct ct_vmcore *vm, const struct ct_kallsyms *ks, struct ct_budget *budget,
			      struct ct_kbtf **ret);
/** Parses @p size bytes of raw BTF at @p data (copied) as ct_kbtf_load() parses the dump's: for the
 * fuzz target. CT_ERROR_CORRUPT when it does not parse, CT_ERROR_UNSUPPORTED without libbpf. */
struct ct_error *ct_kbtf_from_bytes(const void *data, size_t size, struct ct_budget *budget, struct ct_kbtf **ret);
void ct_kbtf_free(struct ct_kbtf *btf);
/** The raw BTF bytes the handle parsed (@p size of them), for the kept index (kindex.h). */
const void *ct_kbtf_raw(const struct ct_kbtf *btf, size_t *size);
/** Byte offset (and size, when @p size) of member @p path ("thread.sp", anonymous members looked into)
 * of struct or union @p type. False when unknown, or for a bitfield. NULL @p btf gives false. */
bool ct_kbtf_member(struct ct_kbtf *btf, const char *type, const char *path, uint64_t *offset, uint64_t *size);
/** sizeof(struct/union @p type). */
bool ct_kbtf_size(struct ct_kbtf *btf, const char *type, uint64_t *size);
/** The value of enumerator @p name (MOD_TEXT, …). */
bool ct_kbtf_enum_value(struct ct_kbtf *btf, const char *name, int64_t *ret);
/** The first member lookup ("task_struct.pid") the node budget stopped, and the BTF's type count
 * (@p num_types); NULL while none was stopped. The string lives as long as @p btf. */
const char *ct_kbtf_budget_stop(const struct ct_kbtf *btf, uint32_t *num_types);

/* --- kmodules.c ---------------------------------------------------------------------------------- */

/** One loaded module (struct module), with its symbols and ORC tables. */
struct ct_kmodule {
	char name[64];
	uint64_t text_start, text_end; /**< core text */
	uint64_t init_start, init_end; /**< init text (0, 0 once freed) */
	struct ct_ksym *syms; /**< text symbols, sorted by address; names in @p names */
	size_t num_syms;
	char *names;
	/** Its ORC tables (mod->arch.orc_unwind_ip / orc_unwind / num_orcs), same format as the core's. */
	uint64_t orc_ip, orc_entries, num_orcs;
};

struct ct_kmodules {
	struct ct_kmodule *mods;
	size_t num;
	/** The list node at which the walk came back to a node it had walked (0: it did not loop). */
	uint64_t loop_node;
	/** The walk stopped at the work budget's nodes or the module cap (a list that is too long). */
	bool cut;
};

/** Walks the kernel's module list (layouts from @p btf); each node spends one of @p budget's nodes. */
struct ct_error *ct_kmodules_load(struct ct_vmcore *vm, const struct ct_kallsyms *ks, struct ct_kbtf *btf,
				  struct ct_budget *budget, struct ct_kmodules *ret);
void ct_kmodules_deinit(struct ct_kmodules *mods);
/** The module whose core or init text holds @p addr, or NULL. */
const struct ct_kmodule *ct_kmodules_find(const struct ct_kmodules *mods, uint64_t addr);
/** The module symbol containing @p addr, or NULL. */
const struct ct_ksym *ct_kmodule_lookup(const struct ct_kmodule *mod, uint64_t addr);

/* --- kstack.c ------------------------------------------------------------------------------------ */

/**
 * Unwinds one CPU's stack from its saved registers into @p thread. Frame 0 comes from the registers
 * (trust context); then the kernel's ORC tables, found through kallsyms, give the frames (trust cfi),
 * crossing pt_regs frames. A frame in module text is stepped over by a validated scan (trust scan).
 * Without ORC symbols the whole stack is scanned, each return address validated by a call
 * instruction just before it. @p max_frames caps the result.
 */
void ct_kstack_unwind(struct ct_vmcore *vm, const struct ct_kallsyms *ks, const struct ct_core_thread *cpu,
		      struct ct_strpool *strings, struct ct_thread *thread, size_t max_frames);

/* --- tasks.c ------------------------------------------------------------------------------------- */

/** True when @p btf describes every struct member ct_ktasks_collect() reads; else *missing names
 * the first that it does not (static string). */
bool ct_ktasks_layout(struct ct_kbtf *btf, const char **missing);

/** The tasks stage's output (ct_ktasks_collect), moved into the model by the kernel kind's finish. */
struct ct_ktasks {
	struct ct_kernel_task *items; /**< owned; by pid, then CPU */
	size_t count, capacity;
	size_t total; /**< tasks counted in the dump (all states) */
	bool all; /**< items holds every task (the walk ran with all), not only the D-state ones */
};

/**
 * Lists the kernel's tasks into @p ret (layouts from @p btf): every task with @p all, else
 * the D-state ones, those whose state is not in the dump ('?') and the one whose pid is @p must_pid
 * (the hung-task report's blocked task; -1 for none); each sleeping task's stack unwound from its saved
 * context with ORC. Tasks running on a CPU get no stack here (their CPU's thread has it). Every list node
 * read spends one node of @p budget (borrowed; NULL for none). Problems are diagnostics: a task or a
 * list link not in the dump (filtered) is named and the walk goes on from the list's other end; the
 * pid namespace's IDR then gives the tasks neither end reached.
 */
void ct_ktasks_collect(struct ct_vmcore *vm, const struct ct_kallsyms *ks, struct ct_kbtf *btf, struct ct_budget *budget,
		       bool all, int must_pid, size_t max_frames, struct ct_sink out, struct ct_ktasks *ret);
/** Frees the tasks not moved into a report. */
void ct_ktasks_free(struct ct_ktasks *tasks);

/* --- vmlinux.c ----------------------------------------------------------------------------------- */

/**
 * Checks @p path's GNU build-id against VMCOREINFO BUILD-ID. A mismatch is an error
 * (CT_ERROR_INVALID_ARGUMENT): symbols from another build would name the wrong functions.
 */
struct ct_error *ct_vmlinux_check(struct ct_vmcore *vm, const char *path, const struct ct_sink *out);
struct ct_options;
/**
 * Adds file:line (and inline frames) from the DWARF of opts->executable (the vmlinux) to every kernel
 * frame of the @p num_threads CPU stacks @p threads, and to the frames of modules whose .ko is under
 * opts->debug_dirs (the crashed CPU's unnamed module frames take the names of @p rec's Call Trace).
 * *@p blame_frame, the crashed stack's blamed frame (-1: none), follows its frame's expansion.
 */
void ct_vmlinux_symbolize(struct ct_vmcore *vm, const struct ct_options *opts, const struct ct_panic_record *rec,
			  struct ct_thread *threads, size_t num_threads, long *blame_frame, struct ct_sink out);

#endif
