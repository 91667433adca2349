/**
 * @file logtime.h
 * Timestamps of log lines in the common formats (docs/trail.md): RFC 3339 / ISO 8601, syslog
 * (RFC 3164, as written by rsyslog and `journalctl -o short`), RFC 5424, the kernel's
 * "[ seconds]" (seconds since boot), `dmesg -T`'s "[Tue Dec  1 14:03:07 2026]" and audit's
 * "audit(EPOCH.MS:SERIAL)". Pure functions over untrusted bytes: every read is bounded by @p len.
 */
#ifndef CT_TRAIL_LOGTIME_H
#define CT_TRAIL_LOGTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ct_logtime_format {
	CT_LOGTIME_RFC3339,
	CT_LOGTIME_RFC5424,
	CT_LOGTIME_SYSLOG,
	CT_LOGTIME_KERNEL,
	CT_LOGTIME_CTIME,
	CT_LOGTIME_AUDIT,
	CT_LOGTIME_NUM_
};
/** "rfc3339", "rfc5424", "syslog", "kernel", "ctime", "audit". */
const char *ct_logtime_format_to_string(enum ct_logtime_format format);

/** What a parser needs besides the line. */
struct ct_logtime_context {
	/** A time near the lines (the crash), microseconds since the epoch: syslog has no year. */
	int64_t reference_usec;
	/** The boot time, for the kernel's seconds since boot. */
	bool has_boot;
	int64_t boot_usec;
};

/**
 * Parses the time at the start of @p line (@p len bytes, no NUL needed), trying @p first first
 * (CT_LOGTIME_NUM_ for none). Times without a zone are in the local time zone (TZ). On success
 * sets *@p format_ret and *@p usec_ret. A kernel time without a known boot time sets
 * *@p format_ret to CT_LOGTIME_KERNEL and returns false.
 */
bool ct_logtime_parse(const char *line, size_t len, const struct ct_logtime_context *ctx,
		      enum ct_logtime_format first, enum ct_logtime_format *format_ret, int64_t *usec_ret);

/** Days from 1970-01-01 to the civil date (proleptic Gregorian); no time zone, no libc. */
int64_t ct_days_from_civil(int64_t y, unsigned m, unsigned d);

#endif
