/* Stack overflow in a thread: unbounded recursion in a 256 KiB pthread stack runs into its guard
 * page. */
#include <pthread.h>
#include <stdio.h>

__attribute__((noinline)) static long walk_tree(long depth, volatile char *parent)
{
	volatile char node[128];
	node[0] = (char)depth;
	node[1] = parent ? parent[0] : 0;
	return walk_tree(depth + 1, node) + node[1];
}

static void *worker(void *arg)
{
	(void)arg;
	printf("%ld\n", walk_tree(0, NULL));
	return NULL;
}

int main(void)
{
	pthread_attr_t attr;
	pthread_t t;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	pthread_create(&t, &attr, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
