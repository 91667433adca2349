// Go's runtime structure layouts from the binary's own DWARF (the Go linker writes it unless
// -ldflags=-s or -w): offsets by member name, so another Go version's reordered runtime.g is
// still read right. The Go linker puts the types of the program among the top-level DIEs of its
// units; each DIE looked at spends the work budget's nodes.
#include <dwarf.h>
#include <string.h>

#include "runtime/go.h"
#include "util/budget.h"

enum { T_G, T_M, T_MODULEDATA, T_NUM };
static const char *const type_names[T_NUM] = { "runtime.g", "runtime.m", "runtime.moduledata" };

// Offset of the member at dotted @p path ("sched.pc") in structure @p type.
static bool member(Dwarf_Die type, const char *path, uint32_t *ret)
{
	uint64_t off = 0;
	char comp[64];
	while (*path) {
		size_t n = strcspn(path, ".");
		Dwarf_Attribute ta;
		// Go's DWARF names each type with a typedef of the structure (runtime.gobuf).
		for (int k = 0; k < 8 && dwarf_tag(&type) == DW_TAG_typedef; k++) {
			if (!dwarf_formref_die(dwarf_attr(&type, DW_AT_type, &ta), &type))
				return false;
		}
		if (n >= sizeof(comp) || dwarf_tag(&type) != DW_TAG_structure_type)
			return false;
		memcpy(comp, path, n);
		comp[n] = '\0';
		path += n + (path[n] == '.');
		Dwarf_Die m;
		bool hit = false;
		if (dwarf_child(&type, &m) != 0)
			return false;
		do {
			const char *name = dwarf_diename(&m);
			hit = dwarf_tag(&m) == DW_TAG_member && name && !strcmp(name, comp);
		} while (!hit && dwarf_siblingof(&m, &m) == 0);
		Dwarf_Attribute a;
		Dwarf_Word loc;
		if (!hit || dwarf_formudata(dwarf_attr(&m, DW_AT_data_member_location, &a), &loc) != 0)
			return false;
		off += loc;
		if (*path && !dwarf_formref_die(dwarf_attr(&m, DW_AT_type, &a), &type))
			return false;
	}
	if (off > UINT32_MAX)
		return false;
	*ret = (uint32_t)off;
	return true;
}

bool ct_go_layout_dwarf(Dwarf *dw, unsigned major, unsigned minor, unsigned pointer_size, struct ct_budget *budget,
			struct ct_go_layout *ret)
{
	Dwarf_Die types[T_NUM];
	bool found[T_NUM] = { false };
	size_t nfound = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dw && nfound < T_NUM && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;
		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				if (!ct_budget_take(budget, CT_BUDGET_NODES, 1))
					return false;
				if (dwarf_tag(&child) != DW_TAG_structure_type)
					continue;
				const char *name = dwarf_diename(&child);
				for (int t = 0; name && t < T_NUM; t++) {
					if (!found[t] && !strcmp(name, type_names[t])) {
						types[t] = child;
						found[t] = true;
						nfound++;
					}
				}
			} while (nfound < T_NUM && dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	if (nfound < T_NUM)
		return false;
	struct ct_go_layout l = { .major = major, .minor = minor, .pointer_size = pointer_size };
	bool ok = member(types[T_G], "m", &l.g_m) && member(types[T_G], "sched.sp", &l.g_sched_sp) &&
		  member(types[T_G], "sched.pc", &l.g_sched_pc) && member(types[T_G], "syscallsp", &l.g_syscallsp) &&
		  member(types[T_G], "syscallpc", &l.g_syscallpc) &&
		  member(types[T_G], "atomicstatus", &l.g_atomicstatus) && member(types[T_G], "goid", &l.g_goid) &&
		  member(types[T_G], "waitreason", &l.g_waitreason) && member(types[T_G], "lockedm", &l.g_lockedm) &&
		  member(types[T_G], "gopc", &l.g_gopc) && member(types[T_M], "procid", &l.m_procid) &&
		  member(types[T_M], "curg", &l.m_curg) && member(types[T_MODULEDATA], "gofunc", &l.md_gofunc);
	if (!ok)
		return false;
	*ret = l;
	return true;
}
