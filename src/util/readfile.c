// Bounded whole-file reads (readfile.h).
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/readfile.h"

char *ct_read_file_bounded(int dirfd, const char *path, size_t cap, size_t *len_ret)
{
	_cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	size_t want = (size_t)st.st_size < cap ? (size_t)st.st_size : cap;
	char *buf = malloc(want + 1);
	if (!buf)
		return NULL;
	size_t got = 0;
	while (got < want) {
		ssize_t r = read(fd, buf + got, want - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	*len_ret = got;
	return buf;
}
