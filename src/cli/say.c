// Error lines on stderr, safe for a terminal whatever the dump's paths and names hold.
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/options.h"
#include "report/sanitize.h"

void *ct_cli_memory_reserve(void)
{
	// Not touched: RLIMIT_DATA (--max-memory) counts the mapping, not its resident pages, so the
	// untouched reserve holds its room under the limit and costs no memory (gcc turned the former
	// malloc + memset into calloc anyway, which never faulted the pages in).
	return malloc(CT_CLI_MEMORY_RESERVE);
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
