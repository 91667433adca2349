// `coretriage collect`: triage where the core lands (docs/fleet.md). As the kernel's core_pattern
// pipe handler (`--pipe PID SIGNAL TIME EXE`, the core on standard input) it saves the core under
// a systemd-coredump name; as a watcher (`--watch DIR`, inotify) it takes each core that appears in
// DIR (systemd-coredump's /var/lib/systemd/coredump). Each core is analyzed in a child that
// opens the core, then drops every privilege (another user, no groups, no new privileges) before
// it parses a byte of it, under the --safe limits (time, memory, no network, no cache). The parent
// never parses the core: it writes the child's report next to the core, records it in the store
// (--db) and, with --journal, sends a structured journal entry.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/uio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if CT_HAVE_SYSTEMD
#include <systemd/sd-journal.h>
#endif

#include "cli/batch.h"
#include "cli/collect.h"
#include "dump/sniff.h"
#include "input/input.h"
#include "lazy/lazy.h"
#include "writers/json_text.h"
#include "store/store.h"

/** Where --pipe saves cores unless --core-dir says otherwise. */
#define COLLECT_DEFAULT_CORE_DIR "/var/lib/coretriage/cores"
/** The user the analysis runs as unless --user says otherwise (the first that exists). */
static const char *const collect_default_users[] = { "coretriage", "systemd-coredump", "nobody" };
/** A core saved from the pipe is at most this large unless --max-core-size says otherwise: the
 * kernel's stream must not fill the disk. */
#define COLLECT_DEFAULT_MAX_CORE (8ull << 30)
/** The child's output (meta line and JSON report) read at most: a report is far smaller. */
#define COLLECT_MAX_OUTPUT (64u << 20)
/** Copy block of the pipe; an all-zero block becomes a hole. */
#define COLLECT_BLOCK 65536

static const char collect_help[] =
	"Usage: coretriage collect [OPTIONS] --pipe PID SIGNAL TIME EXE\n"
	"       coretriage collect [OPTIONS] --watch DIR\n"
	"Triages each core where it lands (docs/fleet.md): as the kernel's core_pattern handler\n"
	"  |/usr/bin/coretriage collect --pipe --db=/var/lib/coretriage/crashes.db %P %s %t %E\n"
	"(the core on standard input is saved under --core-dir), or by watching DIR for new cores\n"
	"(systemd-coredump's /var/lib/systemd/coredump). Each core is analyzed by a child that drops\n"
	"its privileges to --user before reading it, with --safe's limits; its JSON report is written\n"
	"next to the core (CORE.json) and recorded in --db.\n"
	"Options:\n"
	"      --pipe                 core_pattern handler: the core on standard input, then the\n"
	"                             arguments %P %s %t %E\n"
	"      --watch=DIR            triage every core that appears in DIR (inotify)\n"
	"      --db=URL               record each report in the crash store (PATH, sqlite:PATH,\n"
	"                             postgresql://…)\n"
	"      --user=NAME            run the analysis as NAME (default: coretriage, systemd-coredump\n"
	"                             or nobody, the first that exists; only when started as root)\n"
	"      --core-dir=DIR         --pipe: where the core is saved (default /var/lib/coretriage/cores)\n"
	"      --max-core-size=SIZE   --pipe: save at most SIZE bytes of the core (default 8G)\n"
	"      --timeout=S            per core (default 60)\n"
	"      --max-memory=MIB       per core (default 4096)\n"
	"      --safe                 also open no file the core names (program, libraries)\n"
	"      --journal              also send a structured journal entry per core (COREDUMP_*,\n"
	"                             CORETRIAGE_*)\n"
	"      --no-report-file       do not write CORE.json\n"
	"      --record-version=V     the version recorded in --db for every core\n"
	"      --exit-after=N         --watch: stop after N cores (tests, one-shot runs)\n"
	"  -h, --help                 show this help and exit\n";

struct collect {
	bool pipe;
	const char *watch, *db, *user, *core_dir, *record_version;
	uint64_t max_core;
	unsigned timeout;
	unsigned long max_memory_mib;
	bool safe, journal, no_report_file;
	unsigned long exit_after;
	uid_t uid;
	gid_t gid;
	bool drop;
	struct ct_store *store;
	char host[256];
};


static bool parse_ul(const char *s, unsigned long max, unsigned long *ret)
{
	char *end;
	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return false;
	*ret = v;
	return true;
}

static int parse_args(int argc, char **argv, struct collect *c, char ***pos, int *npos)
{
	enum { O_PIPE = 256, O_WATCH, O_DB, O_USER, O_CORE_DIR, O_MAX_CORE, O_TIMEOUT, O_MAX_MEMORY, O_SAFE,
	       O_JOURNAL, O_NO_REPORT, O_VERSION, O_EXIT_AFTER };
	static const struct option opts[] = {
		{ "pipe", no_argument, NULL, O_PIPE },
		{ "watch", required_argument, NULL, O_WATCH },
		{ "db", required_argument, NULL, O_DB },
		{ "user", required_argument, NULL, O_USER },
		{ "core-dir", required_argument, NULL, O_CORE_DIR },
		{ "max-core-size", required_argument, NULL, O_MAX_CORE },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "max-memory", required_argument, NULL, O_MAX_MEMORY },
		{ "safe", no_argument, NULL, O_SAFE },
		{ "journal", no_argument, NULL, O_JOURNAL },
		{ "no-report-file", no_argument, NULL, O_NO_REPORT },
		{ "record-version", required_argument, NULL, O_VERSION },
		{ "exit-after", required_argument, NULL, O_EXIT_AFTER },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	c->core_dir = COLLECT_DEFAULT_CORE_DIR;
	c->max_core = COLLECT_DEFAULT_MAX_CORE;
	c->timeout = CT_SAFE_DEFAULT_TIMEOUT;
	c->max_memory_mib = CT_SAFE_DEFAULT_MAX_MEMORY_MIB;
	opterr = 0;
	optind = 1;
	int ch;
	unsigned long v;
	// "+": the pipe's arguments (an EXE such as "!usr!bin!x") are never options.
	while ((ch = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (ch) {
		case O_PIPE: c->pipe = true; break;
		case O_WATCH: c->watch = optarg; break;
		case O_DB: c->db = optarg; break;
		case O_USER: c->user = optarg; break;
		case O_CORE_DIR: c->core_dir = optarg; break;
		case O_MAX_CORE:
			if (!parse_ul(optarg, ULONG_MAX, &v) || !v)
				return ct_cli_command_usage("collect", "--max-core-size: '%s' is not a number of bytes", optarg);
			c->max_core = v;
			break;
		case O_TIMEOUT:
			if (!parse_ul(optarg, 86400, &v) || !v)
				return ct_cli_command_usage("collect", "--timeout: '%s' is not a number of seconds (1-86400)", optarg);
			c->timeout = (unsigned)v;
			break;
		case O_MAX_MEMORY:
			if (!parse_ul(optarg, 1ul << 30, &v) || v < 64)
				return ct_cli_command_usage("collect", "--max-memory: '%s' is not a size in MiB (at least 64)", optarg);
			c->max_memory_mib = v;
			break;
		case O_SAFE: c->safe = true; break;
		case O_JOURNAL: c->journal = true; break;
		case O_NO_REPORT: c->no_report_file = true; break;
		case O_VERSION: c->record_version = optarg; break;
		case O_EXIT_AFTER:
			if (!parse_ul(optarg, ULONG_MAX, &v) || !v)
				return ct_cli_command_usage("collect", "--exit-after: '%s' is not a positive number", optarg);
			c->exit_after = v;
			break;
		case 'h': fputs(collect_help, stdout); return 0;
		case ':': return ct_cli_command_usage("collect", "%s needs a value", argv[optind - 1]);
		default: return ct_cli_command_usage("collect", "unknown option '%s'", argv[optind - 1]);
		}
	}
	*pos = argv + optind;
	*npos = argc - optind;
	if (c->pipe == !!c->watch)
		return ct_cli_command_usage("collect", "give --pipe PID SIGNAL TIME EXE or --watch DIR");
	if (c->pipe && *npos != 4)
		return ct_cli_command_usage("collect", "--pipe takes the core_pattern arguments %%P %%s %%t %%E (4, given %d)", *npos);
	if (c->watch && *npos)
		return ct_cli_command_usage("collect", "too many arguments: '%s'", (*pos)[0]);
	return -1;
}

// The user the analysis runs as, when this runs as root; without root nothing can be dropped.
static int choose_user(struct collect *c)
{
	if (geteuid() != 0) {
		if (c->user)
			return ct_cli_command_usage("collect", "--user needs root (this runs as uid %u)", (unsigned)geteuid());
		return -1;
	}
	const struct passwd *pw = NULL;
	if (c->user) {
		pw = getpwnam(c->user);
		if (!pw)
			return ct_cli_command_usage("collect", "--user %s: no such user", c->user);
	} else {
		for (size_t i = 0; !pw && i < sizeof(collect_default_users) / sizeof(collect_default_users[0]); i++)
			pw = getpwnam(collect_default_users[i]);
		if (!pw)
			return ct_cli_command_usage("collect", "no unprivileged user to analyze as: give --user");
	}
	if (pw->pw_uid == 0)
		return ct_cli_command_usage("collect", "--user %s is root: the analysis must not run as root", pw->pw_name);
	c->uid = pw->pw_uid;
	c->gid = pw->pw_gid;
	c->drop = true;
	return -1;
}

/* ---- The child: drop privileges, analyze, send meta and report ---- */

static _Noreturn void child(const struct collect *c, const char *path, int core_fd, const char *exe, int out_fd)
{
	// Limits first (as batch workers get them), then the identity: nothing of the core is read
	// before both.
	struct rlimit none = { 0, 0 }, mem = { (rlim_t)c->max_memory_mib << 20, (rlim_t)c->max_memory_mib << 20 };
	setrlimit(RLIMIT_CORE, &none);
	if (CT_MEMORY_LIMIT_WORKS)
		setrlimit(RLIMIT_DATA, &mem);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGALRM, SIG_DFL);
	alarm(c->timeout);
	if (c->drop) {
		if (setgroups(0, NULL) != 0 || setgid(c->gid) != 0 || setuid(c->uid) != 0 || setuid(0) == 0)
			_exit(CT_EXIT_FATAL); // could not drop: analyze nothing
	}
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	struct ct_options opts;
	ct_options_init(&opts);
	opts.core_path = path;
	opts.has_core_fd = true;
	opts.core_fd = core_fd;
	opts.safe = c->safe;
	opts.debuginfod = false;
	opts.no_journal = true; // the entry this would read is being written right now
	opts.max_memory = (uint64_t)c->max_memory_mib << 20;
	opts.executable = exe && access(exe, R_OK) == 0 ? exe : NULL;
	FILE *out = fdopen(out_fd, "w");
	struct ct_report report;
	if (!out || !ct_report_init(&report))
		_exit(CT_EXIT_FATAL);
	void *reserve = ct_cli_memory_reserve();
	struct ct_error *err = ct_analyze(&opts, &report);
	free(reserve);
	json_t *meta;
	if (err) {
		meta = json_object();
		json_object_set_new(meta, "error", ct_json_text(ct_error_message(err)));
	} else {
		meta = ct_cli_core_meta(&report, path);
	}
	if (!meta)
		_exit(CT_EXIT_FATAL);
	json_object_set_new(meta, "status", json_integer(err ? CT_EXIT_FATAL : ct_report_is_complete(&report) ? 0 : 1));
	json_dumpf(meta, out, JSON_COMPACT | JSON_ENSURE_ASCII);
	fputc('\n', out);
	if (!err) {
		struct ct_write_options wo;
		ct_write_options_init(&wo);
		ct_write_json(out, &report, &wo, true);
	}
	_exit(fflush(out) == 0 ? 0 : CT_EXIT_FATAL);
}

/* ---- The parent: one core ---- */

static char *read_child(int fd, size_t *len_ret)
{
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap + 1);
	while (buf) {
		if (len == cap) {
			if (cap >= COLLECT_MAX_OUTPUT)
				break; // the rest is dropped: the child is killed when it does not stop
			char *nb = realloc(buf, 2 * cap + 1);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (buf)
		buf[len] = '\0';
	*len_ret = len;
	return buf;
}

static void write_report_file(const char *core, const char *json, size_t len)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s.json", core) >= (int)sizeof(path))
		return;
	// O_EXCL | O_NOFOLLOW: never through a link someone planted next to the core.
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0) {
		ct_cli_error("%s: %s", path, strerror(errno));
		return;
	}
	size_t off = 0;
	while (off < len) {
		ssize_t n = write(fd, json + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	if (off < len || close(fd) != 0)
		ct_cli_error("%s: %s", path, strerror(errno));
}

static void journal_entry(json_t *meta, const char *core, const char *pid, const char *sig)
{
#if CT_HAVE_SYSTEMD
	const char *cls = json_string_value(json_object_get(meta, "class"));
	const char *sum = json_string_value(json_object_get(meta, "summary"));
	const char *err = json_string_value(json_object_get(meta, "error"));
	const char *hash = json_string_value(json_object_get(meta, "hash"));
	const char *exe = json_string_value(json_object_get(meta, "executable"));
	// Values from the core go in as fields of their own (the journal stores bytes, no escapes
	// are interpreted); MESSAGE is for people. sd_journal_sendv, not the variadic sd_journal_send:
	// libsystemd is opened on first use (src/lazy/systemd.c) and a variadic call cannot be forwarded.
	char fields[9][512];
	int n = 0;
	struct iovec iov[9];
#define CT_FIELD(...) snprintf(fields[n], sizeof(fields[n]), __VA_ARGS__), n++
	CT_FIELD("MESSAGE=coretriage: %s", err ? err : sum ? sum : "analyzed");
	CT_FIELD("PRIORITY=%d", err ? 4 : 3);
	CT_FIELD("SYSLOG_IDENTIFIER=coretriage");
	CT_FIELD("CORETRIAGE_CORE=%s", core);
	CT_FIELD("CORETRIAGE_CLASS=%s", cls ? cls : "unknown");
	CT_FIELD("CORETRIAGE_BUCKET=%s", hash ? hash : "");
	CT_FIELD("COREDUMP_EXE=%s", exe ? exe : "");
	CT_FIELD("COREDUMP_PID=%s", pid ? pid : "");
	CT_FIELD("COREDUMP_SIGNAL=%s", sig ? sig : "");
#undef CT_FIELD
	for (int i = 0; i < n; i++)
		iov[i] = (struct iovec){ .iov_base = fields[i], .iov_len = strlen(fields[i]) };
	struct ct_error *e = ct_lazy_systemd_require();
	if (e) {
		ct_cli_error("--journal: %s", ct_error_message(e));
		ct_error_destroy(e);
		return;
	}
	int rc = sd_journal_sendv(iov, n);
	if (rc < 0)
		ct_cli_error("--journal: %s", strerror(-rc));
#else
	(void)meta, (void)core, (void)pid, (void)sig;
	ct_cli_error("--journal: this coretriage was built without libsystemd");
#endif
}

// Triages one core: the child analyzes it, this process writes and records what it says.
// Returns 0, 1 (partial or not recorded) or 2 (no report).
static int triage_core(struct collect *c, const char *path, const char *exe, const char *pid, const char *sig)
{
	int core_fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (core_fd < 0) {
		ct_cli_error("%s: %s", path, strerror(errno));
		return CT_EXIT_FATAL;
	}
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0) {
		close(core_fd);
		return CT_EXIT_FATAL;
	}
	fflush(NULL);
	pid_t child_pid = fork();
	if (child_pid == 0) {
		close(p[0]);
		child(c, path, core_fd, exe, p[1]);
	}
	close(p[1]);
	close(core_fd);
	if (child_pid < 0) {
		close(p[0]);
		ct_cli_error("%s: fork: %s", path, strerror(errno));
		return CT_EXIT_FATAL;
	}
	size_t len = 0;
	char *out = read_child(p[0], &len);
	close(p[0]);
	kill(child_pid, SIGKILL); // done or flooding: either way it has nothing more to say
	int ws = 0;
	while (waitpid(child_pid, &ws, 0) < 0 && errno == EINTR)
		;
	char *nl = out ? strchr(out, '\n') : NULL;
	json_t *meta = nl ? json_loadb(out, (size_t)(nl - out), 0, NULL) : NULL;
	int rc = CT_EXIT_FATAL;
	if (!json_is_object(meta)) {
		ct_cli_error("%s: the analysis ended without a result (%s)", path,
			     WIFSIGNALED(ws) ? strsignal(WTERMSIG(ws)) : "no output");
	} else if (json_object_get(meta, "error")) {
		ct_cli_error("%s: %s", path, json_string_value(json_object_get(meta, "error")));
	} else {
		rc = (int)json_integer_value(json_object_get(meta, "status"));
		const char *report = nl + 1;
		size_t report_len = len - (size_t)(report - out);
		if (!c->no_report_file)
			write_report_file(path, report, report_len);
		if (c->store) {
			struct ct_store_report r;
			ct_cli_store_report_from_meta(meta, &r);
			r.host = c->host[0] ? c->host : NULL;
			if (c->record_version)
				r.version = c->record_version;
			r.core = path;
			r.json = report;
			r.json_len = report_len;
			struct ct_error *err = r.bucket ? ct_store_record(c->store, &r, NULL) : NULL;
			if (err) {
				ct_cli_error("--db: %s", ct_error_message(err));
				ct_error_destroy(err);
				rc = rc ? rc : CT_EXIT_PARTIAL;
			}
		}
	}
	if (c->journal && json_is_object(meta))
		journal_entry(meta, path, pid, sig);
	json_decref(meta);
	free(out);
	return rc;
}

/* ---- --pipe ---- */

// systemd-coredump's name escaping of COMM (xescape of "./ " and what is not printable), so the
// saved core carries its metadata in its name as systemd-coredump's do (src/input/).
static void escape_comm(const char *s, char *out, size_t size)
{
	size_t n = 0;
	for (; *s && n + 5 < size && n < 64; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch <= ' ' || ch >= 0x7f || ch == '.' || ch == '/' || ch == '\\')
			n += (size_t)snprintf(out + n, size - n, "\\x%02x", ch);
		else
			out[n++] = (char)ch;
	}
	out[n] = '\0';
}

static void boot_id(char *out, size_t size)
{
	char buf[64] = "";
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	size_t n = 0;
	for (const char *p = buf; *p && n + 1 < size; p++)
		if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
			out[n++] = *p;
	while (n < 32 && n + 1 < size)
		out[n++] = '0';
	out[n] = '\0';
}

// The crashed process' real uid from /proc/PID/status (it exists until the core is read).
static unsigned long process_uid(const char *pid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	FILE *f = fopen(path, "r");
	unsigned long uid = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Uid:", 4)) {
			uid = strtoul(line + 4, NULL, 10);
			break;
		}
	}
	if (f)
		fclose(f);
	return uid;
}

static bool all_zero(const char *p, size_t n)
{
	return n && p[0] == 0 && !memcmp(p, p + 1, n - 1);
}

// --core-dir and the directories above it, as `mkdir -p` (the first crash after installing makes
// /var/lib/coretriage/cores).
static void make_dirs(const char *dir)
{
	char p[PATH_MAX];
	if (snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p))
		return;
	for (char *s = p + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	}
	mkdir(p, 0750);
}

// Saves standard input (the kernel's core) as CORE_DIR/core.COMM.UID.BOOTID.PID.USEC, at most
// --max-core-size bytes; zero blocks become holes, as systemd-coredump's sparse files.
static int save_core(const struct collect *c, char **argv, char *path, size_t size)
{
	const char *pid = argv[0], *t = argv[2], *exe = argv[3];
	unsigned long v;
	if (!parse_ul(pid, INT_MAX, &v) || !parse_ul(t, ULONG_MAX / 1000000, &v))
		return ct_cli_command_usage("collect", "--pipe: '%s %s' are not the PID (%%P) and the time (%%t)", pid, t);
	const char *slash = strrchr(exe, '!');
	char comm[320], boot[40];
	escape_comm(slash ? slash + 1 : exe, comm, sizeof(comm));
	boot_id(boot, sizeof(boot));
	if (snprintf(path, size, "%s/core.%s.%lu.%s.%s.%lu000000", c->core_dir, comm[0] ? comm : "unknown",
		     process_uid(pid), boot, pid, v) >= (int)size)
		return CT_EXIT_FATAL;
	make_dirs(c->core_dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0) {
		ct_cli_error("%s: %s", path, strerror(errno));
		return CT_EXIT_FATAL;
	}
	char *buf = malloc(COLLECT_BLOCK);
	if (!buf) {
		close(fd);
		return CT_EXIT_FATAL;
	}
	uint64_t total = 0;
	bool truncated = false;
	for (;;) {
		size_t got = 0;
		while (got < COLLECT_BLOCK) {
			ssize_t n = read(STDIN_FILENO, buf + got, COLLECT_BLOCK - got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		if (!got)
			break;
		if (total + got > c->max_core) {
			got = (size_t)(c->max_core - total);
			truncated = true;
		}
		if (all_zero(buf, got)) {
			if (lseek(fd, (off_t)got, SEEK_CUR) < 0)
				break;
		} else {
			size_t off = 0;
			while (off < got) {
				ssize_t n = write(fd, buf + off, got - off);
				if (n < 0 && errno == EINTR)
					continue;
				if (n <= 0)
					break;
				off += (size_t)n;
			}
			if (off < got)
				break;
		}
		total += got;
		if (truncated)
			break;
	}
	free(buf);
	if (ftruncate(fd, (off_t)total) != 0 || close(fd) != 0) {
		ct_cli_error("%s: %s", path, strerror(errno));
		return CT_EXIT_FATAL;
	}
	if (truncated)
		ct_cli_error("%s: the core was cut at --max-core-size (%llu bytes)", path, (unsigned long long)c->max_core);
	return -1;
}

static int run_pipe(struct collect *c, char **argv)
{
	char path[PATH_MAX], exe[PATH_MAX];
	int rc = save_core(c, argv, path, sizeof(path));
	if (rc >= 0)
		return rc;
	// %E is the executable's path with '!' for '/'.
	snprintf(exe, sizeof(exe), "%s", argv[3]);
	for (char *p = exe; *p; p++)
		if (*p == '!')
			*p = '/';
	return triage_core(c, path, c->safe ? NULL : exe, argv[0], argv[1]);
}

/* ---- --watch ---- */

// A name in the watched directory worth a look: not our reports, not a file being written
// (systemd-coredump writes ".#core…" and renames it), and a core by its first bytes.
static bool is_core_name(const char *dir, const char *name, char *path, size_t size)
{
	size_t n = strlen(name);
	if (name[0] == '.' || (n > 5 && !strcmp(name + n - 5, ".json")))
		return false;
	if (snprintf(path, size, "%s/%s", dir, name) >= (int)size)
		return false;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	unsigned char head[64];
	struct stat st;
	ssize_t got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, head, sizeof(head)) : -1;
	close(fd);
	if (got <= 0)
		return false;
	enum ct_format f = ct_sniff(head, (size_t)got);
	return f == CT_FORMAT_ELF_CORE || ct_input_is_compressed(f);
}

// Whether @p core has its report already (a core seen at start and by an event is done once).
static bool has_report(const char *core)
{
	char path[PATH_MAX];
	struct stat st;
	return snprintf(path, sizeof(path), "%s.json", core) < (int)sizeof(path) && lstat(path, &st) == 0;
}

static int filter_names(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

// The cores that arrived while no watcher ran (a reboot, an update): those without a report.
static int catch_up(struct collect *c, unsigned long *done)
{
	struct dirent **names;
	int n = scandir(c->watch, &names, filter_names, alphasort);
	int rc = CT_EXIT_OK;
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX];
		if ((!c->exit_after || *done < c->exit_after) && is_core_name(c->watch, names[i]->d_name, path, sizeof(path)) &&
		    !has_report(path)) {
			int r = triage_core(c, path, NULL, NULL, NULL);
			rc = r > rc ? r : rc;
			++*done;
		}
		free(names[i]);
	}
	free(n >= 0 ? names : NULL);
	return rc;
}

static volatile sig_atomic_t stop_watching;

static void on_stop(int sig)
{
	(void)sig;
	stop_watching = 1;
}

static int run_watch(struct collect *c)
{
	int in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (in < 0 || inotify_add_watch(in, c->watch, IN_CLOSE_WRITE | IN_MOVED_TO | IN_ONLYDIR) < 0) {
		ct_cli_error("--watch %s: %s", c->watch, strerror(errno));
		if (in >= 0)
			close(in);
		return CT_EXIT_FATAL;
	}
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	unsigned long done = 0;
	// The watch is set before the catch-up, so a core arriving meanwhile is not missed.
	int rc = c->no_report_file ? CT_EXIT_OK : catch_up(c, &done);
	// Aligned as inotify's events are.
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	while (!stop_watching && (!c->exit_after || done < c->exit_after)) {
		struct pollfd pfd = { .fd = in, .events = POLLIN };
		if (poll(&pfd, 1, 1000) <= 0)
			continue;
		ssize_t n = read(in, buf, sizeof(buf));
		for (char *p = buf; n > 0 && p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			p += sizeof(*ev) + ev->len;
			char path[PATH_MAX];
			if (!ev->len || !is_core_name(c->watch, ev->name, path, sizeof(path)) ||
			    (!c->no_report_file && has_report(path)))
				continue;
			int r = triage_core(c, path, NULL, NULL, NULL);
			rc = r > rc ? r : rc;
			done++;
			if (c->exit_after && done >= c->exit_after)
				break;
		}
	}
	close(in);
	return rc;
}

int ct_cli_collect(int argc, char **argv)
{
	struct collect c = { 0 };
	char **pos = NULL;
	int npos = 0;
	int rc = parse_args(argc, argv, &c, &pos, &npos);
	if (rc >= 0)
		return rc;
	if ((rc = choose_user(&c)) >= 0)
		return rc;
	// The kernel gives a pipe handler no terminal and no sensible environment.
	unsetenv("DEBUGINFOD_URLS");
	gethostname(c.host, sizeof(c.host) - 1);
	if (c.db) {
		struct ct_error *err = ct_store_open(c.db, &c.store);
		if (err) {
			// Without the store the report is still written next to the core.
			ct_cli_error("--db: %s", ct_error_message(err));
			ct_error_destroy(err);
		}
	}
	rc = c.pipe ? run_pipe(&c, pos) : run_watch(&c);
	if (c.db && !c.store && rc == CT_EXIT_OK)
		rc = CT_EXIT_PARTIAL;
	ct_store_close(c.store);
	return rc;
}
