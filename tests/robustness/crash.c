// The seed of the malformed-core suite (tests/tools/malformed.py): a small process with two
// threads that dies of a NULL write, so its core has several PRSTATUS notes, PRPSINFO, SIGINFO,
// AUXV, NT_FILE and the ELF headers of the executable and its libraries.
#include <pthread.h>
#include <unistd.h>

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

__attribute__((noinline)) static void crash(volatile int *p)
{
	*p = 42;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, idle, NULL);
	usleep(20000);
	crash(NULL);
	return 0;
}
