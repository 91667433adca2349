// A lock on the heap or a stack named from the frame that waits for it: a parameter or local of the
// waiting function that points to (or is) the object holding the lock, "&conn->lock", "&job.mu",
// "m". Variables are read where the frame keeps them without registers: at a frame-base offset
// (DW_OP_fbreg with a DW_OP_call_frame_cfa frame base; the frame's CFA is its caller's sp) or at a
// static address (DW_OP_addr). Register-located variables of optimized code are not read.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump/elfcore.h"
#include "modules/dwarf_ref.h"
#include "modules/modules.h"
#include "modules/symbolize.h"
#include "triage/hang.h"
#include "util/bytes.h"

/** Location expressions examined per variable (location lists give one per range). */
#define MAX_EXPRS 4

/** The CFA of frame @p i: the sp of the next physical frame (its caller). */
static bool frame_cfa(const struct ct_thread *t, size_t i, uint64_t *ret)
{
	for (size_t k = i + 1; k < t->num_frames; k++) {
		if (t->frames[k].pc == t->frames[i].pc)
			continue; // an inline chain shares its physical frame
		if (!t->frames[k].has_sp)
			return false;
		*ret = t->frames[k].sp;
		return true;
	}
	return false;
}

static bool frame_base_is_cfa(Dwarf_Die *scopes, int n, Dwarf_Addr pc)
{
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		Dwarf_Attribute attr;
		Dwarf_Op *expr;
		size_t len;
		return ct_dwarf_attr_integrate(&scopes[i], DW_AT_frame_base, &attr) &&
		       dwarf_getlocation_addr(&attr, pc, &expr, &len, 1) == 1 && len == 1 &&
		       expr[0].atom == DW_OP_call_frame_cfa;
	}
	return false;
}

/** Address of variable @p var at @p pc (module-relative), from its frame-base offset or static address. */
static bool var_address(Dwarf_Die *var, Dwarf_Addr pc, Dwarf_Addr bias, bool fb_ok, uint64_t cfa, uint64_t *ret)
{
	Dwarf_Attribute attr;
	if (!ct_dwarf_attr_integrate(var, DW_AT_location, &attr))
		return false;
	Dwarf_Op *exprs[MAX_EXPRS];
	size_t lens[MAX_EXPRS];
	int n = dwarf_getlocation_addr(&attr, pc, exprs, lens, MAX_EXPRS);
	for (int i = 0; i < n; i++) {
		if (lens[i] != 1)
			continue;
		if (exprs[i][0].atom == DW_OP_fbreg && fb_ok) {
			*ret = cfa + (uint64_t)(int64_t)exprs[i][0].number;
			return true;
		}
		if (exprs[i][0].atom == DW_OP_addr) {
			*ret = exprs[i][0].number + bias;
			return true;
		}
	}
	return false;
}

/**
 * Names @p lock through variable @p var of @p type located at @p addr: "&name->member" for a pointer
 * to an object holding it, "name" for a pointer to it, "&name.member" for an object holding it.
 */
static const char *through(const struct ct_triage_input *s, const char *name, Dwarf_Die *type, uint64_t addr, uint64_t lock)
{
	Dwarf_Die buf, *t = ct_dwarf_peel_type(type, &buf);
	if (!t)
		return NULL;
	char path[256] = "";
	Dwarf_Word size;
	if (dwarf_tag(t) == DW_TAG_pointer_type) {
		Dwarf_Attribute attr;
		Dwarf_Die target;
		uint64_t p;
		if (!ct_core_read_word(s->core, addr, &p) || !ct_dwarf_attr_integrate(t, DW_AT_type, &attr) ||
		    !ct_dwarf_ref_die(&attr, &target) || ct_dwarf_aggregate_size(&target, &size) != 0 || lock < p ||
		    lock - p >= size)
			return NULL;
		if (lock == p && !ct_lock_member_path(&target, 0, path, sizeof(path)))
			return ct_strpool_intern(s->out.strings, name);
		ct_lock_member_path(&target, lock - p, path, sizeof(path));
		return path[0] == '.' ? ct_strpool_printf(s->out.strings, "&%s->%s", name, path + 1) : NULL;
	}
	if (ct_dwarf_aggregate_size(t, &size) != 0 || lock < addr || lock - addr >= size)
		return NULL;
	ct_lock_member_path(t, lock - addr, path, sizeof(path));
	return path[0] ? ct_strpool_printf(s->out.strings, "&%s%s", name, path) : ct_strpool_printf(s->out.strings, "&%s", name);
}

const char *ct_lock_name_from_frame(const struct ct_triage_input *s, const struct ct_thread *t, long frame, uint64_t lock)
{
	if (frame < 0 || (size_t)frame >= t->num_frames || !s->mods->dwfl)
		return NULL;
	const struct ct_frame *f = &t->frames[frame];
	// A caller's pc is a return address: look up the call, one byte before.
	uint64_t lookup = frame > 0 ? f->pc - 1 : f->pc;
	// The shared scope lookup: it works without .debug_aranges (clang, Go) and through inlined
	// calls whose origin is in another unit (LTO), where dwfl_module_addrdie + dwarf_getscopes do not.
	Dwarf_Addr bias;
	Dwarf_Die *scopes = NULL;
	int n = ct_symbolize_scopes(s->mods, lookup, &scopes, &bias);
	if (n <= 0)
		return NULL;
	uint64_t cfa = 0;
	bool fb_ok = frame_base_is_cfa(scopes, n, lookup - bias) && frame_cfa(t, (size_t)frame, &cfa);
	const char *found = NULL;
	for (int i = 0; i < n && !found; i++) {
		Dwarf_Die child;
		if (dwarf_child(&scopes[i], &child) != 0)
			continue;
		do {
			int tag = dwarf_tag(&child);
			if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter)
				continue;
			const char *name = ct_dwarf_diename(&child);
			Dwarf_Attribute attr;
			Dwarf_Die type;
			uint64_t addr;
			if (!name || !ct_dwarf_attr_integrate(&child, DW_AT_type, &attr) || !ct_dwarf_ref_die(&attr, &type) ||
			    !var_address(&child, lookup - bias, bias, fb_ok, cfa, &addr))
				continue;
			found = through(s, name, &type, addr, lock);
		} while (!found && dwarf_siblingof(&child, &child) == 0);
		// Stop at the function: its callers' variables are other frames.
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
	}
	free(scopes);
	return found;
}
