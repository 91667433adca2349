// The decompressed-debug cache's size cap (src/modules/cache_trim.c): least recently used first,
// the kept copy never, other files alone.
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modules/cache_trim.h"
#include "test.h"

static char dir[] = "/tmp/ct-cache-trim-XXXXXX";

static void make(const char *name, size_t size, time_t mtime)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	char buf[4096] = { 1 };
	for (size_t done = 0; done < size; done += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			break;
	struct timespec t[2] = { { .tv_sec = mtime }, { .tv_sec = mtime } };
	futimens(fd, t);
	close(fd);
}

static bool exists(const char *name)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

TEST(oldest_go_first_kept_and_others_stay)
{
	CHECK(mkdtemp(dir) != NULL);
	make("a.debug", 64 << 10, 1000); // oldest
	make("b.debug", 64 << 10, 2000);
	make("c.debug", 64 << 10, 3000);
	make("d.debug", 64 << 10, 500); // the oldest, but the one just made
	make(".e.debug.XXXXXX", 64 << 10, 1); // another run's copy in the making
	make("notes.txt", 64 << 10, 1);
	// Room for two copies: d is kept, then the newest of the rest (c) stays.
	ct_cache_trim(dir, ".debug", 2 * (64 << 10) + 4096, "d.debug");
	CHECK(!exists("a.debug"));
	CHECK(!exists("b.debug"));
	CHECK(exists("c.debug"));
	CHECK(exists("d.debug"));
	CHECK(exists(".e.debug.XXXXXX"));
	CHECK(exists("notes.txt"));
	// Under the cap: nothing goes.
	ct_cache_trim(dir, ".debug", 1ULL << 40, NULL);
	CHECK(exists("c.debug") && exists("d.debug"));
	// A touch makes a copy the newest.
	char path[256];
	snprintf(path, sizeof(path), "%s/d.debug", dir);
	int fd = open(path, O_RDONLY);
	ct_cache_touch(fd);
	close(fd);
	ct_cache_trim(dir, ".debug", (64 << 10) + 4096, NULL);
	CHECK(!exists("c.debug"));
	CHECK(exists("d.debug"));
	// A missing directory is no error.
	ct_cache_trim("/nonexistent/ct-cache", ".debug", 0, NULL);
	const char *names[] = { "d.debug", ".e.debug.XXXXXX", "notes.txt" };
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

TEST_MAIN()
