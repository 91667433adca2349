/* scale.c - large but deterministic crashes for benchmarks (make-cores --scale).
 *
 *   threads N   N workers (64 KiB stacks) blocked in pthread_cond_wait; once
 *               all are waiting, main reads through a NULL pointer in
 *               flush_all (SEGV_MAPERR at 0x8).  N = 512 gives 513 threads.
 *   recurse N   descend_small() recurses N times (small -O0 frames), then
 *               reads through NULL at the bottom (SEGV_MAPERR at 0x8).
 *               N = 100000 needs a stack of more than 8 MiB (run with
 *               ulimit -s 65536).
 *   overflow    grow() recurses without end; each -O0 frame is 32 bytes
 *               (return address, saved rbp, 16 bytes of locals), so an
 *               8 MiB stack holds ~262,000 frames before the guard gap.
 *   heap MiB    allocates MiB mebibytes, memsets them (so every page is
 *               in the core), then reads through NULL in flush_all.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crashme.h"

struct batch {
	struct batch *next;
	long count;
};

static struct batch *volatile pending; /* NULL */

NOINLINE long flush_all(const struct batch *b)
{
	return b->count;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t ready_cv = PTHREAD_COND_INITIALIZER;
static int ready, go;

static void *parked_worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	ready++;
	pthread_cond_signal(&ready_cv);
	while (!go)
		pthread_cond_wait(&work_cv, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

NOINLINE long descend_small(const struct batch *b, long depth)
{
	if (depth == 0)
		return b->count;
	return descend_small(b, depth - 1) + 1;
}

NOINLINE long grow(long depth)
{
	return grow(depth + 1) + 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 0;
	long r = 0;

	if (strcmp(mode, "threads") == 0) {
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		for (long i = 0; i < n; i++) {
			pthread_t t;
			if (pthread_create(&t, &attr, parked_worker, NULL) != 0) {
				perror("pthread_create");
				return 1;
			}
		}
		pthread_mutex_lock(&lock);
		while (ready < n)
			pthread_cond_wait(&ready_cv, &lock);
		pthread_mutex_unlock(&lock);
		r = flush_all(pending);
	} else if (strcmp(mode, "recurse") == 0) {
		r = descend_small(pending, n);
	} else if (strcmp(mode, "overflow") == 0) {
		r = grow(0);
	} else if (strcmp(mode, "heap") == 0) {
		size_t len = (size_t)n << 20;
		char *heap = malloc(len);
		if (!heap) {
			perror("malloc");
			return 1;
		}
		memset(heap, 0x5a, len);
		r = heap[len - 1] + flush_all(pending);
	} else {
		fprintf(stderr, "usage: scale threads N | recurse N | overflow | heap MiB\n");
		return 2;
	}
	printf("no crash (%ld)\n", r);
	return 0;
}
