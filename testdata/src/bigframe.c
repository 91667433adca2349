/* One-frame stack overflow: a 64 MiB variable-length array in an 8 MiB stack. The first store into
 * it lands far below the stack mapping, without any recursion. */
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static long build_table(size_t n)
{
	long table[n];
	for (size_t i = 0; i < n; i++)
		table[i] = (long)i;
	return table[n / 2];
}

int main(int argc, char **argv)
{
	printf("%ld\n", build_table((size_t)argc * 8 * 1024 * 1024));
	return 0;
}
