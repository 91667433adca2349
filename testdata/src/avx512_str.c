/* A fault inside glibc's AVX-512 (EVEX) string function: strlen of a pointer into an unmapped page.
 * On CPUs with AVX-512, glibc picks __strlen_evex and the faulting instruction is EVEX-encoded
 * (capstone 4 cannot decode it). make-cores skips this case when the CPU lacks AVX-512. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

__attribute__((noinline)) static size_t label_length(const char *label)
{
	return strlen(label);
}

int main(void)
{
	char *page = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	munmap(page, 1 << 20);
	printf("%zu\n", label_length(page + 64));
	return 0;
}
