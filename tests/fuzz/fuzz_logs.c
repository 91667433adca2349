// libFuzzer target: the log readers of the trail (src/trail/): the timestamp parsers of every
// format, the binary search for the window, the text-line scan and the journal export parser,
// on the raw input as a log file, with the window around a fixed crash time.
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coretriage/coretriage.h"
#include "trail/logtime.h"
#include "trail/trail.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// 2026-12-01T14:03:07Z: the seeds' times are near it.
#define CRASH (INT64_C(1796133787) * 1000000)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ct_logtime_context ctx = { .reference_usec = CRASH, .has_boot = size & 1, .boot_usec = CRASH - 1000000000 };
	enum ct_logtime_format f;
	int64_t usec;
	ct_logtime_parse((const char *)data, size, &ctx, size ? data[0] % (CT_LOGTIME_NUM_ + 1) : 0, &f, &usec);

	int fd = memfd_create("fuzz-log", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	struct ct_report report;
	if (write(fd, data, size) == (ssize_t)size && ct_report_init(&report)) {
		struct ct_log_filter who = { .has_pid = true, .pid = 1234, .command = "crashy", .unit = "crashy.service" };
		struct ct_log_collector *c = ct_log_collector_create(CRASH, CRASH, CRASH - 60000000, CRASH + 60000000, &who);
		if (c) {
			ct_logs_read_text(&report, NULL, c, "fuzz.log", fd, true, CRASH, ctx.has_boot, ctx.boot_usec);
			ct_log_collector_finish(c, &report);
			ct_log_collector_destroy(c);
		}
		ct_report_deinit(&report);
	}
	close(fd);
	return 0;
}
