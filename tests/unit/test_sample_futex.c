// A sampled futex wait's root frame (src/process/sample_futex.c) over hand-built windows of bytes
// as the live capture copies them: the object comes from the functions, never from the bytes (the
// same bytes under a raw futex's stack are not a mutex); the holder from the object's fields, and
// "not in the process" when the tick has no such thread.
#include <stdlib.h>
#include <string.h>

#include "process/sample_futex.h"
#include "test.h"

static void put32(struct ct_live_futex *f, uint64_t addr, uint32_t v)
{
	memcpy(f->bytes + (addr - f->copy_start), &v, 4); // the host's order: the test runs little-endian
}

// A window of 128 zero bytes around @p addr, as capture.c copies it.
static struct ct_live_futex window(uint64_t addr)
{
	struct ct_live_futex f = { .present = true, .address = addr, .copy_start = addr - 64, .copied = 128 };
	return f;
}

static char *root(const struct ct_live_futex *f, const char *const *fns, size_t n, const int *tids, size_t num_tids,
		  struct ct_profile_futex *info)
{
	const struct ct_glibc_layout *L = ct_glibc_layout_find("x86_64", 2, 36);
	return ct_sample_futex_root(L, false, 8, f, fns, n, tids, num_tids, info);
}

static const char *const mutex_stack[] = { "futex_wait", "__GI___lll_lock_wait", "lll_mutex_lock_optimized",
					    "___pthread_mutex_lock", "wait_mutex" };

TEST(mutex_owner)
{
	struct ct_live_futex f = window(0x5000);
	put32(&f, 0x5000, 2); // __lock: locked, waiters
	put32(&f, 0x5008, 1234); // __owner
	const int tids[] = { 1234, 1240 };
	struct ct_profile_futex info;
	char *s = root(&f, mutex_stack, 5, tids, 2, &info);
	CHECK(s && !strcmp(s, "futex(mutex 0x5000 owned by thread 1234)"));
	CHECK(info.object && !strcmp(info.object, "mutex") && info.has_owner && info.owner == 1234 && info.owner_in_process);
	free(s);
	s = root(&f, mutex_stack, 5, tids + 1, 1, &info);
	CHECK(s && !strcmp(s, "futex(mutex 0x5000 owned by thread 1234, not in the process)"));
	CHECK(!info.owner_in_process);
	free(s);
}

TEST(raw_futex_is_no_mutex)
{
	// The bytes of a locked mutex, but no glibc function on the stack: a futex of the program's own.
	struct ct_live_futex f = window(0x5000);
	put32(&f, 0x5000, 2);
	put32(&f, 0x5008, 1234);
	const char *const fns[] = { "syscall", "wait_raw", "start_thread" };
	const int tids[] = { 1234 };
	struct ct_profile_futex info;
	char *s = root(&f, fns, 3, tids, 1, &info);
	CHECK(s && !strcmp(s, "futex(0x5000)"));
	CHECK(!info.object && !info.has_owner);
	free(s);
}

TEST(rwlock_writer)
{
	// A writer sleeps on __writers_futex (offset 12): the lock starts 12 bytes before.
	struct ct_live_futex f = window(0x600c);
	put32(&f, 0x6000, 2); // __readers: PTHREAD_RWLOCK_WRLOCKED
	put32(&f, 0x6018, 77); // __cur_writer
	const char *const fns[] = { "__futex_abstimed_wait_common", "__pthread_rwlock_wrlock_full64",
				    "___pthread_rwlock_wrlock" };
	const int tids[] = { 77 };
	struct ct_profile_futex info;
	char *s = root(&f, fns, 3, tids, 1, &info);
	CHECK(s && !strcmp(s, "futex(rwlock 0x6000 owned by thread 77)"));
	free(s);
}

TEST(condition_and_unread_fields)
{
	// A condition variable's waiter on __g_signals[0] (offset 40): no owner.
	struct ct_live_futex f = window(0x7028);
	const char *const fns[] = { "__futex_abstimed_wait_common64", "__pthread_cond_wait_common", "___pthread_cond_wait" };
	struct ct_profile_futex info;
	char *s = root(&f, fns, 3, NULL, 0, &info);
	CHECK(s && !strcmp(s, "futex(condition 0x7000)"));
	free(s);
	// A mutex whose __owner lies past the copied bytes (the word at the end of its mapping): no owner.
	struct ct_live_futex m = window(0x5000);
	m.copied = 68;
	put32(&m, 0x5000, 2);
	s = root(&m, mutex_stack, 5, NULL, 0, &info);
	CHECK(s && !strcmp(s, "futex(mutex 0x5000)") && !info.has_owner);
	free(s);
}

TEST_MAIN()
