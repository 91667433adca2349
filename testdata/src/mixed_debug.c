// An executable linking objects built with and without -g (issue 21; node: libuv has DWARF, V8 has
// not): this file is built with -g, mixed_nodebug.c without. The NULL read is in table_lookup, the
// object without debug information; it is the program's own code all the same and is blamed.
#include <stdio.h>

struct entry;
long table_lookup(const struct entry *table, long key);

int main(int argc, char **argv)
{
	(void)argv;
	const struct entry *table = NULL; // the bug: the table was never loaded
	printf("%ld\n", table_lookup(table, argc));
	return 0;
}
