// Blame by package (issue 21): the dpkg database reader over a database this test writes (list files
// with and without an architecture, a Source with a version, a stanza without Source, merged /usr,
// a list without a final newline, a list that is a directory), and which modules are the program's.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modules/perfmap.h"
#include "modules/pkgdb.h"
#include "test.h"
#include "triage/facts.h"

static char dir[] = "/tmp/ct-test-pkgdb-XXXXXX";

static void put(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void make_db(void)
{
	char path[256];
	memcpy(dir + sizeof(dir) - 7, "XXXXXX", 6); // each test makes its own
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/info", dir);
	mkdir(path, 0755);
	put("info/less.list", "/.\n/usr\n/usr/bin\n/usr/bin/less\n/usr/share/man/man1/less.1.gz\n");
	put("info/libtinfo6:amd64.list", "/.\n/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu/libtinfo.so.6.4");
	put("info/python3.11-minimal.list", "/usr/bin/python3.11\n");
	put("info/libpython3.11-stdlib:amd64.list", "/usr/lib/python3.11/lib-dynload/_ctypes.cpython-311-x86_64-linux-gnu.so\n");
	snprintf(path, sizeof(path), "%s/info/trap.list", dir);
	mkdir(path, 0755); // not a regular file: skipped
	put("status", "Package: less\nStatus: install ok installed\nVersion: 590-2\n\n"
		      "Package: libtinfo6\nArchitecture: amd64\nSource: ncurses (6.4-4)\nVersion: 6.4-4\n\n"
		      "Package: python3.11-minimal\nSource: python3.11\n\n"
		      "Package: libpython3.11-stdlib\nSource: python3.11\n");
}

static void remove_db(void)
{
	const char *files[] = { "info/less.list", "info/libtinfo6:amd64.list", "info/python3.11-minimal.list",
				"info/libpython3.11-stdlib:amd64.list", "status" };
	char path[256];
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/info/trap.list", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/info", dir);
	rmdir(path);
	rmdir(dir);
}

TEST(dpkg_owners_and_sources)
{
	struct ct_strpool pool;
	ct_strpool_init(&pool);
	make_db();
	struct ct_pkgdb_entry e[] = {
		{ .path = "/usr/bin/less" },
		{ .path = "/usr/lib/x86_64-linux-gnu/libtinfo.so.6.4" }, // merged /usr: the list says /lib/…
		{ .path = "/usr/bin/python3.11" },
		{ .path = "/usr/lib/python3.11/lib-dynload/_ctypes.cpython-311-x86_64-linux-gnu.so" },
		{ .path = "/home/u/app/libown.so" },
		{ .path = "/usr/share/man/man1" }, // a directory line is no file of ours: not listed
	};
	struct ct_error *err = ct_dpkg_find_owners(dir, &pool, e, 6);
	CHECK(err == NULL);
	ct_error_destroy(err);
	CHECK_STR(e[0].package, "less");
	CHECK_STR(e[0].source, "less"); // no Source field: the source package has the binary's name
	CHECK_STR(e[1].package, "libtinfo6");
	CHECK_STR(e[1].source, "ncurses");
	CHECK_STR(e[2].source, "python3.11");
	CHECK_STR(e[3].package, "libpython3.11-stdlib");
	CHECK_STR(e[3].source, "python3.11");
	CHECK(e[4].package == NULL && e[4].source == NULL);
	CHECK(e[5].package == NULL);
	remove_db();
	// No database at all: NOT_FOUND-like OS error, entries untouched.
	struct ct_pkgdb_entry none = { .path = "/usr/bin/less" };
	err = ct_dpkg_find_owners("/nonexistent/dpkg", &pool, &none, 1);
	CHECK(err != NULL);
	ct_error_destroy(err);
	CHECK(none.package == NULL);
	CHECK_STR(ct_dpkg_source_name(&pool, " ncurses (6.4-4)", 16), "ncurses");
	CHECK(ct_dpkg_source_name(&pool, "  ", 2) == NULL);
	ct_strpool_deinit(&pool);
}

// The answers kept in the cache directory (pkgdb_cache.h): the same as without it, read back while
// the database is unchanged (a list edited in place is not read again), asked anew once dpkg
// replaces status.
TEST(dpkg_owners_cached_until_the_database_changes)
{
	struct ct_strpool pool;
	ct_strpool_init(&pool);
	make_db();
	char cache[300], file[320], path[300], tmp[300];
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	snprintf(file, sizeof(file), "%s/dpkg-owners", cache);
	struct ct_pkgdb_entry plain[] = { { .path = "/usr/bin/less" },
					  { .path = "/usr/lib/x86_64-linux-gnu/libtinfo.so.6.4" },
					  { .path = "/home/u/app/libown.so" } };
	struct ct_pkgdb_entry first[3], second[3];
	memcpy(first, plain, sizeof(plain));
	memcpy(second, plain, sizeof(plain));
	CHECK(ct_dpkg_find_owners(dir, &pool, plain, 3) == NULL);
	CHECK(ct_dpkg_find_owners_cached(dir, cache, &pool, first, 3) == NULL);
	CHECK(access(file, R_OK) == 0);
	put("info/less.list", "/.\n"); // in place: dpkg never does this, so the cache does not see it
	CHECK(ct_dpkg_find_owners_cached(dir, cache, &pool, second, 3) == NULL);
	for (size_t i = 0; i < 3; i++) {
		CHECK(first[i].package == plain[i].package || (first[i].package && plain[i].package &&
							      strcmp(first[i].package, plain[i].package) == 0));
		CHECK(second[i].package == plain[i].package || (second[i].package && plain[i].package &&
							       strcmp(second[i].package, plain[i].package) == 0));
	}
	CHECK_STR(second[0].package, "less");
	CHECK_STR(second[1].source, "ncurses");
	CHECK(second[2].package == NULL && second[2].source == NULL);
	// dpkg writes status anew and renames it: the stamp changes, the lists are read again.
	snprintf(path, sizeof(path), "%s/status", dir);
	snprintf(tmp, sizeof(tmp), "%s/status-new", dir);
	CHECK(rename(path, tmp) == 0);
	put("status-new", "Package: libtinfo6\nSource: ncurses (6.4-4)\n");
	CHECK(rename(tmp, path) == 0);
	struct ct_pkgdb_entry third = { .path = "/usr/bin/less" };
	CHECK(ct_dpkg_find_owners_cached(dir, cache, &pool, &third, 1) == NULL);
	CHECK(third.package == NULL);
	unlink(file);
	rmdir(cache);
	unlink(tmp);
	remove_db();
	ct_strpool_deinit(&pool);
}

TEST(program_owns_by_executable_package_and_tree)
{
	struct ct_program p;
	// less calling libtinfo: an installed executable, packages differ.
	ct_program_init(&p, "/usr/bin/less", "less");
	CHECK(p.tree == NULL);
	CHECK_STR(ct_program_owns(&p, true, "/usr/bin/less", "less"), "the executable");
	CHECK(ct_program_owns(&p, false, "/usr/lib/x86_64-linux-gnu/libtinfo.so.6.4", "ncurses") == NULL);
	// python3.11 and its extension modules: one source package.
	ct_program_init(&p, "/usr/bin/python3.11", "python3.11");
	CHECK_STR(ct_program_owns(&p, false, "/usr/lib/python3.11/lib-dynload/_ctypes.so", "python3.11"),
		  "built from the executable's source package");
	// A program installed in its own tree: bin/ and lib/ under /opt/app.
	ct_program_init(&p, "/opt/app/bin/server", NULL);
	CHECK(p.tree && p.tree_len == 8);
	CHECK_STR(ct_program_owns(&p, false, "/opt/app/lib/libcore.so", NULL), "under the executable's directory tree");
	CHECK(ct_program_owns(&p, false, "/opt/application/lib/libx.so", NULL) == NULL);
	CHECK(ct_program_owns(&p, false, "/usr/lib/x86_64-linux-gnu/libz.so.1.2.13", "zlib") == NULL);
	// A tree as wide as /usr/local or /opt is no program's own.
	ct_program_init(&p, "/usr/local/bin/tool", NULL);
	CHECK(p.tree == NULL);
	ct_program_init(&p, "/opt/tool", NULL);
	CHECK(p.tree == NULL);
	// The executable beside its library (a build directory).
	ct_program_init(&p, "/home/u/build/exe", NULL);
	CHECK_STR(ct_program_owns(&p, false, "/home/u/build/libown.so", NULL), "under the executable's directory tree");
	ct_program_init(&p, NULL, NULL);
	CHECK(ct_program_owns(&p, false, "/x/libown.so", NULL) == NULL);
}

TEST(blame_prefers_the_program)
{
	struct ct_frame_fact frames[] = {
		{ .function = "strlen", .module = "libc.so.6", .library = true, .runtime_why = "the C/C++ runtime" },
		{ .function = "tgetstr", .module = "libtinfo.so.6", .own = true, .package = "ncurses" },
		{ .function = "setup_terminal", .module = "less", .own = true, .program = true },
	};
	CHECK_EQ(ct_find_blame(frames, 3), 2);
	frames[2].program = false; // no program frame: the first frame outside the runtimes, as before
	CHECK_EQ(ct_find_blame(frames, 3), 1);
	CHECK_EQ(ct_find_blame(frames, 1), -1);
}

TEST(perf_map_parse_and_find)
{
	struct ct_strpool pool;
	ct_strpool_init(&pool);
	// Good lines, a 0x prefix, CRLF, then hostile ones: no size, zero size, a wrapping range,
	// overflowing hex, no name separator, an empty line.
	static const char text[] = "55ee44b1ff9d 5c TRACE_1::prog.lua:27\n"
				   "0x7f0000001000 100 LazyCompile:~main app.js:1\r\n"
				   "7f0000002000\n"
				   "7f0000003000 0 empty\n"
				   "ffffffffffffff00 1000 wraps\n"
				   "1ffffffffffffffff 10 overflow\n"
				   "7f0000004000 10\n"
				   "\n"
				   "55ee44b1ff9d 10 TRACE_9::prog.lua:40";
	struct ct_perfmap map;
	ct_perfmap_parse(&pool, text, sizeof(text) - 1, &map);
	CHECK_EQ(map.num_entries, 3);
	const struct ct_perfmap_entry *e = ct_perfmap_find(&map, 0x55ee44b1ffe1);
	CHECK(e && strcmp(e->name, "TRACE_1::prog.lua:27") == 0);
	e = ct_perfmap_find(&map, 0x55ee44b1ffa0); // both cover it: the later entry wins
	CHECK(e && strcmp(e->name, "TRACE_9::prog.lua:40") == 0);
	e = ct_perfmap_find(&map, 0x7f00000010ff);
	CHECK(e && strcmp(e->name, "LazyCompile:~main app.js:1") == 0);
	CHECK(ct_perfmap_find(&map, 0x7f0000001100) == NULL);
	CHECK(ct_perfmap_find(&map, 0x7f0000003000) == NULL);
	ct_perfmap_deinit(&map);
	ct_strpool_deinit(&pool);
}

TEST_MAIN()
