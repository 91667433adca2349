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

#include "modules/plt.h"
#include "modules/symbolize.h"
#include "triage/gather.h"
#include "triage/insn.h"

/** Bytes of a PLT stub decoded: 16 on every ABI we read, plus a leading endbr64/bti. */
#define STUB_BYTES 20

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
	struct ct_plt_layout layout;
	ct_plt_read_layout(elf, arch, &layout);
	bool in_plt = site.has_target && ct_plt_contains(&layout, site.target - bias);
	uint64_t slot = 0;
	bool have_slot = false;
	const char *via = "plt";
	if (site.has_slot) {
		slot = site.slot;
		have_slot = true;
		via = "got";
	} else if (site.has_target && (in_plt || !layout.have_sections)) {
		uint8_t stub[STUB_BYTES];
		have_slot = ct_modules_read_code(s->mods, site.target, stub, sizeof(stub)) &&
			    ct_insn_plt_slot(arch, stub, sizeof(stub), site.target,
					     layout.pltgot ? layout.pltgot + bias : 0, &slot);
	}
	const char *name = have_slot ? ct_plt_import_at(elf, s->mods->budget, slot - bias) : NULL;
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
		struct ct_plt_layout layout;
		ct_plt_read_layout(elf, arch, &layout);
		uint8_t stub[STUB_BYTES];
		if ((!ct_plt_contains(&layout, target - bias) && layout.have_sections) || !ct_modules_read_code(s->mods, target, stub, sizeof(stub)) ||
		    !ct_insn_plt_slot(arch, stub, sizeof(stub), target, layout.pltgot ? layout.pltgot + bias : 0, &slot))
			return NULL;
	}
	const char *name = ct_plt_import_at(elf, s->mods->budget, slot - bias);
	return name ? ct_demangle(s->mods, name) : NULL;
}
