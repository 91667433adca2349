// A watchdog's SIGABRT re-raised by the worker's crash handler (issue 21): the parent is a watchdog
// that sends SIGABRT to its worker child when the work takes too long; the worker's SA_SIGINFO
// handler logs, restores the default action and re-raises with kill(getpid(), SIGABRT), so the
// dumped signal is the worker's own. SA_NODEFER: the re-raised signal is delivered at once, inside
// the handler (without it the signal stays blocked until the handler returns and the handler's
// frame and siginfo are gone from the dump). The first signal came from outside (the handler's siginfo
// names the watchdog's pid): external-signal, blamed where the worker was interrupted (spin_work).
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got_pid;

static void on_abort(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	got_pid = si->si_pid;
	static const char msg[] = "worker: fatal signal, writing a crash report\n";
	if (write(2, msg, sizeof(msg) - 1) < 0)
		got_pid = -1;
	signal(sig, SIG_DFL);
	kill(getpid(), sig);
}

/** The work that hangs: a loop the watchdog interrupts. */
__attribute__((noinline)) static unsigned long spin_work(unsigned long rounds)
{
	volatile unsigned long acc = 0;
	for (unsigned long i = 0; i < rounds; i++)
		acc += i * 2654435761u;
	return acc;
}

static int worker(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_abort;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESETHAND;
	sigaction(SIGABRT, &sa, NULL);
	for (;;)
		spin_work(1000000000ul);
	return 0;
}

int main(void)
{
	pid_t child = fork();
	if (child < 0)
		return 1;
	if (child == 0)
		return worker();
	// The watchdog: the work gets 200 ms.
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	kill(child, SIGABRT);
	int status;
	waitpid(child, &status, 0);
	if (WIFSIGNALED(status))
		printf("watchdog: worker %d killed by signal %d%s\n", (int)child, WTERMSIG(status),
		       WCOREDUMP(status) ? " (core dumped)" : "");
	return 0;
}
