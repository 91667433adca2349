// PLT stubs of a module and the imports they reach. gdb names stubs from BFD's synthetic symbols:
// each stub jumps through a GOT slot (decoded from the stub's jump on x86, else slot i after the
// dynamic linker's reserved words for stub i), and the relocation that fills that slot names the
// import. The slot, not the relocation's index, is what ties a stub to its import: libc.so.6 lists
// its IRELATIVE PLT relocations after the JUMP_SLOT ones, in another order than its stubs.
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <string.h>

#include "arch/arch.h"
#include "modules/symbolize.h"
#include "modules/modules.h"
#include "modules/plt.h"
#include "util/budget.h"

/** Relocations examined per section: bounds the walk over a hostile section header. */
#define MAX_RELOCS (1u << 20)
/** Dynamic entries read: real files have a few dozen. */
#define MAX_DYNAMIC 4096

static bool is_plt_section(const char *name)
{
	static const char *const names[CT_PLT_MAX_SECTIONS] = { ".plt", ".plt.sec", ".plt.got", ".plt.bnd", ".iplt" };
	for (size_t i = 0; i < CT_PLT_MAX_SECTIONS; i++) {
		if (name && strcmp(name, names[i]) == 0)
			return true;
	}
	return false;
}

static void read_dynamic(Elf *elf, Elf_Scn *scn, struct ct_plt_layout *l)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t entsize = gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT);
	size_t n = data && entsize ? data->d_size / entsize : 0;
	uint64_t relsz = 0, relent = 0;
	for (size_t i = 0; i < n && i < MAX_DYNAMIC; i++) {
		GElf_Dyn dyn;
		if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag == DT_PLTGOT)
			l->pltgot = dyn.d_un.d_ptr;
		else if (dyn.d_tag == DT_PLTRELSZ)
			relsz = dyn.d_un.d_val;
		else if (dyn.d_tag == DT_PLTREL)
			relent = gelf_fsize(elf, dyn.d_un.d_val == DT_RELA ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
	}
	l->num_plt_relocs = relent ? relsz / relent : 0;
}

// Keeps the named sections whose row's `unless` section the file does not have.
static void drop_unless(const struct ct_arch_plt *const rows[], const char *const names[], struct ct_plt_layout *l)
{
	size_t kept = 0;
	for (size_t i = 0; i < l->num_named; i++) {
		bool shadowed = false;
		for (size_t k = 0; rows[i]->unless && k < l->num_sections && !shadowed; k++)
			shadowed = names[k] && strcmp(names[k], rows[i]->unless) == 0;
		if (!shadowed)
			l->named[kept++] = l->named[i];
	}
	l->num_named = kept;
}

void ct_plt_read_layout(Elf *elf, const struct ct_arch_info *arch, struct ct_plt_layout *ret)
{
	struct ct_plt_layout l = { .lo = UINT64_MAX };
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		*ret = l;
		return;
	}
	// The section names of l.sections and the table rows of l.named, for drop_unless.
	const char *names[CT_PLT_MAX_SECTIONS] = { 0 };
	const struct ct_arch_plt *rows[CT_PLT_MAX_SECTIONS] = { 0 };
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		l.have_sections = true;
		if (sh.sh_type == SHT_DYNAMIC) {
			read_dynamic(elf, scn, &l);
			continue;
		}
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!is_plt_section(name) || sh.sh_addr + sh.sh_size < sh.sh_addr || l.num_sections == CT_PLT_MAX_SECTIONS)
			continue;
		if (sh.sh_addr < l.lo)
			l.lo = sh.sh_addr;
		if (sh.sh_addr + sh.sh_size > l.hi)
			l.hi = sh.sh_addr + sh.sh_size;
		names[l.num_sections] = name;
		l.sections[l.num_sections].lo = sh.sh_addr;
		l.sections[l.num_sections].hi = sh.sh_addr + sh.sh_size;
		l.num_sections++;
		for (size_t k = 0; arch && arch->plt && arch->plt[k].section; k++) {
			const struct ct_arch_plt *row = &arch->plt[k];
			uint64_t entry = row->entry ? row->entry : sh.sh_entsize;
			if (strcmp(name, row->section) != 0 || !entry || entry > UINT8_MAX)
				continue;
			rows[l.num_named] = row;
			l.named[l.num_named++] = (struct ct_plt_named){ .lo = sh.sh_addr, .hi = sh.sh_addr + sh.sh_size,
									.scn = elf_ndxscn(scn), .header = row->header,
									.entry = (uint8_t)entry, .by_code = row->by_code };
			break;
		}
	}
	drop_unless(rows, names, &l);
	*ret = l;
}

bool ct_plt_contains(const struct ct_plt_layout *l, uint64_t addr)
{
	for (size_t i = 0; i < l->num_sections; i++) {
		if (addr >= l->sections[i].lo && addr < l->sections[i].hi)
			return true;
	}
	return false;
}

bool ct_plt_reloc_at(Elf *elf, struct ct_budget *budget, uint64_t slot, struct ct_plt_reloc *ret)
{
	bool found = false;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh, symsh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL))
			continue;
		Elf_Scn *symscn = elf_getscn(elf, sh.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &symsh) ||
		    (symsh.sh_type != SHT_DYNSYM && symsh.sh_type != SHT_SYMTAB))
			continue;
		Elf_Data *data = elf_getdata(scn, NULL), *symdata = elf_getdata(symscn, NULL);
		bool rela = sh.sh_type == SHT_RELA;
		size_t entsize = gelf_fsize(elf, rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
		size_t n = data && symdata && entsize ? data->d_size / entsize : 0;
		if (n > MAX_RELOCS)
			n = MAX_RELOCS;
		// The records read are the file's, untrusted: their bytes come out of the copy budget.
		if (n && budget && !ct_budget_take(budget, CT_BUDGET_COPY, n * entsize))
			return found;
		for (size_t i = 0; i < n; i++) {
			GElf_Rela r = { 0 };
			if (rela) {
				if (!gelf_getrela(data, (int)i, &r))
					break;
			} else {
				GElf_Rel rel;
				if (!gelf_getrel(data, (int)i, &rel))
					break;
				r.r_offset = rel.r_offset;
				r.r_info = rel.r_info;
			}
			if (r.r_offset != slot)
				continue;
			// A relocation without a symbol (IRELATIVE) is kept in case no other names the slot.
			GElf_Sym sym;
			const char *name = GELF_R_SYM(r.r_info) && gelf_getsym(symdata, (int)GELF_R_SYM(r.r_info), &sym)
						   ? elf_strptr(elf, symsh.sh_link, sym.st_name)
						   : NULL;
			if (name && !*name)
				name = NULL;
			if (found && !name)
				continue;
			*ret = (struct ct_plt_reloc){ .symbol = name, .addend = (uint64_t)r.r_addend,
						      .type = (uint32_t)GELF_R_TYPE(r.r_info) };
			found = true;
			if (name)
				return true;
		}
	}
	return found;
}

const char *ct_plt_import_at(Elf *elf, struct ct_budget *budget, uint64_t slot)
{
	struct ct_plt_reloc r;
	return ct_plt_reloc_at(elf, budget, slot, &r) ? r.symbol : NULL;
}

// The module's file and its PLT layout, read once per module.
static Elf *module_layout(struct ct_module_set *s, struct ct_module_state *m, GElf_Addr *bias)
{
	Elf *elf = m && m->dwfl_module ? dwfl_module_getelf(m->dwfl_module, bias) : NULL;
	if (elf && !m->plt_read) {
		m->plt_read = true;
		ct_plt_read_layout(elf, s->core->arch, &m->plt);
	}
	return elf;
}

bool ct_plt_in_stubs(struct ct_module_set *s, struct ct_module_state *m, uint64_t addr)
{
	GElf_Addr bias = 0;
	return module_layout(s, m, &bias) && ct_plt_contains(&m->plt, addr - bias);
}

// GOT slot of stub @p index of named section @p sec, as BFD ties them (struct ct_arch_plt).
static bool stub_slot(Elf *elf, const struct ct_arch_info *arch, const struct ct_plt_layout *l,
		      const struct ct_plt_named *sec, uint64_t index, uint64_t *slot)
{
	uint64_t start = sec->header + index * sec->entry;
	if (!sec->by_code) {
		// One stub per PLT relocation: a variant the table does not describe (BTI stubs, arm's
		// long ones) would not account for the whole section, and would name stubs after a neighbour.
		uint64_t size = sec->hi - sec->lo;
		if (!l->pltgot || (size - sec->header) % sec->entry || (size - sec->header) / sec->entry != l->num_plt_relocs)
			return false;
		*slot = l->pltgot + (arch->plt_got_reserved + index) * arch->pointer_size;
		return true;
	}
	// The stub's own bytes, from the file (the same as the dump's: code is not written).
	Elf_Scn *scn = elf_getscn(elf, sec->scn);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!arch->plt_slot || !d || !d->d_buf || d->d_size < start + sec->entry)
		return false;
	return arch->plt_slot((const uint8_t *)d->d_buf + start, sec->entry, sec->lo + start, l->pltgot, slot);
}

// BFD's synthetic symbol name for the stub whose slot relocation is @p r: the symbol or "*ABS*"
// (an IRELATIVE slot), "+0x" and the addend when there is one, "@plt".
static const char *stub_symbol(struct ct_module_set *s, const struct ct_plt_reloc *r)
{
	const char *shown = r->symbol ? ct_demangle(s, r->symbol) : "*ABS*";
	if (!shown)
		shown = r->symbol;
	if (!r->addend)
		return ct_strpool_printf(s->out.strings, "%s@plt", shown);
	return ct_strpool_printf(s->out.strings, "%s+0x%" PRIx64 "@plt", shown, r->addend);
}

const char *ct_plt_stub_name(struct ct_module_set *s, struct ct_module_state *m, uint64_t addr, uint64_t *offset)
{
	const struct ct_arch_info *arch = s->core->arch;
	GElf_Addr bias = 0;
	Elf *elf = arch && arch->plt ? module_layout(s, m, &bias) : NULL;
	if (!elf)
		return NULL;
	const struct ct_plt_layout *l = &m->plt;
	uint64_t at = addr - bias;
	const struct ct_plt_named *sec = NULL;
	for (size_t i = 0; i < l->num_named && !sec; i++) {
		if (at >= l->named[i].lo + l->named[i].header && at < l->named[i].hi)
			sec = &l->named[i];
	}
	if (!sec)
		return NULL;
	uint64_t index = (at - sec->lo - sec->header) / sec->entry, slot;
	struct ct_plt_reloc r;
	if (!stub_slot(elf, arch, l, sec, index, &slot) || !ct_plt_reloc_at(elf, s->budget, slot, &r))
		return NULL;
	// A slot without a symbol is named only when an ifunc resolver fills it, as BFD does.
	if (!r.symbol && (!arch->plt_irelative || r.type != arch->plt_irelative))
		return NULL;
	const char *name = stub_symbol(s, &r);
	if (!name || !ct_budget_take(s->budget, CT_BUDGET_TEXT, strlen(name)))
		return NULL;
	*offset = at - sec->lo - sec->header - index * sec->entry;
	return name;
}
