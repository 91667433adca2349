// What /proc says about a live process and its threads: maps, stat, status, cmdline, auxv, the
// executable's class, and why ptrace is refused. Every file is read with a cap: /proc's sizes are 0.
#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/internal.h"
#include "util/cleanup.h"
#include "util/grow.h"

static char *read_capped(const char *path, size_t cap, size_t *len_ret)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t size = cap < 4096 ? cap : 4096, got = 0;
	char *buf = malloc(size + 1);
	while (buf) {
		if (got == size) {
			if (size >= cap)
				break;
			size_t next = size * 2 < cap ? size * 2 : cap;
			char *grown = realloc(buf, next + 1);
			if (!grown) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = grown;
			size = next;
		}
		ssize_t r = read(fd, buf + got, size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	if (!buf) {
		errno = ENOMEM;
		return NULL;
	}
	buf[got] = '\0';
	if (len_ret)
		*len_ret = got;
	return buf;
}

char *ct_live_read_proc(int pid, int tid, const char *name, size_t cap, size_t *len_ret)
{
	char path[96];
	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", pid, tid, name);
	else
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	return read_capped(path, cap, len_ret);
}

static int compare_mappings(const void *a, const void *b)
{
	const struct ct_live_mapping *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

struct ct_error *ct_live_read_maps(int pid, const char *name, struct ct_live_snapshot *snap)
{
	_cleanup_free_ char *text = ct_live_read_proc(pid, 0, name, CT_LIVE_PROC_CAP, NULL);
	if (!text)
		return errno == ENOENT || errno == ESRCH ? ct_error_create(CT_ERROR_NOT_FOUND, "process %d exited", pid)
							  : ct_error_os(errno, "/proc/%d/maps", pid);
	size_t cap = 0;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		uint64_t start, end, off;
		char perms[5];
		int path_at = 0;
		unsigned long anon_kb = 0;
		// smaps: the mapping's lines follow it; "Anonymous:" counts its private pages written.
		if (snap->num_mappings && sscanf(line, "Anonymous: %lu kB", &anon_kb) == 1) {
			snap->mappings[snap->num_mappings - 1].dirty_private = anon_kb > 0;
			continue;
		}
		// "start-end perms offset dev inode   path"
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %*s %*s %n", &start, &end, perms, &off, &path_at) < 4 ||
		    end <= start)
			continue;
		if (snap->num_mappings >= CT_LIVE_MAX_MAPPINGS)
			break;
		if (!CT_GROW(snap->mappings, cap, snap->num_mappings + 1, 64, CT_LIVE_MAX_MAPPINGS))
			return &ct_enomem;
		struct ct_live_mapping *m = &snap->mappings[snap->num_mappings];
		memset(m, 0, sizeof(*m));
		m->start = start;
		m->end = end;
		m->file_offset = off;
		m->readable = perms[0] == 'r';
		m->writable = perms[1] == 'w';
		m->executable = perms[2] == 'x';
		m->shared = perms[3] == 's';
		const char *p = path_at ? line + path_at : "";
		while (*p == ' ')
			p++;
		if (*p) {
			m->path = strdup(p);
			if (!m->path)
				return &ct_enomem;
		}
		snap->num_mappings++;
	}
	// The kernel lists them in order already; sorting keeps the core's segments sorted whatever it did.
	if (snap->num_mappings > 1)
		qsort(snap->mappings, snap->num_mappings, sizeof(snap->mappings[0]), compare_mappings);
	return NULL;
}

bool ct_live_read_stat(int pid, int tid, struct ct_live_stat *ret)
{
	_cleanup_free_ char *text = ct_live_read_proc(pid, tid, "stat", 4096, NULL);
	if (!text)
		return false;
	// The comm in parentheses may hold anything, ')' included: the fields follow the last ')'.
	char *close = strrchr(text, ')');
	if (!close)
		return false;
	unsigned long long utime = 0, stime = 0;
	memset(ret, 0, sizeof(*ret));
	int n = sscanf(close + 1, " %c %d %d %d %*s %*s %*s %*s %*s %*s %*s %llu %llu", &ret->state, &ret->ppid,
		       &ret->pgrp, &ret->sid, &utime, &stime);
	ret->utime = utime;
	ret->stime = stime;
	return n >= 4;
}

// The ELF class and machine of the executable: the registers' layout is the process' own, and a
// 32-bit process under a 64-bit tracer has another one.
static struct ct_error *read_exe_header(int pid, struct ct_live_snapshot *snap)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) < (ssize_t)EI_NIDENT + 4 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
		// A kernel thread has no executable; so has a process whose file cannot be opened.
		return errno == EACCES || errno == EPERM ? ct_live_permission_error(pid)
							 : ct_error_create(CT_ERROR_UNSUPPORTED, "process %d has no ELF executable "
											       "(a kernel thread?)", pid);
	}
	snap->elf_class = eh.e_ident[EI_CLASS];
	// e_machine sits at the same offset in both classes.
	snap->e_machine = eh.e_machine;
	if (snap->elf_class != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
		return ct_error_create(CT_ERROR_UNSUPPORTED, "process %d is a %d-bit program: a %zu-bit coretriage reads "
					"only processes of its own word size", pid, snap->elf_class == ELFCLASS64 ? 64 : 32,
					sizeof(void *) * 8);
	return NULL;
}

static void read_ids(int pid, struct ct_live_snapshot *snap)
{
	_cleanup_free_ char *text = ct_live_read_proc(pid, 0, "status", 65536, NULL);
	const char *uid = text ? strstr(text, "\nUid:") : NULL, *gid = text ? strstr(text, "\nGid:") : NULL;
	if (uid)
		sscanf(uid + 5, "%*u %u", &snap->uid);
	if (gid)
		sscanf(gid + 5, "%*u %u", &snap->gid);
}

bool ct_live_thread_name(int pid, int tid, char buf[17])
{
	_cleanup_free_ char *comm = ct_live_read_proc(pid, tid, "comm", 64, NULL);
	if (!comm)
		return false;
	comm[strcspn(comm, "\n")] = '\0';
	snprintf(buf, 17, "%s", comm);
	return true;
}

struct ct_error *ct_live_read_process(int pid, struct ct_live_snapshot *snap)
{
	struct ct_live_stat st;
	if (!ct_live_read_stat(pid, 0, &st))
		return ct_error_create(CT_ERROR_NOT_FOUND, "no process %d", pid);
	if (st.state == 'Z' || st.state == 'X')
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "process %d is a zombie: it has exited and only waits for "
					"its parent (%d) to collect it; there is nothing left to read", pid, st.ppid);
	snap->pid = pid;
	snap->state = st.state;
	snap->ppid = st.ppid;
	snap->pgrp = st.pgrp;
	snap->sid = st.sid;
	read_ids(pid, snap);
	ct_live_thread_name(pid, 0, snap->comm);
	size_t len = 0;
	_cleanup_free_ char *cmdline = ct_live_read_proc(pid, 0, "cmdline", sizeof(snap->psargs), &len);
	if (cmdline) {
		// pr_psargs: the arguments joined by spaces, cut at 80 bytes.
		size_t n = len < sizeof(snap->psargs) - 1 ? len : sizeof(snap->psargs) - 1;
		for (size_t i = 0; i < n; i++)
			snap->psargs[i] = cmdline[i] ? cmdline[i] : ' ';
		while (n && snap->psargs[n - 1] == ' ')
			n--;
		snap->psargs[n] = '\0';
	}
	return read_exe_header(pid, snap);
}

void ct_live_read_thread_state(int pid, struct ct_live_thread *t)
{
	struct ct_live_stat st;
	t->syscall = -2;
	if (ct_live_read_stat(pid, t->tid, &st)) {
		t->state = st.state;
		long hz = sysconf(_SC_CLK_TCK);
		if (hz > 0) {
			t->user_usec = st.utime * 1000000 / (uint64_t)hz;
			t->system_usec = st.stime * 1000000 / (uint64_t)hz;
		}
	}
	_cleanup_free_ char *sc = ct_live_read_proc(pid, t->tid, "syscall", 512, NULL);
	// "running" (on a CPU), "-1 sp pc" (in user space), or "NR args… sp pc" (in a system call).
	if (sc && !strncmp(sc, "running", 7))
		t->syscall = -1;
	else if (sc && (isdigit((unsigned char)sc[0]) || sc[0] == '-')) {
		char *end;
		t->syscall = strtol(sc, &end, 10);
		t->syscall_arg0 = strtoull(end, NULL, 16);
	}
	// A descriptor-sized first argument may be an fd (read, accept, epoll_wait): what it is.
	if (t->syscall >= 0 && t->syscall_arg0 < (1u << 20)) {
		char link[64];
		snprintf(link, sizeof(link), "/proc/%d/fd/%llu", pid, (unsigned long long)t->syscall_arg0);
		ssize_t n = readlink(link, t->fd_target, sizeof(t->fd_target) - 1);
		t->fd_target[n > 0 ? n : 0] = '\0';
	}
	_cleanup_free_ char *wchan = ct_live_read_proc(pid, t->tid, "wchan", sizeof(t->wchan) - 1, NULL);
	if (wchan && strcmp(wchan, "0") != 0)
		snprintf(t->wchan, sizeof(t->wchan), "%s", wchan);
}

static int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

struct ct_error *ct_live_list_tasks(int pid, size_t cap, int **tids_ret, size_t *num_ret)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	DIR *d = opendir(path);
	if (!d)
		return errno == ENOENT || errno == ESRCH ? ct_error_create(CT_ERROR_NOT_FOUND, "no process %d", pid)
							  : ct_error_os(errno, "%s", path);
	int *tids = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL && n < cap) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		if (!CT_GROW(tids, alloc, n + 1, 64, cap)) {
			closedir(d);
			free(tids);
			return &ct_enomem;
		}
		tids[n++] = (int)tid;
	}
	closedir(d);
	if (n > 1)
		qsort(tids, n, sizeof(tids[0]), compare_ints);
	*tids_ret = tids;
	*num_ret = n;
	return NULL;
}

// CAP_SYS_PTRACE in our effective set (bit 19 of CapEff).
static bool have_cap_sys_ptrace(void)
{
	_cleanup_free_ char *text = ct_live_read_proc(getpid(), 0, "status", 65536, NULL);
	const char *cap = text ? strstr(text, "\nCapEff:") : NULL;
	unsigned long long eff = 0;
	return cap && sscanf(cap + 8, "%llx", &eff) == 1 && (eff >> 19 & 1);
}

struct ct_error *ct_live_permission_error(int pid)
{
	struct ct_live_snapshot who = { 0 };
	read_ids(pid, &who);
	bool cap = have_cap_sys_ptrace();
	uid_t me = geteuid();
	if (who.uid != me && !cap)
		return ct_error_create(CT_ERROR_OS, "cannot attach to process %d: it belongs to user %u and coretriage runs as "
					"user %u without CAP_SYS_PTRACE; run it as user %u, or as root", pid, who.uid,
					(unsigned)me, who.uid);
	_cleanup_free_ char *scope = read_capped("/proc/sys/kernel/yama/ptrace_scope", 16, NULL);
	int yama = scope ? atoi(scope) : 0;
	if (yama >= 3)
		return ct_error_create(CT_ERROR_OS, "cannot attach to process %d: kernel.yama.ptrace_scope is 3 (no process may "
					"be traced, until reboot)", pid);
	if (yama == 2 && !cap)
		return ct_error_create(CT_ERROR_OS, "cannot attach to process %d: kernel.yama.ptrace_scope is 2 (only "
					"CAP_SYS_PTRACE may trace); run as root, or `sysctl kernel.yama.ptrace_scope=1`", pid);
	if (yama == 1 && !cap)
		return ct_error_create(CT_ERROR_OS, "cannot attach to process %d: kernel.yama.ptrace_scope is 1 (only a parent "
					"may trace its children); run with sudo, grant CAP_SYS_PTRACE "
					"(`setcap cap_sys_ptrace+ep coretriage`), or `sysctl kernel.yama.ptrace_scope=0`", pid);
	if (!cap && me == 0)
		return ct_error_create(CT_ERROR_OS, "cannot attach to process %d: coretriage runs as root without CAP_SYS_PTRACE "
					"(a container: add it, e.g. `docker run --cap-add=SYS_PTRACE`)", pid);
	return ct_error_create(CT_ERROR_OS, "cannot attach to process %d: permission denied (a set-user-ID or otherwise "
				"non-dumpable process, or a security module such as SELinux or AppArmor refuses it)", pid);
}
