/* fortify.c - a _FORTIFY_SOURCE check fires (-O2 -D_FORTIFY_SOURCE=2).
 *
 * store_label() copies n bytes into char label[8].  The compiler knows the
 * destination size (8) but not n, so memcpy becomes __memcpy_chk(.., 8);
 * with n = 20 at run time glibc calls __chk_fail:
 * "*** buffer overflow detected ***: terminated", SIGABRT.
 */
#include <stdio.h>
#include <string.h>

#include "crashme.h"

static volatile size_t label_len = 20;
static const char source_text[32] = "warehouse-eu-central-1";

NOINLINE int consume(const char *label)
{
	return label[0] + label[7];
}

NOINLINE int store_label(const char *src, size_t n)
{
	char label[8];
	memcpy(label, src, n);
	return consume(label);
}

int main(void)
{
	printf("%d\n", store_label(source_text, label_len));
	return 0;
}
