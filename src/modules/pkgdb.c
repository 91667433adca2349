// The dpkg database as files (pkgdb.h): one pass over info/*.list finds the package of each file
// asked about, one pass over status finds those packages' Source fields.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "modules/pkgdb.h"
#include "util/cleanup.h"
#include "util/keyhash.h"
#include "util/readfile.h"

/** Directories merged /usr moved (Debian 12 usrmerge): /lib/x → /usr/lib/x. */
static const char *const merged_dirs[] = { "/lib/", "/lib32/", "/lib64/", "/libx32/", "/bin/", "/sbin/", NULL };

/** One key of the lookup table: a path as a list file may spell it, and the entry it stands for. */
struct key {
	const char *s;
	size_t len;
	size_t entry;
};

struct table {
	struct key *slots; /**< open addressing, size a power of two, s == NULL when empty */
	size_t mask;
	uint64_t hkey;
};

static void table_put(struct table *t, const char *s, size_t len, size_t entry)
{
	size_t i = ct_hash_bytes(s, len, t->hkey) & t->mask;
	while (t->slots[i].s)
		i = (i + 1) & t->mask;
	t->slots[i] = (struct key){ s, len, entry };
}

static const struct key *table_get(const struct table *t, const char *s, size_t len)
{
	for (size_t i = ct_hash_bytes(s, len, t->hkey) & t->mask; t->slots[i].s; i = (i + 1) & t->mask) {
		if (t->slots[i].len == len && memcmp(t->slots[i].s, s, len) == 0)
			return &t->slots[i];
	}
	return NULL;
}


const char *ct_dpkg_source_name(struct ct_strpool *strings, const char *value, size_t len)
{
	while (len && (*value == ' ' || *value == '\t')) {
		value++;
		len--;
	}
	size_t word = 0;
	while (word < len && value[word] != ' ' && value[word] != '\t' && value[word] != '(')
		word++;
	return word ? ct_strpool_intern_len(strings, value, word) : NULL;
}

/** The package name of a list file's name: "libtinfo6:amd64.list" → "libtinfo6". */
static size_t package_name_len(const char *file)
{
	size_t n = strlen(file) - 5; // without ".list"
	const char *colon = memchr(file, ':', n);
	return colon ? (size_t)(colon - file) : n;
}

static bool ends_with_list(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && strcmp(name + n - 5, ".list") == 0;
}

/** Pass over status: the Source of every stanza whose Package is one the lists gave. */
static void read_sources(int dirfd, struct ct_strpool *strings, struct ct_pkgdb_entry *entries, size_t n, size_t *budget)
{
	size_t len;
	_cleanup_free_ char *buf = ct_read_file_bounded(dirfd, "status", *budget, &len);
	if (!buf)
		return;
	*budget -= len;
	const char *package = NULL, *source = NULL;
	size_t plen = 0, slen = 0;
	for (char *line = buf, *end = buf + len; line <= end;) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t ll = nl ? (size_t)(nl - line) : (size_t)(end - line);
		if (ll == 0) {
			// The end of a stanza: give its source to the entries of its package.
			for (size_t i = 0; package && i < n; i++) {
				if (entries[i].package && strlen(entries[i].package) == plen &&
				    memcmp(entries[i].package, package, plen) == 0)
					entries[i].source = source ? ct_dpkg_source_name(strings, source, slen)
								   : entries[i].package;
			}
			package = source = NULL;
		} else if (ll > 8 && memcmp(line, "Package:", 8) == 0) {
			package = line + 8;
			plen = ll - 8;
			while (plen && *package == ' ') {
				package++;
				plen--;
			}
		} else if (ll > 7 && memcmp(line, "Source:", 7) == 0) {
			source = line + 7;
			slen = ll - 7;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
}

struct ct_error *ct_dpkg_find_owners(const char *admindir, struct ct_strpool *strings, struct ct_pkgdb_entry *entries,
				     size_t n)
{
	if (n == 0)
		return NULL;
	_cleanup_close_ int dirfd = open(admindir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return ct_error_os(errno, "%s", admindir);
	_cleanup_close_ int infofd = openat(dirfd, "info", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (infofd < 0)
		return ct_error_os(errno, "%s/info", admindir);
	// Every path and its spelling before merged /usr; twice as many slots as keys.
	size_t size = 4;
	while (size < 4 * n)
		size <<= 1;
	struct table t = { .slots = calloc(size, sizeof(struct key)), .mask = size - 1, .hkey = ct_hash_key(&t) };
	if (!t.slots)
		return &ct_enomem;
	for (size_t i = 0; i < n; i++) {
		const char *p = entries[i].path;
		entries[i].package = entries[i].source = NULL;
		if (!p || p[0] != '/')
			continue;
		table_put(&t, p, strlen(p), i);
		for (const char *const *d = merged_dirs; *d; d++) {
			if (strncmp(p, "/usr", 4) == 0 && strncmp(p + 4, *d, strlen(*d)) == 0)
				table_put(&t, p + 4, strlen(p + 4), i);
		}
	}
	DIR *dir = fdopendir(dup(infofd));
	if (!dir) {
		free(t.slots);
		return ct_error_os(errno, "%s/info", admindir);
	}
	size_t budget = CT_PKGDB_MAX_BYTES, lists = 0, found = 0;
	bool capped = false;
	struct dirent *de;
	while (found < n && (de = readdir(dir))) {
		if (!ends_with_list(de->d_name))
			continue;
		if (++lists > CT_PKGDB_MAX_LISTS || budget == 0) {
			capped = true;
			break;
		}
		size_t len;
		_cleanup_free_ char *buf = ct_read_file_bounded(infofd, de->d_name, budget, &len);
		if (!buf)
			continue;
		budget -= len;
		const char *package = NULL;
		for (char *line = buf, *end = buf + len; line < end;) {
			char *nl = memchr(line, '\n', (size_t)(end - line));
			size_t ll = nl ? (size_t)(nl - line) : (size_t)(end - line);
			const struct key *k = ll ? table_get(&t, line, ll) : NULL;
			if (k && !entries[k->entry].package) {
				if (!package)
					package = ct_strpool_intern_len(strings, de->d_name, package_name_len(de->d_name));
				entries[k->entry].package = package;
				found++;
			}
			if (!nl)
				break;
			line = nl + 1;
		}
	}
	closedir(dir);
	free(t.slots);
	if (found)
		read_sources(dirfd, strings, entries, n, &budget);
	if (capped)
		return ct_error_create(CT_ERROR_LIMIT, "%s: more than %u list files or %u MiB read", admindir,
				       CT_PKGDB_MAX_LISTS, CT_PKGDB_MAX_BYTES >> 20);
	return NULL;
}
