// Rust values in Rust syntax, the way gdb's Rust language prints them (internal.h,
// ct_render_rust). What makes a type Rust's is its unit's DW_AT_language, so a C struct reached
// from Rust code still prints as C. Scalars and pointers print as in C (render.c); what differs is
// the aggregates: a struct carries its qualified type name (`core::panic::panic_info::PanicInfo
// {payload: …, can_unwind: true}`), a unit struct is only its name (`alloc::alloc::Global`), a
// tuple prints `(a, b)` and a tuple struct `Name (a, b)` (fields `__0`, `__1`, …), an enum is
// decoded through its DW_TAG_variant_part to the variant the discriminant selects
// (`core::option::Option<u32>::Some(5)`, `…::None`), a `&str` is its string and a slice `&[T]` its
// elements read through data_ptr and length. Every read is bounded like render.c's.
#include <dwarf.h>
#include <stdint.h>
#include <string.h>

#include "modules/dwarf_name.h"
#include "modules/dwarf_ref.h"
#include "util/keyhash.h"
#include "values/internal.h"

/** Enumerators and variants looked at in one type (a hostile file may claim millions). */
#define MAX_CHILDREN 100000

static void add(struct ct_sbuf *b, const char *s)
{
	ct_sbuf_add(b, s, strlen(s));
}

static void add_qualified_name(struct ct_sbuf *b, Dwarf_Die *die)
{
	char name[CT_VALUE_MAX_TYPE];
	if (ct_dwarf_qualified_name(die, name, sizeof(name)))
		add(b, name);
}

// The same through the values cache: qualifying walks the unit from its root (dwarf_name.c), and
// a value shows the same few types again and again.
static void add_type_name(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *die)
{
	struct ct_values *v = s->values;
	size_t slot = (size_t)(ct_hash_mix((uint64_t)(uintptr_t)die->addr) % CT_VALUES_QNAME_CACHE);
	if (v->qnames[slot].die != die->addr) {
		char name[CT_VALUE_MAX_TYPE];
		v->qnames[slot].die = die->addr;
		v->qnames[slot].name = ct_dwarf_qualified_name(die, name, sizeof(name)) ? ct_strpool_intern(s->out.strings, name) : NULL;
	}
	if (v->qnames[slot].name)
		add(b, v->qnames[slot].name);
}

static bool is_field(Dwarf_Die *m)
{
	// Static members are declarations without a place in the object.
	return dwarf_tag(m) == DW_TAG_member && !dwarf_hasattr(m, DW_AT_external) &&
	       !dwarf_hasattr(m, DW_AT_declaration);
}

static bool first_field(const struct ct_values_input *s, Dwarf_Die *t, Dwarf_Die *ret)
{
	if (dwarf_child(t, ret) != 0)
		return false;
	int guard = 0;
	do {
		if (!ct_render_search_step(s))
			return false;
		if (is_field(ret))
			return true;
	} while (++guard < MAX_CHILDREN && dwarf_siblingof(ret, ret) == 0);
	return false;
}

// rustc names the fields of tuples and tuple structs __0, __1, …
static bool tuple_like(const struct ct_values_input *s, Dwarf_Die *t)
{
	Dwarf_Die m;
	const char *name = first_field(s, t, &m) ? ct_dwarf_diename(&m) : NULL;
	return name && strcmp(name, "__0") == 0;
}

// The fields of struct @p t at @p off: `{a: 1, b: 2}`, or `(1, 2)` when @p tuple.
static void render_fields(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *t, const struct ct_object *obj,
			  size_t off, bool tuple, int depth)
{
	if (depth >= CT_VALUE_MAX_DEPTH) {
		add(b, tuple ? "(...)" : "{...}");
		return;
	}
	add(b, tuple ? "(" : "{");
	Dwarf_Die m;
	size_t shown = 0;
	if (dwarf_child(t, &m) == 0) {
		int guard = 0;
		do {
			Dwarf_Die mt;
			if (!ct_render_visit(s)) {
				add(b, shown ? ", ..." : "...");
				break;
			}
			if (!is_field(&m) || !ct_render_type_of(&m, &mt))
				continue;
			if (!ct_render_next_element(b, &shown))
				break;
			if (!tuple) {
				const char *name = ct_dwarf_diename(&m);
				add(b, name ? name : "?");
				add(b, ": ");
			}
			uint64_t moff = ct_render_udata(&m, DW_AT_data_member_location, 0);
			if (moff > obj->size) {
				add(b, "<unavailable>");
				continue;
			}
			ct_render_value(s, b, &mt, obj, off + (size_t)moff, false, depth + 1);
			if (b->cut)
				return;
		} while (++guard < MAX_CHILDREN && dwarf_siblingof(&m, &m) == 0);
	}
	add(b, tuple ? ")" : "}");
}

// The member of struct @p t named @p name, with its type and offset.
static bool member(const struct ct_values_input *s, Dwarf_Die *t, const char *name, Dwarf_Die *type, uint64_t *off)
{
	Dwarf_Die m;
	if (dwarf_child(t, &m) != 0)
		return false;
	int guard = 0;
	do {
		if (!ct_render_search_step(s))
			return false;
		const char *n = is_field(&m) ? ct_dwarf_diename(&m) : NULL;
		if (n && strcmp(n, name) == 0 && ct_render_type_of(&m, type)) {
			*off = ct_render_udata(&m, DW_AT_data_member_location, 0);
			return true;
		}
	} while (++guard < MAX_CHILDREN && dwarf_siblingof(&m, &m) == 0);
	return false;
}

static bool read_word(const struct ct_values_input *s, struct ct_sbuf *b, const struct ct_object *obj, size_t off,
		      Dwarf_Die *type, uint64_t *ret)
{
	Dwarf_Die st;
	size_t size = ct_render_strip(type, &st) ? (size_t)ct_render_udata(&st, DW_AT_byte_size, 8) : 8;
	if (size == 0 || size > 8 || !ct_render_available(b, obj, off, size))
		return false;
	*ret = ct_render_uint(obj->data + off, size, s->core->big_endian);
	return true;
}

// A fat pointer to str or [T]: rustc's struct {data_ptr, length}, named "&str", "&[T]", "&mut [T]".
static bool render_slice(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *t, const char *name,
			 const struct ct_object *obj, size_t off, int depth)
{
	Dwarf_Die ptr_type, len_type, elem;
	uint64_t ptr_off, len_off, data, length;
	if (!member(s, t, "data_ptr", &ptr_type, &ptr_off) || !member(s, t, "length", &len_type, &len_off))
		return false;
	if (!read_word(s, b, obj, off + (size_t)ptr_off, &ptr_type, &data) ||
	    !read_word(s, b, obj, off + (size_t)len_off, &len_type, &length))
		return true;
	Dwarf_Die pt;
	if (!ct_render_strip(&ptr_type, &pt) || !ct_render_type_of(&pt, &elem))
		return false;
	if (strcmp(name, "&str") == 0 || strcmp(name, "&mut str") == 0) {
		ct_render_counted_string(s, b, data, length);
		return true;
	}
	Dwarf_Word esize;
	if (ct_dwarf_aggregate_size(&elem, &esize) != 0)
		return false;
	add(b, name);
	add(b, " [");
	ct_render_elements_at(s, b, &elem, data, length, esize, depth);
	if (!b->cut)
		add(b, "]");
	return true;
}

// The variant of enum @p vpart (its DW_TAG_variant_part) the discriminant selects.
static bool select_variant(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *vpart, const struct ct_object *obj,
			   size_t off, Dwarf_Die *ret)
{
	Dwarf_Attribute attr;
	Dwarf_Die discr, discr_type;
	bool has_discr = dwarf_attr(vpart, DW_AT_discr, &attr) && ct_dwarf_ref_die(&attr, &discr) &&
			 ct_render_type_of(&discr, &discr_type);
	uint64_t value = 0;
	size_t size = 8;
	if (has_discr) {
		uint64_t doff = ct_render_udata(&discr, DW_AT_data_member_location, 0);
		Dwarf_Die st;
		size = ct_render_strip(&discr_type, &st) ? (size_t)ct_render_udata(&st, DW_AT_byte_size, 0) : 0;
		if (size == 0 || size > 8 || doff > obj->size)
			return false;
		if (!ct_render_available(b, obj, off + (size_t)doff, size))
			return false;
		value = ct_render_uint(obj->data + off + doff, size, s->core->big_endian);
	}
	Dwarf_Die v, fallback;
	bool have_fallback = false;
	if (dwarf_child(vpart, &v) != 0)
		return false;
	uint64_t mask = size >= 8 ? UINT64_MAX : (UINT64_C(1) << (size * 8)) - 1;
	int guard = 0;
	do {
		if (!ct_render_search_step(s))
			break;
		if (dwarf_tag(&v) != DW_TAG_variant)
			continue;
		Dwarf_Attribute dv;
		Dwarf_Word w;
		Dwarf_Sword sw;
		if (!has_discr || !dwarf_attr(&v, DW_AT_discr_value, &dv)) {
			// The default variant (niche-filling enums: every value no other variant names).
			if (!have_fallback) {
				fallback = v;
				have_fallback = true;
			}
			if (!has_discr)
				break;
			continue;
		}
		if ((dwarf_formudata(&dv, &w) == 0 && (w & mask) == value) ||
		    (dwarf_formsdata(&dv, &sw) == 0 && ((uint64_t)sw & mask) == value)) {
			*ret = v;
			return true;
		}
	} while (++guard < MAX_CHILDREN && dwarf_siblingof(&v, &v) == 0);
	if (have_fallback)
		*ret = fallback;
	return have_fallback;
}

// An enum with data: `Path::Enum::Variant`, `…::Variant(a)`, `…::Variant{x: 1}`.
static void render_enum_variant(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *vpart,
				const struct ct_object *obj, size_t off, int depth)
{
	Dwarf_Die variant, m, vt, vts;
	if (!select_variant(s, b, vpart, obj, off, &variant)) {
		if (!b->cut && b->len && b->buf[b->len - 1] != '>')
			add(b, "<unknown variant>");
		return;
	}
	// The variant holds one member whose type is the variant's struct (named `Some`, nested in
	// the enum's struct, so its qualified name is `core::option::Option<u32>::Some`).
	if (dwarf_child(&variant, &m) != 0 || !ct_render_type_of(&m, &vt) || !ct_render_strip(&vt, &vts)) {
		add(b, "<unknown variant>");
		return;
	}
	uint64_t moff = ct_render_udata(&m, DW_AT_data_member_location, 0);
	add_type_name(s, b, &vts);
	Dwarf_Die f;
	if (!first_field(s, &vts, &f) || moff > obj->size)
		return;
	// gdb writes a variant's fields right after its name: Some(5), Point{x: 1}.
	render_fields(s, b, &vts, obj, off + (size_t)moff, tuple_like(s, &vts), depth);
}

static bool find_variant_part(const struct ct_values_input *s, Dwarf_Die *t, Dwarf_Die *ret)
{
	if (dwarf_child(t, ret) != 0)
		return false;
	int guard = 0;
	do {
		if (!ct_render_search_step(s))
			return false;
		if (dwarf_tag(ret) == DW_TAG_variant_part)
			return true;
	} while (++guard < MAX_CHILDREN && dwarf_siblingof(ret, ret) == 0);
	return false;
}

static void render_struct(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *t, const struct ct_object *obj,
			  size_t off, int depth)
{
	Dwarf_Die vpart, f;
	if (find_variant_part(s, t, &vpart)) {
		render_enum_variant(s, b, &vpart, obj, off, depth);
		return;
	}
	const char *name = ct_dwarf_diename(t);
	if (name && (name[0] == '&' || strncmp(name, "*const [", 8) == 0 || strncmp(name, "*mut [", 6) == 0) &&
	    render_slice(s, b, t, name, obj, off, depth))
		return;
	bool tuple = name && name[0] == '(';
	if (!tuple) {
		add_type_name(s, b, t);
		if (!first_field(s, t, &f))
			return; // a unit struct is its name
		if (name)
			add(b, " ");
	}
	render_fields(s, b, t, obj, off, tuple || tuple_like(s, t), depth);
}

// A C-like enum: gdb qualifies the enumerator with the enum's path.
static void render_enumeration(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *t, const struct ct_object *obj,
			       size_t off)
{
	size_t size = (size_t)ct_render_udata(t, DW_AT_byte_size, 4);
	if (size == 0 || size > 8 || !ct_render_available(b, obj, off, size))
		return;
	uint64_t u = ct_render_uint(obj->data + off, size, s->core->big_endian);
	const char *name = ct_render_enumerator(s, t, u, size);
	if (!name) {
		ct_sbuf_u64(b, u);
		return;
	}
	add_type_name(s, b, t);
	add(b, "::");
	add(b, name);
}

bool ct_render_rust(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *t, int tag, const struct ct_object *obj,
		    size_t off, int depth)
{
	switch (tag) {
	case DW_TAG_structure_type:
	case DW_TAG_union_type: // untagged unions print as structs
		render_struct(s, b, t, obj, off, depth);
		return true;
	case DW_TAG_enumeration_type:
		render_enumeration(s, b, t, obj, off);
		return true;
	case DW_TAG_base_type: {
		// The unit type: a zero-sized base type named ().
		const char *name = ct_dwarf_diename(t);
		if (name && strcmp(name, "()") == 0) {
			add(b, "()");
			return true;
		}
		return false;
	}
	default:
		return false;
	}
}

bool ct_render_rust_type_name(struct ct_sbuf *b, Dwarf_Die *type, int depth)
{
	const char *name = ct_dwarf_diename(type);
	switch (dwarf_tag(type)) {
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_typedef:
		if (!name)
			return false;
		add_qualified_name(b, type);
		return true;
	case DW_TAG_base_type:
	case DW_TAG_pointer_type: // rustc names its pointers: "*const u8", "&core::fmt::Arguments"
		if (name) {
			add(b, name);
			return true;
		}
		return false;
	case DW_TAG_array_type: {
		// [T; N]: one pair of brackets per dimension, outermost first.
		Dwarf_Die elem, sub;
		if (depth > 8 || !ct_render_type_of(type, &elem) || dwarf_child(type, &sub) != 0)
			return false;
		int dims = 0;
		uint64_t count[8];
		do {
			if (dwarf_tag(&sub) != DW_TAG_subrange_type)
				continue;
			count[dims++] = ct_render_udata(&sub, DW_AT_count, ct_render_udata(&sub, DW_AT_upper_bound, 0) + 1);
		} while (dims < 8 && dwarf_siblingof(&sub, &sub) == 0);
		for (int i = 0; i < dims; i++)
			add(b, "[");
		if (!ct_render_rust_type_name(b, &elem, depth + 1))
			add(b, "?");
		for (int i = dims - 1; i >= 0; i--)
			ct_sbuf_printf(b, "; %llu]", (unsigned long long)count[i]);
		return dims > 0;
	}
	default:
		return false;
	}
}
