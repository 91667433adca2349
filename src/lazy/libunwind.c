// libunwind on first use (lazy.h): only --unwinder=libunwind (a cross-check) walks with it, and
// linked in it maps libunwind-x86_64 and libunwind into every run (Debian's static archives are not
// position-independent). Each function forwards to libunwind-x86_64's (the header's unw_* macros name
// its _Ux86_64_* symbols); when it is missing they fail as libunwind does (NULL, -UNW_EUNSPEC).
#include <libunwind.h>

#include "lazy/lazy.h"
#include "util/dynlib.h"

// Declared in no public header (see unwind_libunwind.c, which calls it).
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip, unw_dyn_info_t *di,
					       unw_proc_info_t *pi, int need_unwind_info, void *arg);

static struct ct_dynlib lib = { .soname = CT_SONAME_LIBUNWIND, .what = "--unwinder=libunwind needs" };

struct ct_error *ct_lazy_libunwind_require(void)
{
	return ct_dynlib_require(&lib);
}

unw_addr_space_t unw_create_addr_space(unw_accessors_t *a, int byte_order)
{
	CT_DYNLIB_RESOLVE(lib, unw_create_addr_space, fn, NULL);
	return fn(a, byte_order);
}

void unw_destroy_addr_space(unw_addr_space_t as)
{
	CT_DYNLIB_RESOLVE(lib, unw_destroy_addr_space, fn, );
	fn(as);
}

int unw_set_caching_policy(unw_addr_space_t as, unw_caching_policy_t policy)
{
	CT_DYNLIB_RESOLVE(lib, unw_set_caching_policy, fn, -UNW_EUNSPEC);
	return fn(as, policy);
}

int unw_init_remote(unw_cursor_t *c, unw_addr_space_t as, void *arg)
{
	CT_DYNLIB_RESOLVE(lib, unw_init_remote, fn, -UNW_EUNSPEC);
	return fn(c, as, arg);
}

int unw_step(unw_cursor_t *c)
{
	CT_DYNLIB_RESOLVE(lib, unw_step, fn, -UNW_EUNSPEC);
	return fn(c);
}

int unw_get_reg(unw_cursor_t *c, int reg, unw_word_t *val)
{
	CT_DYNLIB_RESOLVE(lib, unw_get_reg, fn, -UNW_EUNSPEC);
	return fn(c, reg, val);
}

int unw_get_proc_info(unw_cursor_t *c, unw_proc_info_t *pi)
{
	CT_DYNLIB_RESOLVE(lib, unw_get_proc_info, fn, -UNW_EUNSPEC);
	return fn(c, pi);
}

int unw_is_signal_frame(unw_cursor_t *c)
{
	CT_DYNLIB_RESOLVE(lib, unw_is_signal_frame, fn, -UNW_EUNSPEC);
	return fn(c);
}

int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip, unw_dyn_info_t *di, unw_proc_info_t *pi,
				       int need_unwind_info, void *arg)
{
	CT_DYNLIB_RESOLVE(lib, UNW_OBJ(dwarf_search_unwind_table), fn, -UNW_EUNSPEC);
	return fn(as, ip, di, pi, need_unwind_info, arg);
}
