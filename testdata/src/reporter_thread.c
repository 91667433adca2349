/* A crash reporter in a thread: the thread's stack is a static array (low, beside the executable)
 * and its alternate signal stack is mapped (high), so the interrupted sp lies below the handler's.
 * The SIGSEGV handler logs and calls abort(): the core's SIGABRT comes from the handler, the fault
 * is the NULL write in store_sample, and a walk must cross the signal frame inward to see it. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ALTSTACK_SIZE (64 * 1024)

struct sample {
	long id;
	double value;
};

static void crash_reporter(int sig, siginfo_t *info, void *uctx)
{
	static const char msg[] = "fatal signal: writing crash report\n";
	(void)sig;
	(void)info;
	(void)uctx;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	abort();
}

static int install_reporter(void)
{
	void *altstack = mmap(NULL, ALTSTACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (altstack == MAP_FAILED)
		return -1;
	stack_t ss = { .ss_sp = altstack, .ss_size = ALTSTACK_SIZE };
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = crash_reporter;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	return sigaltstack(&ss, NULL) == 0 && sigaction(SIGSEGV, &sa, NULL) == 0 ? 0 : -1;
}

__attribute__((noinline)) static void store_sample(struct sample *s, double v)
{
	s->value = v;
}

__attribute__((noinline)) static struct sample *find_sample(long id)
{
	return id == 42 ? NULL : NULL;
}

static void *sampler(void *arg)
{
	if (install_reporter() != 0)
		_exit(4);
	store_sample(find_sample((long)arg), 2.5);
	return NULL;
}

int main(void)
{
	static char thread_stack[256 * 1024] __attribute__((aligned(4096)));
	pthread_attr_t attr;
	pthread_t t;
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, thread_stack, sizeof(thread_stack));
	if (pthread_create(&t, &attr, sampler, (void *)42L) != 0)
		return 5;
	pthread_join(t, NULL);
	return 0;
}
