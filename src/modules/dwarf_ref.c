// DIE references into a DWARF 5 supplementary file (see dwarf_ref.h).
#include <dwarf.h>
#include <gelf.h>
#include <stdint.h>

#include "modules/dwarf_ref.h"

/** Abstract-origin / specification links followed (libdw follows 16; a cycle ends here). */
#define MAX_ORIGIN_HOPS 16

// The offset a ref_sup attribute holds, in the byte order of the file it is read from.
static bool sup_offset(Dwarf_Attribute *attr, unsigned size, Dwarf_Off *ret)
{
	Elf *elf = dwarf_getelf(dwarf_cu_getdwarf(attr->cu));
	const char *ident = elf ? elf_getident(elf, NULL) : NULL;
	if (!ident || !attr->valp)
		return false;
	// libdw sized the form when it found the attribute (the bytes are inside the unit).
	const unsigned char *p = attr->valp;
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[ident[EI_DATA] == ELFDATA2MSB ? i : size - 1 - i] << (8 * (size - 1 - i));
	*ret = v;
	return true;
}

Dwarf_Die *ct_dwarf_ref_die(Dwarf_Attribute *attr, Dwarf_Die *ret)
{
	if (!attr)
		return NULL;
	unsigned form = dwarf_whatform(attr);
	if (form != DW_FORM_ref_sup4 && form != DW_FORM_ref_sup8)
		return dwarf_formref_die(attr, ret);
	// Never the referring file: without its supplementary file the reference names nothing.
	Dwarf *alt = attr->cu ? dwarf_getalt(dwarf_cu_getdwarf(attr->cu)) : NULL;
	Dwarf_Off off;
	if (!alt || !sup_offset(attr, form == DW_FORM_ref_sup4 ? 4 : 8, &off))
		return NULL;
	return dwarf_offdie(alt, off, ret);
}

Dwarf_Attribute *ct_dwarf_attr_integrate(Dwarf_Die *die, unsigned int name, Dwarf_Attribute *ret)
{
	Dwarf_Die cur = *die;
	for (int hop = 0; hop < MAX_ORIGIN_HOPS; hop++) {
		if (dwarf_attr(&cur, name, ret))
			return ret;
		Dwarf_Attribute link;
		Dwarf_Die next;
		if (!(dwarf_attr(&cur, DW_AT_abstract_origin, &link) || dwarf_attr(&cur, DW_AT_specification, &link)) ||
		    !ct_dwarf_ref_die(&link, &next))
			return NULL;
		cur = next;
	}
	return NULL;
}

const char *ct_dwarf_diename(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	return dwarf_formstring(ct_dwarf_attr_integrate(die, DW_AT_name, &attr));
}

const char *ct_dwarf_decl_file(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Word index;
	Dwarf_Die unit;
	Dwarf_Half version = 0;
	Dwarf_Files *files;
	size_t n;
	// The index is the unit's that holds the attribute: an origin's in another unit (LTO) or in
	// the shared file's partial unit (dwz) names that unit's files, not the referring one's.
	// Before DWARF 5, index 0 means no file.
	if (!ct_dwarf_attr_integrate(die, DW_AT_decl_file, &attr) || dwarf_formudata(&attr, &index) != 0 ||
	    !attr.cu || !dwarf_cu_die(attr.cu, &unit, &version, NULL, NULL, NULL, NULL, NULL) ||
	    (index == 0 && version < 5) || dwarf_getsrcfiles(&unit, &files, &n) != 0 || index >= n)
		return NULL;
	return dwarf_filesrc(files, index, NULL, NULL);
}

/** Qualifier and typedef links peeled (libdw's dwarf_peel_type stops at 64). */
#define MAX_PEEL 64
/** Nesting of arrays of arrays followed when sizing (libdw: 256). */
#define MAX_SIZE_DEPTH 256

// The DIE @p die's DW_AT_type names (through its origins), sup forms included.
static Dwarf_Die *type_of(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Attribute attr;
	return ct_dwarf_ref_die(ct_dwarf_attr_integrate(die, DW_AT_type, &attr), ret);
}

Dwarf_Die *ct_dwarf_peel_type(Dwarf_Die *die, Dwarf_Die *buf)
{
	for (int i = 0; die && i < MAX_PEEL; i++) {
		switch (dwarf_tag(die)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
		case DW_TAG_immutable_type:
		case DW_TAG_packed_type:
		case DW_TAG_shared_type:
			// A qualifier without a type (of void) has no size and no members: NULL too.
			die = type_of(die, buf);
			break;
		default: return die;
		}
	}
	return NULL;
}

static int aggregate_size(Dwarf_Die *die, Dwarf_Word *size, int depth);

// Elements of one dimension of an array: a subrange's count or bounds, an enumeration's values.
static bool dimension_count(Dwarf_Die *dim, Dwarf_Word *count)
{
	Dwarf_Attribute attr;
	if (dwarf_tag(dim) == DW_TAG_enumeration_type) {
		Dwarf_Die e;
		Dwarf_Word n = 0;
		if (dwarf_child(dim, &e) == 0) {
			do {
				Dwarf_Word v;
				if (dwarf_tag(&e) != DW_TAG_enumerator)
					continue;
				if (dwarf_formudata(dwarf_attr(&e, DW_AT_const_value, &attr), &v) != 0)
					return false;
				if (v >= n)
					n = v + 1;
			} while (dwarf_siblingof(&e, &e) == 0);
		}
		*count = n;
		return true;
	}
	if (dwarf_attr(dim, DW_AT_count, &attr))
		return dwarf_formudata(&attr, count) == 0;
	// Bounds are signed unless the subrange's index type says unsigned.
	Dwarf_Die index;
	Dwarf_Word enc = DW_ATE_signed;
	if (type_of(dim, &index) && dwarf_formudata(dwarf_attr(&index, DW_AT_encoding, &attr), &enc) != 0)
		enc = DW_ATE_signed;
	bool is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	Dwarf_Sword upper, lower;
	Dwarf_Word u;
	if (!dwarf_attr(dim, DW_AT_upper_bound, &attr))
		return false;
	if (is_signed ? dwarf_formsdata(&attr, &upper) != 0 : dwarf_formudata(&attr, &u) != 0)
		return false;
	if (!is_signed)
		upper = (Dwarf_Sword)u;
	if (dwarf_attr(dim, DW_AT_lower_bound, &attr)) {
		if (is_signed ? dwarf_formsdata(&attr, &lower) != 0 : dwarf_formudata(&attr, &u) != 0)
			return false;
		if (!is_signed)
			lower = (Dwarf_Sword)u;
	} else {
		Dwarf_Die cu;
		if (!dwarf_diecu(dim, &cu, NULL, NULL) || dwarf_default_lower_bound(dwarf_srclang(&cu), &lower) != 0)
			return false;
	}
	if (lower > upper)
		return false;
	*count = (Dwarf_Word)(upper - lower) + 1;
	return true;
}

static int array_size(Dwarf_Die *die, Dwarf_Word *size, int depth)
{
	Dwarf_Die elem, *peeled, dim;
	Dwarf_Word esize, total = 1;
	if (!type_of(die, &elem) || !(peeled = ct_dwarf_peel_type(&elem, &elem)) ||
	    aggregate_size(peeled, &esize, depth) != 0 || dwarf_child(die, &dim) != 0)
		return -1;
	bool any = false;
	do {
		int tag = dwarf_tag(&dim);
		if (tag != DW_TAG_subrange_type && tag != DW_TAG_enumeration_type)
			continue;
		Dwarf_Word n;
		if (!dimension_count(&dim, &n) || __builtin_mul_overflow(total, n, &total))
			return -1;
		any = true;
	} while (dwarf_siblingof(&dim, &dim) == 0);
	Dwarf_Attribute attr;
	Dwarf_Word stride = esize;
	if (dwarf_attr(die, DW_AT_byte_stride, &attr)) {
		if (dwarf_formudata(&attr, &stride) != 0)
			return -1;
	} else if (dwarf_attr(die, DW_AT_bit_stride, &attr)) {
		if (dwarf_formudata(&attr, &stride) != 0 || stride % 8)
			return -1;
		stride /= 8;
	}
	if (!any || __builtin_mul_overflow(total, stride, size))
		return -1;
	return 0;
}

static int aggregate_size(Dwarf_Die *die, Dwarf_Word *size, int depth)
{
	if (depth >= MAX_SIZE_DEPTH)
		return -1;
	Dwarf_Attribute attr;
	if (ct_dwarf_attr_integrate(die, DW_AT_byte_size, &attr))
		return dwarf_formudata(&attr, size);
	switch (dwarf_tag(die)) {
	case DW_TAG_subrange_type: {
		Dwarf_Die t, *peeled = type_of(die, &t) ? ct_dwarf_peel_type(&t, &t) : NULL;
		return peeled ? aggregate_size(peeled, size, depth + 1) : -1;
	}
	case DW_TAG_array_type: return array_size(die, size, depth + 1);
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		// Without a DW_AT_byte_size, a pointer is as wide as the unit's addresses.
		uint8_t address_size;
		Dwarf_Die cu;
		if (!dwarf_diecu(die, &cu, &address_size, NULL))
			return -1;
		*size = address_size;
		return 0;
	}
	default: return -1;
	}
}

int ct_dwarf_aggregate_size(Dwarf_Die *die, Dwarf_Word *size)
{
	Dwarf_Die buf, *peeled = ct_dwarf_peel_type(die, &buf);
	return peeled ? aggregate_size(peeled, size, 0) : -1;
}

int ct_dwarf_bytesize(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	return dwarf_formudata(ct_dwarf_attr_integrate(die, DW_AT_byte_size, &attr), &v) == 0 && v <= INT32_MAX ? (int)v : -1;
}
