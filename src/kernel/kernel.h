/**
 * @file kernel.h
 * Linux kernel dumps (vmcores): detection and analysis. The process pipeline never sees a vmcore:
 * ct_analyze() asks ct_kernel_probe() first.
 */
#ifndef CT_KERNEL_H
#define CT_KERNEL_H

#include <stddef.h>

#include "coretriage/coretriage.h"

/**
 * Returns the input kind ("kdump-elf", "qemu-elf", "kdump-compressed", "kdump-flattened") when the
 * bytes are a kernel dump, else NULL. Cheap and bounds-checked: @p data is the mmapped file, and only
 * the headers and the ELF notes are looked at. An ELF core is a vmcore when one of its notes is
 * VMCOREINFO or QEMU's per-CPU "QEMU" note. The returned string is static.
 */
const char *ct_kernel_probe(const unsigned char *data, size_t size);

/**
 * Analyzes the vmcore at opts->core_path into @p report: input, kernel, one thread per CPU
 * (tid = CPU number, crashed = the panic CPU), crash class and diagnostics. opts->executable, when
 * not NULL, is a vmlinux; its build-id must match the dump's VMCOREINFO BUILD-ID.
 * @p kind is what ct_kernel_probe() returned (borrowed).
 * Errors: CT_ERROR_OS (cannot open), CT_ERROR_CORRUPT (unreadable headers), CT_ERROR_UNSUPPORTED
 * (a format or architecture libkdumpfile cannot read), CT_ERROR_INVALID_ARGUMENT (vmlinux does not
 * match the dump). Problems that still leave a useful report are diagnostics, not errors.
 */
struct ct_error *ct_kernel_analyze(const struct ct_options *opts, const char *kind, struct ct_report *report);

#endif
