// Which frames are the program's own code (issue 21, docs/classes.md "Blame"): the executable, the
// libraries built from the executable's source package, and the libraries under the executable's
// own directory tree. A NULL dereference inside libtinfo called by less is blamed on less's frame.
#include <string.h>

#include "triage/facts.h"

/** Directory names whose parent is the installation's root: /opt/app/bin/prog → /opt/app. */
static const char *const bin_dirs[] = { "bin", "sbin", "libexec", NULL };
/** Roots too wide to be one program's tree: everything installed locally lives under them. */
static const char *const shared_roots[] = { "/usr/local", "/opt", "/home", "/tmp", "/srv", "/snap", NULL };

void ct_program_init(struct ct_program *p, const char *exe_path, const char *exe_source)
{
	*p = (struct ct_program){ .exe_path = exe_path, .exe_source = exe_source };
	// An installed executable's tree is the system's (/usr/bin → /usr): its libraries are judged
	// by package only.
	if (!exe_path || exe_path[0] != '/' || ct_path_is_system(exe_path) || strncmp(exe_path, "/usr/bin/", 9) == 0 ||
	    strncmp(exe_path, "/usr/sbin/", 10) == 0 || strncmp(exe_path, "/bin/", 5) == 0 ||
	    strncmp(exe_path, "/sbin/", 6) == 0 || strncmp(exe_path, "/usr/games/", 11) == 0)
		return;
	const char *slash = strrchr(exe_path, '/');
	size_t len = (size_t)(slash - exe_path);
	const char *last = exe_path;
	for (const char *q = exe_path; q < slash; q++) {
		if (*q == '/')
			last = q + 1;
	}
	for (const char *const *b = bin_dirs; *b; b++) {
		if ((size_t)(slash - last) == strlen(*b) && strncmp(last, *b, strlen(*b)) == 0 && last > exe_path + 1) {
			len = (size_t)(last - 1 - exe_path);
			break;
		}
	}
	if (len == 0)
		return;
	for (const char *const *r = shared_roots; *r; r++) {
		if (len == strlen(*r) && strncmp(exe_path, *r, len) == 0)
			return;
	}
	p->tree = exe_path;
	p->tree_len = len;
}

const char *ct_program_owns(const struct ct_program *p, bool is_main, const char *path, const char *source)
{
	if (is_main)
		return "the executable";
	if (source && p->exe_source && strcmp(source, p->exe_source) == 0)
		return "built from the executable's source package";
	if (path && p->tree && strncmp(path, p->tree, p->tree_len) == 0 && path[p->tree_len] == '/')
		return "under the executable's directory tree";
	return NULL;
}
