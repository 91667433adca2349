/**
 * @file debug_budget.h
 * The decompressed size of debug sections, counted before libdw inflates them. libdw inflates a
 * compressed section (SHF_COMPRESSED, or a legacy .zdebug one) whole, to the size its header
 * claims, when it is first read; a crafted header (in the dump's own vdso image, or a debug file)
 * claims gigabytes. Every ELF handed to libdwfl is admitted against the DEBUG kind of the work
 * budget (util/budget.h) first.
 */
#ifndef CT_MODULES_DEBUG_BUDGET_H
#define CT_MODULES_DEBUG_BUDGET_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coretriage/report.h"

struct ct_module_set;

/**
 * Spends the inflated size of @p elf's compressed sections from the budget. False (and one warning
 * naming @p what) when it does not fit: the caller must not let libdw read those sections.
 */
bool ct_debug_admit(struct ct_module_set *s, Elf *elf, const char *what);

/**
 * Same for an ELF image in memory that the caller may change (the vdso copied out of the dump):
 * when it does not fit, the compressed sections are turned into SHT_NOBITS in @p image, so libdw
 * sees no data in them. Returns whether the image was admitted unchanged.
 */
bool ct_debug_admit_image(struct ct_module_set *s, uint8_t *image, size_t size, const char *what);

/**
 * Warns about each module that frames of @p threads landed in whose file holds DWARF that libdw could not read
 * (a compressed section that does not inflate, a corrupt unit header): the report would otherwise
 * look complete while its source lines are missing.
 */
void ct_debug_check_unusable(struct ct_module_set *s, const struct ct_thread *threads, size_t num_threads);

#endif
