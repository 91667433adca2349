// A crash for the unwinder cross-check that needs nothing but a C compiler (tests/unwind.cmake):
// a few frames of recursion, a signal handler, and a NULL store inside it.
#include <signal.h>
#include <stdlib.h>

static volatile int *target;

__attribute__((noinline)) static void on_signal(int sig)
{
	*target = sig; // SIGSEGV inside the handler
}

__attribute__((noinline)) static int descend(int n)
{
	if (n == 0) {
		raise(SIGUSR1);
		return 0;
	}
	return descend(n - 1) + 1;
}

int main(int argc, char **argv)
{
	signal(SIGUSR1, on_signal);
	return descend(argc > 1 ? atoi(argv[1]) : 5);
}
