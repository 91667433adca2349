/* smash.c - a local buffer overrun, built twice (see cases.tsv):
 *
 *   canary  (built -fstack-protector-strong): parse_header() strcpy()s a
 *           26-character field into char[16].  At -O0 the buffer is at
 *           rbp-0x20 and the canary at rbp-0x8, so the 27 bytes overwrite
 *           the canary's low three bytes (its lowest byte is always 0, so
 *           24 bytes would not be enough) but not the saved rbp or the
 *           return address; the epilogue's canary check
 *           calls __stack_chk_fail: "*** stack smashing detected ***",
 *           SIGABRT.
 *   ret     (built -fno-stack-protector -O0): fill_record() memset()s 32
 *           bytes of 'A' over char[16], the saved rbp and the saved return
 *           address.  `ret` pops 0x4141414141414141, a non-canonical
 *           address: #GP, SIGSEGV SI_KERNEL, si_addr 0, pc at the ret.
 */
#include <stdio.h>
#include <string.h>

#include "crashme.h"

static const char *volatile header_line = "X-Request-Identifier-Abcde"; /* 26 chars + NUL */
static volatile size_t record_len = 32;

NOINLINE int parse_header(const char *line)
{
	char field[16];
	strcpy(field, line);
	return (int)strlen(field);
}

NOINLINE int fill_record(size_t len)
{
	char record[16];
	memset(record, 'A', len);
	return record[3];
}

int main(int argc, char **argv)
{
	int r = 0;
	if (argc > 1 && strcmp(argv[1], "ret") == 0)
		r = fill_record(record_len);
	else
		r = parse_header(header_line);
	printf("%d\n", r);
	return 0;
}
