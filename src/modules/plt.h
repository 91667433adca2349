/**
 * @file plt.h
 * A module's PLT read from its file: where the stubs are, which import each one reaches (through
 * the relocation of its GOT slot), and the stub names gdb gives ("puts@plt"). libdwfl's symbol
 * lookup has no PLT symbols: without this a frame in a stub is "??". Triage's last-call rule
 * (triage/lastcall.c) uses the same layout and slot → import lookup.
 */
#ifndef CT_MODULES_PLT_H
#define CT_MODULES_PLT_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

struct ct_arch_info;
struct ct_budget;
struct ct_module_set;
struct ct_module_state;

/** PLT sections a module can have (.plt, .plt.sec, .plt.got, .plt.bnd, .iplt). */
#define CT_PLT_MAX_SECTIONS 5

/** A PLT section whose stubs are named (a row of the architecture's table the file has). */
struct ct_plt_named {
	uint64_t lo, hi; /**< link-time span */
	size_t scn; /**< its section index: the stubs' bytes, for by_code */
	uint8_t header, entry; /**< entry: the table's, else the section's sh_entsize */
	bool by_code; /**< stubs tied to their slot by their jump (struct ct_arch_plt) */
};

/** The PLT of one ELF file, link-time addresses. */
struct ct_plt_layout {
	bool have_sections; /**< the file has section headers */
	size_t num_sections;
	struct {
		uint64_t lo, hi;
	} sections[CT_PLT_MAX_SECTIONS]; /**< every PLT section */
	uint64_t lo, hi; /**< span of the PLT sections (lo UINT64_MAX when none) */
	uint64_t pltgot; /**< DT_PLTGOT, 0 when none */
	size_t num_named;
	struct ct_plt_named named[CT_PLT_MAX_SECTIONS];
	/** PLT relocations (DT_PLTRELSZ / their entry size). */
	uint64_t num_plt_relocs;
};

/** The dynamic relocation that fills a GOT slot. */
struct ct_plt_reloc {
	const char *symbol; /**< its symbol's name (the file's), NULL when it has none (IRELATIVE) */
	uint64_t addend; /**< RELA's addend; 0 for REL */
	uint32_t type;
};

/** Reads @p elf's PLT sections and dynamic tags (bounded by the file's section count). */
void ct_plt_read_layout(Elf *elf, const struct ct_arch_info *arch, struct ct_plt_layout *ret);
/** True when link-time address @p addr lies in one of the PLT sections. */
bool ct_plt_contains(const struct ct_plt_layout *l, uint64_t addr);
/**
 * The relocation (JUMP_SLOT, GLOB_DAT, IRELATIVE, …) that fills GOT slot @p slot (link-time) of
 * @p elf, one with a symbol first; false when none does. The relocations read are spent from
 * @p budget (CT_BUDGET_COPY, may be NULL).
 */
bool ct_plt_reloc_at(Elf *elf, struct ct_budget *budget, uint64_t slot, struct ct_plt_reloc *ret);
/** The symbol of ct_plt_reloc_at's relocation, NULL when none or it has no symbol. */
const char *ct_plt_import_at(Elf *elf, struct ct_budget *budget, uint64_t slot);
/**
 * The name gdb gives the PLT stub holding @p addr (run time): the demangled import and "@plt"
 * ("*ABS*+0xADDEND@plt" for an IRELATIVE slot, as BFD names it), with the offset into the stub in
 * *@p offset; NULL when @p addr is in no named stub of module @p m (the PLT header, a lazy stub
 * beside .plt.sec, a layout the architecture table does not describe, a slot no relocation fills).
 * Pooled in the set's strings.
 */
const char *ct_plt_stub_name(struct ct_module_set *s, struct ct_module_state *m, uint64_t addr, uint64_t *offset);
/** True when @p addr (run time) lies in a PLT section of module @p m, named or not. */
bool ct_plt_in_stubs(struct ct_module_set *s, struct ct_module_state *m, uint64_t addr);

#endif
