// Unit tests of the dpkg file-list lookup behind the module-no-symbols hint (src/modules/symbol_hints.c),
// over a dpkg database built here.
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modules/symbol_hints.h"
#include "test.h"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(dpkg_owner)
{
	char root[] = "/tmp/ct-dpkg-XXXXXX";
	CHECK(mkdtemp(root) != NULL);
	char dir[256], list[300];
	snprintf(dir, sizeof(dir), "%s/var", root);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/var/lib", root);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/var/lib/dpkg", root);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/var/lib/dpkg/info", root);
	mkdir(dir, 0700);
	snprintf(list, sizeof(list), "%s/libfoo1:amd64.list", dir);
	write_file(list, "/.\n/lib\n/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu/libfoo.so.1\n");
	snprintf(list, sizeof(list), "%s/libpython3.11:amd64.list", dir);
	write_file(list, "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0\n");
	snprintf(list, sizeof(list), "%s/bar-utils.list", dir);
	write_file(list, "/usr/bin/bar\n/usr/bin/bar-helper");
	snprintf(list, sizeof(list), "%s/bar-utils.md5sums", dir);
	write_file(list, "/usr/bin/baz\n");
	char pkg[64];
	// The kernel records the merged-/usr path; dpkg lists the old one.
	CHECK(ct_dpkg_owner(root, "/usr/lib/x86_64-linux-gnu/libfoo.so.1", pkg, sizeof(pkg)));
	CHECK_STR(pkg, "libfoo1");
	CHECK(ct_dpkg_owner(root, "/lib/x86_64-linux-gnu/libfoo.so.1", pkg, sizeof(pkg)));
	CHECK_STR(pkg, "libfoo1");
	// No architecture in the name, and a last line without a newline.
	CHECK(ct_dpkg_owner(root, "/usr/bin/bar-helper", pkg, sizeof(pkg)));
	CHECK_STR(pkg, "bar-utils");
	CHECK(ct_dpkg_owner(root, "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", pkg, sizeof(pkg)));
	CHECK_STR(pkg, "libpython3.11");
	// Only whole lines of .list files match.
	CHECK(!ct_dpkg_owner(root, "/usr/bin/ba", pkg, sizeof(pkg)));
	CHECK(!ct_dpkg_owner(root, "/usr/bin/baz", pkg, sizeof(pkg)));
	CHECK(!ct_dpkg_owner("/nonexistent", "/usr/bin/bar", pkg, sizeof(pkg)));
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
}

TEST_MAIN()
