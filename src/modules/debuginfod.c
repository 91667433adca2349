// debuginfod queries through libdebuginfod with a deadline and typed errors (see debuginfod.h).
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "modules/debuginfod.h"

#if CT_HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>

struct query {
	struct timespec deadline;
	bool timed_out;
};

// Called by libdebuginfod during transfers (also while connecting); nonzero cancels the query.
static int progress_cb(debuginfod_client *c, long a, long b)
{
	struct query *q = debuginfod_get_user_data(c);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > q->deadline.tv_sec ||
	    (now.tv_sec == q->deadline.tv_sec && now.tv_nsec >= q->deadline.tv_nsec)) {
		q->timed_out = true;
		return 1;
	}
	return 0;
}
#endif

struct ct_error *ct_debuginfod_find_debuginfo(const struct ct_options *opts, const unsigned char *build_id,
					      size_t build_id_len, int *fd_ret, char **path_ret)
{
#if CT_HAVE_DEBUGINFOD
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (!opts->debuginfod || opts->safe || !urls || !*urls)
		return ct_error_create(CT_ERROR_UNSUPPORTED, "debuginfod is not enabled");
	if (build_id_len == 0)
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "no build-id to ask debuginfod for");
	debuginfod_client *c = debuginfod_begin();
	if (!c)
		return &ct_enomem;
	struct query q = { .timed_out = false };
	clock_gettime(CLOCK_MONOTONIC, &q.deadline);
	q.deadline.tv_sec += opts->debuginfod_timeout > 0 ? opts->debuginfod_timeout : 10;
	debuginfod_set_user_data(c, &q);
	debuginfod_set_progressfn(c, progress_cb);
	char *path = NULL;
	int fd = debuginfod_find_debuginfo(c, build_id, (int)build_id_len, &path);
	debuginfod_end(c);
	if (fd >= 0) {
		*fd_ret = fd;
		*path_ret = path;
		return NULL;
	}
	free(path);
	if (q.timed_out)
		return ct_error_create(CT_ERROR_LIMIT, "debuginfod (%s): no answer within %d s (--debuginfod-timeout)", urls,
				       opts->debuginfod_timeout);
	// libdebuginfod returns -errno: ENOENT when the servers answered 404, others for transfer
	// failures (elfutils 0.188 debuginfod-client.c maps curl errors: ECONNREFUSED, EHOSTUNREACH,
	// ETIME, …).
	if (fd == -ENOENT)
		return ct_error_create(CT_ERROR_NOT_FOUND, "debuginfod (%s): no debug file for this build-id", urls);
	return ct_error_os(-fd, "debuginfod (%s): query failed", urls);
#else
	(void)opts;
	(void)build_id;
	(void)build_id_len;
	(void)fd_ret;
	(void)path_ret;
	return ct_error_create(CT_ERROR_UNSUPPORTED, "built without libdebuginfod");
#endif
}
