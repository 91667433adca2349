/**
 * @file kernel.h
 * Linux kernel dumps (vmcores): their analysis. The process pipeline never sees a vmcore: the probe
 * chain (dump/format.h) tells them apart and ct_analyze() dispatches on the format's pipeline.
 */
#ifndef CT_KERNEL_H
#define CT_KERNEL_H

#include <stddef.h>

#include "coretriage/coretriage.h"
#include "dump/kind.h"

/**
 * The stages of a kernel dump (dump/kind.h), run by ct_pipeline_run() over the vmcore at
 * opts->core_path (libkdumpfile opens it by path: the mapped input is closed first): input, kernel,
 * one thread per CPU (tid = CPU number, crashed = the panic CPU), crash class and diagnostics.
 * opts->executable, when not NULL, is a vmlinux; its build-id must match the dump's VMCOREINFO
 * BUILD-ID. The readers of lists and BTF spend the run's work budget (util/budget.h).
 * Errors: CT_ERROR_OS (cannot open), CT_ERROR_CORRUPT (unreadable headers), CT_ERROR_UNSUPPORTED
 * (a format or architecture libkdumpfile cannot read), CT_ERROR_INVALID_ARGUMENT (vmlinux does not
 * match the dump). Problems that still leave a useful report are diagnostics, not errors.
 */
extern const struct ct_dump_kind ct_kernel_kind;

#endif
