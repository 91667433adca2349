/**
 * @file debuginfod.h
 * A debuginfod query that says why it failed (libdwfl's built-in one is silent): server
 * unreachable, timed out, or the file is not there (issue #6); called from debugfile.c's
 * find_debuginfo callback after the local search failed.
 */
#ifndef CT_MODULES_DEBUGINFOD_H
#define CT_MODULES_DEBUGINFOD_H

#include <stddef.h>

#include "coretriage/coretriage.h"

/**
 * Asks the servers in $DEBUGINFOD_URLS for the debug file of the build-id @p build_id
 * (@p build_id_len raw bytes), giving up after opts->debuginfod_timeout seconds in all.
 * On success *@p fd_ret is an open descriptor of the file in the client cache and *@p path_ret its
 * path (malloc'd; the caller frees it); both owned by the caller.
 * Errors: CT_ERROR_UNSUPPORTED (built without libdebuginfod, --no-debuginfod/--safe, or
 * DEBUGINFOD_URLS unset: nothing to warn about), CT_ERROR_NOT_FOUND (the servers answered: they do
 * not have it), CT_ERROR_LIMIT (timeout reached), CT_ERROR_OS (servers unreachable or another
 * transfer error; errnum set; the message names the URLs), CT_ERROR_NO_MEMORY.
 */
struct ct_error *ct_debuginfod_find_debuginfo(const struct ct_options *opts, const unsigned char *build_id,
					      size_t build_id_len, int *fd_ret, char **path_ret);

#endif
