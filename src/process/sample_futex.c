// A sampled futex wait's root frame (sample_futex.h): which glibc object the word belongs to comes
// from glibc's functions on the thread's stack (waitstate.c's recognizer, as for a core), never
// from the bytes or a symbol's size, so a futex of the program's own is never called a mutex; the
// holder comes from the object's fields in the window copied around the word while the thread was
// stopped (glibc_objects.c, the reader locks.c uses on a dump).
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "process/sample_futex.h"
#include "triage/glibc_objects.h"

static bool read_window(const void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct ct_live_futex *f = ctx;
	if (addr < f->copy_start || addr - f->copy_start > f->copied || len > f->copied - (addr - f->copy_start))
		return false;
	memcpy(buf, f->bytes + (addr - f->copy_start), len);
	return true;
}

// The holder of the mutex or rwlock at @p base, from the window.
static void read_holder(const struct ct_glibc_layout *L, const struct ct_glibc_mem *m, enum ct_wait_object kind,
			uint64_t base, struct ct_profile_futex *info)
{
	struct ct_glibc_object o;
	if (kind == CT_WAIT_OBJECT_MUTEX)
		ct_glibc_read_mutex(L, m, base, &o);
	else if (kind == CT_WAIT_OBJECT_RWLOCK && L->rwlock_size)
		ct_glibc_read_rwlock(L, m, base, &o);
	else
		return;
	info->has_owner = o.has_owner;
	info->owner = o.owner;
}

char *ct_sample_futex_root(const struct ct_glibc_layout *L, bool big_endian, unsigned pointer_size,
			   const struct ct_live_futex *f, const char *const *functions, size_t n, const int *tids,
			   size_t num_tids, struct ct_profile_futex *info)
{
	memset(info, 0, sizeof(*info));
	bool wants_write = false;
	enum ct_wait_object kind = ct_waitstate_object_from_functions(functions, n, &wants_write);
	info->address = f->address;
	const struct ct_glibc_mem m = { .read = read_window, .ctx = f, .big_endian = big_endian,
					.pointer_size = pointer_size };
	uint64_t base = f->address;
	if (kind != CT_WAIT_OBJECT_NONE && kind != CT_WAIT_OBJECT_UNKNOWN) {
		info->object = ct_wait_object_to_string(kind);
		if (L && ct_glibc_object_place(L, &m, kind, f->address, wants_write, &base)) {
			info->address = base;
			read_holder(L, &m, kind, base, info);
		}
	}
	info->owner_in_process = info->has_owner && ct_tids_contain(tids, num_tids, info->owner);
	char *s = NULL;
	int r;
	if (!info->object)
		r = asprintf(&s, "futex(0x%" PRIx64 ")", info->address);
	else if (!info->has_owner)
		r = asprintf(&s, "futex(%s 0x%" PRIx64 ")", info->object, info->address);
	else
		r = asprintf(&s, "futex(%s 0x%" PRIx64 " owned by thread %d%s)", info->object, info->address, info->owner,
			     info->owner_in_process ? "" : ", not in the process");
	return r < 0 ? NULL : s;
}
