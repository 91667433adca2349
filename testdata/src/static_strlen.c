// A static executable whose crash is inside libc (issue 21): strlen(NULL) on a missing environment
// variable. glibc's code is linked into the executable, so frame #0 (__strlen_avx2, _evex or _sse2:
// the ifunc picks the CPU's) is in the main module; blame must skip it as runtime, as it would skip
// libc.so.6, and blame name_length. Debian's libc.a has no DWARF: the code DWARF does not cover in a
// static executable with DWARF is the runtime's (docs/classes.md).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static size_t name_length(const char *name)
{
	return strlen(name);
}

int main(void)
{
	const char *name = getenv("CORETRIAGE_NO_SUCH_VARIABLE");
	printf("%zu\n", name_length(name));
	return 0;
}
