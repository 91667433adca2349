// Text logs: plain lines with a timestamp each (logtime.h), or the journal export format
// (`journalctl -o export`). A binary search over the file finds the window's start, so the cost
// is the window's lines, not the file's size.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "trail/logtime.h"
#include "trail/trail.h"
#include "util/bisect.h"
#include "util/budget.h"

/** Bytes and lines looked at to learn a file's timestamp format. */
#define SNIFF_BYTES (64u << 10)
#define SNIFF_LINES 200
/** Below this size a file is read from its start; above, its window is found by binary search. */
#define BISECT_MIN_SIZE (1u << 20)
/** Newlines counted before the window's start for exact line numbers: ~0.1 s of memchr at most. */
#define LINE_COUNT_MAX_BYTES (64u << 20)
/** Bytes after a probe point searched for a line with a time during the binary search. */
#define PROBE_BYTES (64u << 10)

struct text_log {
	const char *data;
	size_t size;
	struct ct_logtime_context ctx;
	enum ct_logtime_format format;
};

// A problem with a log: a warning for a file given on the command line, an info for one found in
// a directory (/var/log holds binary files such as wtmp, which are no one's problem).
static void problem(struct ct_report *r, bool direct, enum ct_diag_code code, const char *path, const char *what)
{
	ct_report_diag(r, direct ? CT_SEVERITY_WARNING : CT_SEVERITY_INFO, 0, code, "%s: %s", path, what);
}

// Spends the @p n bytes of a line read from the copy budget; false (after the warning, once per run) when spent.
static bool spend_read(struct ct_report *r, struct ct_budget *budget, const char *file, size_t n)
{
	// A line costs at least CT_LOG_RECORD_COST: 64 MiB of empty lines are 64 million to parse.
	if (ct_budget_take(budget, CT_BUDGET_COPY, n > CT_LOG_RECORD_COST ? n : CT_LOG_RECORD_COST))
		return true;
	if (!budget->reported[CT_BUDGET_COPY]) {
		budget->reported[CT_BUDGET_COPY] = true;
		ct_report_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_BUDGET_COPY,
			       "%s: stopped reading: the work budget of %" PRIu64 " bytes of log lines read and journal fields "
			       "copied is spent (--max-memory; tighter with --safe); later logs are not read",
			       file, budget->limit[CT_BUDGET_COPY]);
	}
	return false;
}

// Binary data: NUL bytes, or many control characters (ESC is allowed: colored logs).
static bool looks_binary(const char *p, size_t n)
{
	size_t control = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];
		if (ch == 0)
			return true;
		if (ch < 0x20 && ch != '\n' && ch != '\r' && ch != '\t' && ch != 0x1b)
			control++;
	}
	return control > n / 20;
}

static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? nl : end;
}

// The time of the first line with one at or after @p off (within PROBE_BYTES), -1 when none.
static bool time_after(const struct text_log *t, size_t off, int64_t *usec)
{
	const char *p = t->data + off, *end = t->data + t->size;
	const char *limit = end - p > PROBE_BYTES ? p + PROBE_BYTES : end;
	if (off) {
		// Start at the next whole line.
		p = line_end(p, end);
		if (p < end)
			p++;
	}
	while (p < limit) {
		const char *e = line_end(p, end);
		enum ct_logtime_format f;
		if (ct_logtime_parse(p, (size_t)(e - p), &t->ctx, t->format, &f, usec))
			return true;
		p = e + 1;
	}
	return false;
}

struct window_key {
	const struct text_log *t;
	int64_t from;
};

// Is the line after probe offset (@p i + 1) × PROBE_BYTES dated before the window?
static bool probe_before_window(const void *ctx, size_t i)
{
	const struct window_key *k = ctx;
	int64_t usec;
	return time_after(k->t, (i + 1) * PROBE_BYTES, &usec) && usec < k->from;
}

// Offset of a line at or before the first line of the window (line-aligned by the reader): the last
// probe offset, on a PROBE_BYTES grid, whose next line is dated before the window (0 when none).
static size_t window_start(const struct text_log *t, int64_t from)
{
	if (t->size < BISECT_MIN_SIZE)
		return 0;
	size_t probes = (t->size - 1) / PROBE_BYTES;
	return ct_bisect(probes, probe_before_window, &(struct window_key){ t, from }) * PROBE_BYTES;
}

static void read_lines(struct ct_report *r, struct ct_budget *budget, struct ct_log_collector *c, struct text_log *t,
		       const char *file, struct ct_log_source *src)
{
	int64_t from, to;
	ct_log_collector_window(c, &from, &to);
	size_t start = window_start(t, from);
	const char *p = t->data + start, *end = t->data + t->size;
	uint64_t line = 1;
	if (start) {
		// Line numbers stay exact when counting the newlines before the start is cheap; beyond,
		// they are unknown (0) rather than paid for with a read of the whole file.
		bool count = start <= LINE_COUNT_MAX_BYTES;
		line = count ? 1 : 0;
		for (const char *q = t->data; count && (q = memchr(q, '\n', (size_t)(p - q))); q++)
			line++;
		p = line_end(p, end);
		p = p < end ? p + 1 : p;
		line += line != 0;
	}
	const char *scan_start = p;
	bool have_time = false;
	int64_t usec = 0;
	for (; p < end; line += line != 0) {
		if ((size_t)(p - scan_start) > CT_LOGS_MAX_SCAN_BYTES) {
			ct_report_diag(r, CT_SEVERITY_INFO, 0, CT_DIAG_LOGS_CAP,
				       "%s: stopped reading after %u MiB of lines in the window", file,
				       CT_LOGS_MAX_SCAN_BYTES >> 20);
			break;
		}
		const char *e = line_end(p, end);
		if (!spend_read(r, budget, file, (size_t)(e - p) + 1))
			break;
		enum ct_logtime_format f;
		int64_t u;
		// A line without a time of its own (a continuation, a stack trace) belongs to the last one.
		if (ct_logtime_parse(p, (size_t)(e - p), &t->ctx, t->format, &f, &u)) {
			usec = u;
			have_time = true;
		}
		if (have_time && usec > to)
			break;
		if (have_time && usec >= from && e > p) {
			src->lines_in_window++;
			if (!ct_log_collector_add(c, file, line, usec, p, (size_t)(e - p), 0)) {
				ct_report_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_MEMORY, "%s: out of memory", file);
				return;
			}
		}
		p = e + 1;
	}
}

// Learns the file's timestamp format from its first lines; false when none is readable.
static bool sniff_format(struct ct_report *r, struct text_log *t, const char *path, bool direct)
{
	unsigned hits[CT_LOGTIME_NUM_] = { 0 }, kernel_no_boot = 0;
	const char *p = t->data, *end = t->data + (t->size < SNIFF_BYTES ? t->size : SNIFF_BYTES);
	for (int n = 0; p < end && n < SNIFF_LINES; n++) {
		const char *e = line_end(p, end);
		enum ct_logtime_format f = CT_LOGTIME_NUM_;
		int64_t usec;
		if (ct_logtime_parse(p, (size_t)(e - p), &t->ctx, CT_LOGTIME_NUM_, &f, &usec))
			hits[f]++;
		else if (f == CT_LOGTIME_KERNEL)
			kernel_no_boot++;
		p = e + 1;
	}
	int best = -1;
	for (int f = 0; f < CT_LOGTIME_NUM_; f++) {
		if (hits[f] && (best < 0 || hits[f] > hits[best]))
			best = f;
	}
	if (best >= 0) {
		t->format = (enum ct_logtime_format)best;
		return true;
	}
	if (kernel_no_boot)
		problem(r, direct, CT_DIAG_LOG_NO_BOOT_TIME, path,
			"kernel timestamps (seconds since boot), but the boot time is not known (no VMCOREINFO CRASHTIME, "
			"no journal entry of the crash); its lines cannot be placed in time");
	else
		problem(r, direct, CT_DIAG_LOG_NO_TIMES, path,
			"no timestamps in a format coretriage reads (RFC 3339/ISO 8601, syslog, RFC 5424, kernel, audit); "
			"its lines cannot be placed in time");
	return false;
}

/* ---- journal export format (systemd's JOURNAL_EXPORT_FORMATS.md) ---- */

static void set_field(struct ct_journal_fields *f, const char *k, size_t kn, const char *v, size_t vn)
{
#define F(name, member)                                                                                \
	if (kn == sizeof(name) - 1 && !memcmp(k, name, kn)) {                                          \
		f->member = v;                                                                         \
		f->member##_len = vn;                                                                  \
		return;                                                                                \
	}
	F("MESSAGE", message)
	F("_PID", pid)
	F("_COMM", comm)
	F("SYSLOG_IDENTIFIER", identifier)
	F("_SYSTEMD_UNIT", systemd_unit)
	F("UNIT", unit)
	F("USER_UNIT", user_unit)
#undef F
}

static uint64_t parse_u64(const char *p, size_t n, bool *ok)
{
	uint64_t v = 0;
	*ok = n > 0 && n <= 19;
	for (size_t i = 0; *ok && i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			*ok = false;
		else
			v = v * 10 + (uint64_t)(p[i] - '0');
	}
	return v;
}

static void read_export(struct ct_report *r, struct ct_budget *budget, struct ct_log_collector *c,
			const struct text_log *t, const char *file, struct ct_log_source *src, bool direct)
{
	int64_t from, to;
	ct_log_collector_window(c, &from, &to);
	const char *p = t->data, *end = t->data + t->size;
	struct ct_journal_fields f = { 0 };
	bool has_time = false, corrupt = false;
	int64_t usec = 0;
	while (p <= end) {
		if ((size_t)(p - t->data) > CT_LOGS_MAX_SCAN_BYTES) {
			ct_report_diag(r, CT_SEVERITY_INFO, 0, CT_DIAG_LOGS_CAP, "%s: stopped reading after %u MiB", file,
				       CT_LOGS_MAX_SCAN_BYTES >> 20);
			break;
		}
		if (p == end || *p == '\n') {
			// End of an entry.
			if (has_time && usec > to)
				break;
			if (has_time && usec >= from) {
				src->lines_in_window++;
				if (!ct_log_collector_add_entry(c, file, usec, &f))
					break;
			}
			memset(&f, 0, sizeof(f));
			has_time = false;
			if (p == end)
				break;
			p++;
			continue;
		}
		const char *e = line_end(p, end);
		if (!spend_read(r, budget, file, (size_t)(e - p) + 1))
			break;
		const char *eq = memchr(p, '=', (size_t)(e - p));
		if (eq) {
			const char *v = eq + 1;
			set_field(&f, p, (size_t)(eq - p), v, (size_t)(e - v));
			if (eq - p == 20 && !memcmp(p, "__REALTIME_TIMESTAMP", 20)) {
				bool ok;
				uint64_t u = parse_u64(v, (size_t)(e - v), &ok);
				has_time = ok && u <= INT64_MAX;
				usec = (int64_t)u;
			}
			p = e + 1;
			continue;
		}
		// A binary field: NAME, newline, little-endian 64-bit size, the data, newline.
		const char *sz = e + 1;
		if (end - sz < 8) {
			corrupt = true;
			break;
		}
		uint64_t n = 0;
		for (int i = 7; i >= 0; i--)
			n = n << 8 | (unsigned char)sz[i];
		if (n > (uint64_t)(end - sz - 8)) {
			corrupt = true;
			break;
		}
		set_field(&f, p, (size_t)(e - p), sz + 8, (size_t)n);
		p = sz + 8 + n;
		if (p < end && *p == '\n')
			p++;
	}
	if (corrupt)
		problem(r, direct, CT_DIAG_LOG_CORRUPT, file, "journal export data cut short or corrupt; read up to there");
}

void ct_logs_read_text(struct ct_report *r, struct ct_budget *budget, struct ct_log_collector *c, const char *path,
		       int fd, bool direct, int64_t reference_usec, bool has_boot, int64_t boot_usec)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		problem(r, direct, CT_DIAG_LOG_UNREADABLE, path, "not a regular file");
		return;
	}
	const char *file = ct_report_strdup(r, path);
	if (st.st_size == 0) {
		ct_trail_add_source(r, path, NULL);
		return;
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		problem(r, direct, CT_DIAG_LOG_UNREADABLE, path, "cannot be mapped");
		return;
	}
	struct text_log t = { .data = map, .size = (size_t)st.st_size, .format = CT_LOGTIME_NUM_ };
	t.ctx.reference_usec = reference_usec;
	t.ctx.has_boot = has_boot;
	t.ctx.boot_usec = boot_usec;
	size_t head = t.size < SNIFF_BYTES ? t.size : SNIFF_BYTES;
	static const char export1[] = "__CURSOR=", export2[] = "__REALTIME_TIMESTAMP=";
	if ((head >= sizeof(export1) - 1 && !memcmp(t.data, export1, sizeof(export1) - 1)) ||
	    (head >= sizeof(export2) - 1 && !memcmp(t.data, export2, sizeof(export2) - 1))) {
		struct ct_log_source *src = ct_trail_add_source(r, path, "journal-export");
		if (src)
			read_export(r, budget, c, &t, file, src, direct);
	} else if (looks_binary(t.data, head)) {
		problem(r, direct, CT_DIAG_LOG_BINARY, path, "binary data, not a text log; not read");
	} else if (sniff_format(r, &t, path, direct)) {
		struct ct_log_source *src = ct_trail_add_source(r, path, ct_logtime_format_to_string(t.format));
		if (src)
			read_lines(r, budget, c, &t, file, src);
	} else {
		ct_trail_add_source(r, path, NULL);
	}
	munmap(map, (size_t)st.st_size);
}
