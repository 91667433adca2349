// libstdc++'s common types as gdb's libstdc++ pretty-printers show them (internal.h,
// ct_render_cxx): std::string as its text, std::vector as `std::vector of length N, capacity C =
// {…}`, and an iterator (__gnu_cxx::__normal_iterator) as the element it points to. gdb runs
// Python printers shipped with libstdc++; these read the same members (_M_dataplus._M_p,
// _M_string_length; _M_impl._M_start/_M_finish/_M_end_of_storage; _M_current) of GCC 12's
// layout, and anything that does not have them prints as the plain structure.
#include <dwarf.h>
#include <inttypes.h>
#include <string.h>

#include "modules/dwarf_name.h"
#include "modules/dwarf_ref.h"
#include "values/internal.h"

/** Base classes and members followed to find one member. */
#define MAX_MEMBER_DEPTH 4
#define MAX_CHILDREN 100000

static void add(struct ct_sbuf *b, const char *s)
{
	ct_sbuf_add(b, s, strlen(s));
}

/** Distinct base classes one member search goes into: libstdc++'s have one or two. */
#define MAX_BASES 32

/** One member search: the base classes gone into (a base met again through another path is not
 * searched again: a hostile type with N bases of a type with N bases … costs N per level, not N^4). */
struct member_search {
	const struct ct_values_input *s;
	const void *bases[MAX_BASES];
	int num_bases;
};

static bool enter_base(struct member_search *ms, Dwarf_Die *base)
{
	for (int i = 0; i < ms->num_bases; i++)
		if (ms->bases[i] == base->addr)
			return false;
	if (ms->num_bases == MAX_BASES)
		return false;
	ms->bases[ms->num_bases++] = base->addr;
	return true;
}

// Member @p name of struct @p t, through its base classes: its type and its offset in @p t.
static bool find_member(struct member_search *ms, Dwarf_Die *t, const char *name, Dwarf_Die *type, uint64_t *off,
			int depth)
{
	Dwarf_Die m;
	if (depth > MAX_MEMBER_DEPTH || dwarf_child(t, &m) != 0)
		return false;
	int guard = 0;
	do {
		// Every child looked at spends from the budget (member functions too: a class has hundreds).
		if (!ct_render_search_step(ms->s))
			return false;
		int tag = dwarf_tag(&m);
		Dwarf_Die mt, st;
		if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) || dwarf_hasattr(&m, DW_AT_external) ||
		    dwarf_hasattr(&m, DW_AT_declaration) || !ct_render_type_of(&m, &mt))
			continue;
		uint64_t moff = ct_render_udata(&m, DW_AT_data_member_location, 0);
		const char *n = ct_dwarf_diename(&m);
		if (tag == DW_TAG_member && n && strcmp(n, name) == 0) {
			*type = mt;
			*off = moff;
			return true;
		}
		if (tag == DW_TAG_inheritance && ct_render_strip(&mt, &st) && enter_base(ms, &st) &&
		    find_member(ms, &st, name, type, off, depth + 1)) {
			*off += moff;
			return true;
		}
	} while (++guard < MAX_CHILDREN && dwarf_siblingof(&m, &m) == 0);
	return false;
}

// The pointer-sized word at member path @p path ("_M_impl._M_start") of @p t at @p off in @p obj,
// and (when @p target) the pointer's target type.
static bool read_path(const struct ct_values_input *s, Dwarf_Die *t, const char *const *path, const struct ct_object *obj,
		      size_t off, uint64_t *ret, Dwarf_Die *target)
{
	Dwarf_Die cur = *t, mt;
	uint64_t at = off;
	for (; *path; path++) {
		uint64_t moff;
		struct member_search ms = { .s = s };
		if (!find_member(&ms, &cur, *path, &mt, &moff, 0) || !ct_render_strip(&mt, &cur))
			return false;
		at += moff;
	}
	size_t size = (size_t)ct_render_udata(&cur, DW_AT_byte_size, s->core->arch->pointer_size);
	if (size == 0 || size > 8 || at > obj->size || size > obj->size - at)
		return false;
	for (size_t i = 0; i < size; i++)
		if (obj->state[at + i] != CT_BYTE_OK)
			return false;
	*ret = ct_render_uint(obj->data + at, size, s->core->big_endian);
	return !target || ct_render_type_of(&cur, target);
}

static bool render_string(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *t, const struct ct_object *obj,
			  size_t off)
{
	static const char *const p_path[] = { "_M_dataplus", "_M_p", NULL };
	static const char *const len_path[] = { "_M_string_length", NULL };
	uint64_t p, len;
	Dwarf_Die ct;
	if (!read_path(s, t, p_path, obj, off, &p, &ct) || !read_path(s, t, len_path, obj, off, &len, NULL) ||
	    ct_render_udata(&ct, DW_AT_byte_size, 0) != 1)
		return false;
	ct_render_counted_string(s, b, p, len);
	return true;
}

static bool render_vector(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *t, const struct ct_object *obj,
			  size_t off, int depth)
{
	static const char *const start_path[] = { "_M_impl", "_M_start", NULL };
	static const char *const finish_path[] = { "_M_impl", "_M_finish", NULL };
	static const char *const end_path[] = { "_M_impl", "_M_end_of_storage", NULL };
	uint64_t start, finish, end;
	Dwarf_Die elem;
	Dwarf_Word esize;
	if (!read_path(s, t, start_path, obj, off, &start, &elem) || !read_path(s, t, finish_path, obj, off, &finish, NULL) ||
	    !read_path(s, t, end_path, obj, off, &end, NULL) || ct_dwarf_aggregate_size(&elem, &esize) != 0 || esize == 0 ||
	    finish < start || end < finish)
		return false; // std::vector<bool> has no _M_start of its element type: the structure shows
	uint64_t length = (finish - start) / esize, capacity = (end - start) / esize;
	ct_sbuf_printf(b, "std::vector of length %" PRIu64 ", capacity %" PRIu64, length, capacity);
	if (!length)
		return true;
	add(b, " = {");
	ct_render_elements_at(s, b, &elem, start, length, esize, depth);
	if (!b->cut)
		add(b, "}");
	return true;
}

static bool render_iterator(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *t, const struct ct_object *obj,
			    size_t off, int depth)
{
	static const char *const cur_path[] = { "_M_current", NULL };
	uint64_t p;
	Dwarf_Die elem;
	if (!read_path(s, t, cur_path, obj, off, &p, &elem))
		return false;
	if (!p) {
		add(b, "non-dereferenceable iterator for std::vector");
		return true;
	}
	ct_render_at(s, b, &elem, p, depth + 1);
	return true;
}

enum ct_cxx_printer ct_cxx_printer_of(Dwarf_Die *t)
{
	char name[CT_VALUE_MAX_TYPE];
	int tag = dwarf_tag(t);
	const char *own = ct_dwarf_diename(t);
	// The DIE's own name first: qualifying walks the unit from its root, which costs a pass over
	// every type before this one in a unit of thousands (bench-dwarf), so only candidates pay it.
	if ((tag != DW_TAG_structure_type && tag != DW_TAG_class_type) || !own ||
	    (strncmp(own, "basic_string<char,", 18) != 0 && strncmp(own, "vector<", 7) != 0 &&
	     strncmp(own, "__normal_iterator<", 18) != 0) ||
	    !ct_dwarf_qualified_name(t, name, sizeof(name)))
		return CT_CXX_NONE;
	if (strncmp(name, "std::__cxx11::basic_string<char,", 32) == 0 || strncmp(name, "std::basic_string<char,", 23) == 0)
		return CT_CXX_STRING;
	if (strncmp(name, "std::vector<", 12) == 0)
		return CT_CXX_VECTOR;
	if (strncmp(name, "__gnu_cxx::__normal_iterator<", 29) == 0)
		return CT_CXX_ITERATOR;
	return CT_CXX_NONE;
}

bool ct_render_cxx(const struct ct_values_input *s, struct ct_sbuf *b, enum ct_cxx_printer printer, Dwarf_Die *t,
		   const struct ct_object *obj, size_t off, int depth)
{
	switch (printer) {
	case CT_CXX_STRING: return render_string(s, b, t, obj, off);
	case CT_CXX_VECTOR: return depth < CT_VALUE_MAX_DEPTH && render_vector(s, b, t, obj, off, depth);
	case CT_CXX_ITERATOR: return depth < CT_VALUE_MAX_DEPTH && render_iterator(s, b, t, obj, off, depth);
	default: return false;
	}
}
