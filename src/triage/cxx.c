// The type of an uncaught C++ exception, from the crashing thread's stack. libstdc++ (libsupc++
// unwind-cxx.h, GCC 12) lays a __cxa_exception header before the thrown object; its last member
// is the _Unwind_Exception whose exception_class is "GNUCC++\0" (primary) or "GNUCC++\x01"
// (dependent), and exceptionType is the header's first member, 10 pointer-sized words earlier on
// LP64. The throw path (__cxa_throw → std::terminate) keeps pointers to the object on the stack.
#include <elfutils/libdwfl.h>
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
	// "GNUCC++" read as a little-endian word, last byte 0 or 1.
	return (v & 0x00ffffffffffffffULL) == 0x002b2b4343554e47ULL && (v >> 56) <= 1;
}

/** Demangled "X" when @p p is exactly the address of "typeinfo for X" in some module. */
static const char *typeinfo_at(struct ct_session *s, uint64_t p)
{
	if (p < 0x10000)
		return NULL;
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, p);
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
	const char *d = ct_demangle(s, buf);
	if (d && strncmp(d, "typeinfo for ", 13) == 0)
		return ct_report_strdup(s->report, d + 13);
	return d;
}

static const char *from_header(struct ct_session *s, uint64_t hdr)
{
	uint64_t cls, type;
	if (!ct_core_read_word(s->core, hdr, &cls) || !is_cxx_class(cls))
		return NULL;
	if (!ct_core_read_word(s->core, hdr - TYPE_BEFORE_HEADER, &type))
		return NULL;
	return typeinfo_at(s, type);
}

const char *ct_find_exception_type(struct ct_session *s, uint64_t sp, uint64_t stack_end)
{
	if (!s->core->arch || s->core->arch->pointer_size != 8 || !s->dwfl)
		return NULL;
	uint64_t end = stack_end - sp > SCAN_BYTES ? sp + SCAN_BYTES : stack_end;
	// Pass 1: a pointer to the header or to the thrown object just after it.
	for (uint64_t a = sp; a + 8 <= end; a += 8) {
		uint64_t w;
		if (!ct_core_read_word(s->core, a, &w) || w < 0x10000 + TYPE_BEFORE_HEADER)
			continue;
		const char *t = from_header(s, w);
		if (!t)
			t = from_header(s, w - UNWIND_EXCEPTION_SIZE);
		if (t)
			return t;
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
