// Lookup of per-architecture tables by the dump's e_machine.
#include <elf.h>
#include <stdio.h>

#include "arch/arch.h"

static const struct ct_arch_info *const arches[] = {
	&ct_arch_x86_64,
	&ct_arch_i386,
	&ct_arch_aarch64,
	&ct_arch_riscv64,
};

const struct ct_arch_info *ct_arch_find(uint16_t e_machine, uint8_t elf_class)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
		if (arches[i]->e_machine == e_machine && arches[i]->elf_class == elf_class)
			return arches[i];
	}
	return NULL;
}

const char *ct_arch_machine_name(uint16_t e_machine, uint8_t elf_class)
{
	bool is64 = elf_class == ELFCLASS64;
	switch (e_machine) {
	case EM_X86_64: return is64 ? "x86_64" : "x32";
	case EM_386: return "i386";
	case EM_AARCH64: return "aarch64";
	case EM_ARM: return "arm";
	case EM_RISCV: return is64 ? "riscv64" : "riscv32";
	case EM_S390: return is64 ? "s390x" : "s390";
	case EM_PPC: return "ppc";
	case EM_PPC64: return "ppc64";
	case EM_MIPS: return is64 ? "mips64" : "mips";
	case EM_SPARCV9: return "sparc64";
	case EM_SPARC: return "sparc";
	case EM_68K: return "m68k";
	case EM_LOONGARCH: return "loongarch64";
	case EM_IA_64: return "ia64";
	case EM_ALPHA: return "alpha";
	default: return NULL;
	}
}
