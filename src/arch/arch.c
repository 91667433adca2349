// Lookup of per-architecture tables by the dump's e_machine, class and byte order.
#include <elf.h>
#include <stdio.h>
#include <string.h>

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

const struct ct_arch_info *ct_arch_find_name(const char *name)
{
	for (size_t i = 0; name && i < sizeof(arches) / sizeof(arches[0]); i++) {
		if (strcmp(arches[i]->name, name) == 0)
			return arches[i];
	}
	return NULL;
}

const struct ct_arch_info *ct_arch_find_vmcoreinfo(bool (*has_key)(const char *key, void *arg), void *arg)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
		if (arches[i]->vmcoreinfo_key && has_key(arches[i]->vmcoreinfo_key, arg))
			return arches[i];
	}
	return NULL;
}

int ct_arch_reg_index(const struct ct_arch_info *arch, int dwarf)
{
	for (size_t i = 0; dwarf >= 0 && i < arch->num_regs; i++) {
		if (arch->regs[i].dwarf == dwarf)
			return (int)i;
	}
	return -1;
}

int ct_arch_reg_at_offset(const struct ct_arch_info *arch, unsigned offset)
{
	for (size_t i = 0; i < arch->num_regs; i++) {
		if (arch->regs[i].offset == offset)
			return (int)i;
	}
	return -1;
}

bool ct_arch_is_canonical(const struct ct_arch_info *arch, uint64_t addr)
{
	if (!arch->canonical_bit || arch->canonical_bit >= 64)
		return true;
	uint64_t top = addr >> arch->canonical_bit;
	return top == 0 || top == (~0ull >> arch->canonical_bit);
}

bool ct_arch_is_kernel_address(const struct ct_arch_info *arch, uint64_t addr)
{
	return arch->kernel_address_start && addr >= arch->kernel_address_start && ct_arch_is_canonical(arch, addr);
}

bool ct_arch_in_kernel_modules(const struct ct_arch_info *arch, uint64_t addr)
{
	return addr >= arch->kernel_modules_start && addr < arch->kernel_modules_end;
}

uint64_t ct_arch_kernel_strip_ra(const struct ct_arch_info *arch, uint64_t addr)
{
	// The PAC sits in the bits from canonical_bit up (below the top byte on arm64; bit 55 picks the half).
	if (!arch->kernel_ra_signed || !arch->canonical_bit || arch->canonical_bit >= 55 || !(addr >> 55 & 1))
		return addr;
	return addr | ~0ull << arch->canonical_bit;
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
