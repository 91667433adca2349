// Blame by package (issue 21): the program is built on its own shared library, libpkg_blame_lib.so
// (pkg_blame_lib.c, shipped beside the executable), which calls zlib with a NULL length pointer:
// the NULL read happens inside libz (compress2 reads *destLen). The blame belongs to the program's
// frame that called zlib (pack_records in its own library), not to the third-party libz.
#include <stdio.h>
#include <zlib.h>

unsigned long pack_records(const unsigned char *records, unsigned long n, uLongf *len);

int main(void)
{
	static const unsigned char records[64] = { 1, 2, 3 };
	uLongf *len = NULL; // the bug: the length's address was never set
	printf("%lu\n", pack_records(records, sizeof(records), len));
	return 0;
}
