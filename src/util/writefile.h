/**
 * @file writefile.h
 * Writing what the tool makes itself (a kept index, a core of a live process): every byte, or
 * false. write(2) may write less than asked (a signal, a pipe, a full disk): the rest is written
 * until done or an error other than EINTR.
 */
#ifndef CT_UTIL_WRITEFILE_H
#define CT_UTIL_WRITEFILE_H

#include <stdbool.h>
#include <stddef.h>

/** Writes the @p len bytes at @p buf to @p fd; false on an error (errno says which) or no progress. */
bool ct_write_all(int fd, const void *buf, size_t len);

#endif
