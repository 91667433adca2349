// Names of the objects threads wait on: the ELF symbol holding the address (dwfl_module_addrinfo
// finds object symbols as well as functions) and, when the module has DWARF, the member path inside
// that variable ("bank.lock", "locks[1]", "pool.slots[2].mu") from the variable's type.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "modules/dwarf_ref.h"
#include "modules/modules.h"
#include "triage/facts.h"
#include "triage/hang.h"

/** DIEs visited looking for a variable: bounds the cost on programs with huge DWARF. */
#define MAX_DIES 200000
/** Nesting of members and array elements followed. */
#define MAX_DEPTH 8

bool ct_data_symbol(const struct ct_triage_input *s, uint64_t address, struct ct_data_symbol *ret)
{
	// libdwfl's module ranges cover .bss past the file-backed pages (NT_FILE does not).
	Dwfl_Module *mod = s->mods->dwfl ? dwfl_addrmodule(s->mods->dwfl, address) : NULL;
	if (!mod)
		return false;
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, address, &off, &sym, NULL, NULL, NULL);
	if (!name || !*name)
		return false;
	// addrinfo may answer with the nearest symbol below: the address must lie inside it.
	if (sym.st_size ? off >= sym.st_size : off != 0)
		return false;
	ret->start = address - off;
	ret->size = sym.st_size;
	ret->name = name;
	return true;
}

static bool type_of(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Attribute attr;
	return ct_dwarf_attr_integrate(die, DW_AT_type, &attr) && ct_dwarf_ref_die(&attr, ret);
}

/** A typedef glibc names its synchronization types by: stop descending there. */
static bool is_sync_typedef(Dwarf_Die *type)
{
	if (dwarf_tag(type) != DW_TAG_typedef)
		return false;
	const char *n = ct_dwarf_diename(type);
	return n && (strncmp(n, "pthread_", 8) == 0 || strcmp(n, "sem_t") == 0);
}

bool ct_struct_member_at(Dwarf_Die *type, uint64_t off, Dwarf_Die *member, uint64_t *loc, Dwarf_Die *mtype)
{
	Dwarf_Die child;
	if (dwarf_child(type, &child) != 0)
		return false;
	do {
		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		Dwarf_Attribute attr;
		Dwarf_Word at, msize;
		if (!ct_dwarf_attr_integrate(&child, DW_AT_data_member_location, &attr) || dwarf_formudata(&attr, &at) != 0 ||
		    at > off)
			continue;
		if (!type_of(&child, mtype) || ct_dwarf_aggregate_size(mtype, &msize) != 0 || off >= at + msize)
			continue;
		*member = child;
		*loc = at;
		return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/** Appends to @p buf the member path of @p off inside @p type. */
static void member_path(Dwarf_Die *type, uint64_t off, char *buf, size_t size, int depth, Dwarf_Die *leaf,
			bool *has_leaf)
{
	size_t used = strlen(buf);
	if (off == 0 && (is_sync_typedef(type) || depth >= MAX_DEPTH))
		return;
	if (depth >= MAX_DEPTH)
		goto rest;
	Dwarf_Die peeled_buf, *t = ct_dwarf_peel_type(type, &peeled_buf);
	if (!t)
		goto rest;
	int tag = dwarf_tag(t);
	if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type) {
		Dwarf_Die member, mtype;
		uint64_t loc;
		const char *name = ct_struct_member_at(t, off, &member, &loc, &mtype) ? ct_dwarf_diename(&member) : NULL;
		if (!name)
			goto rest;
		snprintf(buf + used, size - used, ".%s", name);
		member_path(&mtype, off - loc, buf, size, depth + 1, leaf, has_leaf);
		return;
	} else if (tag == DW_TAG_array_type) {
		Dwarf_Die elem;
		Dwarf_Word esize;
		if (!type_of(t, &elem) || ct_dwarf_aggregate_size(&elem, &esize) != 0 || esize == 0)
			goto rest;
		snprintf(buf + used, size - used, "[%" PRIu64 "]", off / esize);
		member_path(&elem, off % esize, buf, size, depth + 1, leaf, has_leaf);
		return;
	} else if (off == 0 && leaf) {
		// A scalar at the path's end: the type of the value there (the next level of a chain of loads).
		*leaf = *t;
		*has_leaf = true;
		return;
	}
rest:
	if (off)
		snprintf(buf + used, size - used, "+0x%" PRIx64, off);
}

/** The address of a location that is one DW_OP_addr, or DWARF 5's DW_OP_addrx (clang) into .debug_addr. */
static bool op_address(Dwarf_Attribute *loc, Dwarf_Op *op, Dwarf_Addr *ret)
{
	if (op->atom == DW_OP_addr) {
		*ret = op->number;
		return true;
	}
	Dwarf_Attribute a;
	return (op->atom == DW_OP_addrx || op->atom == DW_OP_GNU_addr_index) && dwarf_getlocation_attr(loc, op, &a) == 0 &&
	       dwarf_formaddr(&a, ret) == 0;
}

/** The DWARF variable named @p name whose location is the address @p addr (module-relative, biased). */
static bool find_variable(Dwfl_Module *mod, const char *name, uint64_t addr, Dwarf_Die *ret)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	size_t visited = 0;
	while ((cu = dwfl_module_nextcu(mod, cu, &bias)) != NULL) {
		Dwarf_Die child;
		if (dwarf_child(cu, &child) != 0)
			continue;
		do {
			if (++visited > MAX_DIES)
				return false;
			if (dwarf_tag(&child) != DW_TAG_variable)
				continue;
			const char *n = ct_dwarf_diename(&child);
			if (!n || strcmp(n, name) != 0)
				continue;
			Dwarf_Attribute attr;
			Dwarf_Op *ops;
			size_t nops;
			Dwarf_Addr at;
			if (!dwarf_attr(&child, DW_AT_location, &attr) || dwarf_getlocation(&attr, &ops, &nops) != 0 ||
			    nops != 1 || !op_address(&attr, &ops[0], &at) || at + bias != addr)
				continue;
			*ret = child;
			return true;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return false;
}

const char *ct_lock_name(const struct ct_triage_input *s, uint64_t address, bool use_dwarf)
{
	struct ct_data_symbol sym;
	Dwarf_Die type;
	// System libraries' variables (libc's stdio and malloc locks) are named by their symbol: walking
	// libc's DWARF for a member path costs more than it tells (ct_global_type skips them).
	bool typed = use_dwarf && ct_global_type(s, address, &sym, &type);
	if (!typed && !ct_data_symbol(s, address, &sym))
		return NULL;
	uint64_t off = address - sym.start;
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", sym.name);
	if (typed)
		member_path(&type, off, buf, sizeof(buf), 0, NULL, NULL);
	else if (off)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "+0x%" PRIx64, off);
	return ct_strpool_intern(s->out.strings, buf);
}

bool ct_lock_member_path(Dwarf_Die *type, uint64_t off, char *buf, size_t size)
{
	size_t before = strlen(buf);
	member_path(type, off, buf, size, 0, NULL, NULL);
	return strlen(buf) > before;
}

bool ct_member_path_type(Dwarf_Die *type, uint64_t off, char *buf, size_t size, Dwarf_Die *leaf, bool *has_leaf)
{
	size_t before = strlen(buf);
	*has_leaf = false;
	member_path(type, off, buf, size, 0, leaf, has_leaf);
	return strlen(buf) > before;
}

bool ct_global_type(const struct ct_triage_input *s, uint64_t address, struct ct_data_symbol *sym, Dwarf_Die *type)
{
	if (!ct_data_symbol(s, address, sym))
		return false;
	Dwfl_Module *mod = dwfl_addrmodule(s->mods->dwfl, address);
	const struct ct_module_state *m = NULL;
	for (size_t i = 0; mod && i < s->mods->num_modules && !m; i++)
		m = s->mods->modules[i].dwfl_module == mod ? &s->mods->modules[i] : NULL;
	Dwarf_Die var;
	return mod && m && !ct_path_is_system(m->path) && find_variable(mod, sym->name, sym->start, &var) &&
	       type_of(&var, type);
}
