// The trail stage (trail.h): crash time from the best source, the systemd-coredump journal entry,
// the unit's start, then every log source's lines in the window, through one collector.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump/sniff.h"
#include "input/input.h"
#include "model/budget_diag.h"
#include "trail/journal.h"
#include "trail/trail.h"
#include "util/budget.h"
#include "util/cleanup.h"

/** A journal file starts with this signature (systemd's journal-def.h, "LPKSHHRH"). */
static const char journal_magic[8] = { 'L', 'P', 'K', 'S', 'H', 'H', 'R', 'H' };

struct log_file {
	char *path; /**< owned */
	bool direct; /**< named on the command line */
	bool journal;
	/** CT_FORMAT_ZSTD, _XZ, _LZ4: decompressed into a temporary file to be read; else UNKNOWN. */
	enum ct_format compressed;
	int64_t mtime_usec; /**< last written (saturated): files written before the window are not read */
};

struct sources {
	struct log_file *files; /**< owned */
	size_t num_files;
	size_t dropped; /**< directory entries beyond CT_LOGS_MAX_FILES, never looked at */
	size_t entries_read; /**< directory entries read, over the whole walk */
	bool entries_capped; /**< CT_LOGS_MAX_DIR_ENTRIES reached: the walk stopped */
	bool out_of_files; /**< CT_BUDGET_FILES spent: the walk stopped */
	struct ct_budget *budget; /**< borrowed: the run's */
};

struct journals {
	struct ct_journal *j[CT_LOGS_MAX_FILES];
	const char *label[CT_LOGS_MAX_FILES]; /**< pooled */
	/** Named on the command line: its problems are warnings (the system journal's are infos). */
	bool explicit[CT_LOGS_MAX_FILES];
	/** Last written (INT64_MAX for --journal and the system journal): scanned only when in the window. */
	int64_t mtime_usec[CT_LOGS_MAX_FILES];
	size_t num;
};

static void set_time(struct ct_time *t, int64_t usec, enum ct_time_source source)
{
	t->present = true;
	t->usec = usec;
	t->source = source;
}

// A file time in microseconds, saturated: touch -d can set any 64-bit second.
static int64_t timespec_usec(const struct timespec *ts)
{
	if (ts->tv_sec >= INT64_MAX / 1000000)
		return INT64_MAX;
	if (ts->tv_sec <= INT64_MIN / 1000000)
		return INT64_MIN;
	return (int64_t)ts->tv_sec * 1000000 + ts->tv_nsec / 1000;
}

static void out_of_range(struct ct_report *r, const char *what)
{
	ct_report_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_CRASH_TIME_OUT_OF_RANGE,
		       "%s is not a time coretriage accepts as the crash time (1970-01-01T00:00:00Z to "
		       "9999-12-31T23:59:59Z); not used",
		       what);
}

// The first source the dump has whose time is in range; one out of range is said and skipped.
static void crash_time_from_dump(const struct ct_trail_facts *f, const struct ct_coredump_name *name,
				 struct ct_report *r)
{
	struct ct_trail *t = &r->trail;
	struct stat st;
	// A live process has no crash: the moment it was captured is when its logs matter.
	if (f->has_capture_time && ct_crash_time_in_range(f->capture_time * 1000000)) {
		set_time(&t->crash_time, f->capture_time * 1000000, CT_TIME_SOURCE_CAPTURE);
		return;
	}
	if (name && name->timestamp_usec <= (uint64_t)CT_CRASH_TIME_MAX_USEC) {
		set_time(&t->crash_time, (int64_t)name->timestamp_usec, CT_TIME_SOURCE_COREDUMP_NAME);
		return;
	}
	if (name)
		out_of_range(r, ct_report_printf(r, "the TIMESTAMP of the core's systemd-coredump file name (%" PRIu64 " µs)",
						 name->timestamp_usec));
	if (f->has_vmcoreinfo_time && f->vmcoreinfo_time >= CT_CRASH_TIME_MIN_USEC / 1000000 &&
	    f->vmcoreinfo_time <= CT_CRASH_TIME_MAX_USEC / 1000000) {
		set_time(&t->crash_time, f->vmcoreinfo_time * 1000000, CT_TIME_SOURCE_VMCOREINFO);
		return;
	}
	if (f->has_vmcoreinfo_time)
		out_of_range(r, ct_report_printf(r, "VMCOREINFO CRASHTIME=%" PRId64 " (seconds)", f->vmcoreinfo_time));
	if (f->core_path && stat(f->core_path, &st) == 0) {
		int64_t usec = timespec_usec(&st.st_mtim);
		if (ct_crash_time_in_range(usec))
			set_time(&t->crash_time, usec, CT_TIME_SOURCE_FILE_MTIME);
		else
			out_of_range(r, ct_report_printf(r, "the dump file's modification time (%lld s)", (long long)st.st_mtim.tv_sec));
	}
}

// What kind of file @p path is, by its first bytes: a journal, a log compressed the way the core
// decompressor reads (*@p compressed), or text. Returns false (after a diagnostic) for files that
// cannot be read.
static bool sniff_file(struct ct_report *r, const char *path, bool direct, bool *journal, enum ct_format *compressed)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	uint8_t head[64] = { 0 };
	ssize_t n = fd >= 0 ? read(fd, head, sizeof(head)) : -1;
	enum ct_severity sev = direct ? CT_SEVERITY_WARNING : CT_SEVERITY_INFO;
	if (n < 0) {
		ct_report_diag(r, sev, 0, CT_DIAG_LOG_UNREADABLE, "%s: %s", path, strerror(errno));
		return false;
	}
	*journal = n >= 8 && !memcmp(head, journal_magic, 8);
	enum ct_format format = ct_sniff(head, (size_t)n);
	// gzip is how logrotate compresses; the core decompressor reads it too (not for cores).
	*compressed = ct_input_is_compressed(format) || format == CT_FORMAT_GZIP ? format : CT_FORMAT_UNKNOWN;
	if (format == CT_FORMAT_BZIP2) {
		ct_report_diag(r, sev, 0, CT_DIAG_LOG_COMPRESSED, "%s: a %s (rotated) log: not read by this build; decompress it to search it",
			       path, ct_format_to_string(format));
		return false;
	}
	return true;
}

// Spends one file of the budget (a stat and an open of a log file, an lstat of an entry of unknown
// type); false once it is spent.
static bool look(struct sources *s)
{
	if (!s->out_of_files && !ct_budget_take(s->budget, CT_BUDGET_FILES, 1))
		s->out_of_files = true;
	return !s->out_of_files;
}

static void add_file(struct ct_report *r, struct sources *s, const char *path, bool direct)
{
	// Checked before anything is done with the file: a file beyond the cap costs nothing.
	if (s->num_files == CT_LOGS_MAX_FILES) {
		s->dropped++;
		return;
	}
	if (!look(s))
		return;
	struct stat st;
	if (stat(path, &st) != 0) {
		ct_report_diag(r, direct ? CT_SEVERITY_WARNING : CT_SEVERITY_INFO, 0, CT_DIAG_LOG_UNREADABLE, "%s: %s", path,
			       strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		// A FIFO or a device would block or never end: only regular files are read.
		if (direct)
			ct_report_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_LOG_UNREADABLE, "%s: not a regular file; not read", path);
		return;
	}
	bool journal;
	enum ct_format compressed;
	if (!sniff_file(r, path, direct, &journal, &compressed))
		return;
	struct log_file *f = reallocarray(s->files, s->num_files + 1, sizeof(*f));
	if (!f)
		return;
	s->files = f;
	f[s->num_files] = (struct log_file){ .path = strdup(path), .direct = direct, .journal = journal,
					     .compressed = compressed, .mtime_usec = timespec_usec(&st.st_mtim) };
	if (f[s->num_files].path)
		s->num_files++;
}

struct dir_entry {
	char *name; /**< owned */
	unsigned char type; /**< d_type */
};

static int compare_entries(const void *a, const void *b)
{
	return strcmp(((const struct dir_entry *)a)->name, ((const struct dir_entry *)b)->name);
}

// Restores the max-heap order (by name) of @p v[0, n) after v[i] grew smaller.
static void sift_down(struct dir_entry *v, size_t n, size_t i)
{
	for (;;) {
		size_t big = i, l = 2 * i + 1, r = l + 1;
		if (l < n && strcmp(v[l].name, v[big].name) > 0)
			big = l;
		if (r < n && strcmp(v[r].name, v[big].name) > 0)
			big = r;
		if (big == i)
			return;
		struct dir_entry t = v[i];
		v[i] = v[big];
		v[big] = t;
		i = big;
	}
}

static void sift_up(struct dir_entry *v, size_t i)
{
	while (i && strcmp(v[(i - 1) / 2].name, v[i].name) < 0) {
		struct dir_entry t = v[i];
		v[i] = v[(i - 1) / 2];
		v[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

// The first @p keep entries of @p dir by name (but . and ..), sorted; the others are counted in
// s->dropped and never stat'ed or opened. A max-heap of @p keep names: memory is the cap's, and
// reading a directory of 300,000 entries costs its getdents, not 300,000 stats. Reading stops after
// CT_LOGS_MAX_DIR_ENTRIES entries in all (s->entries_read).
static size_t read_dir(struct sources *s, const char *dir, size_t keep, struct dir_entry **ret)
{
	DIR *d = opendir(dir);
	if (!d)
		return SIZE_MAX;
	struct dir_entry *v = keep ? calloc(keep, sizeof(*v)) : NULL;
	size_t n = 0;
	for (struct dirent *de; (v || !keep) && (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		if (s->entries_read++ == CT_LOGS_MAX_DIR_ENTRIES) {
			s->entries_capped = true;
			break;
		}
		if (n == keep && (!n || strcmp(de->d_name, v[0].name) >= 0)) {
			s->dropped++;
			continue;
		}
		char *name = strdup(de->d_name);
		if (!name)
			break;
		if (n == keep) {
			// Replaces the largest name kept, which is now one too many.
			s->dropped++;
			free(v[0].name);
			v[0] = (struct dir_entry){ name, de->d_type };
			sift_down(v, n, 0);
		} else {
			v[n] = (struct dir_entry){ name, de->d_type };
			sift_up(v, n++);
		}
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), compare_entries);
	*ret = v;
	return n;
}

static void walk(struct ct_report *r, struct sources *s, const char *dir, int depth)
{
	struct dir_entry *names = NULL;
	size_t n = read_dir(s, dir, CT_LOGS_MAX_FILES - s->num_files, &names);
	if (n == SIZE_MAX) {
		ct_report_diag(r, depth ? CT_SEVERITY_INFO : CT_SEVERITY_WARNING, 0, CT_DIAG_LOG_UNREADABLE, "%s: %s", dir,
			       strerror(errno));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		// Past the cap the rest are only counted: no path is built, nothing is stat'ed.
		if (s->num_files == CT_LOGS_MAX_FILES || s->out_of_files) {
			s->dropped += s->out_of_files ? 0 : n - i;
			for (; i < n; i++)
				free(names[i].name);
			break;
		}
		char *path = NULL;
		if (asprintf(&path, "%s/%s", dir, names[i].name) >= 0) {
			unsigned char type = names[i].type;
			struct stat st;
			if (type == DT_UNKNOWN && look(s) && lstat(path, &st) == 0)
				type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
			// Symbolic links are not followed inside a directory (they may loop or leave the tree).
			if (type == DT_DIR && depth < CT_LOGS_MAX_DEPTH)
				walk(r, s, path, depth + 1);
			else if (type == DT_REG)
				add_file(r, s, path, false);
		}
		free(path);
		free(names[i].name);
	}
	free(names);
}

static void gather(const struct ct_options *o, struct ct_report *r, struct sources *s)
{
	for (size_t i = 0; i < o->num_log_paths; i++) {
		struct stat st;
		if (stat(o->log_paths[i], &st) == 0 && S_ISDIR(st.st_mode))
			walk(r, s, o->log_paths[i], 0);
		else
			add_file(r, s, o->log_paths[i], true);
	}
	if (s->dropped)
		ct_report_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_LOGS_CAP,
			       "%zu more log files or directory entries not looked at (at most %d log files are read, "
			       "the first in name order)",
			       s->dropped, CT_LOGS_MAX_FILES);
	if (s->entries_capped)
		ct_report_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_LOGS_CAP,
			       "--logs: stopped reading directories after %d entries; the log files found before are read",
			       CT_LOGS_MAX_DIR_ENTRIES);
	if (s->out_of_files && s->budget) {
		ct_report_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_BUDGET_FILES,
			       "--logs: the walk stopped: the work budget of %" PRIu64
			       " log files and directory entries looked at is spent; the %zu log files found before are read",
			       s->budget->limit[CT_BUDGET_FILES], s->num_files);
		s->budget->reported[CT_BUDGET_FILES] = true;
	}
}

static void journal_problem(struct ct_report *r, enum ct_severity sev, struct ct_error *err)
{
	ct_report_diag(r, sev, 0, CT_DIAG_JOURNAL_UNREADABLE, "%s", ct_error_message(err));
	ct_error_destroy(err);
}

static void keep_entry(struct ct_report *r, const char *label, const struct ct_coredump_entry *e)
{
	struct ct_trail *t = &r->trail;
	t->has_coredump_entry = true;
	t->coredump_entry_file = ct_report_strdup(r, label);
	set_time(&t->coredump_entry_time, e->usec, CT_TIME_SOURCE_JOURNAL);
	t->coredump_fields = calloc(e->num_fields ? e->num_fields : 1, sizeof(*t->coredump_fields));
	for (size_t i = 0; t->coredump_fields && i < e->num_fields; i++) {
		struct ct_detail *d = &t->coredump_fields[t->num_coredump_fields++];
		d->key = ct_report_strdup(r, e->fields[i].key);
		d->kind = CT_VALUE_STRING;
		d->string = ct_report_strdup(r, e->fields[i].value);
	}
	const char *unit = ct_coredump_entry_get(e, "COREDUMP_UNIT");
	const char *user_unit = ct_coredump_entry_get(e, "COREDUMP_USER_UNIT");
	// Processes of a user's session run in user-1000.slice's session scope; the user unit names them.
	if (user_unit && (!unit || !strncmp(unit, "user@", 5)))
		unit = user_unit;
	t->unit = ct_report_strdup(r, unit);
	bool replaces = !t->crash_time.present || t->crash_time.source == CT_TIME_SOURCE_FILE_MTIME;
	if (e->has_crash_usec && replaces && !ct_crash_time_in_range(e->crash_usec))
		out_of_range(r, ct_report_printf(r, "COREDUMP_TIMESTAMP=%" PRId64 " (µs) of the systemd-coredump journal entry in %s",
						 e->crash_usec, label));
	else if (e->has_crash_usec && replaces)
		set_time(&t->crash_time, e->crash_usec, CT_TIME_SOURCE_JOURNAL);
	if (e->has_boot)
		set_time(&t->boot_time, e->boot_usec, CT_TIME_SOURCE_JOURNAL);
}

// The systemd-coredump entry, from the first journal that has it.
static void find_entry(struct ct_report *r, struct journals *js, const struct ct_log_filter *who)
{
	if (!who->has_pid)
		return;
	const struct ct_time *ct = &r->trail.crash_time;
	for (size_t i = 0; i < js->num; i++) {
		struct ct_coredump_entry e;
		struct ct_error *err = ct_journal_find_coredump(js->j[i], who->pid, who->command, ct->present, ct->usec, &e);
		if (err) {
			ct_error_destroy(err);
			continue;
		}
		keep_entry(r, js->label[i], &e);
		const char *user_unit = ct_coredump_entry_get(&e, "COREDUMP_USER_UNIT");
		bool user = user_unit && r->trail.unit && !strcmp(user_unit, r->trail.unit);
		int64_t started;
		if (r->trail.unit && ct->present && ct_journal_unit_start(js->j[i], r->trail.unit, user, ct->usec, &started))
			set_time(&r->trail.unit_start_time, started, CT_TIME_SOURCE_JOURNAL);
		ct_coredump_entry_deinit(&e);
		return;
	}
	if (js->num)
		ct_report_diag(r, CT_SEVERITY_INFO, 0, CT_DIAG_NO_COREDUMP_ENTRY,
			       "no systemd-coredump journal entry for pid %d%s%s%s in %s%s", who->pid, who->command ? " (" : "",
			       who->command ? who->command : "", who->command ? ")" : "", js->label[0],
			       js->num > 1 ? " and the other journals" : "");
}

static void open_journal(struct ct_report *r, struct journals *js, const char *path, const char *label, bool explicit,
			 int64_t mtime_usec)
{
	if (js->num == CT_LOGS_MAX_FILES)
		return;
	struct ct_journal *j;
	struct ct_error *err = ct_journal_open(path, &j);
	if (err) {
		journal_problem(r, explicit ? CT_SEVERITY_WARNING : CT_SEVERITY_INFO, err);
		return;
	}
	js->j[js->num] = j;
	js->explicit[js->num] = explicit;
	js->mtime_usec[js->num] = mtime_usec;
	js->label[js->num++] = ct_report_strdup(r, label);
}

// The latest time a line can have and still come before the crash: systemd-coredump's name and
// entry and CRASHTIME have whole seconds (the crash was within the second after); a file time
// comes from the kernel's coarse clock, a tick behind clock_gettime() (Linux current_time()).
static int64_t context_until(const struct ct_time *t)
{
	if (t->source == CT_TIME_SOURCE_FILE_MTIME)
		return t->usec + 10000;
	return t->usec % 1000000 == 0 ? t->usec + 999999 : t->usec;
}

// Why a compressed log stopped inflating early, as the diagnostic of the limit it reached.
static void inflate_limit(struct ct_report *r, struct ct_budget *budget, const struct log_file *f, enum ct_budget_kind kind,
			  uint64_t size)
{
	ct_budget_mark_reached(budget, kind);
	// A budget reached stays reached: the next compressed log is not inflated at all.
	ct_budget_spend(budget, kind, ct_budget_left(budget, kind));
	const char *what = kind == CT_BUDGET_TEMP ? "bytes of temporary space ($TMPDIR)" : "bytes inflated";
	ct_report_diag(r, CT_SEVERITY_WARNING, 0, kind == CT_BUDGET_TEMP ? CT_DIAG_BUDGET_TEMP : CT_DIAG_BUDGET_DEBUG,
		       "%s: compressed log %s: the work budget of %" PRIu64 " %s (shared with the core and debug files; "
		       "--max-memory%s) is spent",
		       f->path, size ? ct_report_printf(r, "read as far as it inflated (%" PRIu64 " bytes)", size) : "not read",
		       budget ? budget->limit[kind] : 0, what, kind == CT_BUDGET_TEMP ? "" : ", tighter with --safe");
	if (budget)
		budget->reported[kind] = true;
}

// A descriptor of the log's text: the file, or its decompressed copy (-2 after a diagnostic). The
// copy spends the run's inflation (CT_BUDGET_DEBUG) and temporary space (CT_BUDGET_TEMP) budgets.
static int open_log(struct ct_report *r, struct ct_budget *budget, const struct log_file *f)
{
	if (f->compressed == CT_FORMAT_UNKNOWN)
		return open(f->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	uint64_t inflate_left = ct_budget_left(budget, CT_BUDGET_DEBUG), space_left = ct_budget_left(budget, CT_BUDGET_TEMP);
	if (!inflate_left || !space_left) {
		inflate_limit(r, budget, f, inflate_left ? CT_BUDGET_TEMP : CT_BUDGET_DEBUG, 0);
		return -2;
	}
	uint64_t max = inflate_left < CT_LOGS_MAX_DECOMPRESSED ? inflate_left : CT_LOGS_MAX_DECOMPRESSED;
	bool budget_bound = max < CT_LOGS_MAX_DECOMPRESSED;
	int fd;
	struct ct_decompress_status status;
	enum ct_severity sev = f->direct ? CT_SEVERITY_WARNING : CT_SEVERITY_INFO;
	struct ct_error *err = ct_input_decompress(f->path, f->compressed, max, space_left, &fd, &status);
	if (err && err->code == CT_ERROR_LIMIT && budget_bound) {
		// The limit came before the first output: nothing to read.
		ct_error_destroy(err);
		inflate_limit(r, budget, f, CT_BUDGET_DEBUG, 0);
		return -2;
	}
	if (err) {
		ct_report_diag(r, sev, 0, CT_DIAG_LOG_COMPRESSED, "%s", ct_error_message(err));
		ct_error_destroy(err);
		return -2;
	}
	ct_budget_spend(budget, CT_BUDGET_DEBUG, status.size);
	ct_budget_spend(budget, CT_BUDGET_TEMP, status.written);
	// A stream cut short, or a limit: the lines before are still read.
	if (status.space_reached)
		inflate_limit(r, budget, f, CT_BUDGET_TEMP, status.size);
	else if (status.size_reached && budget_bound)
		inflate_limit(r, budget, f, CT_BUDGET_DEBUG, status.size);
	else if (status.size_reached)
		ct_report_diag(r, CT_SEVERITY_INFO, 0, CT_DIAG_LOGS_CAP,
			       "%s: decompresses to more than %" PRIu64 " MiB, the cap for one log; the first %" PRIu64 " bytes are read",
			       f->path, CT_LOGS_MAX_DECOMPRESSED >> 20, status.size);
	else if (status.partial)
		ct_report_diag(r, sev, 0, CT_DIAG_LOG_CORRUPT, "%s", status.message);
	return fd;
}

// A file last written before the window cannot hold lines of it (rotated logs, old journals).
static bool before_window(struct ct_report *r, const char *path, bool direct, int64_t mtime_usec, int64_t from)
{
	if (mtime_usec >= from - 1000000)
		return false;
	if (direct)
		ct_report_diag(r, CT_SEVERITY_INFO, 0, CT_DIAG_LOG_BEFORE_WINDOW, "%s: last written before the window; not read",
			       path);
	return true;
}

void ct_trail_analyze(const struct ct_options *o, const struct ct_trail_facts *f, struct ct_budget *budget,
		      struct ct_report *r)
{
	struct ct_trail *t = &r->trail;
	struct ct_coredump_name name;
	bool named = f->core_path && ct_coredump_name_parse(f->core_path, &name);
	crash_time_from_dump(f, named ? &name : NULL, r);
	struct ct_log_filter who = { .has_pid = f->has_pid, .pid = f->pid, .command = f->command };
	if (!who.has_pid && named) {
		who.has_pid = true;
		who.pid = (int)name.pid;
	}
	if (!who.command && named)
		who.command = ct_report_strdup(r, name.comm);
	if (named)
		ct_coredump_name_deinit(&name);

	// The journals: --journal, else the system journal of a systemd-coredump core (not with
	// --safe: a bot's report must not carry the host's logs), then journal files under --logs.
	// Files are found before the window is known: the journal's entry may move the crash time.
	struct journals *js = calloc(1, sizeof(*js));
	struct sources src = { .budget = budget };
	if (!js)
		return;
	if (o->num_log_paths)
		gather(o, r, &src);
	bool logs_have_journal = false;
	for (size_t i = 0; i < src.num_files; i++)
		logs_have_journal |= src.files[i].journal;
	if (o->journal)
		open_journal(r, js, o->journal, o->journal, true, INT64_MAX);
	else if (named && !o->no_journal && !o->safe && !logs_have_journal)
		open_journal(r, js, NULL, "system journal", false, INT64_MAX);
	size_t num_own = js->num;
	for (size_t i = 0; i < src.num_files; i++) {
		if (src.files[i].journal)
			open_journal(r, js, src.files[i].path, src.files[i].path, src.files[i].direct, src.files[i].mtime_usec);
	}
	find_entry(r, js, &who);
	who.unit = t->unit;
	if (f->is_kernel && f->has_uptime && t->crash_time.present && !t->boot_time.present && f->uptime >= 0 &&
	    f->uptime * 1e6 < (double)t->crash_time.usec)
		set_time(&t->boot_time, t->crash_time.usec - (int64_t)(f->uptime * 1e6), t->crash_time.source);
	// The window is around the final crash time (the journal's, when it replaced a file time). The
	// time is in CT_CRASH_TIME range and the window at most 2^32 s each way: no overflow.
	int64_t before = (int64_t)o->logs_window_before * 1000000, after = (int64_t)o->logs_window_after * 1000000;
	int64_t from = t->crash_time.usec - before, to = t->crash_time.usec + after;

	if ((o->num_log_paths || num_own) && !t->crash_time.present)
		ct_report_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_CRASH_TIME, "the crash time is unknown: logs not searched");
	struct ct_log_collector *c = NULL;
	if ((o->num_log_paths || num_own) && t->crash_time.present)
		c = ct_log_collector_create(t->crash_time.usec, context_until(&t->crash_time), from, to, &who);
	if (c) {
		t->logs_searched = true;
		t->window_before_usec = before;
		t->window_after_usec = after;
		for (size_t i = 0; i < js->num; i++) {
			if (before_window(r, js->label[i], js->explicit[i] && i >= num_own, js->mtime_usec[i], from))
				continue;
			struct ct_log_source *s = ct_trail_add_source(r, js->label[i], "journal");
			uint64_t count = 0;
			// Own journals (the system's, --journal) give the process's lines; --logs journals all.
			struct ct_error *err = ct_journal_scan(js->j[i], c, s ? s->file : js->label[i], i < num_own ? &who : NULL,
							       budget, &count);
			if (s)
				s->lines_in_window = count;
			if (err && budget && budget->reached[CT_BUDGET_COPY] && !budget->reported[CT_BUDGET_COPY]) {
				budget->reported[CT_BUDGET_COPY] = true;
				ct_report_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_BUDGET_COPY, "%s", ct_error_message(err));
				ct_error_destroy(err);
			} else if (err) {
				journal_problem(r, err->code != CT_ERROR_LIMIT && js->explicit[i] ? CT_SEVERITY_WARNING
												 : CT_SEVERITY_INFO, err);
			}
		}
		for (size_t i = 0; i < src.num_files; i++) {
			const struct log_file *lf = &src.files[i];
			if (lf->journal || before_window(r, lf->path, lf->direct, lf->mtime_usec, from))
				continue;
			// Nothing more can be read: a compressed log is not inflated for nothing.
			if (!ct_budget_left(budget, CT_BUDGET_COPY))
				break;
			_cleanup_close_ int fd = open_log(r, budget, lf);
			if (fd == -2)
				continue;
			if (fd < 0) {
				ct_report_diag(r, lf->direct ? CT_SEVERITY_WARNING : CT_SEVERITY_INFO, 0, CT_DIAG_LOG_UNREADABLE,
					       "%s: %s", lf->path, strerror(errno));
				continue;
			}
			ct_logs_read_text(r, budget, c, lf->path, fd, lf->direct, t->crash_time.usec, t->boot_time.present,
					  t->boot_time.usec);
		}
		ct_log_collector_finish(c, r);
		ct_log_collector_destroy(c);
	}
	ct_budget_report(budget, r);
	for (size_t i = 0; i < js->num; i++)
		ct_journal_close(js->j[i]);
	free(js);
	for (size_t i = 0; i < src.num_files; i++)
		free(src.files[i].path);
	free(src.files);
}
