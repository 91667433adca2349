// A defined symbol of a module by name: the data objects later stages read from the dump (glibc's
// __abort_msg, CPython's _PyRuntime and Py_Version). Linear in the module's symbol table: each is
// looked up once per analysis.
#include <string.h>

#include "modules/modules.h"

bool ct_modules_symbol(const struct ct_module_state *m, const char *name, uint64_t *ret)
{
	if (!m->dwfl_module)
		return false;
	int n = dwfl_module_getsymtab(m->dwfl_module);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *sname = dwfl_module_getsym_info(m->dwfl_module, i, &sym, &addr, NULL, NULL, NULL);
		if (sname && sym.st_shndx != SHN_UNDEF && strcmp(sname, name) == 0) {
			*ret = addr;
			return true;
		}
	}
	return false;
}
