// Paths of the dump opened inside --sysroot (sysroot.h).
#include "modules/sysroot.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/cleanup.h"

// "a/./b/../../../c" -> "c": `.` and `..` resolved by name, never above the root.
char *ct_sysroot_lexical(const char *path)
{
	size_t n = strlen(path);
	char *out = malloc(n + 2);
	if (!out)
		return NULL;
	size_t len = 0;
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		const char *e = strchrnul(p, '/');
		size_t k = (size_t)(e - p);
		if (k == 0 || (k == 1 && p[0] == '.')) {
			// nothing
		} else if (k == 2 && p[0] == '.' && p[1] == '.') {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--; // the '/' before the dropped component
		} else {
			if (len)
				out[len++] = '/';
			memcpy(out + len, p, k);
			len += k;
		}
		p = e;
	}
	if (!len)
		out[len++] = '.';
	out[len] = '\0';
	return out;
}

int ct_sysroot_open(const char *sysroot, const char *path)
{
	_cleanup_close_ int root = open(sysroot, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -1;
#ifdef SYS_openat2
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
	if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
		return fd;
#endif
	// No openat2 (old kernel, or a seccomp filter that refuses it): confined by name only.
	_cleanup_free_ char *rel = ct_sysroot_lexical(path);
	if (!rel) {
		errno = ENOMEM;
		return -1;
	}
	return openat(root, rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
}
