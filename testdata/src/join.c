// A thread joining another, killed while it waits (issue 21): pthread_join ends in a tail call
// (jmp) to __pthread_clockjoin_ex in glibc 2.36, so the frame of pthread_join exists only in the
// DWARF call sites of glibc's debug file (libc6-dbg), and so do the entry values of
// __pthread_clockjoin_ex's parameters (passed by pthread_join's tail call site). Built -O2 -g, so
// that main's call site names pthread_join (a declaration: its address is the default-version
// symbol pthread_join@@GLIBC_2.34 of libc's symbol table).
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static pthread_t main_thread;

// Waits until main is blocked in pthread_join, then kills it (a fatal SIGSEGV for the whole
// process, delivered to the main thread).
static void *killer(void *arg)
{
	(void)arg;
	usleep(200000);
	pthread_kill(main_thread, SIGSEGV);
	pause();
	return NULL;
}

int main(void)
{
	pthread_t t;
	void *r = NULL;
	main_thread = pthread_self();
	if (pthread_create(&t, NULL, killer, NULL) != 0)
		return 1;
	int err = pthread_join(t, &r);
	printf("%d %p\n", err, r);
	return 0;
}
