/* A program with a crash reporter: its SIGSEGV handler runs on an alternate signal stack, writes a
 * line and calls abort(), like many production crash handlers. The core's SIGABRT comes from the
 * handler; the fault is the NULL write in store_sample. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void install_reporter(void)
{
	static char altstack[64 * 1024];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
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

int main(int argc, char **argv)
{
	reporter_faults = argc > 1 && strcmp(argv[1], "fault") == 0;
	install_reporter();
	store_sample(find_sample(argc + 41 - (argc > 1)), 1.5);
	return 0;
}
