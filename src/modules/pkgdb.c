// The dpkg database as files (pkgdb.h): one pass over info/*.list finds the package of each file
// asked about, one pass over status finds those packages' Source fields; the answers are kept for
// the next run while the database is unchanged (pkgdb_cache.h).
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "modules/pkgdb.h"
#include "modules/pkgdb_cache.h"
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
static void read_sources(int dirfd, struct ct_strpool *strings, struct ct_pkgdb_entry *entries, size_t n,
			 const bool *known, size_t *budget)
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
				if (!known[i] && entries[i].package && strlen(entries[i].package) == plen &&
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

/** The entries whose path is exactly @p s (not one of its spellings before merged /usr). */
static void take_cached(const struct table *t, struct ct_strpool *strings, struct ct_pkgdb_entry *entries,
			bool *known, const struct ct_pkgdb_cached *c, size_t *found)
{
	for (size_t i = ct_hash_bytes(c->path, c->path_len, t->hkey) & t->mask; t->slots[i].s; i = (i + 1) & t->mask) {
		const struct key *k = &t->slots[i];
		if (k->len != c->path_len || memcmp(k->s, c->path, k->len) != 0 || k->s != entries[k->entry].path ||
		    known[k->entry])
			continue;
		known[k->entry] = true;
		(*found)++;
		entries[k->entry].package = *c->package ? ct_strpool_intern(strings, c->package) : NULL;
		entries[k->entry].source = *c->package && *c->source ? ct_strpool_intern(strings, c->source) : NULL;
	}
}

/** Remembers the answers the lists gave (not the cached ones) for the next run. */
static void save_answers(struct ct_pkgdb_cache *c, const struct ct_pkgdb_entry *entries, const bool *known, size_t n)
{
	const char **v = calloc(3 * n, sizeof(*v));
	size_t m = 0;
	for (size_t i = 0; v && i < n; i++) {
		if (known[i] || !entries[i].path)
			continue;
		v[m] = entries[i].path;
		v[n + m] = entries[i].package;
		v[2 * n + m] = entries[i].source;
		m++;
	}
	if (v)
		ct_pkgdb_cache_save(c, v, v + n, v + 2 * n, m);
	free(v);
}

/** A bit per line length a key has: most list lines are skipped without hashing them. */
#define LEN_BITS 4096

struct ct_error *ct_dpkg_find_owners(const char *admindir, struct ct_strpool *strings, struct ct_pkgdb_entry *entries,
				     size_t n)
{
	return ct_dpkg_find_owners_cached(admindir, NULL, strings, entries, n);
}

struct ct_error *ct_dpkg_find_owners_cached(const char *admindir, const char *cache_dir, struct ct_strpool *strings,
					    struct ct_pkgdb_entry *entries, size_t n)
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
	_cleanup_free_ bool *known = calloc(n, sizeof(*known));
	_cleanup_free_ uint64_t *lens = calloc(LEN_BITS / 64, sizeof(*lens));
	if (!t.slots || !known || !lens) {
		free(t.slots);
		return &ct_enomem;
	}
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
	for (size_t i = 0; i <= t.mask; i++) {
		if (t.slots[i].s)
			lens[(t.slots[i].len % LEN_BITS) / 64] |= UINT64_C(1) << (t.slots[i].len % 64);
	}
	// Answers of earlier runs first: when they cover every entry, no list is read.
	size_t found = 0;
	struct ct_pkgdb_cache cache;
	bool cached = ct_pkgdb_cache_open(&cache, cache_dir, admindir);
	for (size_t i = 0; cached && i < cache.num_lines; i++)
		take_cached(&t, strings, entries, known, &cache.lines[i], &found);
	size_t from_cache = found;
	DIR *dir = found < n ? fdopendir(dup(infofd)) : NULL;
	if (!dir && found < n) {
		free(t.slots);
		ct_pkgdb_cache_close(&cache);
		return ct_error_os(errno, "%s/info", admindir);
	}
	size_t budget = CT_PKGDB_MAX_BYTES, lists = 0;
	bool capped = false;
	struct dirent *de;
	while (dir && found < n && (de = readdir(dir))) {
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
			bool may = ll && (lens[(ll % LEN_BITS) / 64] >> (ll % 64) & 1);
			const struct key *k = may ? table_get(&t, line, ll) : NULL;
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
	if (dir)
		closedir(dir);
	free(t.slots);
	if (found > from_cache)
		read_sources(dirfd, strings, entries, n, known, &budget);
	// An answer cut short by the caps is not remembered: a later run may be allowed more.
	if (cached && dir && !capped)
		save_answers(&cache, entries, known, n);
	ct_pkgdb_cache_close(&cache);
	if (capped)
		return ct_error_create(CT_ERROR_LIMIT, "%s: more than %u list files or %u MiB read", admindir,
				       CT_PKGDB_MAX_LISTS, CT_PKGDB_MAX_BYTES >> 20);
	return NULL;
}
