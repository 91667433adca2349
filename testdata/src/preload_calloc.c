// An interposed calloc (preload_overflow.c), as allocation tracers and debugging allocators are:
// it keeps a large scratch area on its frame (untouched before the call) and forwards to glibc's
// __libc_calloc, so on a nearly full stack the `call` is the first access below the guard.
#include <stddef.h>

extern void *__libc_calloc(size_t n, size_t size);

void *calloc(size_t n, size_t size)
{
	volatile char record[32768];
	void *p = __libc_calloc(n, size);
	record[0] = (char)(p != NULL);
	return p;
}
