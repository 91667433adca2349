/**
 * @file cache_trim.h
 * The size caps of the cache directory's parts (the decompressed debug files of --cache-size, the
 * kernels' kept indexes): least recently used files go first. A hit marks its file used (its
 * mtime), so a file in use stays.
 */
#ifndef CT_MODULES_CACHE_TRIM_H
#define CT_MODULES_CACHE_TRIM_H

#include <stdint.h>

/** The default cap, bytes: a few of the largest debug files Debian ships, decompressed. */
#define CT_CACHE_DEFAULT_SIZE (4ULL << 30)

/**
 * Removes the least recently used files of @p dir named `*SUFFIX` (".debug") until their total is
 * at most @p cap bytes, never @p keep (the copy just made or used, a name inside @p dir). At most 65,536 entries
 * are looked at (a cache that large is trimmed over several runs). Errors are ignored: the cache
 * only ever saves time.
 */
void ct_cache_trim(const char *dir, const char *suffix, uint64_t cap, const char *keep);

/** Marks the copy behind @p fd used now (its mtime), for the trim's order. */
void ct_cache_touch(int fd);

#endif
