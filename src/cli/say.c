// Error lines on stderr, safe for a terminal whatever the dump's paths and names hold.
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "report/sanitize.h"

void *ct_cli_memory_reserve(void)
{
	char *p = malloc(CT_CLI_MEMORY_RESERVE);
	// Touched, so the pages are really ours (RLIMIT_DATA counts them either way).
	if (p)
		memset(p, 0, CT_CLI_MEMORY_RESERVE);
	return p;
}

void ct_cli_error(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs("coretriage: ", stderr);
	ct_text_put(stderr, buf, CT_TEXT_TERMINAL, SIZE_MAX);
	fputc('\n', stderr);
}
