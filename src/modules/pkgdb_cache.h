/**
 * @file pkgdb_cache.h
 * The answers of earlier dpkg lookups (pkgdb.h), kept in the cache directory while the database is
 * unchanged: finding a file's package reads every info/….list file (11 MB on a small Debian system,
 * 50 M instructions, 70 % of a small core's analysis), and the same few libraries are asked about
 * on every run (issue 28). One text file, `<cache dir>/dpkg-owners`: a stamp line, then one
 * `path TAB package TAB source` line per file asked about (package and source empty when no
 * package lists the file). The stamp is the database's state: status's inode, size and mtime,
 * info/'s inode and mtime (dpkg replaces status and the list files by rename on every change, which
 * changes both); any difference and the file is ignored and written anew.
 */
#ifndef CT_PKGDB_CACHE_H
#define CT_PKGDB_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/** Bytes of the cache file read at most; beyond it the file is started over. */
#define CT_PKGDB_CACHE_MAX_BYTES (1u << 20)

/** One remembered answer; the strings point into the cache's buffer. */
struct ct_pkgdb_cached {
	const char *path, *package, *source; /**< package and source "" when none */
	size_t path_len;
};

struct ct_pkgdb_cache {
	char *path; /**< the cache file, NULL when there is no cache */
	char stamp[160]; /**< the database's stamp line, without its newline */
	char *buf; /**< the file's contents, NUL at each field's end */
	struct ct_pkgdb_cached *lines;
	size_t num_lines;
	size_t bytes; /**< of lines kept, to bound the rewritten file */
};

/**
 * Opens the cache for the database under @p admindir in @p cache_dir (NULL: none): reads its answers
 * when its stamp is the database's. False when there is no usable cache (no directory, the database
 * cannot be stat'ed); the lookup then runs without one.
 */
bool ct_pkgdb_cache_open(struct ct_pkgdb_cache *c, const char *cache_dir, const char *admindir);

/**
 * Writes the remembered answers plus @p n new ones (path, package, source; NULL package for
 * none) back, replacing the file atomically (a temporary file renamed). Failures are ignored:
 * the cache only ever saves time.
 */
void ct_pkgdb_cache_save(struct ct_pkgdb_cache *c, const char *const *paths, const char *const *packages,
			 const char *const *sources, size_t n);

void ct_pkgdb_cache_close(struct ct_pkgdb_cache *c);

#endif
