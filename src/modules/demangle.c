// libiberty's demangler into bounded buffers (its callback interface allocates nothing for output).
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

#include "modules/demangle.h"

struct out {
	char buf[CT_DEMANGLE_MAX_OUTPUT];
	size_t len;
	bool cut;
};

static void append(const char *s, size_t n, void *opaque)
{
	struct out *o = opaque;
	size_t room = sizeof(o->buf) - 4 - o->len; // room for "..." and the terminator
	if (n > room) {
		n = room;
		o->cut = true;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

// Demangles @p name (NUL-terminated, bounded by the caller) into @p o; false when it is not mangled.
static bool demangle(const char *name, bool params, struct out *o)
{
	int opts = DMGL_ANSI | (params ? DMGL_PARAMS : 0);
	o->len = 0;
	o->cut = false;
	bool ok = false;
	if (name[0] == '_' && (name[1] == 'R' || name[1] == 'Z')) {
		// Rust's legacy mangling is Itanium-shaped ("_ZN...17h<hash>E"): ask the Rust demangler first.
		ok = rust_demangle_callback(name, opts, append, o) != 0;
		if (!ok && name[1] == 'Z') {
			o->len = 0;
			ok = cplus_demangle_v3_callback(name, opts, append, o) != 0;
		}
	} else if (name[0] == '_' && name[1] == 'D' && name[2] >= '0' && name[2] <= '9') {
		char *d = dlang_demangle(name, opts);
		if (d) {
			append(d, strlen(d), o);
			free(d);
			ok = true;
		}
	}
	if (!ok || o->len == 0)
		return false;
	if (o->cut) {
		memcpy(o->buf + o->len, "...", 3);
		o->len += 3;
	}
	o->buf[o->len] = '\0';
	return true;
}

// @p name without its ELF symbol version, into @p buf; NULL when too long to demangle.
static const char *unversioned(const char *name, char *buf, size_t size)
{
	size_t len = strcspn(name, "@");
	if (len == 0 || len >= size)
		return NULL;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return buf;
}

const char *ct_demangle_symbol(struct ct_strpool *strings, const char *name)
{
	if (!name)
		return NULL;
	_Static_assert(CT_DEMANGLE_MAX_INPUT < 65536, "the unversioned copy lives on the stack");
	char plain[CT_DEMANGLE_MAX_INPUT];
	const char *p = unversioned(name, plain, sizeof(plain));
	struct out *o = p && p[0] == '_' ? malloc(sizeof(*o)) : NULL;
	if (o && demangle(p, true, o)) {
		const char *r = ct_strpool_intern_len(strings, o->buf, o->len);
		free(o);
		return r;
	}
	free(o);
	size_t at = strcspn(name, "@");
	if (at && name[at])
		return ct_strpool_intern_len(strings, name, at);
	return ct_strpool_intern(strings, name);
}

const char *ct_demangle_function(struct ct_strpool *strings, const char *linkage)
{
	if (!linkage || linkage[0] != '_' || strnlen(linkage, CT_DEMANGLE_MAX_INPUT) >= CT_DEMANGLE_MAX_INPUT)
		return NULL;
	struct out *o = malloc(sizeof(*o));
	const char *r = NULL;
	if (o && demangle(linkage, false, o))
		r = ct_strpool_intern_len(strings, o->buf, o->len);
	free(o);
	return r;
}
