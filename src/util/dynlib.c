// Optional libraries opened on first use (dynlib.h).
#include <dlfcn.h>
#include <stddef.h>

#include "util/dynlib.h"

static void *load(struct ct_dynlib *lib)
{
	void *h = __atomic_load_n(&lib->handle, __ATOMIC_ACQUIRE);
	if (h || __atomic_load_n(&lib->failed, __ATOMIC_RELAXED))
		return h;
	// RTLD_LOCAL: its symbols must not answer for the glue's own definitions of the same names.
	h = dlopen(lib->soname, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		__atomic_store_n(&lib->failed, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	void *expected = NULL;
	// Two threads may both open it: dlopen counts references, the loser's is dropped.
	if (!__atomic_compare_exchange_n(&lib->handle, &expected, h, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		dlclose(h);
		h = expected;
	}
	return h;
}

void *ct_dynlib_sym(struct ct_dynlib *lib, const char *name, void **slot)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (p)
		return p;
	void *h = load(lib);
	p = h ? dlsym(h, name) : NULL;
	if (p)
		__atomic_store_n(slot, p, __ATOMIC_RELEASE);
	return p;
}

struct ct_error *ct_dynlib_require(struct ct_dynlib *lib)
{
	if (load(lib))
		return NULL;
	// dlerror() is only set by the dlopen that failed; a later check opens again for the reason.
	void *h = dlopen(lib->soname, RTLD_LAZY | RTLD_LOCAL);
	const char *why = h ? NULL : dlerror();
	if (h) {
		dlclose(h);
		return NULL;
	}
	return ct_error_create(CT_ERROR_UNSUPPORTED, "%s %s, which cannot be loaded: %s", lib->what, lib->soname,
			       why ? why : "not found");
}
