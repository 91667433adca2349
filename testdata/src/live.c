/* live.c - running programs for the live-process tests (tests/live/check_live.py, docs/live.md).
 *
 *   live spin          main spins in spin_forever (on a CPU, never in a system call)
 *   live sleepers N    N threads sleep in nanosleep inside sleeper_wait; main in pthread_join
 *   live forker        fork_often forks a child every millisecond, and the child exits at once
 *   live epoll         a server: wait_events blocks in epoll_wait on an epoll set holding a pipe
 *                      nobody writes to; main in pthread_join
 *   live work N S      N threads count in busy_work for S seconds, then it prints the total and
 *                      exits (scripts/bench-live: the slowdown coretriage sample causes)
 *
 * Each writes ./ready when its threads are where the test expects them, then runs until killed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long spins;
static volatile int started;

static void ready(void)
{
	FILE *f = fopen("ready", "w");
	if (f)
		fclose(f);
}

__attribute__((noinline)) static void spin_forever(void)
{
	for (;;)
		spins++;
}

__attribute__((noinline)) static void sleeper_wait(void)
{
	for (;;) {
		struct timespec ts = { 3600, 0 };
		nanosleep(&ts, NULL);
	}
}

static void *sleeper(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&started, 1, __ATOMIC_SEQ_CST);
	sleeper_wait();
	return NULL;
}

static volatile int stop_work;

__attribute__((noinline)) static unsigned long busy_work(void)
{
	unsigned long n = 0;
	while (!stop_work)
		n++;
	return n;
}

static void *worker(void *arg)
{
	*(unsigned long *)arg = busy_work();
	return NULL;
}

static int epoll_fd;

__attribute__((noinline)) static void wait_events(void)
{
	struct epoll_event ev[4];
	for (;;)
		epoll_wait(epoll_fd, ev, 4, -1);
}

static void *event_loop(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&started, 1, __ATOMIC_SEQ_CST);
	wait_events();
	return NULL;
}

__attribute__((noinline)) static void fork_often(void)
{
	for (;;) {
		pid_t child = fork();
		if (child == 0)
			_exit(0);
		if (child > 0)
			waitpid(child, NULL, 0);
		usleep(1000);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "spin")) {
		ready();
		spin_forever();
	} else if (!strcmp(mode, "sleepers") && argc > 2) {
		int n = atoi(argv[2]);
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		// Small stacks: a thousand threads stay a few MiB.
		pthread_attr_setstacksize(&attr, 64 * 1024);
		pthread_t *t = calloc((size_t)n, sizeof(*t));
		for (int i = 0; i < n; i++)
			if (pthread_create(&t[i], &attr, sleeper, NULL) != 0)
				return 1;
		while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < n)
			usleep(1000);
		usleep(100000); // the last ones reach nanosleep
		ready();
		pthread_join(t[0], NULL);
	} else if (!strcmp(mode, "work") && argc > 3) {
		int n = atoi(argv[2]);
		unsigned long *counts = calloc((size_t)n, sizeof(*counts));
		pthread_t *t = calloc((size_t)n, sizeof(*t));
		for (int i = 0; i < n; i++)
			pthread_create(&t[i], NULL, worker, &counts[i]);
		ready();
		usleep((useconds_t)(atof(argv[3]) * 1e6));
		stop_work = 1;
		unsigned long total = 0;
		for (int i = 0; i < n; i++) {
			pthread_join(t[i], NULL);
			total += counts[i];
		}
		printf("%lu\n", total);
	} else if (!strcmp(mode, "epoll")) {
		int p[2];
		epoll_fd = epoll_create1(0);
		struct epoll_event ev = { .events = EPOLLIN };
		if (epoll_fd < 0 || pipe(p) != 0 || epoll_ctl(epoll_fd, EPOLL_CTL_ADD, p[0], &ev) != 0)
			return 1;
		pthread_t t;
		pthread_create(&t, NULL, event_loop, NULL);
		while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < 1)
			usleep(1000);
		usleep(100000); // it reaches epoll_wait
		ready();
		pthread_join(t, NULL);
	} else if (!strcmp(mode, "forker")) {
		ready();
		fork_often();
	} else {
		fprintf(stderr, "usage: live spin|sleepers N|forker|epoll|work N SECONDS\n");
		return 2;
	}
	return 0;
}
