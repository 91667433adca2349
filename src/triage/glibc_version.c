// The glibc version of the process: the highest GLIBC_2.x version definition of libc.so.6 (or of a
// static executable, which has none: then unknown). A release that adds no symbol keeps the previous
// definition, so this is a lower bound, which is what the layout table needs (layouts change only
// in releases that also add symbols: 2.25 added pthread_cond_t's new ABI and several functions).
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>

#include "modules/modules.h"
#include "triage/hang.h"

/** Version definitions read from one file (glibc 2.36 has ~40). */
#define MAX_VERDEFS 4096

static bool is_libc(const struct ct_module_state *m)
{
	return m->name && strncmp(m->name, "libc.so", 7) == 0;
}

static void scan_verdefs(Elf *elf, unsigned *major, unsigned *minor)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_GNU_verdef)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		size_t off = 0;
		for (size_t n = 0; n < MAX_VERDEFS && n < shdr.sh_info; n++) {
			GElf_Verdef def;
			GElf_Verdaux aux;
			if (!gelf_getverdef(data, (int)off, &def) || !gelf_getverdaux(data, (int)(off + def.vd_aux), &aux))
				break;
			const char *name = elf_strptr(elf, shdr.sh_link, aux.vda_name);
			unsigned a, b;
			if (name && sscanf(name, "GLIBC_%u.%u", &a, &b) == 2 && (a > *major || (a == *major && b > *minor))) {
				*major = a;
				*minor = b;
			}
			if (!def.vd_next)
				break;
			off += def.vd_next;
		}
	}
}

bool ct_glibc_version(const struct ct_module_set *mods, unsigned *major, unsigned *minor)
{
	for (size_t i = 0; i < mods->num_modules; i++) {
		const struct ct_module_state *m = &mods->modules[i];
		if (!is_libc(m) || !m->dwfl_module || m->match == 0)
			continue;
		Dwarf_Addr bias;
		Elf *elf = dwfl_module_getelf(m->dwfl_module, &bias);
		if (!elf)
			continue;
		unsigned a = 0, b = 0;
		scan_verdefs(elf, &a, &b);
		if (a) {
			*major = a;
			*minor = b;
			return true;
		}
	}
	return false;
}
