/**
 * @file kernel.h
 * Linux kernel dumps (vmcores): their analysis. The process pipeline never sees a vmcore: the probe
 * chain (dump/format.h) tells them apart and ct_analyze() dispatches on the format's pipeline.
 */
#ifndef CT_KERNEL_H
#define CT_KERNEL_H

#include <stddef.h>

#include "coretriage/coretriage.h"
#include "dump/format.h"

/**
 * Analyzes the vmcore at opts->core_path into @p report: input, kernel, one thread per CPU
 * (tid = CPU number, crashed = the panic CPU), crash class and diagnostics. opts->executable, when
 * not NULL, is a vmlinux; its build-id must match the dump's VMCOREINFO BUILD-ID.
 * @p format is the one the probe chain found (dump/format.h; static).
 * Errors: CT_ERROR_OS (cannot open), CT_ERROR_CORRUPT (unreadable headers), CT_ERROR_UNSUPPORTED
 * (a format or architecture libkdumpfile cannot read), CT_ERROR_INVALID_ARGUMENT (vmlinux does not
 * match the dump). Problems that still leave a useful report are diagnostics, not errors.
 */
struct ct_budget;
/** @p budget: the run's work budget (util/budget.h), spent by the list and BTF readers. */
struct ct_error *ct_kernel_analyze(const struct ct_options *opts, const struct ct_dump_format *format,
				   struct ct_budget *budget, struct ct_report *report);

#endif
