// Unit tests of the trail's pure parts: log timestamps in every format, matching a line to the
// process, the collector's choice of lines, the package note's JSON, RFC 3339 formatting.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "coretriage/report.h"
#include "modules/pkgnote.h"
#include "test.h"
#include "trail/logtime.h"
#include "trail/trail.h"
#include "util/budget.h"

// 2026-12-01T14:03:07Z
#define T0 (INT64_C(1796133787) * 1000000)

static bool parse(const char *line, enum ct_logtime_format *f, int64_t *usec)
{
	struct ct_logtime_context ctx = { .reference_usec = T0, .has_boot = true, .boot_usec = T0 - 100 * 1000000 };
	return ct_logtime_parse(line, strlen(line), &ctx, CT_LOGTIME_NUM_, f, usec);
}

TEST(logtime_formats)
{
	setenv("TZ", "UTC", 1);
	enum ct_logtime_format f;
	int64_t u;
	CHECK(parse("2026-12-01T14:03:07Z app: x", &f, &u) && f == CT_LOGTIME_RFC3339 && u == T0);
	CHECK(parse("2026-12-01T15:03:07.250+01:00 app", &f, &u) && u == T0 + 250000);
	CHECK(parse("2026-12-01 14:03:07,5 INFO python logging", &f, &u) && u == T0 + 500000);
	CHECK(parse("[2026-12-01 14:03:07] bracketed", &f, &u) && u == T0);
	CHECK(parse("Tue 2026-12-01 14:03:07 UTC host unit[1]: short-full", &f, &u) && u == T0);
	CHECK(parse("2026-12-01T09:03:07-0500 short-iso", &f, &u) && u == T0);
	CHECK(parse("<34>1 2026-12-01T14:03:07.000001Z host app 12 - - rfc5424", &f, &u) && f == CT_LOGTIME_RFC5424 &&
	      u == T0 + 1);
	CHECK(parse("Dec  1 14:03:07 host app[12]: syslog", &f, &u) && f == CT_LOGTIME_SYSLOG && u == T0);
	CHECK(parse("Dec 01 14:03:07.123456 host app[12]: short-precise", &f, &u) && u == T0 + 123456);
	CHECK(parse("<13>Dec  1 14:03:07 host app: with priority", &f, &u) && u == T0);
	CHECK(parse("[  100.500000] kernel line", &f, &u) && f == CT_LOGTIME_KERNEL && u == T0 + 500000);
	CHECK(parse("<6>[  100.000000] dmesg -r", &f, &u) && u == T0);
	CHECK(parse("[Tue Dec  1 14:03:07 2026] dmesg -T", &f, &u) && f == CT_LOGTIME_CTIME && u == T0);
	CHECK(parse("type=ANOM_ABEND msg=audit(1796133787.042:77): auid=0 pid=12", &f, &u) && f == CT_LOGTIME_AUDIT &&
	      u == T0 + 42000);
	CHECK(!parse("no time here", &f, &u));
	CHECK(!parse("2026-13-01T14:03:07Z bad month", &f, &u));
	CHECK(!parse("Dec 32 14:03:07 bad day", &f, &u));
	CHECK(!parse("", &f, &u));
	CHECK(!parse("[", &f, &u));
	CHECK(!parse("2026-12-01T14:03", &f, &u));
}

TEST(logtime_syslog_year_is_nearest)
{
	setenv("TZ", "UTC", 1);
	// A crash on 2027-01-01 00:00:10 and a syslog line of Dec 31: last year.
	struct ct_logtime_context ctx = { .reference_usec = INT64_C(1798761610) * 1000000 };
	enum ct_logtime_format f;
	int64_t u;
	const char *l = "Dec 31 23:59:59 host x: y";
	CHECK(ct_logtime_parse(l, strlen(l), &ctx, CT_LOGTIME_NUM_, &f, &u));
	CHECK_EQ(u, INT64_C(1798761599) * 1000000);
}

TEST(logtime_kernel_without_boot)
{
	struct ct_logtime_context ctx = { .reference_usec = T0 };
	enum ct_logtime_format f = CT_LOGTIME_NUM_;
	int64_t u;
	const char *l = "[    1.000000] x";
	CHECK(!ct_logtime_parse(l, strlen(l), &ctx, CT_LOGTIME_NUM_, &f, &u));
	CHECK(f == CT_LOGTIME_KERNEL);
}

TEST(match_text)
{
	struct ct_log_filter flt = { .has_pid = true, .pid = 1234, .command = "crashy", .unit = "crashy.service" };
	const char *l1 = "Dec  1 14:03:07 host crashy[1234]: started";
	CHECK_EQ(ct_log_match_text(&flt, l1, strlen(l1)), CT_LOG_MATCH_PID | CT_LOG_MATCH_COMMAND);
	const char *l2 = "took 1234 ms; pid=12345";
	CHECK_EQ(ct_log_match_text(&flt, l2, strlen(l2)), 0u);
	const char *l3 = "systemd[1]: crashy.service: Main process exited, code=dumped";
	CHECK(ct_log_match_text(&flt, l3, strlen(l3)) & CT_LOG_MATCH_UNIT);
	const char *l4 = "notcrashy runs; crashyd too";
	CHECK_EQ(ct_log_match_text(&flt, l4, strlen(l4)), 0u);
	const char *l6 = "[    8.4] CPU: 1 PID: 1234 Comm: crashy";
	CHECK_EQ(ct_log_match_text(&flt, l6, strlen(l6)), CT_LOG_MATCH_PID | CT_LOG_MATCH_COMMAND);
	const char *l7 = "ppid 1234 rapid=1234";
	CHECK_EQ(ct_log_match_text(&flt, l7, strlen(l7)), 0u);
	const char *l5 = "killed process (pid 1234)";
	CHECK_EQ(ct_log_match_text(&flt, l5, strlen(l5)), CT_LOG_MATCH_PID);
}

TEST(collector_keeps_matches_and_context_in_order)
{
	struct ct_report r;
	CHECK(ct_report_init(&r));
	struct ct_log_filter flt = { .has_pid = true, .pid = 77 };
	struct ct_log_collector *c = ct_log_collector_create(T0, T0, T0 - 60000000, T0 + 60000000, &flt);
	CHECK(c != NULL);
	const char *file = ct_report_strdup(&r, "f.log");
	char line[64];
	// 1000 lines before the crash, every 100th names pid 77; 5 after, one names it.
	for (int i = 0; i < 1000; i++) {
		int n = snprintf(line, sizeof(line), "line %d%s", i, i % 100 == 0 ? " app[77]" : "");
		CHECK(ct_log_collector_add(c, file, (uint64_t)i + 1, T0 - (1000 - i) * 1000, line, (size_t)n, 0));
	}
	for (int i = 0; i < 5; i++) {
		int n = snprintf(line, sizeof(line), "after %d%s", i, i == 2 ? " app[77]" : "");
		CHECK(ct_log_collector_add(c, file, (uint64_t)i + 1001, T0 + (i + 1) * 1000, line, (size_t)n, 0));
	}
	ct_log_collector_finish(c, &r);
	ct_log_collector_destroy(c);
	size_t matched = 0, context = 0;
	for (size_t i = 0; i < r.trail.num_logs; i++) {
		matched += r.trail.logs[i].matches != 0;
		context += r.trail.logs[i].before_crash;
		if (i)
			CHECK(r.trail.logs[i - 1].usec <= r.trail.logs[i].usec);
	}
	CHECK_EQ(matched, (size_t)11);
	CHECK_EQ(context, (size_t)CT_LOGS_CONTEXT_LINES);
	CHECK_STR(r.trail.logs[r.trail.num_logs - 1].text, "after 2 app[77]");
	// The context is the last lines before the crash.
	CHECK_STR(r.trail.logs[r.trail.num_logs - 2].text, "line 999");
	ct_report_deinit(&r);
}

TEST(collector_cap_keeps_closest)
{
	struct ct_report r;
	CHECK(ct_report_init(&r));
	struct ct_log_filter flt = { .command = "app" };
	struct ct_log_collector *c = ct_log_collector_create(T0, T0, T0 - 60000000, T0 + 60000000, &flt);
	for (int i = 0; i < 5000; i++)
		CHECK(ct_log_collector_add(c, "f", 0, T0 - 50000000 + i * 10000, "app: x", 6, 0));
	ct_log_collector_finish(c, &r);
	ct_log_collector_destroy(c);
	size_t matched = 0;
	for (size_t i = 0; i < r.trail.num_logs; i++)
		matched += r.trail.logs[i].matches != 0;
	CHECK_EQ(matched, (size_t)CT_LOGS_MAX_MATCHED);
	// The last line offered (closest to the crash) is kept.
	CHECK_EQ(r.trail.logs[r.trail.num_logs - 1].usec, T0 - 50000000 + 4999 * 10000);
	ct_report_deinit(&r);
}

TEST(package_note)
{
	struct ct_report r;
	CHECK(ct_report_init(&r));
	static const char json[] = "{\"type\":\"rpm\",\"name\":\"libfoo\",\"version\":\"1.2-3.fc40\",\"architecture\":\"x86_64\","
				   "\"osCpe\":\"cpe:/o:fedoraproject:fedora:40\",\"debugInfoUrl\":\"https://d.example\"}\0\0";
	uint8_t note[256] = { 0 };
	uint32_t hdr[3] = { 4, sizeof(json), CT_NT_FDO_PACKAGING_METADATA };
	memcpy(note, hdr, 12);
	memcpy(note + 12, "FDO", 4);
	memcpy(note + 16, json, sizeof(json));
	struct ct_bytes notes = { note, 16 + ((sizeof(json) + 3) & ~3u), false }, desc;
	CHECK(ct_note_find(&notes, "FDO", CT_NT_FDO_PACKAGING_METADATA, &desc));
	struct ct_package p;
	CHECK(ct_pkgnote_parse(&r.strings, (const char *)desc.data, desc.size, &p));
	CHECK_STR(p.type, "rpm");
	CHECK_STR(p.name, "libfoo");
	CHECK_STR(p.version, "1.2-3.fc40");
	CHECK_STR(p.debuginfo_url, "https://d.example");
	CHECK(p.os == NULL);
	// Not JSON, not an object, too short for its header.
	CHECK(!ct_pkgnote_parse(&r.strings, "not json", 8, &p));
	CHECK(!ct_pkgnote_parse(&r.strings, "[1,2]", 5, &p));
	struct ct_bytes shortn = { note, 10, false };
	CHECK(!ct_note_find(&shortn, "FDO", CT_NT_FDO_PACKAGING_METADATA, &desc));
	// A descriptor size past the end.
	uint32_t big = 0xfffffff0;
	memcpy(note + 4, &big, 4);
	CHECK(!ct_note_find(&notes, "FDO", CT_NT_FDO_PACKAGING_METADATA, &desc));
	ct_report_deinit(&r);
}

TEST(time_format)
{
	char buf[48];
	CHECK_STR(ct_time_format(T0, true, buf, sizeof(buf)), "2026-12-01T14:03:07Z");
	CHECK_STR(ct_time_format(T0 + 5, true, buf, sizeof(buf)), "2026-12-01T14:03:07.000005Z");
	CHECK_STR(ct_time_format(T0 + 5, false, buf, sizeof(buf)), "2026-12-01T14:03:07Z");
	CHECK_STR(ct_time_format(-1, true, buf, sizeof(buf)), "1969-12-31T23:59:59.999999Z");
	CHECK_EQ(ct_days_from_civil(1970, 1, 1), (int64_t)0);
	CHECK_EQ(ct_days_from_civil(2000, 3, 1), (int64_t)11017);
}

static size_t count_diags(const struct ct_report *r, const char *code)
{
	size_t n = 0;
	for (size_t i = 0; i < r->diagnostics.count; i++)
		n += !strcmp(r->diagnostics.items[i].code, code);
	return n;
}

// The files budget ends the --logs walk: with room for 3 files of 12, 3 are read, one budget-files
// warning says so, and the report is otherwise whole (the crash time, the sources read).
TEST(files_budget_stops_the_walk)
{
	char dir[] = "/tmp/ct-test-trail-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char path[64];
	for (int i = 0; i < 12; i++) {
		snprintf(path, sizeof(path), "%s/f%02d.log", dir, i);
		int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		CHECK(fd >= 0);
		CHECK(write(fd, "2026-12-01T14:03:07Z host app[77]: hello\n", 41) == 41);
		close(fd);
	}
	struct ct_options o;
	ct_options_init(&o);
	const char *paths[] = { dir };
	o.log_paths = paths;
	o.num_log_paths = 1;
	o.no_journal = true;
	o.budget[CT_BUDGET_FILES] = 3;
	struct ct_budget b;
	ct_budget_init(&b, &o);
	snprintf(path, sizeof(path), "%s/f00.log", dir);
	struct ct_trail_facts f = { .core_path = path, .has_pid = true, .pid = 77, .command = "app" };
	struct ct_report r;
	CHECK(ct_report_init(&r));
	ct_trail_analyze(&o, &f, &b, &r);
	CHECK(r.trail.crash_time.present);
	CHECK_EQ(r.trail.num_log_sources, (size_t)3);
	CHECK_EQ(count_diags(&r, "budget-files"), (size_t)1);
	CHECK(b.used[CT_BUDGET_FILES] == 3);
	ct_report_deinit(&r);
	for (int i = 0; i < 12; i++) {
		snprintf(path, sizeof(path), "%s/f%02d.log", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

TEST_MAIN()
