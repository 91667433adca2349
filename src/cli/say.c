// Error lines on stderr, safe for a terminal whatever the dump's paths and names hold.
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/options.h"
#include "writers/sanitize.h"

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

size_t ct_cli_terminal_width(FILE *out)
{
	if (!isatty(fileno(out)))
		return 0;
	// COLUMNS first, as ls and ps take it: a user (or a test) may want another width than the
	// window's.
	const char *env = getenv("COLUMNS");
	if (env && *env) {
		char *end;
		unsigned long v = strtoul(env, &end, 10);
		if (!*end && v >= CT_CLI_MIN_WIDTH && v <= 100000)
			return v;
	}
	struct winsize ws;
	if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= CT_CLI_MIN_WIDTH)
		return ws.ws_col;
	return 0;
}
