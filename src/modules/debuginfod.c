// debuginfod queries through libdebuginfod with a deadline and typed errors (see debuginfod.h).
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "modules/debuginfod.h"

#if CT_HAVE_DEBUGINFOD
#include <dlfcn.h>
#include <elfutils/debuginfod.h>

/*
 * libdebuginfod is opened only when a query is made, as libdw itself does: linked in, it pulls
 * libcurl, GnuTLS, Kerberos, LDAP … (36 libraries) into every run, and loading them was a quarter
 * of the time of a whole analysis of a small core.
 */
#define LIBDEBUGINFOD "libdebuginfod.so.1"

struct debuginfod_api {
	void *handle;
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	void (*set_user_data)(debuginfod_client *, void *);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
};

static bool load_api(struct debuginfod_api *api)
{
	api->handle = dlopen(LIBDEBUGINFOD, RTLD_LAZY | RTLD_LOCAL);
	if (!api->handle)
		return false;
	*(void **)&api->begin = dlsym(api->handle, "debuginfod_begin");
	*(void **)&api->end = dlsym(api->handle, "debuginfod_end");
	*(void **)&api->set_user_data = dlsym(api->handle, "debuginfod_set_user_data");
	*(void **)&api->set_progressfn = dlsym(api->handle, "debuginfod_set_progressfn");
	*(void **)&api->find_debuginfo = dlsym(api->handle, "debuginfod_find_debuginfo");
	if (api->begin && api->end && api->set_user_data && api->set_progressfn && api->find_debuginfo)
		return true;
	dlclose(api->handle);
	return false;
}

struct query {
	struct timespec deadline;
	bool timed_out;
};

// Called by libdebuginfod during transfers (also while connecting); nonzero cancels the query.
// The callback gets only the client: the query comes from its user data, read through the
// already loaded library (RTLD_NOLOAD takes a reference without loading anything).
static int progress_cb(debuginfod_client *c, long a, long b)
{
	void *h = dlopen(LIBDEBUGINFOD, RTLD_LAZY | RTLD_NOLOAD);
	void *(*get_user_data)(debuginfod_client *) = NULL;
	if (h)
		*(void **)&get_user_data = dlsym(h, "debuginfod_get_user_data");
	struct query *q = get_user_data ? get_user_data(c) : NULL;
	if (h)
		dlclose(h);
	if (!q)
		return 0;
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
	struct debuginfod_api api;
	if (!load_api(&api))
		return ct_error_create(CT_ERROR_UNSUPPORTED, "debuginfod: %s cannot be loaded", LIBDEBUGINFOD);
	debuginfod_client *c = api.begin();
	if (!c) {
		dlclose(api.handle);
		return &ct_enomem;
	}
	struct query q = { .timed_out = false };
	clock_gettime(CLOCK_MONOTONIC, &q.deadline);
	q.deadline.tv_sec += opts->debuginfod_timeout > 0 ? opts->debuginfod_timeout : 10;
	api.set_user_data(c, &q);
	api.set_progressfn(c, progress_cb);
	char *path = NULL;
	int fd = api.find_debuginfo(c, build_id, (int)build_id_len, &path);
	api.end(c);
	// The library stays loaded: libcurl does not support being unloaded.
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
