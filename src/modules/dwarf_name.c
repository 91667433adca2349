// A function DIE's name as gdb prints it (see dwarf_name.h).
#include <dwarf.h>
#include <string.h>

#include "modules/demangle.h"
#include "modules/dwarf_name.h"
#include "modules/dwarf_ref.h"

/** Abstract-origin / specification links followed (a cycle in a hostile file ends here). */
#define MAX_ORIGIN_HOPS 8
/** Nesting levels searched for a DIE's enclosing scopes. */
#define MAX_SCOPE_DEPTH 64

// The DIE that carries @p die's DW_AT_name, through abstract origins and specifications
// (LTO and dwz put it in another unit: libdw follows DW_FORM_ref_addr and partial units; the DWARF 5
// supplementary file's DW_FORM_ref_sup4/8 are ours to follow, dwarf_ref.h).
static bool origin(Dwarf_Die *die, Dwarf_Die *ret)
{
	*ret = *die;
	for (int hop = 0; hop < MAX_ORIGIN_HOPS; hop++) {
		if (dwarf_hasattr(ret, DW_AT_name))
			return true;
		Dwarf_Attribute attr;
		Dwarf_Die next;
		if (!(dwarf_attr(ret, DW_AT_abstract_origin, &attr) || dwarf_attr(ret, DW_AT_specification, &attr)) ||
		    !ct_dwarf_ref_die(&attr, &next))
			return false;
		*ret = next;
	}
	return false;
}

struct name_buf {
	char text[CT_DWARF_NAME_MAX];
	size_t len;
};

static void put(struct name_buf *b, const char *s)
{
	size_t n = strlen(s);
	if (n > sizeof(b->text) - 1 - b->len)
		n = sizeof(b->text) - 1 - b->len;
	memcpy(b->text + b->len, s, n);
	b->len += n;
	b->text[b->len] = '\0';
}

bool ct_dwarf_is_scope_tag(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
	       tag == DW_TAG_union_type || tag == DW_TAG_enumeration_type || tag == DW_TAG_interface_type;
}

const char *ct_dwarf_scope_part(Dwarf_Die *die, int tag)
{
	if (!ct_dwarf_is_scope_tag(tag))
		return NULL;
	const char *n = ct_dwarf_diename(die);
	return n ? n : tag == DW_TAG_namespace ? "(anonymous namespace)" : NULL;
}

// Appends "a::b::" for the namespaces and types that enclose @p target. The unit is searched from
// its root, descending only into the one child whose offsets span the target, so the cost is the
// siblings along one path, not the whole unit (dwarf_getscopes_die visits everything before it).
static void enclosing_scopes(Dwarf_Die *target, struct name_buf *b)
{
	Dwarf_Die cur;
	if (!dwarf_diecu(target, &cur, NULL, NULL))
		return;
	Dwarf_Off want = dwarf_dieoffset(target);
	for (int depth = 0; depth < MAX_SCOPE_DEPTH; depth++) {
		Dwarf_Die child, next;
		if (dwarf_child(&cur, &child) != 0)
			return;
		while (dwarf_dieoffset(&child) != want && dwarf_siblingof(&child, &next) == 0 &&
		       dwarf_dieoffset(&next) <= want)
			child = next;
		if (dwarf_dieoffset(&child) == want || dwarf_dieoffset(&child) > want)
			return;
		const char *part = ct_dwarf_scope_part(&child, dwarf_tag(&child));
		if (part) {
			put(b, part);
			put(b, "::");
		}
		cur = child;
	}
}

static int unit_language(Dwarf_Die *die)
{
	Dwarf_Die cu;
	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return -1;
	return dwarf_srclang(&cu);
}

static bool is_cxx(int lang)
{
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 || lang == DW_LANG_C_plus_plus_11 ||
	       lang == DW_LANG_C_plus_plus_14 || lang == DW_LANG_ObjC_plus_plus;
}

const char *ct_dwarf_function_name(struct ct_strpool *strings, Dwarf_Die *die)
{
	Dwarf_Die named;
	bool have_name = origin(die, &named);
	int lang = unit_language(have_name ? &named : die);
	// gdb names Rust functions by their DWARF path (its demangled symbols carry `<T as Trait>`
	// forms that the DWARF path spells `{impl#0}`); everything else by the linkage name when
	// there is one, demangled.
	if (lang != DW_LANG_Rust && lang != DW_LANG_Go) {
		Dwarf_Attribute attr;
		const char *linkage = NULL;
		if (ct_dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
		    ct_dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
			linkage = dwarf_formstring(&attr);
		const char *d = ct_demangle_function(strings, linkage);
		if (d)
			return d;
		// C with an asm label (glibc's hidden aliases: "__GI___clock_nanosleep"): gdb prints that.
		if (linkage && *linkage && strnlen(linkage, CT_DWARF_NAME_MAX) < CT_DWARF_NAME_MAX)
			return ct_strpool_intern(strings, linkage);
	}
	const char *name = have_name ? ct_dwarf_diename(&named) : NULL;
	if (!name)
		return NULL;
	if (lang != DW_LANG_Rust && lang != DW_LANG_D && !is_cxx(lang))
		return ct_strpool_intern(strings, name);
	struct name_buf b = { .len = 0 };
	b.text[0] = '\0';
	enclosing_scopes(&named, &b);
	put(&b, name);
	return ct_strpool_intern_len(strings, b.text, b.len);
}

bool ct_dwarf_qualified_name(Dwarf_Die *die, char *buf, size_t cap)
{
	const char *name = ct_dwarf_diename(die);
	if (!name || cap == 0)
		return false;
	struct name_buf b = { .len = 0 };
	b.text[0] = '\0';
	enclosing_scopes(die, &b);
	put(&b, name);
	size_t n = b.len < cap - 1 ? b.len : cap - 1;
	memcpy(buf, b.text, n);
	buf[n] = '\0';
	return true;
}
