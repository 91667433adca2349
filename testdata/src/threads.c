/* threads.c - a crash in a non-main thread while other threads are parked.
 *
 * main starts NWAIT workers that block in pthread_cond_wait, one thread
 * that sleeps in nanosleep, and one job runner.  The runner waits until
 * every worker has gone to sleep on the condition variable (they can only
 * release the mutex by entering pthread_cond_wait, so once it holds the
 * mutex and sees ready == NWAIT they are all inside the wait), then takes a
 * job from an empty queue and reads through the NULL job: SIGSEGV
 * SEGV_MAPERR at 0x8 in process_job, in a thread other than main.
 * main itself is blocked in pthread_join.  Threads get 256 KiB stacks
 * so that a gdb-written core (which saves whole stacks) stays small.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "crashme.h"

#define NWAIT 4

struct job {
	struct job *next;
	long payload;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t ready_cv = PTHREAD_COND_INITIALIZER;
static int ready;
static struct job *queue; /* empty */

static void *idle_worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	ready++;
	pthread_cond_signal(&ready_cv);
	while (!queue)
		pthread_cond_wait(&work_cv, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *housekeeper(void *arg)
{
	(void)arg;
	for (;;)
		sleep(60);
	return NULL;
}

NOINLINE long process_job(const struct job *j)
{
	return j->payload * 2;
}

static void *job_runner(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (ready < NWAIT)
		pthread_cond_wait(&ready_cv, &lock);
	struct job *j = queue; /* the queue is empty: j == NULL */
	pthread_mutex_unlock(&lock);
	usleep(20000); /* let the housekeeper reach its sleep */
	long r = process_job(j);
	printf("%ld\n", r);
	return NULL;
}

int main(void)
{
	pthread_t t[NWAIT + 2];
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (int i = 0; i < NWAIT; i++)
		pthread_create(&t[i], &attr, idle_worker, NULL);
	pthread_create(&t[NWAIT], &attr, housekeeper, NULL);
	pthread_create(&t[NWAIT + 1], &attr, job_runner, NULL);
	pthread_join(t[NWAIT + 1], NULL);
	return 0;
}
