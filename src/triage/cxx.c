// The type of an uncaught C++ exception, from the crashing thread's stack. libstdc++ (libsupc++
// unwind-cxx.h, GCC 12) lays a __cxa_exception header before the thrown object; its last member
// is the _Unwind_Exception whose exception_class is "GNUCC++\0" (primary) or "GNUCC++\x01"
// (dependent), and exceptionType is the header's first member, 10 pointer-sized words earlier on
// LP64. The throw path (__cxa_throw → std::terminate) keeps pointers to the object on the stack.
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "modules/symbolize.h"
#include "triage/gather.h"

/** Stack bytes scanned above sp: the throw path's frames are a few hundred bytes. */
#define SCAN_BYTES 8192
/** sizeof(_Unwind_Exception) on LP64 (exception_class, cleanup, private_1, private_2). */
#define UNWIND_EXCEPTION_SIZE 32
/** Offset of exceptionType before unwindHeader on LP64 (ten words). */
#define TYPE_BEFORE_HEADER 80

static bool is_cxx_class(uint64_t v)
{
	// libsupc++ builds the class as the number 'G','N','U','C','C','+','+', then 0 (primary) or 1
	// (dependent) in the low byte: __GXX_INIT_PRIMARY_EXCEPTION_CLASS, unwind-cxx.h.
	return (v >> 8) == 0x474e5543432b2bULL && (v & 0xff) <= 1;
}

/** Demangled "X" when @p p is exactly the address of "typeinfo for X" in some module. */
static const char *typeinfo_at(const struct ct_triage_input *s, uint64_t p)
{
	if (p < 0x10000)
		return NULL;
	Dwfl_Module *mod = dwfl_addrmodule(s->mods->dwfl, p);
	if (!mod)
		return NULL;
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, p, &off, &sym, NULL, NULL, NULL);
	if (!name || off != 0 || strncmp(name, "_ZTI", 4) != 0)
		return NULL;
	// Versioned dynamic symbols ("_ZTISt13runtime_error@@GLIBCXX_3.4") do not demangle as they are.
	char buf[512];
	size_t len = strcspn(name, "@");
	if (len >= sizeof(buf))
		return NULL;
	memcpy(buf, name, len);
	buf[len] = '\0';
	const char *d = ct_demangle(s->mods, buf);
	if (d && strncmp(d, "typeinfo for ", 13) == 0)
		return ct_strpool_intern(s->out.strings, d + 13);
	return d;
}

static const char *from_header(const struct ct_triage_input *s, uint64_t hdr, uint64_t *type_ret)
{
	uint64_t cls, type;
	if (!ct_core_read_word(s->core, hdr, &cls) || !is_cxx_class(cls))
		return NULL;
	if (!ct_core_read_word(s->core, hdr - TYPE_BEFORE_HEADER, &type))
		return NULL;
	*type_ret = type;
	return typeinfo_at(s, type);
}

/** The raw symbol at exactly @p p ("_ZTISt13runtime_error"), without a version suffix; NULL otherwise. */
static const char *symbol_at(const struct ct_triage_input *s, uint64_t p, char *buf, size_t size)
{
	Dwfl_Module *mod = p >= 0x10000 ? dwfl_addrmodule(s->mods->dwfl, p) : NULL;
	GElf_Off off;
	GElf_Sym sym;
	const char *name = mod ? dwfl_module_addrinfo(mod, p, &off, &sym, NULL, NULL, NULL) : NULL;
	size_t len = name ? strcspn(name, "@") : 0;
	if (!name || off != 0 || len >= size)
		return NULL;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return buf;
}

/** Class depth walked up a single-inheritance typeinfo chain. */
#define MAX_BASES 8

/**
 * True when typeinfo @p ti is std::logic_error, std::runtime_error or a class derived from one by
 * single inheritance (__si_class_type_info: vptr, name, __base_type).
 */
static bool is_std_error(const struct ct_triage_input *s, uint64_t ti)
{
	char buf[256];
	for (int depth = 0; depth < MAX_BASES && ti; depth++) {
		const char *name = symbol_at(s, ti, buf, sizeof(buf));
		if (name && (strcmp(name, "_ZTISt11logic_error") == 0 || strcmp(name, "_ZTISt13runtime_error") == 0))
			return true;
		uint64_t vptr;
		// The vptr points 16 bytes into the vtable of the typeinfo's own class.
		if (!ct_core_read_word(s->core, ti, &vptr) && !ct_modules_read_code(s->mods, ti, &vptr, sizeof(vptr)))
			return false;
		const char *vt = symbol_at(s, vptr - 16, buf, sizeof(buf));
		if (!vt || strcmp(vt, "_ZTVN10__cxxabiv120__si_class_type_infoE") != 0)
			return false;
		if (!ct_core_read_word(s->core, ti + 16, &ti) && !ct_modules_read_code(s->mods, ti + 16, &ti, sizeof(ti)))
			return false;
	}
	return false;
}

/**
 * what() of a std::logic_error / std::runtime_error object at @p obj: libstdc++ (GCC 12,
 * stdexcept) keeps the message in a __cow_string right after the vptr, a pointer to the characters.
 */
static const char *what_of(const struct ct_triage_input *s, uint64_t obj, uint64_t type)
{
	uint64_t p;
	if (!is_std_error(s, type) || !ct_core_read_word(s->core, obj + 8, &p))
		return NULL;
	char *text = NULL;
	struct ct_error *err = ct_core_read_string(s->core, p, 512, &text);
	if (err) {
		ct_error_destroy(err);
		return NULL;
	}
	const char *pooled = text && *text ? ct_strpool_intern(s->out.strings, text) : NULL;
	free(text);
	return pooled;
}

const char *ct_find_exception_type(const struct ct_triage_input *s, uint64_t sp, uint64_t stack_end, const char **what_ret)
{
	if (!s->core->arch || s->core->arch->pointer_size != 8 || !s->mods->dwfl)
		return NULL;
	uint64_t end = stack_end - sp > SCAN_BYTES ? sp + SCAN_BYTES : stack_end;
	// Pass 1: a pointer to the header or to the thrown object just after it.
	for (uint64_t a = sp; a + 8 <= end; a += 8) {
		uint64_t w;
		if (!ct_core_read_word(s->core, a, &w) || w < 0x10000 + TYPE_BEFORE_HEADER)
			continue;
		// The thrown object follows the header's _Unwind_Exception.
		uint64_t type = 0, hdr = w;
		const char *t = from_header(s, hdr, &type);
		if (!t)
			t = from_header(s, hdr = w - UNWIND_EXCEPTION_SIZE, &type);
		if (t) {
			*what_ret = what_of(s, hdr + UNWIND_EXCEPTION_SIZE, type);
			return t;
		}
	}
	// Pass 2: a typeinfo pointer on the stack itself (the tinfo argument of __cxa_throw spilled).
	for (uint64_t a = sp; a + 8 <= end; a += 8) {
		uint64_t w;
		if (!ct_core_read_word(s->core, a, &w))
			continue;
		const char *t = typeinfo_at(s, w);
		if (t)
			return t;
	}
	return NULL;
}
