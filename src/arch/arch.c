// Lookup of per-architecture tables by the dump's e_machine, class and byte order.
#include <elf.h>
#include <stdio.h>

#include "arch/arch.h"

static const struct ct_arch_info *const arches[] = {
	&ct_arch_x86_64, &ct_arch_i386,	  &ct_arch_x32,	   &ct_arch_aarch64, &ct_arch_arm,    &ct_arch_riscv64,
	&ct_arch_s390x,	 &ct_arch_s390,	  &ct_arch_ppc64,  &ct_arch_ppc64le, &ct_arch_ppc,    &ct_arch_sparc64,
	&ct_arch_mips,	 &ct_arch_mipsel, &ct_arch_mips64, &ct_arch_mips64el,
};

const struct ct_arch_info *ct_arch_find_endian(uint16_t e_machine, uint8_t elf_class, bool big_endian)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
		if (arches[i]->e_machine == e_machine && arches[i]->elf_class == elf_class &&
		    arches[i]->big_endian == big_endian)
			return arches[i];
	}
	return NULL;
}

const struct ct_arch_info *ct_arch_find(uint16_t e_machine, uint8_t elf_class)
{
	// The byte order each architecture is dumped in by default.
	bool be = e_machine == EM_S390 || e_machine == EM_PPC || e_machine == EM_SPARCV9 || e_machine == EM_SPARC;
	const struct ct_arch_info *a = ct_arch_find_endian(e_machine, elf_class, be);
	return a ? a : ct_arch_find_endian(e_machine, elf_class, !be);
}

int ct_arch_generic_signal(const struct ct_arch_info *arch, int signo)
{
	if (!arch || !arch->generic_signal || signo <= 0 || signo >= 32)
		return signo;
	return arch->generic_signal[signo] ? arch->generic_signal[signo] : signo;
}

int ct_arch_cs_mode(const struct ct_arch_info *arch, const uint64_t *values, size_t num_values)
{
	return arch->cs_mode_for && values ? arch->cs_mode_for(values, num_values) : arch->cs_mode;
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
