/* live_futex.c - threads blocked on futexes, for `coretriage sample`'s futex owners
 * (tests/live/check_live.py case sample-futex, docs/live.md "Futex waits and lock holders").
 *
 *   holder        locks `held` and sleeps holding it; waiter-b and waiter-c block in
 *                 pthread_mutex_lock(&held) (wait_mutex)
 *   writer        write-locks `rw` and sleeps holding it; rw-waiter blocks in
 *                 pthread_rwlock_wrlock(&rw) (wait_rwlock)
 *   cond-waiter   waits on `cond` nobody signals (wait_condition)
 *   timed-waiter  waits on `timed_cond` with a deadline an hour ahead (wait_timed): the kernel
 *                 resumes the interrupted wait through restart_syscall
 *   raw-waiter    futex(FUTEX_WAIT) on a plain int of its own, no glibc object (wait_raw)
 *   quitter       locks `orphan` and exits holding it; orphan-waiter blocks on it (wait_orphan):
 *                 the owner glibc recorded is no thread of the process any more
 *
 * It writes ./objects ("name tid" per thread, "name address" per object), then ./ready once every
 * waiter is asleep in the kernel, and runs until killed.
 *
 *   live_futex contend N   main holds `held` and N threads (64 KiB stacks) block on it: the stop
 *                          per tick with N futex windows (docs/performance.md)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t orphan = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t cond_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t timed_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t timed_cond = PTHREAD_COND_INITIALIZER;
static int raw_word;

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *objects;
static volatile int taken;

static void name_self(const char *name)
{
	pthread_setname_np(pthread_self(), name);
	pthread_mutex_lock(&report_lock);
	fprintf(objects, "%s %ld\n", name, (long)syscall(SYS_gettid));
	pthread_mutex_unlock(&report_lock);
}

static void sleep_forever(void)
{
	for (;;)
		sleep(60);
}

// holder takes `held`, writer write-locks `rw`; each sleeps holding it.
static void *holder(void *arg)
{
	const char *name = arg;
	name_self(name);
	if (!strcmp(name, "holder"))
		pthread_mutex_lock(&held);
	else
		pthread_rwlock_wrlock(&rw);
	__atomic_add_fetch(&taken, 1, __ATOMIC_SEQ_CST);
	sleep_forever();
	return NULL;
}

static void *quitter(void *arg)
{
	(void)arg;
	name_self("quitter");
	pthread_mutex_lock(&orphan);
	return NULL; // exits holding it
}

__attribute__((noinline)) static void wait_mutex(void)
{
	pthread_mutex_lock(&held);
}

__attribute__((noinline)) static void wait_rwlock(void)
{
	pthread_rwlock_wrlock(&rw);
}

__attribute__((noinline)) static void wait_condition(void)
{
	pthread_mutex_lock(&cond_mutex);
	for (;;)
		pthread_cond_wait(&cond, &cond_mutex);
}

__attribute__((noinline)) static void wait_timed(void)
{
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 3600;
	pthread_mutex_lock(&timed_mutex);
	for (;;)
		pthread_cond_timedwait(&timed_cond, &timed_mutex, &deadline);
}

__attribute__((noinline)) static void wait_raw(void)
{
	for (;;)
		syscall(SYS_futex, &raw_word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

__attribute__((noinline)) static void wait_orphan(void)
{
	pthread_mutex_lock(&orphan);
}

static void *waiter(void *arg)
{
	const char *name = arg;
	name_self(name);
	if (!strcmp(name, "waiter-b") || !strcmp(name, "waiter-c"))
		wait_mutex();
	else if (!strcmp(name, "rw-waiter"))
		wait_rwlock();
	else if (!strcmp(name, "cond-waiter"))
		wait_condition();
	else if (!strcmp(name, "timed-waiter"))
		wait_timed();
	else if (!strcmp(name, "raw-waiter"))
		wait_raw();
	else
		wait_orphan();
	sleep_forever();
	return NULL;
}

// Threads asleep in futex: the first field of /proc/self/task/*/syscall is the call's number.
static int sleepers(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));) {
		char path[300], line[256];
		snprintf(path, sizeof(path), "/proc/self/task/%s/syscall", e->d_name);
		FILE *f = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
		if (f && fgets(line, sizeof(line), f))
			n += atoi(line) == SYS_futex;
		if (f)
			fclose(f);
	}
	closedir(d);
	return n;
}

static void *contender(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&held);
	return NULL;
}

static int contend(int n)
{
	pthread_mutex_lock(&held);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 65536);
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, &attr, contender, NULL) != 0)
			return 1;
	}
	while (sleepers() < n)
		usleep(10000);
	fclose(fopen("ready", "w"));
	sleep_forever();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "contend"))
		return contend(atoi(argv[2]));
	objects = fopen("objects", "w");
	if (!objects)
		return 1;
	setvbuf(objects, NULL, _IOLBF, 0);
	fprintf(objects, "held %p\nrw %p\ncond %p\ntimed_cond %p\nraw %p\norphan %p\n", (void *)&held, (void *)&rw,
		(void *)&cond, (void *)&timed_cond, (void *)&raw_word, (void *)&orphan);
	pthread_t t;
	pthread_create(&t, NULL, holder, "holder");
	pthread_create(&t, NULL, holder, "writer");
	pthread_create(&t, NULL, quitter, NULL);
	pthread_join(t, NULL);
	while (__atomic_load_n(&taken, __ATOMIC_SEQ_CST) < 2)
		usleep(1000);
	static char *const names[] = { "waiter-b",   "waiter-c",   "rw-waiter",    "cond-waiter",
					 "timed-waiter", "raw-waiter", "orphan-waiter" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		pthread_create(&t, NULL, waiter, names[i]);
	for (int i = 0; i < 5000 && sleepers() < 7; i++)
		usleep(1000);
	fclose(fopen("ready", "w"));
	sleep_forever();
}
