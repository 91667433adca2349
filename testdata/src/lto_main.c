// LTO across two files (issue 10): parse_field (lto_util.c) is inlined into parse_record here only
// at link time (-flto), so its DWARF abstract origin lives in the other file's unit.
#include <stdio.h>

long parse_field(const char *const *fields, int i);

static __attribute__((noinline)) long parse_record(const char *const *fields, int n)
{
	long sum = 0;
	for (int i = 0; i <= n; i++)
		sum += parse_field(fields, i);
	return sum;
}

int main(int argc, char **argv)
{
	(void)argv;
	const char *fields[] = { "12", "7", "30", argc > 3 ? "1" : NULL };
	printf("%ld\n", parse_record(fields, 3));
	return 0;
}
