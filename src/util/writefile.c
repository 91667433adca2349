// Writing every byte (writefile.h).
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "util/writefile.h"

bool ct_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}
