/**
 * @file cache_trim.h
 * The size cap of the cache of decompressed debug files (--cache-size): least recently used
 * copies go first. A hit marks its copy used (its mtime), so a copy in use stays.
 */
#ifndef CT_MODULES_CACHE_TRIM_H
#define CT_MODULES_CACHE_TRIM_H

#include <stdint.h>

/** The default cap, bytes: a few of the largest debug files Debian ships, decompressed. */
#define CT_CACHE_DEFAULT_SIZE (4ULL << 30)

/**
 * Removes the least recently used `*.debug` files of @p dir until their total is at most @p cap
 * bytes, never @p keep (the copy just made or used, a name inside @p dir). At most 65,536 entries
 * are looked at (a cache that large is trimmed over several runs). Errors are ignored: the cache
 * only ever saves time.
 */
void ct_cache_trim(const char *dir, uint64_t cap, const char *keep);

/** Marks the copy behind @p fd used now (its mtime), for the trim's order. */
void ct_cache_touch(int fd);

#endif
