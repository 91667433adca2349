// The one table of glibc object layouts we read (docs/hangs.md): pthread_mutex_t (__lock, __count,
// __owner, __kind), pthread_cond_t (__g_signals), pthread_rwlock_t (__readers, __wrphase_futex,
// __writers_futex, __cur_writer) and sem_t (value), by architecture and the glibc version a layout
// starts with. Sources: sysdeps/nptl/bits/struct_mutex.h, sysdeps/x86/nptl/bits/struct_mutex.h,
// struct_rwlock.h (generic and x86), sysdeps/nptl/bits/thread-shared-types.h (the condition
// variable of 2.25+), nptl/semaphoreP.h / sysdeps/nptl/internaltypes.h (struct new_sem).
//
// The mutex fields have kept their places since glibc 2.0 (only __nusers and __kind swap between
// 32- and 64-bit); the condition variable and the rwlock were rewritten in glibc 2.25, and before
// that their fields are not read (a wait is then reported without an owner).
#include <string.h>

#include "triage/hang.h"

static const struct ct_glibc_layout layouts[] = {
	// arch      since     mutex: size lock count owner kind  cond: size signals
	//   rwlock: size readers wrphase writers_futex cur_writer  sem: size value
	{ "x86_64", 2, 0, 40, 0, 4, 8, 16, 0, 0, 0, 0, 0, 0, 0, 32, 0 },
	{ "x86_64", 2, 25, 40, 0, 4, 8, 16, 48, 40, 56, 0, 8, 12, 24, 32, 0 },
	{ "aarch64", 2, 0, 48, 0, 4, 8, 16, 0, 0, 0, 0, 0, 0, 0, 32, 0 },
	{ "aarch64", 2, 25, 48, 0, 4, 8, 16, 48, 40, 56, 0, 8, 12, 24, 32, 0 },
	{ "riscv64", 2, 0, 40, 0, 4, 8, 16, 0, 0, 0, 0, 0, 0, 0, 32, 0 },
	{ "riscv64", 2, 25, 40, 0, 4, 8, 16, 48, 40, 56, 0, 8, 12, 24, 32, 0 },
	// i386: __kind before __nusers; the rwlock's __cur_writer after the one-byte flags.
	{ "i386", 2, 0, 24, 0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 16, 0 },
	{ "i386", 2, 25, 24, 0, 4, 8, 12, 48, 40, 32, 0, 8, 12, 28, 16, 0 },
};

const struct ct_glibc_layout *ct_glibc_layout_find(const char *arch, unsigned major, unsigned minor)
{
	const struct ct_glibc_layout *best = NULL;
	if (!arch)
		return NULL;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		const struct ct_glibc_layout *l = &layouts[i];
		if (strcmp(l->arch, arch) != 0)
			continue;
		// Unknown version (0.0): only the oldest row, whose fields hold for every version.
		bool applies = major > l->since_major || (major == l->since_major && minor >= l->since_minor);
		if (!best || applies)
			best = applies || !best ? l : best;
		if (!applies)
			break;
	}
	return best;
}
