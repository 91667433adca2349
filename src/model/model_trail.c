// The trail part of the report model (docs/trail.md): names of its enums, its teardown.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "coretriage/report.h"

static const char *const time_source_names[CT_TIME_SOURCE_NUM_] = {
	[CT_TIME_SOURCE_COREDUMP_NAME] = "coredump-name",
	[CT_TIME_SOURCE_JOURNAL] = "journal",
	[CT_TIME_SOURCE_VMCOREINFO] = "vmcoreinfo",
	[CT_TIME_SOURCE_FILE_MTIME] = "file-mtime",
	[CT_TIME_SOURCE_CAPTURE] = "capture",
};

const char *ct_time_source_to_string(enum ct_time_source source)
{
	return (unsigned)source < CT_TIME_SOURCE_NUM_ ? time_source_names[source] : "?";
}

static const char *const log_match_names[CT_LOG_MATCH_NUM_] = { "pid", "command", "unit" };

const char *ct_log_match_name(unsigned index)
{
	return index < CT_LOG_MATCH_NUM_ ? log_match_names[index] : NULL;
}

void ct_trail_deinit(struct ct_trail *trail)
{
	free(trail->coredump_fields);
	free(trail->logs);
	free(trail->log_sources);
}

const char *ct_time_format(int64_t usec, bool fraction, char *buf, size_t size)
{
	int64_t sec = usec / 1000000, us = usec % 1000000;
	if (us < 0) {
		us += 1000000;
		sec--;
	}
	time_t t = (time_t)sec;
	struct tm tm;
	size_t n = gmtime_r(&t, &tm) ? strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm) : 0;
	if (n == 0) {
		snprintf(buf, size, "?");
		return buf;
	}
	if (fraction && us)
		snprintf(buf + n, size - n, ".%06lldZ", (long long)us);
	else
		snprintf(buf + n, size - n, "Z");
	return buf;
}
