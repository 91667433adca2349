/* trail.c - a service that logs, then crashes: the input of the trail tests (docs/trail.md).
 *
 * It writes three lines to stdout with RFC 3339 times ("2026-12-01T14:03:05.123456Z
 * trail[PID]: …") and the same lines to stderr in syslog form ("Dec  1 14:03:05 HOST
 * trail[PID]: …"), flushed before the crash, then reads job->name through a NULL job:
 * SIGSEGV SEGV_MAPERR at 0x8 in handle_job.  The tests turn stdout into journal entries and
 * check the report lines them up with the core's time.  Its exe gets a .note.package.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct job {
	long id;
	const char *name;
};

static void log_line(const char *msg)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	char iso[32], sys[32], host[64] = "localhost";
	strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(sys, sizeof(sys), "%b %e %H:%M:%S", &tm);
	gethostname(host, sizeof(host) - 1);
	printf("%s.%06ldZ trail[%d]: %s\n", iso, ts.tv_nsec / 1000, getpid(), msg);
	fprintf(stderr, "%s %s trail[%d]: %s\n", sys, host, getpid(), msg);
	fflush(stdout);
	fflush(stderr);
}

static struct job *next_job(void)
{
	return NULL; /* the queue is empty */
}

__attribute__((noinline)) static long handle_job(struct job *job)
{
	return job->name[0];
}

int main(void)
{
	log_line("starting worker");
	log_line("queue /var/spool/trail opened");
	log_line("handling the next job");
	return (int)handle_job(next_job());
}
