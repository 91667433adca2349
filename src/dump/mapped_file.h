/**
 * @file mapped_file.h
 * Opening an input file safely: regular files only (a FIFO or device would block or never end),
 * mmapped read-only, never read whole.
 */
#ifndef CT_MAPPED_FILE_H
#define CT_MAPPED_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "coretriage/error.h"

struct ct_mapped_file {
	int fd;
	const uint8_t *data; /**< NULL for an empty file */
	size_t size;
};

/**
 * Opens and maps @p path. Errors: CT_ERROR_OS (no such file, no permission),
 * CT_ERROR_INVALID_ARGUMENT ("is a directory", "is a FIFO", "is empty", …).
 */
struct ct_error *ct_mapped_file_open(const char *path, struct ct_mapped_file *ret);
/** The same for a descriptor the caller opened (and keeps: it is duplicated); @p path names it in
 * errors. `coretriage collect` opens a core before it drops its privileges. */
struct ct_error *ct_mapped_file_open_fd(int fd, const char *path, struct ct_mapped_file *ret);
void ct_mapped_file_close(struct ct_mapped_file *file);

#endif
