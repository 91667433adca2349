// Earlier dpkg lookups, remembered while the database is unchanged (pkgdb_cache.h).
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modules/pkgdb_cache.h"
#include "util/readfile.h"

#define HEADER "coretriage dpkg-owners 1"
/** Answers kept at most: a batch over many machines' cores asks about many paths. */
#define MAX_LINES 8192

static bool make_stamp(const char *admindir, char *buf, size_t size)
{
	char path[4096];
	struct stat st, info;
	if (snprintf(path, sizeof(path), "%s/status", admindir) >= (int)sizeof(path) || stat(path, &st) != 0)
		return false;
	if (snprintf(path, sizeof(path), "%s/info", admindir) >= (int)sizeof(path) || stat(path, &info) != 0)
		return false;
	int n = snprintf(buf, size, HEADER " %llu %lld %lld.%09ld %llu %lld.%09ld", (unsigned long long)st.st_ino,
			 (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (unsigned long long)info.st_ino, (long long)info.st_mtim.tv_sec, info.st_mtim.tv_nsec);
	return n > 0 && (size_t)n < size;
}

/** A field may hold no tab, newline or other control character (the file is parsed by them). */
static bool plain(const char *s)
{
	for (; s && *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	}
	return true;
}

static void parse(struct ct_pkgdb_cache *c, size_t len)
{
	char *p = c->buf, *end = c->buf + len;
	char *nl = memchr(p, '\n', len);
	if (!nl || (size_t)(nl - p) != strlen(c->stamp) || memcmp(p, c->stamp, (size_t)(nl - p)) != 0)
		return;
	size_t cap = 0;
	for (char *q = nl + 1; q < end; q++)
		cap += *q == '\n';
	c->lines = calloc(cap ? cap : 1, sizeof(*c->lines));
	if (!c->lines)
		return;
	for (p = nl + 1; p < end && c->num_lines < cap && c->num_lines < MAX_LINES;) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		*nl = '\0';
		char *t1 = strchr(p, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (t1 && t2 && !strchr(t2 + 1, '\t') && p[0] == '/') {
			*t1 = *t2 = '\0';
			c->lines[c->num_lines++] =
				(struct ct_pkgdb_cached){ .path = p, .package = t1 + 1, .source = t2 + 1, .path_len = (size_t)(t1 - p) };
			c->bytes += (size_t)(nl - p) + 1;
		}
		p = nl + 1;
	}
}

bool ct_pkgdb_cache_open(struct ct_pkgdb_cache *c, const char *cache_dir, const char *admindir)
{
	*c = (struct ct_pkgdb_cache){ 0 };
	if (!cache_dir || !*cache_dir || !make_stamp(admindir, c->stamp, sizeof(c->stamp)))
		return false;
	if (asprintf(&c->path, "%s/dpkg-owners", cache_dir) < 0) {
		c->path = NULL;
		return false;
	}
	size_t len;
	c->buf = ct_read_file_bounded(AT_FDCWD, c->path, CT_PKGDB_CACHE_MAX_BYTES, &len);
	if (c->buf)
		parse(c, len);
	return true;
}

static bool write_line(FILE *f, const char *path, const char *package, const char *source)
{
	return fprintf(f, "%s\t%s\t%s\n", path, package ? package : "", package && source ? source : "") > 0;
}

void ct_pkgdb_cache_save(struct ct_pkgdb_cache *c, const char *const *paths, const char *const *packages,
			 const char *const *sources, size_t n)
{
	if (!c->path || n == 0)
		return;
	// Parents first: the cache directory may not exist yet.
	char *dir = strdup(c->path);
	char *slash = dir ? strrchr(dir, '/') : NULL;
	if (slash) {
		*slash = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			slash = NULL;
	}
	free(dir);
	if (!slash)
		return;
	char *tmp = NULL;
	if (asprintf(&tmp, "%s.XXXXXX", c->path) < 0)
		return;
	int fd = mkstemp(tmp);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return;
	}
	bool ok = fprintf(f, "%s\n", c->stamp) > 0;
	// The old answers stay unless the file would outgrow what is read back.
	size_t keep = c->bytes < CT_PKGDB_CACHE_MAX_BYTES / 2 && c->num_lines + n < MAX_LINES ? c->num_lines : 0;
	for (size_t i = 0; ok && i < keep; i++)
		ok = write_line(f, c->lines[i].path, c->lines[i].package, c->lines[i].source);
	for (size_t i = 0; ok && i < n; i++) {
		if (paths[i] && paths[i][0] == '/' && plain(paths[i]) && plain(packages[i]) && plain(sources[i]))
			ok = write_line(f, paths[i], packages[i], sources[i]);
	}
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, c->path) != 0)
		unlink(tmp);
	free(tmp);
}

void ct_pkgdb_cache_close(struct ct_pkgdb_cache *c)
{
	free(c->path);
	free(c->buf);
	free(c->lines);
	*c = (struct ct_pkgdb_cache){ 0 };
}
