// Compressed debug sections against the work budget (debug_budget.h).
#include "modules/debug_budget.h"

#include <elfutils/libdw.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "modules/modules.h"
#include "util/bytes.h"

// Legacy GNU compression: ".zdebug_*" sections start with "ZLIB" and the size, big-endian.
static bool zdebug_size(Elf_Scn *scn, uint64_t *size)
{
	Elf_Data *d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size < 12 || memcmp(d->d_buf, "ZLIB", 4) != 0)
		return false;
	const uint8_t *p = (const uint8_t *)d->d_buf + 4;
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	*size = v;
	return true;
}

// Calls @p fn for each compressed section with its claimed inflated size.
static uint64_t walk(Elf *elf, void (*fn)(void *, Elf_Scn *, uint64_t), void *arg)
{
	size_t shstrndx;
	uint64_t total = 0;
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		uint64_t size = 0;
		bool compressed = false;
		if (sh.sh_flags & SHF_COMPRESSED) {
			GElf_Chdr ch;
			if (gelf_getchdr(scn, &ch)) {
				size = ch.ch_size;
				compressed = true;
			}
		} else {
			const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
			compressed = name && strncmp(name, ".zdebug", 7) == 0 && zdebug_size(scn, &size);
		}
		if (!compressed)
			continue;
		total = size > UINT64_MAX - total ? UINT64_MAX : total + size;
		if (fn)
			fn(arg, scn, size);
	}
	return total;
}

// The section that claims the most once inflated: the one the warning names.
struct largest {
	Elf *elf;
	size_t shstrndx;
	uint64_t size;
	const char *name; /**< borrowed from the ELF's string table */
};

static void note_largest(void *arg, Elf_Scn *scn, uint64_t size)
{
	struct largest *l = arg;
	GElf_Shdr sh;
	if (l->name && size <= l->size)
		return;
	const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(l->elf, l->shstrndx, sh.sh_name) : NULL;
	l->size = size;
	l->name = name ? name : "(unnamed section)";
}

static void refuse(struct ct_module_set *s, const char *what, uint64_t size, const struct largest *l)
{
	// The section name comes from the file: shown through the report's sanitizer like every string.
	ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_BUDGET_DEBUG,
		       "%s: its compressed debug sections claim %" PRIu64 " bytes once inflated (%s alone %" PRIu64
		       "), more than the %" PRIu64
		       " left in the work budget (--max-memory; tighter with --safe); its debug information is not used",
		       what, size, l->name ? l->name : "?", l->size, ct_budget_left(s->budget, CT_BUDGET_DEBUG));
	ct_budget_mark_reached(s->budget, CT_BUDGET_DEBUG);
	// The warning above says which module; the generic one of ct_budget_report() is not needed.
	if (s->budget)
		s->budget->reported[CT_BUDGET_DEBUG] = true;
}

bool ct_debug_admit(struct ct_module_set *s, Elf *elf, const char *what)
{
	struct largest l = { .elf = elf };
	uint64_t size = elf && elf_getshdrstrndx(elf, &l.shstrndx) == 0 ? walk(elf, note_largest, &l) : 0;
	if (!size || ct_budget_take(s->budget, CT_BUDGET_DEBUG, size))
		return true;
	refuse(s, what, size, &l);
	return false;
}

struct neuter {
	uint8_t *image;
	size_t size;
	GElf_Ehdr eh;
};

// sh_type is the second word of a section header in both classes.
static void neuter_one(void *arg, Elf_Scn *scn, uint64_t size)
{
	struct neuter *n = arg;
	uint64_t at = n->eh.e_shoff + (uint64_t)elf_ndxscn(scn) * n->eh.e_shentsize + 4;
	if (n->eh.e_shoff > n->size || at + 4 > n->size || at < n->eh.e_shoff)
		return;
	uint32_t nobits = SHT_NOBITS;
	uint8_t b[4];
	bool be = n->eh.e_ident[EI_DATA] == ELFDATA2MSB;
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(nobits >> (be ? 24 - 8 * i : 8 * i));
	memcpy(n->image + at, b, 4);
}

bool ct_debug_admit_image(struct ct_module_set *s, uint8_t *image, size_t size, const char *what)
{
	Elf *elf = elf_memory((char *)image, size);
	if (!elf)
		return true;
	bool ok = ct_debug_admit(s, elf, what);
	if (!ok) {
		struct neuter n = { .image = image, .size = size };
		if (gelf_getehdr(elf, &n.eh))
			walk(elf, neuter_one, &n);
	}
	elf_end(elf);
	return ok;
}

// Whether @p elf has DWARF of its own (.debug_info, compressed or not).
static bool has_debug_info(Elf *elf)
{
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (name && sh.sh_type != SHT_NOBITS && (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")))
			return true;
	}
	return false;
}

/** Slots of the set of module names frames landed in (power of two, grown as needed). */
#define USED_MIN_SLOTS 64

void ct_debug_check_unusable(struct ct_module_set *s, const struct ct_thread *threads, size_t num_threads)
{
	// The modules frames landed in, by their pooled name (one pointer per module name).
	size_t slots = USED_MIN_SLOTS;
	while (slots < 2 * s->num_modules)
		slots *= 2;
	const char **used = calloc(slots, sizeof(*used));
	if (!used)
		return;
	const char *last = NULL;
	for (size_t t = 0; t < num_threads; t++) {
		for (size_t i = 0; i < threads[t].num_frames; i++) {
			const char *m = threads[t].frames[i].module;
			if (!m || m == last)
				continue;
			last = m;
			size_t h = ((uintptr_t)m >> 4) & (slots - 1);
			while (used[h] && used[h] != m)
				h = (h + 1) & (slots - 1);
			used[h] = m;
		}
	}
	for (size_t i = 0; i < s->num_modules; i++) {
		const struct ct_module_state *m = &s->modules[i];
		if (!m->dwfl_module || !m->file)
			continue;
		const char *name = ct_strpool_intern(s->out.strings, m->name);
		size_t h = ((uintptr_t)name >> 4) & (slots - 1);
		while (used[h] && used[h] != name)
			h = (h + 1) & (slots - 1);
		if (!name || !used[h])
			continue;
		Dwarf_Addr bias;
		Dwarf *dw = dwfl_module_getdwarf(m->dwfl_module, &bias);
		const char *why;
		if (dw) {
			// libdw opens DWARF lazily, and a .debug_info that does not inflate reads as empty:
			// no first unit although the section is there.
			Dwarf_Off next;
			size_t hsize;
			if (dwarf_nextcu(dw, 0, &next, &hsize, NULL, NULL, NULL) == 0)
				continue;
			why = dwarf_errno() ? dwarf_errmsg(-1) : "no unit in .debug_info";
		} else {
			why = dwfl_errmsg(-1);
		}
		// No DWARF at all is normal (stripped files); DWARF that is there but unreadable (a
		// section that does not inflate, a corrupt header) is a loss to report.
		if (has_debug_info(dw ? dwarf_getelf(dw) : dwfl_module_getelf(m->dwfl_module, &bias)))
			ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_DEBUG_INFO_UNUSABLE,
				       "%s: its debug information cannot be read (%s); its frames have no source lines",
				       m->file, why ? why : "unknown error");
	}
	free(used);
}
