// The kernel's crash lines, read generally: the x86 die() header "<what>: <error code> [#N] …"
// (arch/x86/kernel/dumpstack.c __die_header), the panic reason of "Kernel panic - not syncing: <reason>",
// and the "%pS"/"%pB" symbol text "func+0x1/0x2 [mod]" of RIP lines and Call Traces. A wording we have
// not seen still gives the exception's name and the nearest reason, not nothing.
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/vmcore.h"

bool ct_die_header_parse(const char *s, size_t len, struct ct_die_header *ret)
{
	// The last " [#" of the line; before it ": " and the hex error code, after it the die counter.
	const char *br = NULL;
	for (size_t i = 0; i + 3 <= len; i++) {
		if (memcmp(s + i, " [#", 3) == 0)
			br = s + i;
	}
	if (!br || !isdigit((unsigned char)br[3]))
		return false;
	const char *code = br;
	while (code > s && isxdigit((unsigned char)code[-1]) && br - code < 16)
		code--;
	if (code == br || code - s < 3 || code[-1] != ' ' || code[-2] != ':')
		return false;
	char buf[17];
	memcpy(buf, code, (size_t)(br - code));
	buf[br - code] = '\0';
	memset(ret, 0, sizeof(*ret));
	ret->error_code = strtoull(buf, NULL, 16);
	ret->count = (unsigned)strtoul(br + 3, NULL, 10);
	ret->what = s;
	ret->what_len = (size_t)(code - 2 - s);
	// The exception's name: "general protection fault, probably for non-canonical address 0x…" → the
	// part before the first comma.
	const char *comma = memchr(s, ',', ret->what_len);
	ret->name_len = comma ? (size_t)(comma - s) : ret->what_len;
	return ret->name_len > 0;
}

// Prefixes of panic() texts in Linux 4.x–6.x (kernel/panic.c callers), and what they mean.
static const struct {
	const char *prefix;
	enum ct_panic_reason_kind kind;
} reasons[] = {
	{ "Fatal exception in interrupt", CT_REASON_FATAL_EXCEPTION },
	{ "Fatal exception", CT_REASON_FATAL_EXCEPTION },
	{ "softlockup: hung tasks", CT_REASON_SOFT_LOCKUP },
	{ "Hard LOCKUP", CT_REASON_HARD_LOCKUP },
	{ "Watchdog detected hard LOCKUP", CT_REASON_HARD_LOCKUP },
	{ "hung_task: blocked tasks", CT_REASON_HUNG_TASK },
	{ "RCU Stall", CT_REASON_RCU_STALL },
	{ "stack-protector: Kernel stack is corrupted in: ", CT_REASON_STACK_PROTECTOR },
	{ "Attempted to kill init!", CT_REASON_INIT_KILLED },
	{ "Attempted to kill the idle task!", CT_REASON_INIT_KILLED },
	{ "Out of memory", CT_REASON_OOM },
	{ "System is deadlocked on memory", CT_REASON_OOM },
	{ "sysrq triggered crash", CT_REASON_SYSRQ },
	{ "Fatal machine check", CT_REASON_MCE },
	{ "Machine check", CT_REASON_MCE },
	{ "Fatal local machine check", CT_REASON_MCE },
	{ "corrupted stack end detected inside scheduler", CT_REASON_STACK_OVERFLOW },
	{ "kernel stack overflow", CT_REASON_STACK_OVERFLOW },
};

enum ct_panic_reason_kind ct_panic_reason_classify(const char *reason)
{
	if (!reason)
		return CT_REASON_NONE;
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		if (strncmp(reason, reasons[i].prefix, strlen(reasons[i].prefix)) == 0)
			return reasons[i].kind;
	}
	// "kernel: panic_on_warn set ...", "softlockup: hung tasks" with an origin prefix, "RCU Stall\n", …
	if (strstr(reason, "panic_on_warn"))
		return CT_REASON_WARN;
	if (strstr(reason, "Out of memory"))
		return CT_REASON_OOM;
	if (strstr(reason, "stack overflow") || strstr(reason, "stack guard page"))
		return CT_REASON_STACK_OVERFLOW;
	if (strstr(reason, "softlockup"))
		return CT_REASON_SOFT_LOCKUP;
	if (strstr(reason, "hard LOCKUP") || strstr(reason, "Hard LOCKUP"))
		return CT_REASON_HARD_LOCKUP;
	if (strstr(reason, "hung_task"))
		return CT_REASON_HUNG_TASK;
	if (strstr(reason, "RCU"))
		return CT_REASON_RCU_STALL;
	if (strstr(reason, "Machine check") || strstr(reason, "machine check"))
		return CT_REASON_MCE;
	return CT_REASON_OTHER;
}

bool ct_ksym_text_parse(const char *s, size_t len, struct ct_ksym_text *ret)
{
	memset(ret, 0, sizeof(*ret));
	const char *end = s + len;
	while (s < end && *s == ' ')
		s++;
	if (end - s >= 2 && s[0] == '?' && s[1] == ' ') {
		ret->unreliable = true;
		s += 2;
	}
	size_t n = 0;
	while (s + n < end && s[n] != '+' && s[n] != ' ' && s[n] != '\n')
		n++;
	// A bare address ("0xffffffffc0123456") is not a name.
	if (n == 0 || n >= sizeof(ret->function) || (n > 2 && s[0] == '0' && s[1] == 'x'))
		return false;
	memcpy(ret->function, s, n);
	ret->function[n] = '\0';
	s += n;
	if (s < end && *s == '+') {
		char *e;
		ret->offset = strtoull(s + 1, &e, 16);
		ret->has_offset = e > s + 1 && e <= end;
		if (ret->has_offset && e < end && *e == '/')
			ret->size = strtoull(e + 1, &e, 16);
		s = e <= end ? e : end;
	}
	const char *lb = memchr(s, '[', (size_t)(end - s));
	if (lb) {
		const char *rb = memchr(lb, ']', (size_t)(end - lb));
		size_t m = rb ? (size_t)(rb - lb - 1) : 0;
		if (m > 0 && m < sizeof(ret->module)) {
			memcpy(ret->module, lb + 1, m);
			ret->module[m] = '\0';
		}
	}
	return true;
}
