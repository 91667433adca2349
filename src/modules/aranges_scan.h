/**
 * @file aranges_scan.h
 * The unit of an address by one pass over a module's `.debug_aranges`, for the few lookups of a
 * small core. libdw's dwarf_addrdie answers the same from a table it builds of every tuple first
 * (tsearch, sort, tdestroy: 7 M instructions for glibc's 6,000 tuples, a third of a small core's
 * analysis, issue 28); a scan of the 100 KB section costs ~40 K. After CT_ARANGES_SCANS scans of
 * one module (a deep stack with many distinct pcs), the caller lets libdw build its table.
 */
#ifndef CT_ARANGES_SCAN_H
#define CT_ARANGES_SCAN_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

/** Scans of one module before libdw's table is cheaper. */
#define CT_ARANGES_SCANS 64

/** A module's `.debug_aranges` as found once. */
struct ct_aranges_scan {
	int state; /**< 0 not looked for, 1 usable, -1 not (no section, compressed, odd layout) */
	const uint8_t *data;
	size_t size;
	bool big_endian;
	unsigned scans; /**< made so far */
};

/**
 * The unit whose tuple holds @p addr (module-relative) into *@p cu, as dwarf_addrdie(@p dw, addr)
 * finds it: 1 found, 0 no tuple holds it, -1 no answer here (the section cannot be scanned, it
 * is malformed, the units of two tuples that hold it differ, or the scans are used up): ask libdw.
 */
int ct_aranges_scan(struct ct_aranges_scan *s, Dwarf *dw, Dwarf_Addr addr, Dwarf_Die *cu);

#endif
