// `coretriage batch`: expand PATHs into cores, analyze each in a forked worker process with a time
// and memory limit, stream NDJSON reports in input order, group the cores into buckets by
// signature, and write the summary (text table, JSON, Markdown, SARIF, folded, flame graph).
//
// Isolation: a worker is a fork of this small parent; it gets RLIMIT_DATA (heap) and RLIMIT_CORE 0,
// an alarm(2) for its time limit, PR_SET_PDEATHSIG so it dies with the batch, and writes its result
// into a pipe: one line of bucketing facts ("meta", cli/meta.c). The NDJSON report goes to an
// anonymous temporary file of its own, copied to the output in input order by the parent through a
// fixed buffer: the parent holds no report, so its memory (which every later worker inherits and
// which counts against that worker's --max-memory) does not grow with any core's output.
// Whatever happens to a worker (crash, time or memory limit, garbage), the parent records a
// failure for that core and goes on.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/batch.h"
#include "cli/known.h"
#include "dump/sniff.h"
#include "input/input.h"
#include "lazy/lazy.h"
#include "writers/buckets.h"
#include "writers/json_text.h"
#include "store/store.h"

/** Defaults of the per-core limits in batch mode (docs/batch.md): generous for real cores,
 * small enough that a hostile core cannot stall CI or exhaust the machine. */
#define BATCH_DEFAULT_TIMEOUT 120
#define BATCH_DEFAULT_MEMORY_MIB 4096
/** Extra seconds the parent waits past a worker's own alarm before SIGKILL. */
#define BATCH_KILL_GRACE 5
/** Directory depth searched below a directory PATH (and a bound on symlink games). */
#define BATCH_MAX_DEPTH 16
/** Cores in one batch at most: bounds the parent's memory for results. */
#define BATCH_MAX_CORES 1000000
/** Longest meta line a worker may send (it holds at most CT_META_STACK_FRAMES names). */
#define BATCH_MAX_META (4u << 20)
/** Finished reports waiting for their turn in input order, at most: each holds a descriptor. */
#define BATCH_MAX_PENDING 256
/** Copy buffer for reports, temporary file to output. */
#define BATCH_COPY_BUF 65536
/** Largest JSON report kept in the crash store (--db); a larger one is recorded without it. */
#define BATCH_MAX_STORED_REPORT (64u << 20)
/** Progress bar redraws at most this often (ms). */
#define PROGRESS_INTERVAL_MS 100

enum job_state { JOB_PENDING, JOB_RUNNING, JOB_DONE };

struct job {
	char *path; /* owned */
	enum job_state state;
	pid_t pid;
	int fd; /* read end of the worker's pipe, -1 when closed */
	int report_fd; /* ndjson: the worker's report (anonymous temporary file), -1 when none */
	char *buf; /* the meta line the worker wrote; owned */
	size_t len, cap;
	double start;
	json_t *meta; /* owned; always set once done */
	int status; /* 0/1 report, 2 failed */
	bool written; /* ndjson line flushed */
	long long store_count; /* --db: the bucket's count after this report, 0 when not recorded */
};

struct batch {
	struct ct_cli *cli;
	struct job *jobs;
	size_t num_jobs, cap_jobs;
	size_t num_missing; /* glob patterns that matched nothing */
	unsigned timeout, memory_mib, workers;
	FILE *out;
	bool ndjson;
	bool progress;
	size_t next_write; /* ndjson: first job not yet written */
	bool write_error;
	double last_draw;
	struct ct_store *store; /* --db, owned; NULL without */
	bool store_error; /* a report could not be recorded (said once) */
	char host[256]; /* recorded with each report */
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- Inputs ---- */

static bool add_job(struct batch *b, const char *path)
{
	if (b->num_jobs >= BATCH_MAX_CORES)
		return false;
	if (b->num_jobs == b->cap_jobs) {
		size_t cap = b->cap_jobs ? 2 * b->cap_jobs : 64;
		struct job *j = realloc(b->jobs, cap * sizeof(*j));
		if (!j)
			return false;
		b->jobs = j;
		b->cap_jobs = cap;
	}
	struct job *j = &b->jobs[b->num_jobs];
	memset(j, 0, sizeof(*j));
	j->path = strdup(path);
	if (!j->path)
		return false;
	j->fd = -1;
	j->report_fd = -1;
	b->num_jobs++;
	return true;
}

// Whether a file found in a directory is a core: an ELF core, or a compressed file (which may be
// a systemd-coredump core; the worker says if it is not). Reads 64 bytes; never follows FIFOs.
static bool looks_like_core(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return false;
	uint8_t head[64];
	struct stat st;
	ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, head, sizeof(head)) : -1;
	close(fd);
	if (n <= 0)
		return false;
	enum ct_format f = ct_sniff(head, (size_t)n);
	// gzip and bzip2 are read when named, not picked up from directories: there they are mostly
	// rotated logs, and systemd-coredump never writes them.
	return f == CT_FORMAT_ELF_CORE || f == CT_FORMAT_KDUMP ||
	       (ct_input_is_compressed(f) && f != CT_FORMAT_GZIP && f != CT_FORMAT_BZIP2);
}

static int filter_dots(const struct dirent *d)
{
	return strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
}

static bool walk_dir(struct batch *b, const char *dir, int depth)
{
	struct dirent **names;
	// Sorted: the input order, and so the NDJSON order, is deterministic.
	int n = scandir(dir, &names, filter_dots, alphasort);
	if (n < 0) {
		ct_cli_error("%s: %s", dir, strerror(errno));
		b->num_missing++;
		return true;
	}
	bool ok = true;
	for (int i = 0; i < n; i++) {
		size_t len = strlen(dir) + strlen(names[i]->d_name) + 2;
		char *p = malloc(len);
		if (p) {
			snprintf(p, len, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]->d_name);
			struct stat st;
			// lstat: symlinked directories are not followed (loops); symlinked files are.
			if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
				if (depth < BATCH_MAX_DEPTH)
					ok = ok && walk_dir(b, p, depth + 1);
			} else if (looks_like_core(p)) {
				ok = ok && add_job(b, p);
			}
			free(p);
		} else {
			ok = false;
		}
		free(names[i]);
	}
	free(names);
	return ok;
}

static bool add_path(struct batch *b, const char *arg)
{
	struct stat st;
	if (stat(arg, &st) == 0)
		return S_ISDIR(st.st_mode) ? walk_dir(b, arg, 0) : add_job(b, arg);
	if (strpbrk(arg, "*?[")) {
		glob_t g;
		int r = glob(arg, GLOB_BRACE | GLOB_TILDE, NULL, &g);
		if (r == GLOB_NOMATCH) {
			ct_cli_error("%s: no file matches", arg);
			b->num_missing++;
			return true;
		}
		if (r != 0)
			return false;
		bool ok = true;
		for (size_t i = 0; i < g.gl_pathc && ok; i++) {
			if (stat(g.gl_pathv[i], &st) == 0 && S_ISDIR(st.st_mode))
				ok = walk_dir(b, g.gl_pathv[i], 0);
			else
				ok = add_job(b, g.gl_pathv[i]);
		}
		globfree(&g);
		return ok;
	}
	// A path that does not exist is still a job: its failure shows in the report stream.
	return add_job(b, arg);
}

/* ---- Workers ---- */

static int report_status(const struct ct_report *r)
{
	return ct_report_is_complete(r) ? CT_EXIT_OK : CT_EXIT_PARTIAL;
}

static void worker_limits(const struct batch *b)
{
	// A crash in the analysis must not drop a core file into the directory being scanned.
	struct rlimit none = { 0, 0 };
	setrlimit(RLIMIT_CORE, &none);
	struct rlimit mem = { (rlim_t)b->memory_mib << 20, (rlim_t)b->memory_mib << 20 };
	if (CT_MEMORY_LIMIT_WORKS)
		setrlimit(RLIMIT_DATA, &mem);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigset_t all;
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	signal(SIGALRM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	alarm(b->timeout);
}

static _Noreturn void worker(const struct batch *b, const struct job *j, int fd)
{
	worker_limits(b);
	FILE *out = fdopen(fd, "w");
	FILE *report_out = j->report_fd >= 0 ? fdopen(j->report_fd, "w") : NULL;
	if (!out || (j->report_fd >= 0 && !report_out))
		_exit(CT_EXIT_FATAL);
	struct ct_options opts = b->cli->opts;
	opts.core_path = j->path;
	opts.max_memory = (uint64_t)b->memory_mib << 20;
	struct ct_report report;
	if (!ct_report_init(&report))
		_exit(CT_EXIT_FATAL);
	void *reserve = ct_cli_memory_reserve();
	struct ct_error *err = ct_analyze(&opts, &report);
	free(reserve);
	int status;
	json_t *meta;
	if (err) {
		meta = json_object();
		json_object_set_new(meta, "error", ct_json_text(ct_error_message(err)));
		status = CT_EXIT_FATAL;
	} else {
		meta = ct_cli_core_meta(&report, j->path);
		status = report_status(&report);
	}
	if (!meta)
		_exit(CT_EXIT_FATAL);
	// The report first, the meta line after it: a meta line means a whole report in the file.
	if (!err && report_out) {
		// One file feeds both the NDJSON stream and the store (--db).
		struct ct_write_options wo;
		ct_write_options_init(&wo);
		wo.no_abs_paths = opts.no_abs_paths;
		if (ct_write_json(report_out, &report, &wo, true) != 0 || fflush(report_out) != 0)
			_exit(CT_EXIT_FATAL);
	}
	json_object_set_new(meta, "status", json_integer(status));
	json_dumpf(meta, out, JSON_COMPACT | JSON_ENSURE_ASCII);
	fputc('\n', out);
	if (fflush(out) != 0)
		_exit(CT_EXIT_FATAL);
	// No cleanup: the process ends here, and exit handlers of libraries must not run twice.
	_exit(status);
}

static bool start_job(struct batch *b, struct job *j)
{
	int p[2];
	// The report goes to a file of its own for the NDJSON stream and for the store.
	if ((b->ndjson || b->store) && (j->report_fd = ct_input_tmpfile()) < 0)
		return false;
	if (pipe2(p, O_CLOEXEC) < 0)
		return false;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return false;
	}
	if (pid == 0) {
		close(p[0]);
		worker(b, j, p[1]);
	}
	close(p[1]);
	j->pid = pid;
	j->fd = p[0];
	j->state = JOB_RUNNING;
	j->start = now();
	return true;
}

static void fail_job(struct job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_job(struct job *j, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_decref(j->meta);
	j->meta = json_object();
	json_object_set_new(j->meta, "error", ct_json_text(msg));
	json_object_set_new(j->meta, "status", json_integer(CT_EXIT_FATAL));
	j->status = CT_EXIT_FATAL;
}

// The report a worker wrote, read back for the store: NULL when unreadable or too large (then the
// store keeps the facts without the JSON).
static char *read_report(int fd, size_t *len_ret)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0 || (uint64_t)st.st_size > BATCH_MAX_STORED_REPORT)
		return NULL;
	char *buf = malloc((size_t)st.st_size);
	size_t got = 0;
	while (buf && got < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + got, (size_t)st.st_size - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (buf && got != (size_t)st.st_size) {
		free(buf);
		return NULL;
	}
	*len_ret = got;
	return buf;
}

static const char *meta_str(json_t *meta, const char *key)
{
	return json_string_value(json_object_get(meta, key));
}

// Records one analyzed core in the store (--db) as soon as it is done: the parent holds its report
// only for that call.
static void record_job(struct batch *b, struct job *j)
{
	size_t len = 0;
	char *json = read_report(j->report_fd, &len);
	struct ct_store_report r;
	ct_cli_store_report_from_meta(j->meta, &r);
	r.host = b->host[0] ? b->host : NULL;
	if (b->cli->record_version)
		r.version = b->cli->record_version;
	r.core = j->path;
	r.json = json;
	r.json_len = len;
	struct ct_error *err = r.bucket ? ct_store_record(b->store, &r, &j->store_count) : NULL;
	free(json);
	if (err) {
		if (!b->store_error)
			ct_cli_error("--db: %s", ct_error_message(err));
		b->store_error = true;
		ct_error_destroy(err);
	}
}

// The worker closed its pipe: reap it and make sense of what it wrote.
static void finish_job(struct batch *b, struct job *j)
{
	int ws = 0;
	while (waitpid(j->pid, &ws, 0) < 0 && errno == EINTR)
		;
	close(j->fd);
	j->fd = -1;
	j->state = JOB_DONE;
	char *nl = j->buf ? memchr(j->buf, '\n', j->len) : NULL;
	json_t *meta = nl ? json_loadb(j->buf, (size_t)(nl - j->buf), 0, NULL) : NULL;
	if (WIFSIGNALED(ws)) {
		int sig = WTERMSIG(ws);
		json_decref(meta);
		if (sig == SIGALRM || (sig == SIGKILL && now() - j->start >= b->timeout))
			fail_job(j, "time limit of %u s reached (--timeout)", b->timeout);
		else if (sig == SIGKILL)
			fail_job(j, "worker killed by SIGKILL (out of memory?)");
		else
			fail_job(j, "the analysis crashed on this core (%s); please report it", strsignal(sig));
	} else if (!json_is_object(meta)) {
		json_decref(meta);
		fail_job(j, "worker exited with status %d without a result (memory limit of %u MiB?)",
			 WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, b->memory_mib);
	} else {
		j->meta = meta;
		j->status = (int)json_integer_value(json_object_get(meta, "status"));
		struct stat st;
		if ((b->ndjson || b->store) && j->status != CT_EXIT_FATAL &&
		    (j->report_fd < 0 || fstat(j->report_fd, &st) != 0 || st.st_size < 2)) {
			fail_job(j, "worker ended before writing its report (memory limit of %u MiB?)", b->memory_mib);
		}
	}
	// Only the meta line was kept in memory; the report stays in its file until its turn.
	free(j->buf);
	j->buf = NULL;
	j->len = j->cap = 0;
	if (b->store && j->status != CT_EXIT_FATAL)
		record_job(b, j);
	if ((j->status == CT_EXIT_FATAL || !b->ndjson) && j->report_fd >= 0) {
		close(j->report_fd);
		j->report_fd = -1;
	}
}

// Copies a finished report from its temporary file to the output; false on a write error.
static bool copy_report(struct batch *b, int fd)
{
	char buf[BATCH_COPY_BUF];
	if (lseek(fd, 0, SEEK_SET) < 0)
		return false;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0;
		if (fwrite(buf, 1, (size_t)n, b->out) != (size_t)n)
			return false;
	}
}

static void write_ndjson(struct batch *b)
{
	while (b->next_write < b->num_jobs && b->jobs[b->next_write].state == JOB_DONE) {
		struct job *j = &b->jobs[b->next_write++];
		if (j->status != CT_EXIT_FATAL && j->report_fd >= 0) {
			if (!copy_report(b, j->report_fd))
				b->write_error = true;
		} else {
			// The same top level as a report, so one reader handles both: input, and the error.
			json_t *o = json_object(), *tool = json_object(), *input = json_object(), *e = json_object();
			json_object_set_new(o, "schema_version", json_integer(CT_SCHEMA_VERSION));
			json_object_set_new(tool, "name", json_string("coretriage"));
			json_object_set_new(tool, "version", json_string(CT_VERSION));
			json_object_set_new(o, "tool", tool);
			// The report's input, with what a failed analysis cannot know as null (one schema for
			// every line: docs/schema/report.schema.json, batch_error).
			json_object_set_new(input, "kind", json_null());
			json_object_set_new(input, "core", ct_json_text(j->path));
			json_object_set_new(input, "executable",
					    b->cli->opts.executable ? ct_json_text(b->cli->opts.executable) : json_null());
			json_object_set_new(input, "arch", json_null());
			json_object_set_new(o, "input", input);
			json_object_set_new(e, "message", json_incref(json_object_get(j->meta, "error")));
			json_object_set_new(o, "error", e);
			json_dumpf(o, b->out, JSON_COMPACT | JSON_PRESERVE_ORDER);
			fputc('\n', b->out);
			json_decref(o);
		}
		if (j->report_fd >= 0)
			close(j->report_fd);
		j->report_fd = -1;
		j->written = true;
		if (fflush(b->out) != 0)
			b->write_error = true;
	}
}

static void draw_progress(struct batch *b, size_t done, double t0, bool final)
{
	if (!b->progress)
		return;
	double t = now();
	if (!final && t - b->last_draw < PROGRESS_INTERVAL_MS / 1000.0)
		return;
	b->last_draw = t;
	if (final) {
		fputs("\r\033[K", stderr);
		return;
	}
	double el = t - t0, rate = el > 0 ? (double)done / el : 0;
	size_t total = b->num_jobs;
	int width = 30, fill = total ? (int)((double)width * (double)done / (double)total) : width;
	char bar[64];
	for (int i = 0; i < width; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[width] = '\0';
	fprintf(stderr, "\r\033[K[%s] %zu/%zu cores  %.1f/s", bar, done, total, rate);
	if (rate > 0 && done < total)
		fprintf(stderr, "  ETA %.0fs", (double)(total - done) / rate);
	fflush(stderr);
}

static bool run_jobs(struct batch *b)
{
	size_t next = 0, running = 0, done = 0;
	double t0 = now();
	struct pollfd *pfd = calloc(b->workers, sizeof(*pfd));
	size_t *idx = calloc(b->workers, sizeof(*idx));
	if (!pfd || !idx) {
		free(pfd);
		free(idx);
		return false;
	}
	while (done < b->num_jobs) {
		// Reports wait for their turn in open files: a slow core at the head must not make the
		// parent hold thousands of them.
		while (running < b->workers && next < b->num_jobs && (!b->ndjson || next - b->next_write < BATCH_MAX_PENDING)) {
			struct job *j = &b->jobs[next++];
			if (!start_job(b, j)) {
				fail_job(j, "cannot start a worker: %s", strerror(errno));
				j->state = JOB_DONE;
				done++;
				continue;
			}
			running++;
		}
		size_t n = 0;
		for (size_t i = 0; i < b->num_jobs && n < running; i++) {
			if (b->jobs[i].state == JOB_RUNNING) {
				pfd[n].fd = b->jobs[i].fd;
				pfd[n].events = POLLIN;
				idx[n++] = i;
			}
		}
		int r = poll(pfd, n, PROGRESS_INTERVAL_MS);
		if (r < 0 && errno != EINTR)
			break;
		for (size_t k = 0; r > 0 && k < n; k++) {
			if (!pfd[k].revents)
				continue;
			struct job *j = &b->jobs[idx[k]];
			if (j->len >= BATCH_MAX_META) {
				// A meta line is small; a worker that floods its pipe is broken or hostile.
				kill(j->pid, SIGKILL);
				j->len = 0;
			}
			if (j->cap - j->len < 65536) {
				size_t cap = j->cap ? 2 * j->cap : 131072;
				char *nb = realloc(j->buf, cap);
				if (!nb) {
					kill(j->pid, SIGKILL);
					continue;
				}
				j->buf = nb;
				j->cap = cap;
			}
			ssize_t got = read(j->fd, j->buf + j->len, j->cap - j->len);
			if (got > 0) {
				j->len += (size_t)got;
			} else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
				finish_job(b, j);
				running--;
				done++;
			}
		}
		// Watchdog: the worker's own alarm should have fired; this catches one that blocked it.
		double t = now();
		for (size_t k = 0; k < n; k++) {
			struct job *j = &b->jobs[idx[k]];
			if (j->state == JOB_RUNNING && t - j->start > b->timeout + BATCH_KILL_GRACE)
				kill(j->pid, SIGKILL);
		}
		if (b->ndjson)
			write_ndjson(b);
		draw_progress(b, done, t0, false);
	}
	draw_progress(b, done, t0, true);
	free(pfd);
	free(idx);
	return done == b->num_jobs;
}

/* ---- Buckets ---- */

/** Link text of a bucket the store knew without a bug URL (shown as "known"). */
static const char store_known_plain[] = "";

// Whether the store knew bucket @p e before this run (--db): its bug URL then ("" when it has
// none), NULL when it is new. Before this run means that the lowest count any of its cores got
// when recorded was above 1 (the cores finish in any order), or with --since-build that it had a
// report at or before that build's last. A bucket marked fixed and seen again is new: a
// regression. The URL is kept in the first core's meta, which lives as long as the batch.
static const char *store_known(struct batch *b, const struct ct_bucket_entry *e, long long since_id, bool *error)
{
	long long lowest = 0;
	for (size_t m = 0; m < e->num_members; m++) {
		long long c = b->jobs[e->members[m]].store_count;
		if (c && (!lowest || c < lowest))
			lowest = c;
	}
	if (!lowest)
		return NULL; // not recorded: nothing is known of it
	struct job *j = &b->jobs[e->first];
	int sigver = json_is_true(json_object_get(j->meta, "fallback"))
			     ? 0
			     : (int)json_integer_value(json_object_get(j->meta, "signature_version"));
	struct ct_store_query q = { .kind = CT_STORE_QUERY_SHOW, .key = e->b.hash };
	struct ct_store_buckets found = { 0 };
	bool known = lowest > 1;
	struct ct_error *err = NULL;
	if (since_id)
		err = ct_store_bucket_known_at(b->store, sigver, q.key, since_id, &known);
	if (!err && known)
		err = ct_store_query_buckets(b->store, &q, &found);
	const char *url = NULL;
	for (size_t i = 0; !err && known && i < found.num; i++) {
		const struct ct_store_bucket *sb = &found.v[i];
		if (sb->signature_version != sigver || sb->status == CT_BUCKET_STATUS_FIXED)
			continue; // a fixed bucket seen again is news
		if (sb->bug_url) {
			json_object_set_new(j->meta, "store_bug", ct_json_text(sb->bug_url));
			url = meta_str(j->meta, "store_bug");
		}
		if (!url)
			url = store_known_plain;
	}
	if (err) {
		ct_cli_error("--db: %s", ct_error_message(err));
		ct_error_destroy(err);
		*error = true;
	}
	ct_store_buckets_free(&found);
	return url;
}

// A UTC time for the summaries: ISO 8601 in JSON, minutes in the text table.
static void format_time(long long t, bool iso, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;
	size_t n = 0;
	if (gmtime_r(&tt, &tm))
		n = iso ? strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) : strftime(buf, size, "%Y-%m-%d %H:%M", &tm);
	if (!n)
		snprintf(buf, size, "?");
}

static json_t *summary_json(const struct batch *b, const struct ct_bucket_entry *e, size_t n, size_t analyzed,
			    size_t failed, size_t num_new)
{
	json_t *s = json_object(), *tool = json_object();
	json_object_set_new(s, "schema_version", json_integer(CT_SCHEMA_VERSION));
	json_object_set_new(tool, "name", json_string("coretriage"));
	json_object_set_new(tool, "version", json_string(CT_VERSION));
	json_object_set_new(s, "tool", tool);
	json_object_set_new(s, "cores", json_integer((json_int_t)b->num_jobs));
	json_object_set_new(s, "analyzed", json_integer((json_int_t)analyzed));
	json_object_set_new(s, "failed", json_integer((json_int_t)failed));
	json_object_set_new(s, "new_buckets", json_integer((json_int_t)num_new));
	json_object_set_new(s, "signature_version", json_integer(CT_SIGNATURE_VERSION));
	json_t *arr = json_array();
	char buf[32];
	for (size_t i = 0; i < n; i++) {
		const struct ct_bucket *k = &e[i].b;
		json_t *o = json_object(), *blame = json_object();
		json_object_set_new(o, "hash", ct_json_text(k->hash));
		json_object_set_new(o, "signature", k->signature ? ct_json_text(k->signature) : json_null());
		json_object_set_new(o, "signature_fallback", json_boolean(k->fallback));
		json_object_set_new(o, "count", json_integer((json_int_t)k->count));
		json_object_set_new(o, "class", k->class_id ? ct_json_text(k->class_id) : json_null());
		json_object_set_new(o, "summary", k->summary ? ct_json_text(k->summary) : json_null());
		json_object_set_new(blame, "function", k->blame_function ? ct_json_text(k->blame_function) : json_null());
		json_object_set_new(blame, "module", k->blame_module ? ct_json_text(k->blame_module) : json_null());
		json_object_set_new(blame, "file", k->blame_file ? ct_json_text(k->blame_file) : json_null());
		json_object_set_new(blame, "line", k->blame_line ? json_integer(k->blame_line) : json_null());
		json_object_set_new(o, "blame", blame);
		if (k->has_time) {
			format_time(k->first_seen, true, buf, sizeof(buf));
			json_object_set_new(o, "first_seen", json_string(buf));
			format_time(k->last_seen, true, buf, sizeof(buf));
			json_object_set_new(o, "last_seen", json_string(buf));
		} else {
			json_object_set_new(o, "first_seen", json_null());
			json_object_set_new(o, "last_seen", json_null());
		}
		json_object_set_new(o, "example", ct_json_text(k->example));
		json_object_set_new(o, "new", json_boolean(!k->known_url));
		json_object_set_new(o, "bug", k->known_url && *k->known_url ? ct_json_text(k->known_url) : json_null());
		json_t *cores = json_array();
		for (size_t m = 0; m < e[i].num_members; m++)
			json_array_append_new(cores, ct_json_text(b->jobs[e[i].members[m]].path));
		json_object_set_new(o, "cores", cores);
		json_array_append_new(arr, o);
	}
	json_object_set_new(s, "buckets", arr);
	json_t *fails = json_array();
	for (size_t i = 0; i < b->num_jobs; i++) {
		const struct job *j = &b->jobs[i];
		if (j->status != CT_EXIT_FATAL)
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "core", ct_json_text(j->path));
		json_object_set_new(o, "error", json_incref(json_object_get(j->meta, "error")));
		json_array_append_new(fails, o);
	}
	json_object_set_new(s, "failures", fails);
	return s;
}

// A column of the text table: untrusted text made visible (writers/sanitize.h), cut to @p width
// columns on a character boundary with "…" as its last column, and padded to it.
void ct_cli_cell(FILE *out, const char *s, size_t width, bool pad)
{
	char piece[CT_TEXT_PIECE_MAX];
	size_t w = 0;
	while (s && *s) {
		const char *at = s;
		size_t k = ct_text_next(&s, CT_TEXT_TERMINAL, piece);
		size_t pw = (unsigned char)piece[0] >= 0x80 ? 1 : k; // a multi-byte character is one column
		if (w + pw > width || (w + pw == width && *s)) {
			// Something is left: the last column says so.
			s = at;
			if (w < width) {
				fputs("…", out);
				w++;
			}
			break;
		}
		fwrite(piece, 1, k, out);
		w += pw;
	}
	if (pad)
		fprintf(out, "%*s", (int)(width - w), "");
}

// The bucket table; on a terminal narrower than it (@p width, 0: not a terminal) the seen-time
// columns go and BLAME takes the room left, so that no row wraps.
static void summary_text(FILE *out, const struct batch *b, const struct ct_bucket_entry *e, size_t n, size_t analyzed,
			 size_t failed, size_t num_new, size_t width)
{
	// "#  COUNT  BUCKET CLASS " before BLAME, " FIRST LAST " after it, then the bug column.
	enum { BEFORE = 3 + 1 + 6 + 2 + 16 + 1 + 20 + 1, TIMES = 1 + 16 + 1 + 16, BUG = 1 + 5 };
	size_t blame_width = 40;
	bool times = true;
	if (width && width < BEFORE + blame_width + TIMES + BUG) {
		times = false;
		blame_width = width > BEFORE + BUG + 12 ? width - BEFORE - BUG : 12;
	}
	fprintf(out, "%zu core%s: %zu analyzed, %zu failed; %zu bucket%s, %zu new\n\n", b->num_jobs,
		b->num_jobs == 1 ? "" : "s", analyzed, failed, n, n == 1 ? "" : "s", num_new);
	if (n) {
		fprintf(out, "%3s %6s  %-16s %-20s %-*s", "#", "COUNT", "BUCKET", "CLASS", (int)blame_width, "BLAME");
		if (times)
			fprintf(out, " %-16s %-16s", "FIRST SEEN (UTC)", "LAST SEEN (UTC)");
		fprintf(out, " %s\n", times ? "BUG / EXAMPLE" : "BUG");
	}
	for (size_t i = 0; i < n; i++) {
		const struct ct_bucket *k = &e[i].b;
		char blame[512], first[32] = "-", last[32] = "-";
		if (k->blame_file) {
			const char *slash = strrchr(k->blame_file, '/');
			snprintf(blame, sizeof(blame), "%s (%s:%d)", k->blame_label ? k->blame_label : "??",
				 slash ? slash + 1 : k->blame_file, k->blame_line);
		} else {
			snprintf(blame, sizeof(blame), "%s", k->blame_label ? k->blame_label : "??");
		}
		if (k->has_time) {
			format_time(k->first_seen, false, first, sizeof(first));
			format_time(k->last_seen, false, last, sizeof(last));
		}
		fprintf(out, "%3zu %6zu  ", i + 1, k->count);
		ct_cli_cell(out, k->hash, 16, true);
		fputc(' ', out);
		ct_cli_cell(out, k->class_id ? k->class_id : "unknown", 20, true);
		fputc(' ', out);
		ct_cli_cell(out, blame, blame_width, true);
		if (times)
			fprintf(out, " %-16s %-16s", first, last);
		fputc(' ', out);
		const char *bug = k->known_url ? (*k->known_url ? k->known_url : "known") : "NEW";
		size_t used = BEFORE + blame_width + (times ? TIMES : 0) + 1;
		if (width && width > used)
			ct_cli_cell(out, bug, width - used, false);
		else
			ct_text_put(out, bug, CT_TEXT_TERMINAL, SIZE_MAX);
		// The example under the row, indented past the count.
		fputs("\n            example: ", out);
		if (width && width > 21)
			ct_cli_cell(out, k->example, width - 21, false);
		else
			ct_text_put(out, k->example, CT_TEXT_TERMINAL, SIZE_MAX);
		fputc('\n', out);
	}
	if (failed) {
		fprintf(out, "\nNot analyzed:\n");
		for (size_t i = 0; i < b->num_jobs; i++) {
			const struct job *j = &b->jobs[i];
			if (j->status != CT_EXIT_FATAL)
				continue;
			fputs("  ", out);
			ct_text_put(out, j->path, CT_TEXT_TERMINAL, SIZE_MAX);
			fputs(": ", out);
			ct_text_put(out, json_string_value(json_object_get(j->meta, "error")), CT_TEXT_TERMINAL, SIZE_MAX);
			fputc('\n', out);
		}
	}
}

static int write_flamegraph(const char *path, const struct ct_bucket_entry *e, size_t n, size_t cores)
{
	struct ct_folded_stack *st = calloc(n ? n : 1, sizeof(*st));
	if (!st)
		return -1;
	for (size_t i = 0; i < n; i++) {
		st[i].frames = e[i].b.stack;
		st[i].num_frames = e[i].b.num_stack;
		st[i].count = e[i].b.count;
	}
	FILE *f = fopen(path, "w");
	int r = -1;
	if (f) {
		char title[128];
		snprintf(title, sizeof(title), "Crash stacks of %zu core%s", cores, cores == 1 ? "" : "s");
		r = ct_write_flamegraph(f, st, n, title, "core");
		if (fclose(f) != 0)
			r = -1;
	}
	free(st);
	return r;
}

static unsigned cpu_count(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

int ct_cli_batch(struct ct_cli *cli)
{
	struct batch b = { .cli = cli };
	b.timeout = cli->timeout ? cli->timeout : BATCH_DEFAULT_TIMEOUT;
	b.memory_mib = cli->max_memory_mib ? (unsigned)cli->max_memory_mib : BATCH_DEFAULT_MEMORY_MIB;
	if (cli->opts.executable && access(cli->opts.executable, R_OK) != 0) {
		fprintf(stderr, "coretriage: --exe %s: %s\n", cli->opts.executable, strerror(errno));
		return CT_EXIT_USAGE;
	}
	struct ct_known known_file = { 0 }, *known = NULL;
	if (cli->known) {
		if (!ct_known_load(cli->known, &known_file))
			return CT_EXIT_USAGE;
		known = &known_file;
	}
	enum ct_output_format fmt = cli->format_given ? cli->format : CT_OUTPUT_TEXT;
	b.ndjson = fmt == CT_OUTPUT_NDJSON;
	int rc = CT_EXIT_OK;
	for (size_t i = 0; i < cli->num_paths; i++) {
		if (!add_path(&b, cli->paths[i])) {
			fprintf(stderr, "coretriage: %s: out of memory or too many cores (at most %u)\n", cli->paths[i],
				BATCH_MAX_CORES);
			rc = CT_EXIT_FATAL;
			goto out;
		}
	}
	if (b.num_jobs == 0) {
		fprintf(stderr, "coretriage: batch: no cores found\n");
		rc = CT_EXIT_FATAL;
		goto out;
	}
	b.workers = cli->jobs ? cli->jobs : cpu_count();
	if (b.workers > b.num_jobs)
		b.workers = (unsigned)b.num_jobs;
	b.progress = cli->progress == CT_COLOR_ALWAYS || (cli->progress == CT_COLOR_AUTO && isatty(STDERR_FILENO));
	b.out = stdout;
	if (cli->output && !(b.out = fopen(cli->output, "w"))) {
		fprintf(stderr, "coretriage: %s: %s\n", cli->output, strerror(errno));
		rc = CT_EXIT_FATAL;
		goto out;
	}
	long long since_id = 0;
	if (cli->db) {
		gethostname(b.host, sizeof(b.host) - 1);
		struct ct_error *err = ct_store_open(cli->db, &b.store);
		if (!err && cli->since_build)
			err = ct_store_last_report_of_build(b.store, cli->since_build, &since_id);
		if (err) {
			ct_cli_error("--db: %s", ct_error_message(err));
			rc = ct_error_catch(&err, CT_ERROR_NOT_FOUND) ? CT_EXIT_USAGE : CT_EXIT_FATAL;
			ct_error_destroy(err);
			goto out;
		}
	} else if (cli->since_build) {
		fprintf(stderr, "coretriage: --since-build needs --db (the store's history)\n");
		rc = CT_EXIT_USAGE;
		goto out;
	}
	// A closed output pipe must end the batch (EPIPE) rather than kill it silently mid-line.
	signal(SIGPIPE, SIG_IGN);
	// Loaded once here, capstone (which every process core's faulting instruction needs) is
	// inherited by each forked worker instead of being mapped and relocated once per core: its
	// tables hold 77,000 pointers (issue 28). A missing capstone stays each worker's to report.
	ct_error_destroy(ct_lazy_capstone_require());
	if (!run_jobs(&b))
		fprintf(stderr, "coretriage: batch: poll: %s\n", strerror(errno));

	// Buckets (writers/buckets.c), in order of first appearance, then sorted by count.
	struct ct_buckets table;
	ct_buckets_init(&table);
	size_t analyzed = 0, failed = 0, partial = 0, num_new = 0;
	bool bucket_error = false;
	for (size_t i = 0; i < b.num_jobs; i++) {
		struct job *j = &b.jobs[i];
		if (j->status == CT_EXIT_FATAL) {
			failed++;
			continue;
		}
		analyzed++;
		partial += j->status == CT_EXIT_PARTIAL;
		struct ct_bucket bk;
		if (!json_string_value(json_object_get(j->meta, "hash")) || !ct_cli_bucket_from_meta(j->meta, &bk))
			continue;
		bk.example = j->path;
		size_t before = table.num;
		struct ct_bucket_entry *x = ct_buckets_add(&table, &bk, i);
		if (!x) {
			bucket_error = true;
			continue;
		}
		if (table.num > before) {
			if (known)
				x->b.known_url = ct_known_lookup(known, x->b.hash);
			num_new += !x->b.known_url;
		}
	}
	// The store's history after every core is in: a bucket's cores may have finished in any order.
	for (size_t i = 0; b.store && i < table.num; i++) {
		struct ct_bucket_entry *x = &table.entries[i];
		if (!x->b.known_url && (x->b.known_url = store_known(&b, x, since_id, &bucket_error)))
			num_new--;
	}
	if (bucket_error)
		ct_cli_error("batch: out of memory or a store error grouping cores into buckets; the summary is "
			     "incomplete");
	ct_buckets_sort(&table);
	struct ct_bucket_entry *e = table.entries;
	size_t n = table.num;
	if (known)
		ct_known_warn(known, n - num_new, n, stderr);
	struct ct_bucket *plain = calloc(n ? n : 1, sizeof(*plain));
	for (size_t i = 0; plain && i < n; i++)
		plain[i] = e[i].b;
	int wr = 0;
	switch (fmt) {
	case CT_OUTPUT_NDJSON: break; // streamed already
	case CT_OUTPUT_JSON: {
		json_t *s = summary_json(&b, e, n, analyzed, failed, num_new);
		wr = json_dumpf(s, b.out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', b.out);
		json_decref(s);
		break;
	}
	case CT_OUTPUT_MARKDOWN: wr = ct_write_markdown_buckets(b.out, plain, n, b.num_jobs, failed); break;
	case CT_OUTPUT_SARIF: {
		struct ct_sarif_options so = { .source_root = cli->source_root, .no_abs_paths = cli->opts.no_abs_paths };
		wr = ct_write_sarif(b.out, plain, n, &so);
		break;
	}
	case CT_OUTPUT_FOLDED: {
		struct ct_folded_stack *st = calloc(n ? n : 1, sizeof(*st));
		for (size_t i = 0; st && i < n; i++) {
			st[i].frames = plain[i].stack;
			st[i].num_frames = plain[i].num_stack;
			st[i].count = plain[i].count;
		}
		wr = st ? ct_write_folded_stacks(b.out, st, n) : -1;
		free(st);
		break;
	}
	default: summary_text(b.out, &b, e, n, analyzed, failed, num_new, ct_cli_terminal_width(b.out)); break;
	}
	if (cli->summary) {
		FILE *f = fopen(cli->summary, "w");
		json_t *s = summary_json(&b, e, n, analyzed, failed, num_new);
		if (!f || json_dumpf(s, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0 || fputc('\n', f) == EOF ||
		    fclose(f) != 0) {
			fprintf(stderr, "coretriage: --summary %s: %s\n", cli->summary, strerror(errno));
			wr = -1;
		}
		json_decref(s);
	}
	if (cli->flamegraph && write_flamegraph(cli->flamegraph, e, n, analyzed) != 0) {
		fprintf(stderr, "coretriage: --flamegraph %s: %s\n", cli->flamegraph, strerror(errno));
		wr = -1;
	}
	if (fflush(b.out) != 0 || ferror(b.out) || wr != 0 || b.write_error) {
		fprintf(stderr, "coretriage: writing the output: %s\n", strerror(errno));
		rc = CT_EXIT_FATAL;
	} else if (analyzed == 0) {
		rc = CT_EXIT_FATAL;
	} else if (cli->fail_on_new) {
		rc = num_new ? CT_EXIT_NEW_BUCKETS : CT_EXIT_OK;
	} else {
		rc = failed || partial || b.num_missing || bucket_error || b.store_error ? CT_EXIT_PARTIAL : CT_EXIT_OK;
	}
	if (b.out != stdout)
		fclose(b.out);
	ct_buckets_deinit(&table);
	free(plain);
out:
	for (size_t i = 0; i < b.num_jobs; i++) {
		free(b.jobs[i].path);
		free(b.jobs[i].buf);
		if (b.jobs[i].report_fd >= 0)
			close(b.jobs[i].report_fd);
		json_decref(b.jobs[i].meta);
	}
	free(b.jobs);
	ct_store_close(b.store);
	if (known)
		ct_known_free(known);
	return rc;
}
