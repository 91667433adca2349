/**
 * @file format.h
 * The probe chain: every dump format coretriage analyzes, as one ops table (libkdumpfile dispatches
 * its formats the same way: each format's probe looks at the bytes, the first that takes them wins).
 * Process cores and kernel dumps are formats of the same table; the format says which pipeline
 * analyzes it (src/analyze.c dispatches on that). Compressed containers are not formats: src/input/
 * unpacks them first and the chain runs on what they held.
 */
#ifndef CT_DUMP_FORMAT_H
#define CT_DUMP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The pipeline that analyzes a format's dumps. */
enum ct_dump_pipeline {
	CT_PIPELINE_PROCESS, /**< src/process/: a process core */
	CT_PIPELINE_KERNEL, /**< src/kernel/: a vmcore (needs libkdumpfile: CT_KERNEL_SUPPORT) */
};

/** How a format lays out its file: what its reader must do before the bytes are a dump. */
enum ct_dump_container {
	CT_CONTAINER_ELF, /**< an ELF core: program headers and notes */
	CT_CONTAINER_DISKDUMP, /**< makedumpfile's KDUMP/DISKDUMP header, bitmaps and pages */
	CT_CONTAINER_FLATTENED, /**< makedumpfile -F's stream: rebuilt into a diskdump file first */
};

/** One dump format. */
struct ct_dump_format {
	/** Its name: the report's input.kind ("elf-core", "qemu-elf", "kdump-compressed", …). */
	const char *name;
	enum ct_dump_pipeline pipeline;
	enum ct_dump_container container;
	/** Written by QEMU (dump-guest-memory), not by the kernel's kdump: the registers are QEMU's
	 * per-CPU state and the dump may lack the kernel's own notes. A diskdump header without a kernel
	 * release is QEMU's too, but only its reader can tell (the probe looks at signatures). */
	bool qemu;
	/** True when the @p size bytes at @p data (the mapped file) are a dump of this format; cheap and
	 * bounds-checked: signatures, headers and notes only. */
	bool (*probe)(const uint8_t *data, size_t size);
};

/** A set of pipelines: bit (1 << enum ct_dump_pipeline). */
#define CT_PIPELINE_BIT(p) (1u << (p))

/**
 * The first format of the chain whose pipeline is in @p pipelines (the ones this build has) and
 * whose probe takes the bytes; NULL when none does.
 */
const struct ct_dump_format *ct_dump_probe(const uint8_t *data, size_t size, unsigned pipelines);
/** Format @p index of the chain in probe order, NULL past its end (for docs and tests). */
const struct ct_dump_format *ct_dump_format_at(size_t index);

/* --- probe_vmcore.c ----------------------------------------------------------------------------- */

/** What an ELF core is by its notes: a process core, or a vmcore of QEMU or of kdump. */
enum ct_elf_vmcore { CT_ELF_NOT_VMCORE, CT_ELF_QEMU_VMCORE, CT_ELF_KDUMP_VMCORE };

/**
 * Whether an ELF core is a vmcore, by its notes: VMCOREINFO (kdump's, stamped with CRASHTIME) or
 * QEMU's per-CPU "QEMU" note or an unstamped VMCOREINFO (QEMU's); a dump cut before its notes by
 * segments at kernel addresses of its architecture.
 */
enum ct_elf_vmcore ct_probe_elf_vmcore(const uint8_t *data, size_t size);

#endif
