/**
 * @file dump.h
 * The dump interface: what the one pipeline (src/pipeline.c) asks of every kind of dump, as an ops
 * table beside the facts every kind has. Implemented for ELF process cores (dump_elf.c, over struct
 * ct_core) and kernel dumps (src/kernel/dump_kernel.c, over libkdumpfile's struct ct_vmcore); a live
 * process captured by ptrace is the third (src/live/dump_live.c: its memory copied by
 * process_vm_readv or /proc/PID/mem, its threads from PTRACE_GETREGSET NT_PRSTATUS read by
 * ct_thread_read_pr_reg(), its modules from /proc/PID/maps; its impl a struct ct_core laid out from
 * the copy, so that the process stages read it as they read an ELF core). docs/architecture.md, "Add a dump kind", lists the steps.
 *
 * A dump is const after opening: stages read it, none writes it. What the implementation owns
 * (struct ct_core, struct ct_vmcore, a ptrace session) is behind @c impl, seen only by the stages of
 * its kind (the pipeline kind, src/pipeline.h).
 */
#ifndef CT_DUMP_DUMP_H
#define CT_DUMP_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"
#include "dump/format.h"
#include "dump/thread.h"
#include "util/bytes.h"

struct ct_dump;

/** Where the modules (the code and its symbols) of a dump come from: what the modules stage loads. */
enum ct_dump_module_source {
	/** NT_FILE and the ELF headers in the dump, files on disk checked by build-id (src/modules/). */
	CT_DUMP_MODULES_FILE_NOTE,
	/** The kernel's own tables in the dump: kallsyms, BTF, the module list, ORC; a vmlinux given by
	 * the user for DWARF lines (src/kernel/). */
	CT_DUMP_MODULES_KERNEL,
	/** /proc/PID/maps of a live process, files checked by build-id as for NT_FILE. */
	CT_DUMP_MODULES_PROC_MAPS,
};

/** When the dump was taken, as the dump itself says (the trail stage falls back to the file's time). */
struct ct_dump_time {
	bool has_crash_time;
	int64_t crash_time; /**< seconds since the epoch: VMCOREINFO CRASHTIME, a live process' now */
	bool has_uptime;
	double uptime; /**< seconds since boot of the crash (the kernel log's last record) */
};

/** What a kind of dump does; every op is bounded and never fails hard (false, or an empty answer). */
struct ct_dump_ops {
	/** "process core", "kernel dump", "live process": what error messages call it. */
	const char *what;
	/** Reads all @p len bytes at @p addr of the dumped address space (the process', the kernel's
	 * virtual memory) into @p buf; false when any of them is not in the dump. Hot: unwinding. */
	bool (*read)(const struct ct_dump *dump, uint64_t addr, void *buf, size_t len);
	/** The value of dump fact @p key as the dump records it (a kernel dump: VMCOREINFO's
	 * "OSRELEASE", "BUILD-ID", "PAGESIZE"; a process core: none yet), borrowed; NULL when absent. */
	const char *(*fact)(const struct ct_dump *dump, const char *key);
	/** When it was taken; false when the dump does not say. */
	bool (*time)(const struct ct_dump *dump, struct ct_dump_time *ret);
	/** Frees what the dump owns (impl included); the struct itself is the caller's. */
	void (*close)(struct ct_dump *dump);
};

/** An open dump. */
struct ct_dump {
	const struct ct_dump_ops *ops;
	/** The format the probe chain found (its name is the report's input.kind); static. */
	const struct ct_dump_format *format;
	/** The architecture table; NULL when the architecture is not supported (the dump still opens:
	 * its facts are reported, its threads are not unwound). */
	const struct ct_arch_info *arch;
	/** The architecture's name even without a table ("x86_64", e_machine's name), static. */
	const char *arch_name;
	/** Bytes in a pointer of the dumped program or kernel; 0 when the dump does not say. */
	unsigned pointer_size;
	/** Where the modules come from. */
	enum ct_dump_module_source modules;
	/** The threads of a process, the CPUs of a kernel dump (tid = CPU number), in the dump's order
	 * (a process core's dumping thread first, CPUs by number); capped by --max-threads. Owned by
	 * the implementation. */
	const struct ct_core_thread *threads;
	size_t num_threads;
	/** The implementation's own state (struct ct_core, struct ct_vmcore). */
	void *impl;
};

/** ops->read over the dump: false for a NULL buffer of zero bytes too (never touches memory). */
static inline bool ct_dump_read(const struct ct_dump *dump, uint64_t addr, void *buf, size_t len)
{
	return dump->ops->read(dump, addr, buf, len);
}

/** Closes @p dump (its implementation's state) and clears it; a cleared dump closes to nothing. */
void ct_dump_close(struct ct_dump *dump);

struct ct_core;
/**
 * The ELF process core @p core (owned from here on: ct_dump_close destroys it) as a dump of
 * @p format.
 */
void ct_dump_from_core(struct ct_core *core, const struct ct_dump_format *format, struct ct_dump *ret);

#endif
