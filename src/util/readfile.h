/**
 * @file readfile.h
 * Reading a whole small file the analysis did not make (package databases, perf maps): regular
 * files only, not through a final symlink, at most a cap of bytes.
 */
#ifndef CT_UTIL_READFILE_H
#define CT_UTIL_READFILE_H

#include <stddef.h>

/**
 * Reads at most @p cap bytes of @p path (relative to directory @p dirfd, or AT_FDCWD) into a
 * NUL-terminated buffer the caller frees, its length in *@p len_ret. NULL when the file cannot be
 * opened, is not a regular file or memory runs out (*@p len_ret then untouched).
 */
char *ct_read_file_bounded(int dirfd, const char *path, size_t cap, size_t *len_ret);

#endif
