// Defined symbols of a module by name: the data objects later stages read from the dump (glibc's
// __abort_msg, CPython's _PyRuntime and Py_Version). One pass over the symbol table finds them
// all: a debug file's table holds tens of thousands of symbols (python3.11's 41,000).
#include <string.h>

#include "modules/modules.h"

size_t ct_modules_symbols(const struct ct_module_state *m, const char *const *names, size_t n, uint64_t *addrs,
			  bool *found)
{
	size_t hits = 0;
	for (size_t k = 0; k < n; k++)
		found[k] = false;
	if (!m->dwfl_module)
		return 0;
	int count = dwfl_module_getsymtab(m->dwfl_module);
	for (int i = 1; i < count && hits < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *sname = dwfl_module_getsym_info(m->dwfl_module, i, &sym, &addr, NULL, NULL, NULL);
		if (!sname || sym.st_shndx == SHN_UNDEF)
			continue;
		for (size_t k = 0; k < n; k++) {
			if (!found[k] && sname[0] == names[k][0] && strcmp(sname, names[k]) == 0) {
				addrs[k] = addr;
				found[k] = true;
				hits++;
			}
		}
	}
	return hits;
}

bool ct_modules_symbol(const struct ct_module_state *m, const char *name, uint64_t *ret)
{
	bool found;
	return ct_modules_symbols(m, &name, 1, ret, &found) == 1;
}
