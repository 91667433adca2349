// Timestamps of log lines (logtime.h). Each parser reads a bounded prefix of the line; none
// trusts a field's width or range.
#include <string.h>
#include <time.h>

#include "trail/logtime.h"

static const char *const format_names[CT_LOGTIME_NUM_] = {
	[CT_LOGTIME_RFC3339] = "rfc3339", [CT_LOGTIME_RFC5424] = "rfc5424", [CT_LOGTIME_SYSLOG] = "syslog",
	[CT_LOGTIME_KERNEL] = "kernel",	  [CT_LOGTIME_CTIME] = "ctime",	    [CT_LOGTIME_AUDIT] = "audit",
};

const char *ct_logtime_format_to_string(enum ct_logtime_format format)
{
	return (unsigned)format < CT_LOGTIME_NUM_ ? format_names[format] : "?";
}

// Howard Hinnant's days_from_civil (http://howardhinnant.github.io/date_algorithms.html).
int64_t ct_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

struct cursor {
	const char *p, *end;
};

static bool digits(struct cursor *c, int n, int *ret)
{
	if (c->end - c->p < n)
		return false;
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (c->p[i] < '0' || c->p[i] > '9')
			return false;
		v = v * 10 + (c->p[i] - '0');
	}
	c->p += n;
	*ret = v;
	return true;
}

static bool lit(struct cursor *c, char ch)
{
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

// ".123456" or ",123": up to 9 digits, microseconds kept.
static int64_t fraction(struct cursor *c)
{
	if (!(c->p < c->end && (*c->p == '.' || *c->p == ',')))
		return 0;
	const char *save = c->p++;
	int64_t us = 0;
	int n = 0;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && n < 9) {
		if (n < 6)
			us = us * 10 + (*c->p - '0');
		n++;
		c->p++;
	}
	if (n == 0) {
		c->p = save;
		return 0;
	}
	for (; n < 6; n++)
		us *= 10;
	return us;
}

// Broken-down time → epoch seconds: UTC when @p utc, else in the local time zone.
static bool to_epoch(int y, int mo, int d, int h, int mi, int s, bool utc, int64_t *ret)
{
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60 || y < 1970 || y > 9999)
		return false;
	if (utc) {
		*ret = ct_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + s;
		return true;
	}
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_min = mi,
			 .tm_sec = s, .tm_isdst = -1 };
	time_t t = mktime(&tm);
	if (t == (time_t)-1)
		return false;
	*ret = (int64_t)t;
	return true;
}

// "Z", "+01:00", "-0500", " UTC" (journalctl -o short-full) or nothing (local time).
static bool zone(struct cursor *c, bool *utc, int *offset_sec)
{
	*utc = false;
	*offset_sec = 0;
	if (lit(c, 'Z') || lit(c, 'z')) {
		*utc = true;
		return true;
	}
	if (c->p < c->end && (*c->p == '+' || *c->p == '-')) {
		int sign = *c->p == '-' ? -1 : 1, hh, mm = 0;
		struct cursor s = { c->p + 1, c->end };
		if (!digits(&s, 2, &hh))
			return true;
		lit(&s, ':');
		if (!digits(&s, 2, &mm))
			mm = 0;
		*c = s;
		*utc = true;
		*offset_sec = sign * (hh * 3600 + mm * 60);
		return true;
	}
	if (c->end - c->p >= 4 && (!memcmp(c->p, " UTC", 4) || !memcmp(c->p, " GMT", 4))) {
		c->p += 4;
		*utc = true;
	}
	return true;
}

static const char *const weekdays[] = { "Mon ", "Tue ", "Wed ", "Thu ", "Fri ", "Sat ", "Sun " };

// YYYY-MM-DD[T ]HH:MM:SS[.frac][zone], optionally after "[" or "Www " (journalctl short-full).
static bool parse_iso(struct cursor c, int64_t *usec)
{
	lit(&c, '[');
	for (size_t i = 0; i < 7; i++) {
		if (c.end - c.p >= 4 && !memcmp(c.p, weekdays[i], 4)) {
			c.p += 4;
			break;
		}
	}
	int y, mo, d, h, mi, s;
	if (!digits(&c, 4, &y) || !lit(&c, '-') || !digits(&c, 2, &mo) || !lit(&c, '-') || !digits(&c, 2, &d))
		return false;
	if (!lit(&c, 'T') && !lit(&c, ' ') && !lit(&c, 't'))
		return false;
	if (!digits(&c, 2, &h) || !lit(&c, ':') || !digits(&c, 2, &mi) || !lit(&c, ':') || !digits(&c, 2, &s))
		return false;
	int64_t frac = fraction(&c), sec;
	bool utc;
	int off;
	zone(&c, &utc, &off);
	if (!to_epoch(y, mo, d, h, mi, s, utc, &sec))
		return false;
	*usec = (sec - off) * 1000000 + frac;
	return true;
}

// "<PRI>" of syslog: 1 to 3 digits.
static void skip_priority(struct cursor *c)
{
	struct cursor s = *c;
	if (!lit(&s, '<'))
		return;
	int n = 0;
	while (s.p < s.end && *s.p >= '0' && *s.p <= '9' && n < 3) {
		s.p++;
		n++;
	}
	if (n && lit(&s, '>'))
		*c = s;
}

// RFC 5424: <PRI>VERSION SP TIMESTAMP.
static bool parse_rfc5424(struct cursor c, int64_t *usec)
{
	if (c.p >= c.end || *c.p != '<')
		return false;
	skip_priority(&c);
	int version;
	if (!digits(&c, 1, &version) || !lit(&c, ' '))
		return false;
	return parse_iso(c, usec);
}

static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
				      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

static int month(struct cursor *c)
{
	if (c->end - c->p < 3)
		return 0;
	for (int i = 0; i < 12; i++) {
		if (!memcmp(c->p, months[i], 3)) {
			c->p += 3;
			return i + 1;
		}
	}
	return 0;
}

// " 1" or "01" or "1": the day of syslog and ctime.
static bool day(struct cursor *c, int *d)
{
	lit(c, ' ');
	if (digits(c, 2, d))
		return true;
	return digits(c, 1, d);
}

// The year that puts month/day closest to the reference time (syslog has none).
static bool nearest_year(const struct ct_logtime_context *ctx, int mo, int d, int h, int mi, int s, int64_t *sec)
{
	time_t ref = (time_t)(ctx->reference_usec / 1000000);
	struct tm tm;
	if (!gmtime_r(&ref, &tm))
		return false;
	bool found = false;
	int64_t best = 0;
	for (int y = tm.tm_year + 1900 - 1; y <= tm.tm_year + 1900 + 1; y++) {
		int64_t t;
		if (!to_epoch(y, mo, d, h, mi, s, false, &t))
			continue;
		int64_t dist = t > (int64_t)ref ? t - ref : ref - t;
		int64_t bdist = best > (int64_t)ref ? best - ref : ref - best;
		if (!found || dist < bdist)
			best = t;
		found = true;
	}
	*sec = best;
	return found;
}

// RFC 3164: [<PRI>]Mmm dd HH:MM:SS[.frac] (rsyslog's default, journalctl -o short/short-precise).
static bool parse_syslog(struct cursor c, const struct ct_logtime_context *ctx, int64_t *usec)
{
	skip_priority(&c);
	int mo = month(&c), d, h, mi, s;
	if (!mo || !lit(&c, ' ') || !day(&c, &d) || !lit(&c, ' '))
		return false;
	if (!digits(&c, 2, &h) || !lit(&c, ':') || !digits(&c, 2, &mi) || !lit(&c, ':') || !digits(&c, 2, &s))
		return false;
	int64_t frac = fraction(&c), sec;
	if (!nearest_year(ctx, mo, d, h, mi, s, &sec))
		return false;
	*usec = sec * 1000000 + frac;
	return true;
}

// dmesg -T: "[Www Mmm dd HH:MM:SS YYYY]" (local time).
static bool parse_ctime(struct cursor c, int64_t *usec)
{
	if (!lit(&c, '['))
		return false;
	bool wd = false;
	for (size_t i = 0; i < 7 && !wd; i++) {
		if (c.end - c.p >= 4 && !memcmp(c.p, weekdays[i], 4)) {
			c.p += 4;
			wd = true;
		}
	}
	int mo = month(&c), d, h, mi, s, y;
	if (!wd || !mo || !lit(&c, ' ') || !day(&c, &d) || !lit(&c, ' '))
		return false;
	if (!digits(&c, 2, &h) || !lit(&c, ':') || !digits(&c, 2, &mi) || !lit(&c, ':') || !digits(&c, 2, &s) ||
	    !lit(&c, ' ') || !digits(&c, 4, &y) || !lit(&c, ']'))
		return false;
	int64_t sec;
	if (!to_epoch(y, mo, d, h, mi, s, false, &sec))
		return false;
	*usec = sec * 1000000;
	return true;
}

// The kernel's "[ 1234.567890]" (also after a "<N>" level, dmesg -r); seconds since boot.
static bool parse_kernel(struct cursor c, int64_t *since_boot)
{
	skip_priority(&c);
	if (!lit(&c, '['))
		return false;
	while (c.p < c.end && *c.p == ' ')
		c.p++;
	int64_t sec = 0;
	int n = 0;
	while (c.p < c.end && *c.p >= '0' && *c.p <= '9' && n < 12) {
		sec = sec * 10 + (*c.p++ - '0');
		n++;
	}
	if (n == 0 || c.p >= c.end || *c.p != '.')
		return false;
	int64_t frac = fraction(&c);
	if (!lit(&c, ']'))
		return false;
	*since_boot = sec * 1000000 + frac;
	return true;
}

// auditd: "type=SYSCALL msg=audit(1764597787.123:456): …" within the first bytes of the line.
static bool parse_audit(struct cursor c, int64_t *usec)
{
	size_t n = (size_t)(c.end - c.p) < 96 ? (size_t)(c.end - c.p) : 96;
	const char *a = memmem(c.p, n, "audit(", 6);
	if (!a)
		return false;
	c.p = a + 6;
	int64_t sec = 0;
	int k = 0;
	while (c.p < c.end && *c.p >= '0' && *c.p <= '9' && k < 12) {
		sec = sec * 10 + (*c.p++ - '0');
		k++;
	}
	if (k < 9)
		return false;
	int64_t frac = fraction(&c);
	if (!lit(&c, ':'))
		return false;
	*usec = sec * 1000000 + frac;
	return true;
}

static bool try_format(enum ct_logtime_format f, struct cursor c, const struct ct_logtime_context *ctx,
		       int64_t *usec, bool *kernel_no_boot)
{
	int64_t since_boot;
	switch (f) {
	case CT_LOGTIME_RFC3339: return parse_iso(c, usec);
	case CT_LOGTIME_RFC5424: return parse_rfc5424(c, usec);
	case CT_LOGTIME_SYSLOG: return parse_syslog(c, ctx, usec);
	case CT_LOGTIME_CTIME: return parse_ctime(c, usec);
	case CT_LOGTIME_AUDIT: return parse_audit(c, usec);
	case CT_LOGTIME_KERNEL:
		if (!parse_kernel(c, &since_boot))
			return false;
		if (!ctx->has_boot) {
			*kernel_no_boot = true;
			return false;
		}
		*usec = ctx->boot_usec + since_boot;
		return true;
	case CT_LOGTIME_NUM_: break;
	}
	return false;
}

bool ct_logtime_parse(const char *line, size_t len, const struct ct_logtime_context *ctx,
		      enum ct_logtime_format first, enum ct_logtime_format *format_ret, int64_t *usec_ret)
{
	// A timestamp sits in the first bytes; nothing longer is looked at.
	struct cursor c = { line, line + (len < 256 ? len : 256) };
	bool kernel_no_boot = false;
	int64_t usec;
	if (first < CT_LOGTIME_NUM_ && try_format(first, c, ctx, &usec, &kernel_no_boot)) {
		*format_ret = first;
		*usec_ret = usec;
		return true;
	}
	for (int f = 0; f < CT_LOGTIME_NUM_; f++) {
		if ((enum ct_logtime_format)f == first)
			continue;
		if (try_format((enum ct_logtime_format)f, c, ctx, &usec, &kernel_no_boot)) {
			*format_ret = (enum ct_logtime_format)f;
			*usec_ret = usec;
			return true;
		}
	}
	if (kernel_no_boot)
		*format_ret = CT_LOGTIME_KERNEL;
	return false;
}
