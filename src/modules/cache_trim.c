// The cache directory's size caps: least recently used first (cache_trim.h). The order is
// the files' mtime, set on every hit: atime is not kept on relatime or noatime mounts.
#include <dirent.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modules/cache_trim.h"

#define TRIM_MAX_ENTRIES 65536

struct entry {
	char name[256];
	uint64_t size;
	struct timespec used;
};

static int oldest_first(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool is_copy(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);
	// Not the temporary files of a copy being made by another run (".HEX.XXXXXX").
	return name[0] != '.' && n > s && strcmp(name + n - s, suffix) == 0 && n < sizeof(((struct entry *)0)->name);
}

void ct_cache_trim(const char *dir, const char *suffix, uint64_t cap, const char *keep)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	struct entry *all = NULL;
	size_t num = 0, cap_entries = 0;
	uint64_t total = 0;
	struct dirent *de;
	while (num < TRIM_MAX_ENTRIES && (de = readdir(d))) {
		struct stat st;
		if (!is_copy(de->d_name, suffix) || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (num == cap_entries) {
			size_t grow = cap_entries ? 2 * cap_entries : 64;
			struct entry *more = realloc(all, grow * sizeof(*all));
			if (!more)
				break;
			all = more;
			cap_entries = grow;
		}
		struct entry *e = &all[num++];
		strcpy(e->name, de->d_name);
		e->size = (uint64_t)st.st_blocks * 512;
		e->used = st.st_mtim;
		total += e->size;
	}
	if (total > cap && num) {
		qsort(all, num, sizeof(*all), oldest_first);
		for (size_t i = 0; i < num && total > cap; i++) {
			if (keep && strcmp(all[i].name, keep) == 0)
				continue;
			if (unlinkat(dfd, all[i].name, 0) == 0)
				total -= all[i].size;
		}
	}
	free(all);
	closedir(d);
}

void ct_cache_touch(int fd)
{
	futimens(fd, NULL);
}
