// A DIE's next sibling from the unit's raw bytes (see die_skip.h). Every read is bounded by the
// unit's end; an unknown form, a too-large abbreviation code or a malformed byte gives up.
#include <dwarf.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "modules/die_skip.h"
#include "util/leb128.h"

/** Abbreviation codes handled (real units: hundreds); a unit with larger codes is not skipped here. */
#define MAX_CODE 65536
/** Attributes of one abbreviation handled. */
#define MAX_ATTRS 64

struct abbrev {
	bool used, children;
	uint8_t num;
	int fixed; // bytes of all attribute values when every form has a fixed size, else -1
	uint16_t forms[MAX_ATTRS];
};

struct ct_die_skip {
	const uint8_t *end; // one past the unit
	uint8_t addr_size, offset_size;
	Dwarf_Half version;
	struct abbrev *codes; // indexed by code
	size_t num_codes;
};

// The size of a value of @p form when it does not depend on the value; -1 otherwise.
static int fixed_size(const struct ct_die_skip *k, unsigned form)
{
	switch (form) {
	case DW_FORM_flag_present: case DW_FORM_implicit_const: return 0;
	case DW_FORM_addr: return k->addr_size;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1: case DW_FORM_addrx1: return 1;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2: return 2;
	case DW_FORM_strx3: case DW_FORM_addrx3: return 3;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4: case DW_FORM_ref_sup4: return 4;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8: return 8;
	case DW_FORM_data16: return 16;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset: case DW_FORM_strp_sup:
	case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
		return k->offset_size;
	case DW_FORM_ref_addr: return k->version == 2 ? k->addr_size : k->offset_size;
	default: return -1;
	}
}

void ct_die_skip_destroy(struct ct_die_skip *k)
{
	if (!k)
		return;
	free(k->codes);
	free(k);
}

struct ct_die_skip *ct_die_skip_create(Dwarf_Die *cu)
{
	Dwarf *dw = cu->cu ? dwarf_cu_getdwarf(cu->cu) : NULL;
	Dwarf_Half version;
	Dwarf_Off abbrev_off, sub;
	uint8_t asize, osize;
	uint64_t id;
	Dwarf_Die cudie;
	if (!dw || dwarf_cu_die(cu->cu, &cudie, &version, &abbrev_off, &asize, &osize, &id, &sub) == NULL)
		return NULL;
	// Block lengths are read little-endian: big-endian files keep libdw's walk.
	Elf *elf = dwarf_getelf(dw);
	const char *ident = elf ? elf_getident(elf, NULL) : NULL;
	if (!ident || ident[EI_DATA] != ELFDATA2LSB)
		return NULL;
	Dwarf_Off die_off = dwarf_dieoffset(cu), in_cu = dwarf_cuoffset(cu), next;
	if (die_off < in_cu || dwarf_next_unit(dw, die_off - in_cu, &next, NULL, NULL, NULL, NULL, NULL, NULL, NULL) != 0 ||
	    next <= die_off)
		return NULL;
	struct ct_die_skip *k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->end = (const uint8_t *)cu->addr + (next - die_off);
	k->addr_size = asize;
	k->offset_size = osize;
	k->version = version;
	Dwarf_Off off = 0;
	size_t len;
	for (int guard = 0; guard < MAX_CODE; guard++) {
		Dwarf_Abbrev *a = dwarf_getabbrev(cu, off, &len);
		if (a == NULL || a == DWARF_END_ABBREV)
			break;
		off += len;
		unsigned code = dwarf_getabbrevcode(a);
		size_t n;
		if (code == 0 || code >= MAX_CODE || dwarf_getattrcnt(a, &n) != 0 || n > MAX_ATTRS)
			goto fail;
		if (code >= k->num_codes) {
			size_t cap = code + 64 < MAX_CODE ? code + 64 : MAX_CODE;
			struct abbrev *c = realloc(k->codes, cap * sizeof(*c));
			if (!c)
				goto fail;
			memset(c + k->num_codes, 0, (cap - k->num_codes) * sizeof(*c));
			k->codes = c;
			k->num_codes = cap;
		}
		struct abbrev *e = &k->codes[code];
		e->used = true;
		e->children = dwarf_abbrevhaschildren(a) == 1;
		e->num = (uint8_t)n;
		e->fixed = 0;
		for (size_t i = 0; i < n; i++) {
			unsigned name, form;
			Dwarf_Sword data;
			Dwarf_Off aoff;
			if (dwarf_getabbrevattr_data(a, i, &name, &form, &data, &aoff) != 0)
				goto fail;
			// libdw 0.188 reads an abbreviation's attributes wrongly after a
			// DW_FORM_implicit_const (gcc 12's DWARF 5, dwz's partial units): the count
			// and the forms that follow it cannot be trusted, so such a unit keeps
			// libdw's walk (the forms up to the first one are read right).
			if (form == DW_FORM_implicit_const)
				goto fail;
			e->forms[i] = (uint16_t)form;
			int size = fixed_size(k, form);
			e->fixed = size < 0 || e->fixed < 0 ? -1 : e->fixed + size;
		}
	}
	if (k->num_codes == 0)
		goto fail;
	return k;
fail:
	ct_die_skip_destroy(k);
	return NULL;
}

// Steps *p over one attribute value of @p form; false when unknown or past the end.
static bool skip_form(const struct ct_die_skip *k, const uint8_t **p, unsigned form, int indirect)
{
	const uint8_t *end = k->end;
	uint64_t n = 0;
	int size = fixed_size(k, form);
	if (size >= 0) {
		if ((uint64_t)size > (uint64_t)(end - *p))
			return false;
		*p += size;
		return true;
	}
	switch (form) {
	case DW_FORM_udata: case DW_FORM_sdata: case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx:
	case DW_FORM_loclistx: case DW_FORM_rnglistx: case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index:
		return ct_uleb128(p, end, &n); // sleb has the same length
	case DW_FORM_string: {
		const uint8_t *z = *p < end ? memchr(*p, 0, (size_t)(end - *p)) : NULL;
		if (!z)
			return false;
		*p = z + 1;
		return true;
	}
	case DW_FORM_block1: if (*p >= end) return false; n = 1 + **p; break;
	case DW_FORM_block2: if (end - *p < 2) return false; n = 2 + ((*p)[0] | (unsigned)(*p)[1] << 8); break;
	case DW_FORM_block4: {
		if (end - *p < 4)
			return false;
		n = 4 + ((uint64_t)(*p)[0] | (uint64_t)(*p)[1] << 8 | (uint64_t)(*p)[2] << 16 | (uint64_t)(*p)[3] << 24);
		break;
	}
	case DW_FORM_block: case DW_FORM_exprloc:
		if (!ct_uleb128(p, end, &n))
			return false;
		break;
	case DW_FORM_indirect: {
		uint64_t f;
		return indirect == 0 && ct_uleb128(p, end, &f) && f < 0x10000 && skip_form(k, p, (unsigned)f, 1);
	}
	default:
		return false;
	}
	if (n > (uint64_t)(end - *p))
		return false;
	*p += n;
	return true;
}

int ct_die_skip_sibling(const struct ct_die_skip *k, const Dwarf_Die *die, Dwarf_Die *next)
{
	const uint8_t *p = die->addr, *end = k->end;
	if (!p || p >= end)
		return -1;
	int depth = 0;
	// Bounded by the unit's bytes: every DIE consumes at least one.
	do {
		uint64_t code;
		if (!ct_uleb128(&p, end, &code))
			return -1;
		if (code == 0) {
			depth--;
			continue;
		}
		if (code >= k->num_codes || !k->codes[code].used)
			return -1;
		const struct abbrev *a = &k->codes[code];
		if (a->fixed >= 0) {
			if (a->fixed > end - p)
				return -1;
			p += a->fixed;
		} else {
			for (unsigned i = 0; i < a->num; i++) {
				if (!skip_form(k, &p, a->forms[i], 0))
					return -1;
			}
		}
		if (a->children)
			depth++;
	} while (depth > 0);
	if (depth < 0 || p >= end || *p == 0)
		return depth < 0 ? -1 : 1;
	memset(next, 0, sizeof(*next));
	next->addr = (void *)p;
	next->cu = die->cu;
	return 0;
}
