/* A program with a crash reporter: its SIGSEGV handler runs on an alternate signal stack, writes a
 * line and calls abort(), like many production crash handlers. The core's SIGABRT comes from the
 * handler; the fault is the NULL write in store_sample. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* argv[1] == "fault": the reporter itself crashes (a NULL store while SIGSEGV is blocked in the
 * handler), so the kernel delivers the second SIGSEGV with the default action. */
static int reporter_faults;
static volatile int *volatile reporter_state;

struct sample {
	long id;
	double value;
};

static void crash_reporter(int sig, siginfo_t *info, void *uctx)
{
	static const char msg[] = "fatal signal: writing crash report\n";
	(void)info;
	(void)uctx;
	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	if (reporter_faults)
		*reporter_state = sig;
	abort();
}

static void install_reporter(char *altstack, size_t size)
{
	stack_t ss = { .ss_sp = altstack, .ss_size = size };
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = crash_reporter;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGSEGV, &sa, NULL);
}

__attribute__((noinline)) static void store_sample(struct sample *s, double v)
{
	s->value = v;
}

__attribute__((noinline)) static struct sample *find_sample(long id)
{
	return id == 42 ? NULL : NULL;
}

/* argv[1] == "thread": the fault is in a thread whose stack is a static array (low, beside the
 * executable) and whose alternate signal stack is mapped (high): the interrupted sp lies below
 * the handler's, and the walk must still cross the signal frame. */
static void *sampler(void *arg)
{
	install_reporter(mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), 64 * 1024);
	store_sample(find_sample((long)arg), 2.5);
	return NULL;
}

int main(int argc, char **argv)
{
	static char altstack[64 * 1024];
	if (argc > 1 && strcmp(argv[1], "thread") == 0) {
		static char thread_stack[256 * 1024] __attribute__((aligned(4096)));
		pthread_attr_t attr;
		pthread_t t;
		pthread_attr_init(&attr);
		pthread_attr_setstack(&attr, thread_stack, sizeof(thread_stack));
		if (pthread_create(&t, &attr, sampler, (void *)42L) == 0)
			pthread_join(t, NULL);
		return 0;
	}
	reporter_faults = argc > 1 && strcmp(argv[1], "fault") == 0;
	install_reporter(altstack, sizeof(altstack));
	store_sample(find_sample(argc + 41 - (argc > 1)), 1.5);
	return 0;
}
