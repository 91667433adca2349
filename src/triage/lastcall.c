// The program's last call before the library frames, and the imported function it reached. On a
// core from another machine libc is not shipped: its frames are anonymous and glibc's __abort_msg
// cannot be located. What survives is the program itself: the return address in the first own frame
// sits right after a call, and when that call goes to a PLT stub (or through a GOT slot with
// -fno-plt), the executable's own relocations name the import (`__stack_chk_fail`, `__assert_fail`,
// `__memcpy_chk`, `free`, `__cxa_throw`, `abort`). The GOT slot's value in the dump then says which
// module the import was bound to.
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <string.h>

#include "modules/symbolize.h"
#include "triage/gather.h"
#include "triage/insn.h"

/** Bytes of a PLT stub decoded: 16 on every ABI we read, plus a leading endbr64/bti. */
#define STUB_BYTES 20
/** Relocations examined per section: bounds the walk over a hostile section header. */
#define MAX_RELOCS (1u << 20)

/** PLT sections of a module (link-time addresses) and the i386 GOT pointer (DT_PLTGOT). */
struct plt_layout {
	bool have_sections; /**< the file has section headers */
	bool in_plt; /**< the stub lies in .plt, .plt.sec, .plt.got, … */
	uint64_t lo, hi; /**< span of the PLT sections */
	uint64_t pltgot;
};

static bool is_plt_section(const char *name)
{
	static const char *const names[] = { ".plt", ".plt.sec", ".plt.got", ".plt.bnd", ".iplt", NULL };
	for (const char *const *n = names; *n; n++) {
		if (name && strcmp(name, *n) == 0)
			return true;
	}
	return false;
}

static void read_layout(Elf *elf, uint64_t stub, struct plt_layout *ret)
{
	struct plt_layout l = { .lo = UINT64_MAX };
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0) {
		*ret = l;
		return;
	}
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		l.have_sections = true;
		if (sh.sh_type == SHT_DYNAMIC) {
			Elf_Data *data = elf_getdata(scn, NULL);
			size_t entsize = gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT);
			size_t n = data && entsize ? data->d_size / entsize : 0;
			for (size_t i = 0; i < n && i < MAX_RELOCS; i++) {
				GElf_Dyn dyn;
				if (gelf_getdyn(data, (int)i, &dyn) && dyn.d_tag == DT_PLTGOT)
					l.pltgot = dyn.d_un.d_ptr;
			}
			continue;
		}
		if (!is_plt_section(elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (sh.sh_addr < l.lo)
			l.lo = sh.sh_addr;
		if (sh.sh_addr + sh.sh_size > l.hi)
			l.hi = sh.sh_addr + sh.sh_size;
		if (stub >= sh.sh_addr && stub < sh.sh_addr + sh.sh_size)
			l.in_plt = true;
	}
	*ret = l;
}

/** Name of the symbol whose relocation (JUMP_SLOT, GLOB_DAT, …) fills @p slot (link-time), or NULL. */
static const char *import_at(Elf *elf, uint64_t slot)
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
		for (size_t i = 0; i < n && i < MAX_RELOCS; i++) {
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

void ct_find_last_call(const struct ct_triage_input *s, const struct ct_facts *f, struct ct_call_facts *ret)
{
	memset(ret, 0, sizeof(*ret));
	const struct ct_arch_info *arch = s->core->arch;
	if (f->blame <= 0 || (size_t)f->blame >= f->num_frames)
		return;
	const struct ct_frame_fact *caller = &f->frames[f->blame];
	// The blamed frame must be a caller (its pc a return address), not the interrupted frame 0 or
	// the frame a signal interrupted (whose pc is the faulting instruction, not after a call).
	if (!caller->pc || caller->pc == f->frames[0].pc || f->frames[f->blame - 1].signal_frame)
		return;
	uint8_t code[CT_INSN_CALL_WINDOW];
	if (caller->pc < CT_INSN_CALL_WINDOW || !ct_modules_read_code(s->mods, caller->pc - CT_INSN_CALL_WINDOW, code, sizeof(code)))
		return;
	struct ct_call_site site;
	if (!ct_insn_call_before(arch, code, sizeof(code), caller->pc, &site))
		return;
	struct ct_call_facts c = { .present = true, .site = site.address, .has_target = site.has_target,
				   .target = site.target };
	c.scanned = caller->scanned;
	// The module that holds the stub (or the GOT slot): the caller's own module.
	const struct ct_module_state *m = ct_modules_find(s->mods, site.has_target ? site.target : caller->pc - 1);
	GElf_Addr bias = 0;
	Elf *elf = m && m->dwfl_module ? dwfl_module_getelf(m->dwfl_module, &bias) : NULL;
	if (!elf) {
		*ret = c;
		return;
	}
	struct plt_layout layout;
	read_layout(elf, site.has_target ? site.target - bias : 0, &layout);
	uint64_t slot = 0;
	bool have_slot = false;
	const char *via = "plt";
	if (site.has_slot) {
		slot = site.slot;
		have_slot = true;
		via = "got";
	} else if (site.has_target && (layout.in_plt || !layout.have_sections)) {
		uint8_t stub[STUB_BYTES];
		have_slot = ct_modules_read_code(s->mods, site.target, stub, sizeof(stub)) &&
			    ct_insn_plt_slot(arch, stub, sizeof(stub), site.target,
					     layout.pltgot ? layout.pltgot + bias : 0, &slot);
	}
	const char *name = have_slot ? import_at(elf, slot - bias) : NULL;
	if (!name) {
		*ret = c;
		return;
	}
	c.symbol = ct_strpool_intern(s->out.strings, name);
	const char *shown = ct_demangle(s->mods, name);
	c.display = shown ? shown : c.symbol;
	c.via = via;
	// Which module the import was bound to: the slot's value in the dump. A slot that still points
	// into the PLT (lazy binding not done) says nothing.
	uint64_t bound;
	if (ct_core_read_word(s->core, slot, &bound)) {
		if (s->core->arch && s->core->arch->pointer_size == 4)
			bound &= 0xffffffffULL;
		const struct ct_module_state *bm = ct_modules_find(s->mods, bound);
		bool unresolved = bm == m && bound - bias >= layout.lo && bound - bias < layout.hi;
		if (bm && !unresolved) {
			c.resolved_module = ct_strpool_intern(s->out.strings, bm->name);
			c.resolved_own = !bm->is_vdso && (bm->is_main || !ct_path_is_system(bm->path));
		}
	}
	*ret = c;
}

const char *ct_call_import(const struct ct_triage_input *s, uint64_t target, bool has_slot, uint64_t slot)
{
	const struct ct_arch_info *arch = s->core->arch;
	const struct ct_module_state *m = ct_modules_find(s->mods, has_slot ? slot : target);
	GElf_Addr bias = 0;
	Elf *elf = m && m->dwfl_module ? dwfl_module_getelf(m->dwfl_module, &bias) : NULL;
	if (!elf)
		return NULL;
	if (!has_slot) {
		struct plt_layout layout;
		read_layout(elf, target - bias, &layout);
		uint8_t stub[STUB_BYTES];
		if ((!layout.in_plt && layout.have_sections) || !ct_modules_read_code(s->mods, target, stub, sizeof(stub)) ||
		    !ct_insn_plt_slot(arch, stub, sizeof(stub), target, layout.pltgot ? layout.pltgot + bias : 0, &slot))
			return NULL;
	}
	const char *name = import_at(elf, slot - bias);
	return name ? ct_demangle(s->mods, name) : NULL;
}
