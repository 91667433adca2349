/**
 * @file pkgdb.h
 * Which installed package a file belongs to, and that package's source package, read from the
 * analyzing machine's dpkg database (dpkg(1) "FILES": <admindir>/info/<package>[:<arch>].list lists
 * the files a package installed, <admindir>/status holds each package's control stanza, whose
 * `Source:` field names the source package, "Source: ncurses (6.4-4)"; without it the source
 * package has the binary package's name, deb-control(5)). Plain bounded file parsing: no dpkg
 * process is run. Blame uses it to tell the program's own libraries from third-party ones
 * (docs/classes.md "Blame").
 */
#ifndef CT_PKGDB_H
#define CT_PKGDB_H

#include <stddef.h>

#include "coretriage/error.h"
#include "coretriage/strpool.h"

/** Debian's dpkg database. */
#define CT_DPKG_ADMINDIR "/var/lib/dpkg"
/** List files read at most: a full desktop install has ~4,000 packages. */
#define CT_PKGDB_MAX_LISTS 20000
/** Bytes of list files and status read at most (a desktop's are ~60 MiB together). */
#define CT_PKGDB_MAX_BYTES (256u << 20)

/** A file to look up: @p path is the input (borrowed); package and source the output (pooled). */
struct ct_pkgdb_entry {
	const char *path; /**< absolute path of the installed file, borrowed */
	const char *package; /**< binary package that installed it ("libtinfo6"), NULL when none */
	const char *source; /**< its source package ("ncurses"), NULL when none */
};

/**
 * Fills package and source of each of @p n @p entries from the dpkg database under @p admindir
 * (entries no package lists keep NULL). A path matches a list line when equal, or when the list says
 * /lib/… (/bin, /sbin, /lib64, …) and the path is that under /usr (merged /usr: the kernel records
 * the resolved path). Strings go into @p strings. Returns CT_ERROR_NOT_FOUND when there is no
 * database, CT_ERROR_LIMIT when the caps above were hit (entries found so far are kept), else NULL.
 */
struct ct_error *ct_dpkg_find_owners(const char *admindir, struct ct_strpool *strings, struct ct_pkgdb_entry *entries,
				     size_t n);

/**
 * ct_dpkg_find_owners with the answers of earlier runs remembered in @p cache_dir (pkgdb_cache.h;
 * NULL: none): the same results, and no list file is read when every entry was asked about before
 * since the database last changed.
 */
struct ct_error *ct_dpkg_find_owners_cached(const char *admindir, const char *cache_dir, struct ct_strpool *strings,
					    struct ct_pkgdb_entry *entries, size_t n);

/**
 * The source package named by a status stanza's `Source:` value @p value (@p len bytes): its first
 * word, without the "(version)" that follows when the versions differ. Pooled in @p strings; NULL
 * for an empty value.
 */
const char *ct_dpkg_source_name(struct ct_strpool *strings, const char *value, size_t len);

#endif
