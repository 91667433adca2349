// Values and type names rendered the way gdb 13 prints them (`bt`, `bt full`): integers in
// decimal, chars as 65 'A', enums by name, pointers in hex with the symbol they point into and the
// string of a char *, aggregates as {a = 1, b = 0x0} with gdb's <repeats N times>. Every piece of
// text is bounded (limits.h); bytes from the dump are escaped, never copied raw.
#include <dwarf.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modules/dwarf_ref.h"
#include "modules/symbolize.h"
#include "util/budget.h"
#include "util/bytes.h"
#include "util/keyhash.h"
#include "values/internal.h"

/** gdb's `repeat_count_threshold`: runs longer than this are shown as <repeats N times>. */
#define REPEAT_THRESHOLD 10
/** Bytes of a reference's target read (it is shown shallowly). */
#define REF_TARGET_BYTES 64

void ct_sbuf_add(struct ct_sbuf *b, const char *s, size_t n)
{
	if (b->len + n >= b->cap) {
		n = b->cap > b->len + 1 ? b->cap - b->len - 1 : 0;
		b->cut = true;
	}
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = 0;
}

void ct_sbuf_printf(struct ct_sbuf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		ct_sbuf_add(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void add(struct ct_sbuf *b, const char *s)
{
	ct_sbuf_add(b, s, strlen(s));
}

// Decimal and hex without printf: the values of 100,000-frame stacks are mostly integers and
// pointers, and vsnprintf costs ~5x the rest of rendering one.
void ct_sbuf_u64(struct ct_sbuf *b, uint64_t v)
{
	char tmp[20];
	size_t i = sizeof(tmp);
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	ct_sbuf_add(b, tmp + i, sizeof(tmp) - i);
}

void ct_sbuf_i64(struct ct_sbuf *b, int64_t v)
{
	if (v < 0) {
		ct_sbuf_add(b, "-", 1);
		ct_sbuf_u64(b, -(uint64_t)v);
	} else {
		ct_sbuf_u64(b, (uint64_t)v);
	}
}

void ct_sbuf_hex(struct ct_sbuf *b, uint64_t v)
{
	char tmp[18];
	size_t i = sizeof(tmp);
	do {
		tmp[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	ct_sbuf_add(b, tmp + i, sizeof(tmp) - i);
}

// Strips typedefs and qualifiers (for values; names keep them). False for void.
bool ct_render_strip(Dwarf_Die *type, Dwarf_Die *ret)
{
	Dwarf_Die cur = *type;
	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(&cur);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type) {
			*ret = cur;
			return true;
		}
		Dwarf_Attribute attr;
		if (!ct_dwarf_attr_integrate(&cur, DW_AT_type, &attr) || !ct_dwarf_ref_die(&attr, &cur))
			return false;
	}
	return false;
}

bool ct_render_type_of(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Attribute attr;
	return ct_dwarf_attr_integrate(die, DW_AT_type, &attr) && ct_dwarf_ref_die(&attr, ret);
}

uint64_t ct_render_udata(Dwarf_Die *die, int name, uint64_t dflt)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;
	if (!ct_dwarf_attr_integrate(die, name, &attr) || dwarf_formudata(&attr, &w) != 0)
		return dflt;
	return w;
}

/* ---- type names ---- */

// Appends the declarator form of @p type around @p inner ("*", "(*)[4]"), as C spells types.
static void decl(struct ct_sbuf *b, Dwarf_Die *type, const char *inner, bool cxx, int depth)
{
	char tmp[CT_VALUE_MAX_TYPE];
	if (!type || depth > 8) {
		add(b, type ? "..." : "void");
		if (*inner) {
			add(b, " ");
			add(b, inner);
		}
		return;
	}
	Dwarf_Die target, *tp = ct_render_type_of(type, &target) ? &target : NULL;
	const char *name = ct_dwarf_diename(type);
	int tag = dwarf_tag(type);
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		const char *op = tag == DW_TAG_pointer_type ? "*" : tag == DW_TAG_reference_type ? "&" : "&&";
		int ttag = tp ? dwarf_tag(tp) : 0;
		if (ttag == DW_TAG_array_type || ttag == DW_TAG_subroutine_type)
			snprintf(tmp, sizeof(tmp), "(%s%s)", op, inner);
		else
			snprintf(tmp, sizeof(tmp), "%s%s", op, inner);
		decl(b, tp, tmp, cxx, depth + 1);
		return;
	}
	case DW_TAG_const_type:
	case DW_TAG_volatile_type: {
		const char *q = tag == DW_TAG_const_type ? "const" : "volatile";
		Dwarf_Die st;
		if (tp && ct_render_strip(tp, &st) && dwarf_tag(tp) == DW_TAG_pointer_type) {
			snprintf(tmp, sizeof(tmp), " %s%s%s", q, *inner ? " " : "", inner);
			decl(b, tp, tmp + 1, cxx, depth + 1);
			return;
		}
		add(b, q);
		add(b, " ");
		decl(b, tp, inner, cxx, depth + 1);
		return;
	}
	case DW_TAG_array_type: {
		struct ct_sbuf dims = { .buf = tmp, .cap = sizeof(tmp) };
		add(&dims, inner);
		Dwarf_Die sub;
		if (dwarf_child(type, &sub) == 0) {
			int guard = 0;
			do {
				if (dwarf_tag(&sub) != DW_TAG_subrange_type)
					continue;
				Dwarf_Word count;
				Dwarf_Attribute attr;
				if (ct_dwarf_attr_integrate(&sub, DW_AT_count, &attr) && dwarf_formudata(&attr, &count) == 0)
					ct_sbuf_printf(&dims, "[%" PRIu64 "]", count);
				else if (ct_dwarf_attr_integrate(&sub, DW_AT_upper_bound, &attr) &&
					 dwarf_formudata(&attr, &count) == 0)
					ct_sbuf_printf(&dims, "[%" PRIu64 "]", count + 1);
				else
					add(&dims, "[]");
			} while (++guard < 8 && dwarf_siblingof(&sub, &sub) == 0);
		}
		decl(b, tp, tmp, cxx, depth + 1);
		return;
	}
	case DW_TAG_subroutine_type: {
		struct ct_sbuf args = { .buf = tmp, .cap = sizeof(tmp) };
		add(&args, inner);
		add(&args, "(");
		Dwarf_Die p;
		bool any = false;
		if (dwarf_child(type, &p) == 0) {
			int guard = 0;
			do {
				int ptag = dwarf_tag(&p);
				if (ptag == DW_TAG_unspecified_parameters) {
					add(&args, any ? ", ..." : "...");
					any = true;
				} else if (ptag == DW_TAG_formal_parameter) {
					Dwarf_Die pt;
					if (any)
						add(&args, ", ");
					ct_render_type_name(&args, ct_render_type_of(&p, &pt) ? &pt : NULL, cxx, depth + 1);
					any = true;
				}
			} while (++guard < 32 && dwarf_siblingof(&p, &p) == 0);
		}
		if (!any)
			add(&args, "void");
		add(&args, ")");
		decl(b, tp, tmp, cxx, depth + 1);
		return;
	}
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		if (!cxx || !name)
			add(b, tag == DW_TAG_union_type ? "union " : tag == DW_TAG_enumeration_type ? "enum " : tag == DW_TAG_class_type ? "class " : "struct ");
		add(b, name ? name : "{...}");
		break;
	default:
		add(b, name ? name : "?");
		break;
	}
	if (*inner) {
		add(b, " ");
		add(b, inner);
	}
}

void ct_render_type_name(struct ct_sbuf *b, Dwarf_Die *type, bool cxx, int depth)
{
	if (type && ct_die_is_rust(type) && ct_render_rust_type_name(b, type, depth))
		return;
	decl(b, type, "", cxx, depth);
}

/* ---- values ---- */

// Checks bytes [off, off + n) of @p obj; appends gdb's marker and returns false when not all known.
bool ct_render_available(struct ct_sbuf *b, const struct ct_object *obj, size_t off, size_t n)
{
	if (off > obj->size || n > obj->size - off) {
		add(b, "<unavailable>");
		return false;
	}
	for (size_t i = off; i < off + n; i++) {
		if (obj->state[i] == CT_BYTE_OPTIMIZED) {
			add(b, "<optimized out>");
			return false;
		}
		if (obj->state[i] == CT_BYTE_UNREADABLE) {
			ct_sbuf_printf(b, "<unreadable 0x%" PRIx64 ">", obj->has_address ? obj->address + i : obj->unreadable_at);
			return false;
		}
	}
	return true;
}

uint64_t ct_render_uint(const uint8_t *p, size_t n, bool big_endian)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n && i < 8; i++) {
		size_t k = big_endian ? i : (n < 8 ? n : 8) - 1 - i;
		v = v << 8 | p[k];
	}
	return v;
}

static int64_t sign_extend(uint64_t v, size_t n)
{
	if (n >= 8 || n == 0)
		return (int64_t)v;
	uint64_t sign = 1ULL << (n * 8 - 1);
	return (int64_t)((v ^ sign) - sign);
}

// A character as gdb shows it inside quotes @p q.
static void add_char(struct ct_sbuf *b, unsigned c, char q)
{
	switch (c) {
	case '\n': add(b, "\\n"); return;
	case '\t': add(b, "\\t"); return;
	case '\r': add(b, "\\r"); return;
	case '\a': add(b, "\\a"); return;
	case '\b': add(b, "\\b"); return;
	case '\f': add(b, "\\f"); return;
	case '\v': add(b, "\\v"); return;
	case 033: add(b, "\\033"); return;
	case '\\': add(b, "\\\\"); return;
	}
	if (c == (unsigned char)q) {
		char e[3] = { '\\', q, 0 };
		add(b, e);
	} else if (c >= 0x20 && c < 0x7f) {
		char s[2] = { (char)c, 0 };
		add(b, s);
	} else {
		// Octal like gdb; bytes >= 0x80 too, so nothing from the dump reaches a terminal raw.
		ct_sbuf_printf(b, "\\%03o", c & 0xff);
	}
}

// A run of characters @p s[0..n) in gdb's string notation, with <repeats N times> for long runs.
static void add_chars(struct ct_sbuf *b, const uint8_t *s, size_t n, bool more)
{
	bool in_quote = false, any = false;
	for (size_t i = 0; i < n;) {
		size_t run = 1;
		while (i + run < n && s[i + run] == s[i])
			run++;
		if (run > REPEAT_THRESHOLD) {
			if (in_quote)
				add(b, "\"");
			if (any)
				add(b, ", ");
			add(b, "'");
			add_char(b, s[i], '\'');
			ct_sbuf_printf(b, "' <repeats %zu times>", run);
			in_quote = false;
			i += run;
		} else {
			if (!in_quote) {
				if (any)
					add(b, ", ");
				add(b, "\"");
				in_quote = true;
			}
			add_char(b, s[i], '"');
			i++;
		}
		any = true;
		if (b->cut)
			return;
	}
	if (in_quote)
		add(b, "\"");
	if (!any)
		add(b, "\"\"");
	if (more)
		add(b, "...");
}

static bool is_char_type(Dwarf_Die *type)
{
	Dwarf_Die t;
	if (!ct_render_strip(type, &t) || dwarf_tag(&t) != DW_TAG_base_type || ct_render_udata(&t, DW_AT_byte_size, 0) != 1)
		return false;
	uint64_t enc = ct_render_udata(&t, DW_AT_encoding, 0);
	return enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char || enc == DW_ATE_UTF;
}

// The string at @p addr, as gdb shows a char * (up to CT_VALUE_MAX_STRING characters).
static void add_string_at(const struct ct_values_input *s, struct ct_sbuf *b, uint64_t addr)
{
	uint8_t buf[CT_VALUE_MAX_STRING];
	size_t n = 0;
	bool terminated = false;
	while (n < sizeof(buf)) {
		// Whole chunks first (fast), then byte by byte where a chunk crosses into unreadable memory.
		size_t chunk = sizeof(buf) - n < 64 ? sizeof(buf) - n : 64;
		if (!ct_frame_read(s, addr + n, buf + n, chunk)) {
			size_t k = 0;
			while (k < chunk && ct_frame_read(s, addr + n + k, buf + n + k, 1))
				k++;
			if (k == 0 && n == 0) {
				ct_sbuf_printf(b, " <unreadable 0x%" PRIx64 ">", addr);
				return;
			}
			chunk = k;
		}
		void *nul = memchr(buf + n, 0, chunk);
		if (nul) {
			n = (size_t)((uint8_t *)nul - buf);
			terminated = true;
			break;
		}
		n += chunk;
		if (chunk == 0)
			break;
	}
	add(b, " ");
	add_chars(b, buf, n, !terminated && n == sizeof(buf));
}

// " <symbol+off>" when @p addr lies inside a sized ELF symbol (gdb's `print symbol`).
static void add_symbol(const struct ct_values_input *s, struct ct_sbuf *b, uint64_t addr, bool function)
{
	Dwfl_Module *mod = addr ? dwfl_addrmodule(s->mods->dwfl, addr) : NULL;
	if (!mod)
		return;
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	if (!name || name[0] == '$' || (!(sym.st_size && off < sym.st_size) && !(function && off == 0)))
		return;
	const char *shown = ct_demangle(s->mods, name);
	// A function-local static: GCC's symbol `w.0`, clang's `main.w`; gdb names it `w`, as its DWARF does.
	if (GELF_ST_BIND(sym.st_info) == STB_LOCAL && GELF_ST_TYPE(sym.st_info) == STT_OBJECT && strchr(name, '.')) {
		const char *dwarf_name = ct_values_static_name(s, mod, addr - off);
		if (dwarf_name)
			shown = dwarf_name;
	}
	if (!shown)
		return;
	if (off)
		ct_sbuf_printf(b, " <%.*s+%" PRIu64 ">", 96, shown, (uint64_t)off);
	else
		ct_sbuf_printf(b, " <%.*s>", 96, shown);
}

static void render_at(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *type, uint64_t addr, bool cxx, int depth);

static void render_base(const struct ct_values_input *s, struct ct_sbuf *b, size_t size, uint64_t enc,
			const struct ct_object *obj, size_t off)
{
	if (size == 0 || !ct_render_available(b, obj, off, size))
		return;
	bool be = s->core->big_endian;
	const uint8_t *p = obj->data + off;
	if (enc == DW_ATE_float) {
		if (size == 4) {
			uint32_t u = (uint32_t)ct_render_uint(p, 4, be);
			float f;
			memcpy(&f, &u, 4);
			ct_sbuf_printf(b, "%.9g", (double)f);
		} else if (size == 8) {
			uint64_t u = ct_render_uint(p, 8, be);
			double d;
			memcpy(&d, &u, 8);
			ct_sbuf_printf(b, "%.17g", d);
		} else if ((size == 10 || size == 12 || size == 16) && !be) {
			// x87 extended precision (x86 long double): 64-bit mantissa, 15-bit exponent.
			uint64_t mant = ct_render_uint(p, 8, false);
			unsigned se = (unsigned)ct_render_uint(p + 8, 2, false);
			int exp = (int)(se & 0x7fff);
			long double v = exp == 0x7fff ? (mant << 1 ? NAN : INFINITY)
						      : ldexpl((long double)mant, exp ? exp - 16383 - 63 : -16382 - 63);
			ct_sbuf_printf(b, "%.18Lg", (se & 0x8000) ? -v : v);
		} else {
			ct_sbuf_printf(b, "<%zu-byte float>", size);
		}
		return;
	}
	uint64_t u = ct_render_uint(p, size, be);
	switch (enc) {
	case DW_ATE_boolean:
		if (u <= 1)
			add(b, u ? "true" : "false");
		else
			ct_sbuf_u64(b, u);
		return;
	case DW_ATE_signed_char:
	case DW_ATE_unsigned_char:
	case DW_ATE_UTF:
		if (size == 1) {
			int64_t v = enc == DW_ATE_signed_char ? sign_extend(u, 1) : (int64_t)u;
			ct_sbuf_i64(b, v);
			add(b, " '");
			add_char(b, (unsigned)u, '\'');
			add(b, "'");
			return;
		}
		ct_sbuf_u64(b, u);
		return;
	case DW_ATE_signed:
		ct_sbuf_i64(b, sign_extend(u, size));
		return;
	default:
		ct_sbuf_u64(b, u);
		return;
	}
}

static void render_enum(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *t, const struct ct_object *obj,
			size_t off)
{
	size_t size = ct_render_udata(t, DW_AT_byte_size, 4);
	if (!ct_render_available(b, obj, off, size))
		return;
	uint64_t u = ct_render_uint(obj->data + off, size, s->core->big_endian);
	const char *name = ct_render_enumerator(s, t, u, size);
	if (name)
		add(b, name);
	else
		ct_sbuf_i64(b, sign_extend(u, size));
}

const char *ct_render_enumerator(const struct ct_values_input *s, Dwarf_Die *t, uint64_t u, size_t size)
{
	Dwarf_Die e;
	if (dwarf_child(t, &e) != 0)
		return NULL;
	int guard = 0;
	do {
		// Each enumerator compared is an element visited: an enum of 100,000 is searched per value.
		if (!ct_render_visit(s))
			return NULL;
		Dwarf_Attribute attr;
		Dwarf_Word w;
		Dwarf_Sword sw;
		if (dwarf_tag(&e) != DW_TAG_enumerator || !dwarf_attr(&e, DW_AT_const_value, &attr))
			continue;
		if ((dwarf_formudata(&attr, &w) == 0 && (w == u || w == (uint64_t)sign_extend(u, size))) ||
		    (dwarf_formsdata(&attr, &sw) == 0 && sw == sign_extend(u, size))) {
			const char *name = ct_dwarf_diename(&e);
			return name ? name : "?";
		}
	} while (++guard < 100000 && dwarf_siblingof(&e, &e) == 0);
	return NULL;
}

static void render_pointer(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *t, const struct ct_object *obj,
			   size_t off, bool cxx, int depth)
{
	size_t size = ct_render_udata(t, DW_AT_byte_size, s->core->arch->pointer_size);
	if (!ct_render_available(b, obj, off, size))
		return;
	uint64_t v = ct_render_uint(obj->data + off, size, s->core->big_endian);
	Dwarf_Die target, st;
	bool has_target = ct_render_type_of(t, &target);
	int tag = dwarf_tag(t);
	if (tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type) {
		// gdb: @0x7ffc…: value
		ct_sbuf_printf(b, "@0x%" PRIx64, v);
		if (has_target && depth < CT_VALUE_MAX_DEPTH) {
			add(b, ": ");
			render_at(s, b, &target, v, cxx, depth + 1);
		}
		return;
	}
	ct_sbuf_hex(b, v);
	if (!v)
		return;
	bool function = has_target && ct_render_strip(&target, &st) && dwarf_tag(&st) == DW_TAG_subroutine_type;
	add_symbol(s, b, v, function);
	if (has_target && is_char_type(&target))
		add_string_at(s, b, v);
}

static void render_aggregate(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *t, const struct ct_object *obj,
			     size_t off, bool cxx, int depth)
{
	if (depth >= CT_VALUE_MAX_DEPTH) {
		add(b, "{...}");
		return;
	}
	add(b, "{");
	Dwarf_Die m;
	size_t shown = 0;
	if (dwarf_child(t, &m) == 0) {
		int guard = 0;
		do {
			// Every child visited costs, shown or skipped: 100,000 typeless members are as
			// much work as 100,000 shown ones.
			if (!ct_render_visit(s)) {
				add(b, shown ? ", ..." : "...");
				break;
			}
			int tag = dwarf_tag(&m);
			if (tag != DW_TAG_member && tag != DW_TAG_inheritance)
				continue;
			// Static members are declarations without a place in the object.
			if (dwarf_hasattr(&m, DW_AT_external) || dwarf_hasattr(&m, DW_AT_declaration))
				continue;
			Dwarf_Die mt;
			if (!ct_render_type_of(&m, &mt))
				continue;
			if (!ct_render_next_element(b, &shown))
				break;
			const char *name = ct_dwarf_diename(&m);
			Dwarf_Die mts;
			if (tag == DW_TAG_inheritance) {
				add(b, "<");
				const char *bn = ct_render_strip(&mt, &mts) ? ct_dwarf_diename(&mts) : NULL;
				add(b, bn ? bn : "?");
				add(b, "> = ");
			} else if (name) {
				add(b, name);
				add(b, " = ");
			}
			uint64_t moff = ct_render_udata(&m, DW_AT_data_member_location, 0);
			uint64_t bits = ct_render_udata(&m, DW_AT_bit_size, 0);
			if (bits) {
				// A bit-field: DW_AT_data_bit_offset (DWARF 4+) counts from the object's start.
				uint64_t bit_off = ct_render_udata(&m, DW_AT_data_bit_offset, moff * 8);
				size_t first = (size_t)(bit_off / 8), last = (size_t)((bit_off + bits + 7) / 8);
				if (bits > 64 || last - first > 8 || !ct_render_available(b, obj, off + first, last - first))
					continue;
				uint64_t word = ct_render_uint(obj->data + off + first, last - first, false);
				uint64_t v = (word >> (bit_off % 8)) & (bits == 64 ? UINT64_MAX : (1ULL << bits) - 1);
				bool is_signed = ct_render_strip(&mt, &mts) && dwarf_tag(&mts) == DW_TAG_base_type &&
						 (ct_render_udata(&mts, DW_AT_encoding, 0) == DW_ATE_signed ||
						  ct_render_udata(&mts, DW_AT_encoding, 0) == DW_ATE_signed_char);
				if (is_signed && bits < 64 && (v >> (bits - 1)) & 1)
					ct_sbuf_printf(b, "%" PRId64, (int64_t)(v | ~((1ULL << bits) - 1)));
				else
					ct_sbuf_u64(b, v);
				continue;
			}
			ct_render_value(s, b, &mt, obj, off + (size_t)moff, cxx, depth + 1);
			if (b->cut)
				return;
		} while (++guard < 100000 && dwarf_siblingof(&m, &m) == 0);
	}
	add(b, "}");
}

int ct_dwarf_array_dims(Dwarf_Die *t, int64_t *dims)
{
	Dwarf_Die sub;
	int n = 0;
	if (dwarf_child(t, &sub) != 0)
		return 0;
	do {
		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		Dwarf_Attribute attr;
		Dwarf_Word w;
		Dwarf_Sword lower = 0;
		if (ct_dwarf_attr_integrate(&sub, DW_AT_lower_bound, &attr))
			dwarf_formsdata(&attr, &lower);
		if (ct_dwarf_attr_integrate(&sub, DW_AT_count, &attr) && dwarf_formudata(&attr, &w) == 0)
			dims[n] = (int64_t)w;
		else if (ct_dwarf_attr_integrate(&sub, DW_AT_upper_bound, &attr) && dwarf_formudata(&attr, &w) == 0)
			dims[n] = (int64_t)w - lower + 1;
		else
			dims[n] = -1;
		n++;
	} while (n < 8 && dwarf_siblingof(&sub, &sub) == 0);
	return n;
}

static void render_array_dim(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *elem, size_t elem_size,
			     const int64_t *dims, int ndims, const struct ct_object *obj, size_t off, bool cxx,
			     int depth)
{
	int64_t count = dims[0];
	uint64_t stride = elem_size;
	bool wrapped = false;
	// The dump's DWARF chooses the counts: a product past 2^64 would wrap to a small stride that
	// revisits the same bytes without end. Such an array's layout is unknown.
	for (int i = 1; i < ndims && !wrapped; i++)
		wrapped = ct_mul_overflow(stride, dims[i] > 0 ? (uint64_t)dims[i] : 0, &stride);
	// Rust prints arrays in brackets: [1, 2, 3].
	bool rust = ct_die_is_rust(elem);
	if (wrapped)
		s->values->layout_wrapped = true;
	if (count < 0 || stride == 0 || wrapped) {
		add(b, count == 0 ? (rust ? "[]" : "{}") : (rust ? "[...]" : "{...}"));
		return;
	}
	if (ndims == 1 && is_char_type(elem) && elem_size == 1) {
		size_t n = (size_t)count, have = off < obj->size ? obj->size - off : 0;
		bool more = n > have || n > CT_VALUE_MAX_STRING;
		if (n > have)
			n = have;
		if (n > CT_VALUE_MAX_STRING)
			n = CT_VALUE_MAX_STRING;
		if (!ct_render_available(b, obj, off, n))
			return;
		// gdb leaves out the terminating NUL of a char array that ends in one.
		if (!more && n && obj->data[off + n - 1] == 0)
			n--;
		add_chars(b, obj->data + off, n, more);
		return;
	}
	if (depth >= CT_VALUE_MAX_DEPTH) {
		add(b, rust ? "[...]" : "{...}");
		return;
	}
	add(b, rust ? "[" : "{");
	char prev[CT_VALUE_MAX_TEXT], cur[CT_VALUE_MAX_TEXT];
	size_t run = 0, shown = 0;
	prev[0] = 0;
	// Only the elements inside the bytes held can be shown: no offset below passes obj->size, so
	// none wraps.
	uint64_t held = off < obj->size ? (obj->size - off - 1) / stride + 1 : 0;
	// Elements are rendered into a scratch buffer first, to fold equal runs as gdb does. A folded
	// element costs as much as a shown one (ct_render_visit): runs do not escape the caps.
	for (int64_t i = 0; i <= count; i++) {
		bool end = i == count || shown >= CT_VALUE_MAX_ELEMENTS || (uint64_t)i >= held || !ct_render_visit(s);
		if (!end) {
			struct ct_sbuf eb = { .buf = cur, .cap = sizeof(cur) };
			cur[0] = 0;
			if (ndims > 1)
				render_array_dim(s, &eb, elem, elem_size, dims + 1, ndims - 1, obj, off + (size_t)i * stride,
						 cxx, depth + 1);
			else
				ct_render_value(s, &eb, elem, obj, off + (size_t)i * stride, cxx, depth + 1);
			if (run && strcmp(cur, prev) == 0) {
				run++;
				continue;
			}
		}
		if (run) {
			if (shown)
				add(b, ", ");
			if (run > REPEAT_THRESHOLD) {
				add(b, prev);
				ct_sbuf_printf(b, " <repeats %zu times>", run);
				shown++;
			} else {
				for (size_t k = 0; k < run; k++) {
					if (k)
						add(b, ", ");
					add(b, prev);
				}
				shown += run;
			}
		}
		if (end) {
			if (i < count)
				add(b, "...");
			break;
		}
		memcpy(prev, cur, strlen(cur) + 1);
		run = 1;
		if (b->cut)
			return;
	}
	add(b, rust ? "]" : "}");
}

static int unit_language(Dwarf_Die *die)
{
	Dwarf_Die cu;
	return dwarf_diecu(die, &cu, NULL, NULL) ? dwarf_srclang(&cu) : -1;
}

static bool is_cxx(int lang)
{
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 || lang == DW_LANG_C_plus_plus_11 ||
	       lang == DW_LANG_C_plus_plus_14;
}

// What rendering needs of @p type, looked up once per type DIE: deep stacks render the same
// few types again and again, and each attribute lookup walks the DIE's abbreviation.
static const struct ct_type_memo *type_info(const struct ct_values_input *s, Dwarf_Die *type)
{
	struct ct_type_memo *m = &s->values->types[ct_hash_mix((uint64_t)(uintptr_t)type->addr) % CT_VALUES_TYPE_MEMO];
	if (m->type == type->addr)
		return m;
	*m = (struct ct_type_memo){ .type = type->addr };
	m->ok = ct_render_strip(type, &m->stripped);
	if (m->ok) {
		Dwarf_Die full;
		if (dwarf_hasattr(&m->stripped, DW_AT_declaration) && ct_values_complete_type(s->values, &m->stripped, &full))
			m->stripped = full;
		m->tag = dwarf_tag(&m->stripped);
		if (m->tag == DW_TAG_base_type) {
			m->size = ct_render_udata(&m->stripped, DW_AT_byte_size, 0);
			m->encoding = ct_render_udata(&m->stripped, DW_AT_encoding, 0);
		}
		int lang = unit_language(&m->stripped);
		m->rust = lang == DW_LANG_Rust;
		if (is_cxx(lang) && (m->tag == DW_TAG_structure_type || m->tag == DW_TAG_class_type))
			m->cxx_printer = (uint8_t)ct_cxx_printer_of(&m->stripped);
	}
	return m;
}

void ct_render_value(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *type, const struct ct_object *obj,
		     size_t offset, bool cxx, int depth)
{
	const struct ct_type_memo *tm = type ? type_info(s, type) : NULL;
	if (!tm || !tm->ok) {
		add(b, "<void>");
		return;
	}
	Dwarf_Die t = tm->stripped;
	if (tm->rust && (tm->tag != DW_TAG_base_type || tm->size == 0) &&
	    ct_render_rust(s, b, &t, tm->tag, obj, offset, depth))
		return;
	if (tm->cxx_printer && ct_render_cxx(s, b, (enum ct_cxx_printer)tm->cxx_printer, &t, obj, offset, depth))
		return;
	switch (tm->tag) {
	case DW_TAG_base_type:
		render_base(s, b, (size_t)tm->size, tm->encoding, obj, offset);
		return;
	case DW_TAG_enumeration_type:
		render_enum(s, b, &t, obj, offset);
		return;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		render_pointer(s, b, &t, obj, offset, cxx, depth);
		return;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		render_aggregate(s, b, &t, obj, offset, cxx, depth);
		return;
	case DW_TAG_array_type: {
		Dwarf_Die elem;
		int64_t dims[8];
		int nd = ct_dwarf_array_dims(&t, dims);
		Dwarf_Word esize;
		if (!ct_render_type_of(&t, &elem) || nd == 0 || ct_dwarf_aggregate_size(&elem, &esize) != 0) {
			add(b, "{...}");
			return;
		}
		render_array_dim(s, b, &elem, (size_t)esize, dims, nd, obj, offset, cxx, depth);
		return;
	}
	default:
		add(b, "<unknown type>");
		return;
	}
}

// Renders the object of @p type at @p addr in memory (a reference's target).
static void render_at(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *type, uint64_t addr, bool cxx, int depth)
{
	struct ct_object *obj = calloc(1, sizeof(*obj));
	Dwarf_Word size;
	if (!obj) {
		add(b, "<no memory>");
		return;
	}
	if (ct_dwarf_aggregate_size(type, &size) != 0)
		size = 0;
	obj->size = size < REF_TARGET_BYTES ? (size_t)size : REF_TARGET_BYTES;
	obj->address = addr;
	obj->has_address = true;
	for (size_t i = 0; i < obj->size; i++)
		obj->state[i] = ct_frame_read(s, addr + i, &obj->data[i], 1) ? CT_BYTE_OK : CT_BYTE_UNREADABLE;
	ct_render_value(s, b, type, obj, 0, cxx, depth);
	free(obj);
}

/* ---- the pieces render_rust.c shares (thin exports of the helpers above) ---- */

bool ct_render_visit(const struct ct_values_input *s)
{
	struct ct_values *v = s->values;
	if (v->visits >= CT_VALUE_MAX_VISITS) {
		v->visits_capped = true;
		return false;
	}
	if (!ct_budget_take(s->budget, CT_BUDGET_ELEMENTS, 1))
		return false;
	v->visits++;
	return true;
}

bool ct_render_search_step(const struct ct_values_input *s)
{
	return ct_budget_take(s->budget, CT_BUDGET_ELEMENTS, 1);
}

bool ct_render_next_element(struct ct_sbuf *b, size_t *shown)
{
	if (*shown)
		add(b, ", ");
	if (*shown == CT_VALUE_MAX_ELEMENTS) {
		add(b, "...");
		return false;
	}
	(*shown)++;
	return true;
}

bool ct_die_is_rust(Dwarf_Die *die)
{
	return unit_language(die) == DW_LANG_Rust;
}

void ct_render_counted_string(const struct ct_values_input *s, struct ct_sbuf *b, uint64_t addr, uint64_t length)
{
	uint8_t text[CT_VALUE_MAX_STRING];
	size_t n = length < sizeof(text) ? (size_t)length : sizeof(text);
	if (n && !ct_frame_read(s, addr, text, n)) {
		ct_sbuf_printf(b, "<unreadable 0x%" PRIx64 ">", addr);
		return;
	}
	add_chars(b, text, n, length > n);
}

void ct_render_at(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *type, uint64_t addr, int depth)
{
	render_at(s, b, type, addr, false, depth);
}

void ct_render_elements_at(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *elem, uint64_t addr, uint64_t count,
			   uint64_t elem_size, int depth)
{
	size_t shown = 0;
	for (uint64_t i = 0; i < count && !b->cut; i++) {
		if (!ct_render_next_element(b, &shown))
			break;
		if (!ct_render_visit(s)) {
			add(b, "...");
			break;
		}
		if (elem_size == 0 && i == 1) { // zero-sized elements: one stands for all
			add(b, "...");
			break;
		}
		render_at(s, b, elem, addr + i * elem_size, false, depth + 1);
	}
}
