// Opening an input file: refuse what is not a regular file before reading a byte of it.
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump/mapped_file.h"

static struct ct_error *map_fd(int fd, const char *path, struct ct_mapped_file *ret);

struct ct_error *ct_mapped_file_open(const char *path, struct ct_mapped_file *ret)
{
	// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return ct_error_os(errno, "%s", path);
	return map_fd(fd, path, ret);
}

struct ct_error *ct_mapped_file_open_fd(int fd, const char *path, struct ct_mapped_file *ret)
{
	int own = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (own < 0)
		return ct_error_os(errno, "%s", path);
	return map_fd(own, path, ret);
}

// Takes @p fd over (closed on failure too).
static struct ct_error *map_fd(int fd, const char *path, struct ct_mapped_file *ret)
{
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return ct_error_os(e, "%s", path);
	}
	const char *what = NULL;
	if (S_ISDIR(st.st_mode))
		what = "is a directory";
	else if (S_ISFIFO(st.st_mode))
		what = "is a FIFO (pipe), not a file";
	else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		what = "is a device, not a file";
	else if (S_ISSOCK(st.st_mode))
		what = "is a socket, not a file";
	else if (!S_ISREG(st.st_mode))
		what = "is not a regular file";
	else if (st.st_size == 0)
		what = "is empty";
	if (what) {
		close(fd);
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "%s: %s", path, what);
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return ct_error_create(CT_ERROR_UNSUPPORTED, "%s: too large to map", path);
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		int e = errno;
		close(fd);
		return ct_error_os(e, "%s: mmap", path);
	}
	ret->fd = fd;
	ret->data = map;
	ret->size = (size_t)st.st_size;
	return NULL;
}

void ct_mapped_file_close(struct ct_mapped_file *file)
{
	if (file->data)
		munmap((void *)file->data, file->size);
	if (file->fd >= 0)
		close(file->fd);
	file->data = NULL;
	file->fd = -1;
	file->size = 0;
}
