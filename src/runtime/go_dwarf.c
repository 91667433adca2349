// Go's runtime structure layouts from the binary's own DWARF (the Go linker writes it unless
// -ldflags=-s or -w): offsets by member name, so another Go version's reordered runtime.g is
// still read right (runtime/dwarf_type.c reads the members). The Go linker puts the program's
// types among the top-level DIEs of its units; each DIE looked at spends the work budget's nodes.
#include <dwarf.h>
#include <string.h>

#include "modules/dwarf_ref.h"
#include "runtime/dwarf_type.h"
#include "runtime/go.h"
#include "util/budget.h"

enum { T_G, T_M, T_MODULEDATA, T_NUM };
static const char *const type_names[T_NUM] = { "runtime.g", "runtime.m", "runtime.moduledata" };

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
				const char *name = ct_dwarf_diename(&child);
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
	// (type, member path, where its offset goes)
	const struct {
		int type;
		const char *path;
		uint32_t *off;
	} fields[] = {
		{ T_G, "m", &l.g_m },
		{ T_G, "sched.sp", &l.g_sched_sp },
		{ T_G, "sched.pc", &l.g_sched_pc },
		{ T_G, "sched.lr", &l.g_sched_lr },
		{ T_G, "syscallsp", &l.g_syscallsp },
		{ T_G, "syscallpc", &l.g_syscallpc },
		{ T_G, "atomicstatus", &l.g_atomicstatus },
		{ T_G, "goid", &l.g_goid },
		{ T_G, "waitreason", &l.g_waitreason },
		{ T_G, "lockedm", &l.g_lockedm },
		{ T_G, "gopc", &l.g_gopc },
		{ T_M, "procid", &l.m_procid },
		{ T_M, "curg", &l.m_curg },
		{ T_MODULEDATA, "gofunc", &l.md_gofunc },
	};
	bool ok = true;
	for (size_t i = 0; ok && i < sizeof(fields) / sizeof(fields[0]); i++)
		ok = ct_dwarf_member_offset(&types[fields[i].type], fields[i].path, fields[i].off);
	if (!ok)
		return false;
	*ret = l;
	return true;
}
