// "Exception escaped noexcept function F" (issue 16): when std::terminate is called by the C++
// personality routine, the exception met a frame it may not leave. With GCC and Clang that frame's
// LSDA (.gcc_except_table, reached from its .eh_frame FDE's 'L' augmentation) has no call-site
// entry for the call the exception came out of: libstdc++'s eh_personality.cc then reports
// found_terminate. This file finds that frame: for each own frame outward from the throw, the FDE
// covering its pc, its LSDA, and whether the call-site table covers pc - 1.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <string.h>

#include "triage/gather.h"

/** CFI entries looked at in one search, all frames together (a work budget: a large program has ~10^5). */
#define MAX_CFI_ENTRIES 1000000
/** Own frames outward from the throw whose LSDA is checked. */
#define MAX_FRAMES_CHECKED 32
/** Call-site entries read from one LSDA. */
#define MAX_CALL_SITES 100000

struct reader {
	const uint8_t *p, *end;
	uint64_t vaddr; // address of *p in the module's address space (for pc-relative pointers)
	bool ok;
};

static uint64_t uleb(struct reader *r)
{
	uint64_t v = 0;
	for (int shift = 0; r->p < r->end && shift < 64; shift += 7) {
		uint8_t b = *r->p++;
		r->vaddr++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	r->ok = false;
	return 0;
}

static uint64_t fixed(struct reader *r, size_t n)
{
	if ((size_t)(r->end - r->p) < n) {
		r->ok = false;
		return 0;
	}
	uint64_t v = 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | r->p[i];
	r->p += n;
	r->vaddr += n;
	return v;
}

/** A DW_EH_PE-encoded pointer (absptr, udata/sdata 2/4/8, uleb128; pcrel applied; no indirect). */
static uint64_t encoded(struct reader *r, uint8_t enc, unsigned ptr_size)
{
	uint64_t at = r->vaddr, v;
	if (enc == DW_EH_PE_omit)
		return 0;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: v = fixed(r, ptr_size); break;
	case DW_EH_PE_uleb128: v = uleb(r); break;
	case DW_EH_PE_udata2: v = fixed(r, 2); break;
	case DW_EH_PE_udata4: v = fixed(r, 4); break;
	case DW_EH_PE_udata8: v = fixed(r, 8); break;
	case DW_EH_PE_sdata2: v = (uint64_t)(int64_t)(int16_t)fixed(r, 2); break;
	case DW_EH_PE_sdata4: v = (uint64_t)(int64_t)(int32_t)fixed(r, 4); break;
	case DW_EH_PE_sdata8: v = fixed(r, 8); break;
	default: r->ok = false; return 0;
	}
	if ((enc & 0x70) == DW_EH_PE_pcrel)
		v += at;
	else if ((enc & 0x70) != DW_EH_PE_absptr)
		r->ok = false; // datarel/textrel/funcrel: not used by GCC or Clang on Linux
	if (enc & DW_EH_PE_indirect)
		r->ok = false;
	return v;
}

/** The section of @p elf holding address @p vaddr (SHF_ALLOC, with file bytes), and its data. */
static Elf_Data *section_at(Elf *elf, uint64_t vaddr, GElf_Shdr *shdr_ret)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && sh.sh_type == SHT_PROGBITS &&
		    vaddr >= sh.sh_addr && vaddr - sh.sh_addr < sh.sh_size) {
			*shdr_ret = sh;
			return elf_getdata(scn, NULL);
		}
	}
	return NULL;
}

static Elf_Data *section_named(Elf *elf, const char *name, GElf_Shdr *shdr_ret)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (n && strcmp(n, name) == 0 && sh.sh_type == SHT_PROGBITS) {
			*shdr_ret = sh;
			return elf_getdata(scn, NULL);
		}
	}
	return NULL;
}

/** Encodings from a CIE's augmentation ("zPLR"): the FDE pointers' and the LSDA's. */
static bool cie_encodings(const Dwarf_CIE *cie, uint8_t *fde_enc, uint8_t *lsda_enc, unsigned ptr_size)
{
	*fde_enc = DW_EH_PE_absptr;
	*lsda_enc = DW_EH_PE_omit;
	const char *aug = cie->augmentation;
	if (!aug || aug[0] != 'z')
		return false;
	struct reader r = { cie->augmentation_data, cie->augmentation_data + cie->augmentation_data_size, 0, true };
	for (const char *a = aug + 1; *a && r.ok; a++) {
		if (*a == 'P') {
			uint8_t e = (uint8_t)fixed(&r, 1);
			// The personality pointer: its value does not matter, only its size.
			encoded(&r, (uint8_t)(e & ~DW_EH_PE_indirect & 0x7f), ptr_size);
		} else if (*a == 'L') {
			*lsda_enc = (uint8_t)fixed(&r, 1);
		} else if (*a == 'R') {
			*fde_enc = (uint8_t)fixed(&r, 1);
		} else if (*a != 'S' && *a != 'B') {
			return false;
		}
	}
	return r.ok;
}

/** LSDA address (module vaddr) of the FDE covering @p pc, 0 when none; *func_ret = the FDE's start. */
static uint64_t find_lsda(Elf *elf, uint64_t pc, unsigned ptr_size, size_t *budget, uint64_t *func_ret)
{
	GElf_Shdr sh;
	Elf_Data *d = section_named(elf, ".eh_frame", &sh);
	GElf_Ehdr eh;
	if (!d || !d->d_buf || !gelf_getehdr(elf, &eh))
		return 0;
	Dwarf_Off off = 0, next;
	for (; *budget > 0; (*budget)--, off = next) {
		Dwarf_CFI_Entry e;
		if (dwarf_next_cfi(eh.e_ident, d, true, off, &next, &e) != 0)
			return 0;
		if (dwarf_cfi_cie_p(&e))
			continue;
		Dwarf_CFI_Entry cie;
		Dwarf_Off cnext;
		uint8_t fde_enc, lsda_enc;
		if (dwarf_next_cfi(eh.e_ident, d, true, e.fde.CIE_pointer, &cnext, &cie) != 0 || !dwarf_cfi_cie_p(&cie) ||
		    !cie_encodings(&cie.cie, &fde_enc, &lsda_enc, ptr_size))
			continue;
		const uint8_t *base = d->d_buf;
		struct reader r = { e.fde.start, e.fde.end, sh.sh_addr + (uint64_t)(e.fde.start - base), true };
		uint64_t start = encoded(&r, fde_enc, ptr_size);
		uint64_t len = encoded(&r, (uint8_t)(fde_enc & 0x0f), ptr_size);
		if (!r.ok || pc < start || pc - start >= len)
			continue;
		if (lsda_enc == DW_EH_PE_omit)
			return 0;
		uleb(&r); // augmentation data length
		uint64_t lsda = encoded(&r, lsda_enc, ptr_size);
		*func_ret = start;
		return r.ok ? lsda : 0;
	}
	return 0;
}

/** True when the LSDA at @p lsda has no call-site entry covering @p pc (function at @p func). */
static bool lsda_terminates(Elf *elf, uint64_t lsda, uint64_t func, uint64_t pc, unsigned ptr_size)
{
	GElf_Shdr sh;
	Elf_Data *d = section_at(elf, lsda, &sh);
	if (!d || !d->d_buf || d->d_size != sh.sh_size)
		return false;
	const uint8_t *base = d->d_buf;
	struct reader r = { base + (lsda - sh.sh_addr), base + d->d_size, lsda, true };
	uint8_t lp_enc = (uint8_t)fixed(&r, 1);
	uint64_t lpstart = lp_enc == DW_EH_PE_omit ? func : encoded(&r, lp_enc, ptr_size);
	uint8_t tt_enc = (uint8_t)fixed(&r, 1);
	if (tt_enc != DW_EH_PE_omit)
		uleb(&r);
	uint8_t cs_enc = (uint8_t)fixed(&r, 1);
	uint64_t cs_len = uleb(&r);
	if (!r.ok || cs_len > (uint64_t)(r.end - r.p))
		return false;
	struct reader cs = { r.p, r.p + cs_len, r.vaddr, true };
	for (int n = 0; n < MAX_CALL_SITES && cs.p < cs.end && cs.ok; n++) {
		uint64_t start = encoded(&cs, cs_enc, ptr_size), len = encoded(&cs, cs_enc, ptr_size);
		encoded(&cs, cs_enc, ptr_size); // landing pad
		uleb(&cs); // action
		if (!cs.ok)
			return false;
		// The table is sorted by start: past pc means not covered.
		if (pc < lpstart + start)
			return true;
		if (pc - (lpstart + start) < len)
			return false;
	}
	return cs.ok;
}

long ct_find_noexcept_frame(const struct ct_triage_input *s, const struct ct_facts *f)
{
	const struct ct_thread *t = ct_stacks_crashed(s->stacks);
	unsigned ptr_size = s->core->arch ? s->core->arch->pointer_size : 8;
	if (!t || f->blame < 0 || t->num_frames != f->num_frames)
		return -1;
	// From the throwing frame outward: the personality routine checks each in turn.
	size_t budget = MAX_CFI_ENTRIES;
	for (size_t i = (size_t)f->blame; i < f->num_frames && i < (size_t)f->blame + MAX_FRAMES_CHECKED; i++) {
		if (!f->frames[i].own || t->frames[i].inlined)
			continue;
		uint64_t pc = t->frames[i].pc - 1;
		const struct ct_module_state *m = ct_modules_find(s->mods, pc);
		Dwarf_Addr bias;
		Elf *elf = m && m->dwfl_module ? dwfl_module_getelf(m->dwfl_module, &bias) : NULL;
		if (!elf)
			continue;
		uint64_t func = 0, lsda = find_lsda(elf, pc - bias, ptr_size, &budget, &func);
		if (lsda && lsda_terminates(elf, lsda, func, pc - bias, ptr_size))
			return (long)i;
	}
	return -1;
}
