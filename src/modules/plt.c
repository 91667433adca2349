// PLT stubs of a module and the imports they reach. gdb names stubs from BFD's synthetic symbols:
// stub i of the named section jumps through GOT slot i after the dynamic linker's reserved words,
// and the relocation that fills that slot names the import. The slot, not the relocation's index,
// is what ties a stub to its import: libc.so.6 lists its IRELATIVE PLT relocations after the
// JUMP_SLOT ones, in another order than its stubs.
#include <elfutils/libdwfl.h>
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

void ct_plt_read_layout(Elf *elf, const struct ct_arch_info *arch, struct ct_plt_layout *ret)
{
	struct ct_plt_layout l = { .lo = UINT64_MAX };
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		*ret = l;
		return;
	}
	// The arch table's sections in preference order: the index of the best one found so far.
	size_t best = SIZE_MAX;
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
		if (!is_plt_section(name) || sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		if (sh.sh_addr < l.lo)
			l.lo = sh.sh_addr;
		if (sh.sh_addr + sh.sh_size > l.hi)
			l.hi = sh.sh_addr + sh.sh_size;
		if (l.num_sections < CT_PLT_MAX_SECTIONS) {
			l.sections[l.num_sections].lo = sh.sh_addr;
			l.sections[l.num_sections].hi = sh.sh_addr + sh.sh_size;
			l.num_sections++;
		}
		for (size_t k = 0; arch && arch->plt && arch->plt[k].section && k < best; k++) {
			if (strcmp(name, arch->plt[k].section) != 0)
				continue;
			best = k;
			l.named_lo = sh.sh_addr;
			l.named_hi = sh.sh_addr + sh.sh_size;
			l.named_header = arch->plt[k].header;
			l.named_entry = arch->plt[k].entry;
		}
	}
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

const char *ct_plt_import_at(Elf *elf, struct ct_budget *budget, uint64_t slot)
{
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
			return NULL;
		for (size_t i = 0; i < n; i++) {
			GElf_Rela r;
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
			// Relocations without a symbol (IRELATIVE, RELATIVE) name nothing.
			if (r.r_offset != slot || GELF_R_SYM(r.r_info) == 0)
				continue;
			GElf_Sym sym;
			if (!gelf_getsym(symdata, (int)GELF_R_SYM(r.r_info), &sym))
				continue;
			const char *name = elf_strptr(elf, symsh.sh_link, sym.st_name);
			if (name && *name)
				return name;
		}
	}
	return NULL;
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

const char *ct_plt_stub_name(struct ct_module_set *s, struct ct_module_state *m, uint64_t addr, uint64_t *offset)
{
	const struct ct_arch_info *arch = s->core->arch;
	GElf_Addr bias = 0;
	Elf *elf = arch && arch->plt ? module_layout(s, m, &bias) : NULL;
	if (!elf)
		return NULL;
	const struct ct_plt_layout *l = &m->plt;
	uint64_t at = addr - bias, size = l->named_hi - l->named_lo;
	if (!l->named_entry || !l->pltgot || at < l->named_lo || at >= l->named_hi)
		return NULL;
	// The table's layout must account for the whole section, one stub per PLT relocation: a
	// variant it does not describe (BTI stubs, arm's long ones) would name stubs after a neighbour.
	if (size < l->named_header || (size - l->named_header) % l->named_entry ||
	    (size - l->named_header) / l->named_entry != l->num_plt_relocs || at < l->named_lo + l->named_header)
		return NULL;
	uint64_t index = (at - l->named_lo - l->named_header) / l->named_entry;
	uint64_t slot = l->pltgot + (arch->plt_got_reserved + index) * arch->pointer_size;
	const char *import = ct_plt_import_at(elf, s->budget, slot);
	if (!import)
		return NULL;
	const char *shown = ct_demangle(s, import);
	const char *name = ct_strpool_printf(s->out.strings, "%s@plt", shown ? shown : import);
	if (!name || !ct_budget_take(s->budget, CT_BUDGET_TEXT, strlen(name)))
		return NULL;
	*offset = at - l->named_lo - l->named_header - index * l->named_entry;
	return name;
}
