/* hang.c - programs that hang for real: deadlocks, contention, idle waits and
 * blocking I/O, for the hang analysis (docs/hangs.md).
 *
 *   hang MODE     with MODE one of
 *     abba        transfer_funds takes accounts then orders, restock takes
 *                 orders then accounts: a two-thread deadlock
 *     cycle3      three stage workers each hold their stage_locks[i] and take
 *                 stage_locks[i+1] through one shared helper, take_next: a
 *                 three-thread cycle
 *     self        update_cache holds cache_lock and calls refresh_entry, which
 *                 locks it again (a normal mutex): a self-deadlock
 *     heap        relay(from, to) holds &from->lock and takes &to->lock, in two
 *                 threads with two heap connections swapped: a deadlock on
 *                 heap locks, named from the waiting frame's parameter
 *     recursive   rebuild_registry holds the recursive registry_lock twice and
 *                 sleeps; lookup_entry waits for it: no deadlock
 *     errorcheck  reload_config holds the error-checking config_lock (its
 *                 relock fails with EDEADLK) and blocks reading a pipe;
 *                 apply_config waits for it: no deadlock
 *     robust      the robust shm_lock is held by hold_segment, which sleeps;
 *                 attach_segment waits for it: no deadlock
 *     rwlock      scan_table holds table_lock for reading and sleeps;
 *                 compact_table waits to write: no deadlock, holder unknown
 *     io-held     slow_flush holds journal and sleeps in nanosleep while three
 *                 append_entry threads queue for it: contention, no cycle
 *     condvar     four worker_loop threads wait on queue_ready: idle
 *     stdio       hold_stdout keeps stdout locked (flockfile) and sleeps; log_line
 *                 waits in printf on glibc's internal stdio lock: no owner
 *     io          read_commands blocks in read on a pipe, serve_clients in
 *                 accept on a listening socket
 *
 * Each worker records its kernel tid and a "blocking now" flag; main waits
 * until every worker is asleep in a system call (/proc/self/task/TID/syscall
 * shows a number, not "running"), writes ./ready and waits itself in
 * wait_for_workers (pthread_join) or idle_main (sleep). make-cores then sends
 * SIGABRT from outside (a watchdog) or takes a gcore snapshot.  Threads get
 * 256 KiB stacks so that gdb-written cores stay small.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "crashme.h"

#define MAX_WORKERS 8

static pthread_t workers[MAX_WORKERS];
static volatile pid_t worker_tid[MAX_WORKERS];
static volatile int worker_blocking[MAX_WORKERS];
static int num_workers;
static pthread_barrier_t start_line;

/* Called by worker @p id right before its blocking call. */
static void about_to_block(int id)
{
	worker_tid[id] = (pid_t)syscall(SYS_gettid);
	__atomic_store_n(&worker_blocking[id], 1, __ATOMIC_SEQ_CST);
}

/* True when thread @p tid is inside a system call (blocked), not running. */
static int in_syscall(pid_t tid)
{
	char path[64], buf[64] = "";
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int ok = fgets(buf, sizeof(buf), f) && buf[0] >= '0' && buf[0] <= '9';
	fclose(f);
	return ok;
}

static void wait_all_blocked(void)
{
	for (int tries = 0; tries < 2000; tries++) {
		int all = 1;
		for (int i = 0; i < num_workers; i++)
			all &= __atomic_load_n(&worker_blocking[i], __ATOMIC_SEQ_CST) && in_syscall(worker_tid[i]);
		if (all)
			break;
		usleep(1000);
	}
	usleep(20000); /* let each call settle inside the kernel */
}

static void start(void *(*fn)(void *), long id)
{
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	if (pthread_create(&workers[num_workers++], &attr, fn, (void *)id) != 0)
		abort();
	pthread_attr_destroy(&attr);
}

NOINLINE void wait_for_workers(void)
{
	crashme_ready();
	for (int i = 0; i < num_workers; i++)
		pthread_join(workers[i], NULL);
}

NOINLINE void idle_main(void)
{
	crashme_ready();
	for (;;)
		sleep(60);
}

static void sleep_long(void)
{
	for (;;)
		sleep(60);
}

/* ---- abba ---------------------------------------------------------------- */
pthread_mutex_t accounts = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t orders = PTHREAD_MUTEX_INITIALIZER;

NOINLINE void *transfer_funds(void *arg)
{
	int id = (int)(long)arg;
	pthread_mutex_lock(&accounts);
	pthread_barrier_wait(&start_line);
	about_to_block(id);
	pthread_mutex_lock(&orders);
	return NULL;
}

NOINLINE void *restock(void *arg)
{
	int id = (int)(long)arg;
	pthread_mutex_lock(&orders);
	pthread_barrier_wait(&start_line);
	about_to_block(id);
	pthread_mutex_lock(&accounts);
	return NULL;
}

/* ---- cycle3 -------------------------------------------------------------- */
pthread_mutex_t stage_locks[3] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
				   PTHREAD_MUTEX_INITIALIZER };

NOINLINE void take_next(int id)
{
	about_to_block(id);
	pthread_mutex_lock(&stage_locks[(id + 1) % 3]);
}

NOINLINE void *stage_worker(void *arg)
{
	int id = (int)(long)arg;
	pthread_mutex_lock(&stage_locks[id]);
	pthread_barrier_wait(&start_line);
	take_next(id);
	return NULL;
}

/* ---- heap ---------------------------------------------------------------- */
struct conn {
	int fd;
	char peer[20];
	pthread_mutex_t lock;
};
static struct conn *conns[2];

NOINLINE void relay(struct conn *from, struct conn *to, int id)
{
	pthread_mutex_lock(&from->lock);
	pthread_barrier_wait(&start_line);
	about_to_block(id);
	pthread_mutex_lock(&to->lock);
}

NOINLINE void *relay_worker(void *arg)
{
	int id = (int)(long)arg;
	relay(conns[id], conns[1 - id], id);
	return NULL;
}

/* ---- self ---------------------------------------------------------------- */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

NOINLINE void refresh_entry(int id)
{
	about_to_block(id);
	pthread_mutex_lock(&cache_lock); /* already held by our caller */
}

NOINLINE void *update_cache(void *arg)
{
	int id = (int)(long)arg;
	pthread_mutex_lock(&cache_lock);
	refresh_entry(id);
	return NULL;
}

/* ---- recursive / errorcheck / robust: a holder parked elsewhere, one waiter */
static pthread_mutex_t registry_lock;
static pthread_mutex_t config_lock;
static pthread_mutex_t shm_lock;
static pthread_mutex_t *held; /* the lock of this mode */
static int config_pipe[2];

NOINLINE void *rebuild_registry(void *arg)
{
	int id = (int)(long)arg;
	pthread_mutex_lock(&registry_lock);
	pthread_mutex_lock(&registry_lock); /* recursive: count 2 */
	pthread_barrier_wait(&start_line);
	about_to_block(id);
	sleep_long();
	return NULL;
}

NOINLINE void *reload_config(void *arg)
{
	int id = (int)(long)arg;
	char c;
	pthread_mutex_lock(&config_lock);
	if (pthread_mutex_lock(&config_lock) != EDEADLK) /* error-checking: refused, not blocked */
		abort();
	pthread_barrier_wait(&start_line);
	about_to_block(id);
	while (read(config_pipe[0], &c, 1) != 0)
		;
	return NULL;
}

NOINLINE void *hold_segment(void *arg)
{
	int id = (int)(long)arg;
	pthread_mutex_lock(&shm_lock);
	pthread_barrier_wait(&start_line);
	about_to_block(id);
	sleep_long();
	return NULL;
}

NOINLINE void *wait_for_held(void *arg)
{
	int id = (int)(long)arg;
	pthread_barrier_wait(&start_line);
	usleep(10000);
	about_to_block(id);
	pthread_mutex_lock(held);
	return NULL;
}

static void init_mutex(pthread_mutex_t *m, int type, int robust)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, type);
	if (robust)
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

/* ---- rwlock -------------------------------------------------------------- */
pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;

NOINLINE void *scan_table(void *arg)
{
	int id = (int)(long)arg;
	pthread_rwlock_rdlock(&table_lock);
	pthread_barrier_wait(&start_line);
	about_to_block(id);
	sleep_long();
	return NULL;
}

NOINLINE void *compact_table(void *arg)
{
	int id = (int)(long)arg;
	pthread_barrier_wait(&start_line);
	usleep(10000);
	about_to_block(id);
	pthread_rwlock_wrlock(&table_lock);
	return NULL;
}

/* ---- io-held ------------------------------------------------------------- */
pthread_mutex_t journal = PTHREAD_MUTEX_INITIALIZER;

NOINLINE void slow_flush(int id)
{
	struct timespec ts = { 30, 0 };
	about_to_block(id);
	for (;;)
		nanosleep(&ts, NULL);
}

NOINLINE void *flush_journal(void *arg)
{
	int id = (int)(long)arg;
	pthread_mutex_lock(&journal);
	pthread_barrier_wait(&start_line);
	slow_flush(id);
	return NULL;
}

NOINLINE void *append_entry(void *arg)
{
	int id = (int)(long)arg;
	pthread_barrier_wait(&start_line);
	usleep(10000);
	about_to_block(id);
	pthread_mutex_lock(&journal);
	return NULL;
}

/* ---- condvar ------------------------------------------------------------- */
pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t queue_ready = PTHREAD_COND_INITIALIZER;
static int queue_len;

NOINLINE void *worker_loop(void *arg)
{
	int id = (int)(long)arg;
	pthread_mutex_lock(&queue_lock);
	about_to_block(id);
	while (queue_len == 0)
		pthread_cond_wait(&queue_ready, &queue_lock);
	pthread_mutex_unlock(&queue_lock);
	return NULL;
}

/* ---- stdio --------------------------------------------------------------- */
NOINLINE void *hold_stdout(void *arg)
{
	int id = (int)(long)arg;
	flockfile(stdout);
	pthread_barrier_wait(&start_line);
	about_to_block(id);
	sleep_long();
	return NULL;
}

NOINLINE void *log_line(void *arg)
{
	int id = (int)(long)arg;
	pthread_barrier_wait(&start_line);
	usleep(10000);
	about_to_block(id);
	printf("log line from %d\n", id);
	return NULL;
}

/* ---- io ------------------------------------------------------------------ */
static int command_pipe[2];
static int listener;

NOINLINE void *read_commands(void *arg)
{
	int id = (int)(long)arg;
	char buf[64];
	about_to_block(id);
	while (read(command_pipe[0], buf, sizeof(buf)) > 0)
		;
	return NULL;
}

NOINLINE void *serve_clients(void *arg)
{
	int id = (int)(long)arg;
	about_to_block(id);
	for (;;) {
		int c = accept(listener, NULL, NULL);
		if (c >= 0)
			close(c);
	}
	return NULL;
}

static void open_listener(void)
{
	struct sockaddr_in a;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	listener = socket(AF_INET, SOCK_STREAM, 0);
	if (listener < 0 || bind(listener, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(listener, 4) != 0)
		abort();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "abba")) {
		pthread_barrier_init(&start_line, NULL, 2);
		start(transfer_funds, 0);
		start(restock, 1);
	} else if (!strcmp(mode, "cycle3")) {
		pthread_barrier_init(&start_line, NULL, 3);
		for (long i = 0; i < 3; i++)
			start(stage_worker, i);
	} else if (!strcmp(mode, "heap")) {
		pthread_barrier_init(&start_line, NULL, 2);
		for (int i = 0; i < 2; i++) {
			conns[i] = calloc(1, sizeof(*conns[i]));
			if (!conns[i])
				abort();
			conns[i]->fd = -1;
			pthread_mutex_init(&conns[i]->lock, NULL);
		}
		start(relay_worker, 0);
		start(relay_worker, 1);
	} else if (!strcmp(mode, "self")) {
		start(update_cache, 0);
	} else if (!strcmp(mode, "recursive") || !strcmp(mode, "errorcheck") || !strcmp(mode, "robust")) {
		pthread_barrier_init(&start_line, NULL, 2);
		if (!strcmp(mode, "recursive")) {
			init_mutex(&registry_lock, PTHREAD_MUTEX_RECURSIVE, 0);
			held = &registry_lock;
			start(rebuild_registry, 0);
		} else if (!strcmp(mode, "errorcheck")) {
			init_mutex(&config_lock, PTHREAD_MUTEX_ERRORCHECK, 0);
			held = &config_lock;
			if (pipe(config_pipe) != 0)
				abort();
			start(reload_config, 0);
		} else {
			init_mutex(&shm_lock, PTHREAD_MUTEX_NORMAL, 1);
			held = &shm_lock;
			start(hold_segment, 0);
		}
		start(wait_for_held, 1);
	} else if (!strcmp(mode, "rwlock")) {
		pthread_barrier_init(&start_line, NULL, 2);
		start(scan_table, 0);
		start(compact_table, 1);
	} else if (!strcmp(mode, "io-held")) {
		pthread_barrier_init(&start_line, NULL, 4);
		start(flush_journal, 0);
		for (long i = 1; i <= 3; i++)
			start(append_entry, i);
	} else if (!strcmp(mode, "condvar")) {
		for (long i = 0; i < 4; i++)
			start(worker_loop, i);
	} else if (!strcmp(mode, "stdio")) {
		pthread_barrier_init(&start_line, NULL, 2);
		start(hold_stdout, 0);
		start(log_line, 1);
	} else if (!strcmp(mode, "io")) {
		if (pipe(command_pipe) != 0)
			abort();
		open_listener();
		start(read_commands, 0);
		start(serve_clients, 1);
	} else {
		fprintf(stderr, "usage: hang abba|cycle3|heap|self|recursive|errorcheck|robust|rwlock|io-held|condvar|stdio|io\n");
		return 2;
	}
	wait_all_blocked();
	if (!strcmp(mode, "abba") || !strcmp(mode, "cycle3") || !strcmp(mode, "self") || !strcmp(mode, "heap"))
		wait_for_workers();
	else
		idle_main();
	return 0;
}
