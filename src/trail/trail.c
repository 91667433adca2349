// The trail stage (trail.h): crash time from the best source, the systemd-coredump journal entry,
// the unit's start, then every log source's lines in the window, through one collector.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump/sniff.h"
#include "input/input.h"
#include "trail/journal.h"
#include "trail/trail.h"
#include "util/cleanup.h"

/** A journal file starts with this signature (systemd's journal-def.h, "LPKSHHRH"). */
static const char journal_magic[8] = { 'L', 'P', 'K', 'S', 'H', 'H', 'R', 'H' };

struct log_file {
	char *path; /**< owned */
	bool direct; /**< named on the command line */
	bool journal;
	/** CT_FORMAT_ZSTD, _XZ, _LZ4: decompressed into a temporary file to be read; else UNKNOWN. */
	enum ct_format compressed;
};

struct sources {
	struct log_file *files; /**< owned */
	size_t num_files;
	size_t dropped; /**< beyond CT_LOGS_MAX_FILES */
};

struct journals {
	struct ct_journal *j[CT_LOGS_MAX_FILES];
	const char *label[CT_LOGS_MAX_FILES]; /**< pooled */
	/** Named on the command line: its problems are warnings (the system journal's are infos). */
	bool explicit[CT_LOGS_MAX_FILES];
	size_t num;
};

static void set_time(struct ct_time *t, int64_t usec, enum ct_time_source source)
{
	t->present = true;
	t->usec = usec;
	t->source = source;
}

static void crash_time_from_dump(const struct ct_trail_facts *f, const struct ct_coredump_name *name,
				 struct ct_report *r)
{
	struct ct_trail *t = &r->trail;
	struct stat st;
	if (name)
		set_time(&t->crash_time, (int64_t)name->timestamp_usec, CT_TIME_SOURCE_COREDUMP_NAME);
	else if (f->has_vmcoreinfo_time)
		set_time(&t->crash_time, f->vmcoreinfo_time * 1000000, CT_TIME_SOURCE_VMCOREINFO);
	else if (f->core_path && stat(f->core_path, &st) == 0)
		set_time(&t->crash_time, (int64_t)st.st_mtim.tv_sec * 1000000 + st.st_mtim.tv_nsec / 1000,
			 CT_TIME_SOURCE_FILE_MTIME);
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

static void add_file(struct ct_report *r, struct sources *s, const char *path, bool direct, int64_t from)
{
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
	// A file last written before the window cannot hold lines of it (rotated logs, old journals).
	if ((int64_t)st.st_mtim.tv_sec * 1000000 < from - 1000000) {
		if (direct)
			ct_report_diag(r, CT_SEVERITY_INFO, 0, CT_DIAG_LOG_BEFORE_WINDOW,
				       "%s: last written before the window; not read", path);
		return;
	}
	bool journal;
	enum ct_format compressed;
	if (!sniff_file(r, path, direct, &journal, &compressed))
		return;
	if (s->num_files == CT_LOGS_MAX_FILES) {
		s->dropped++;
		return;
	}
	struct log_file *f = reallocarray(s->files, s->num_files + 1, sizeof(*f));
	if (!f)
		return;
	s->files = f;
	f[s->num_files] = (struct log_file){ .path = strdup(path), .direct = direct, .journal = journal,
					     .compressed = compressed };
	if (f[s->num_files].path)
		s->num_files++;
}

static void walk(struct ct_report *r, struct sources *s, const char *dir, int depth, int64_t from)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		ct_report_diag(r, depth ? CT_SEVERITY_INFO : CT_SEVERITY_WARNING, 0, CT_DIAG_LOG_UNREADABLE, "%s: %s", dir,
			       strerror(errno));
		return;
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char *path = NULL;
		if (name[0] != '.' && asprintf(&path, "%s/%s", dir, name) >= 0) {
			struct stat st;
			if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && depth < CT_LOGS_MAX_DEPTH)
				walk(r, s, path, depth + 1, from);
			else if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
				add_file(r, s, path, false, from);
		}
		free(path);
		free(names[i]);
	}
	free(names);
}

static void gather(const struct ct_options *o, struct ct_report *r, struct sources *s, int64_t from)
{
	for (size_t i = 0; i < o->num_log_paths; i++) {
		struct stat st;
		if (stat(o->log_paths[i], &st) == 0 && S_ISDIR(st.st_mode))
			walk(r, s, o->log_paths[i], 0, from);
		else
			add_file(r, s, o->log_paths[i], true, from);
	}
	if (s->dropped)
		ct_report_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_LOGS_CAP, "%zu more log files not read (at most %d)",
			       s->dropped, CT_LOGS_MAX_FILES);
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
	if (e->has_crash_usec &&
	    (!t->crash_time.present || t->crash_time.source == CT_TIME_SOURCE_FILE_MTIME))
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

static void open_journal(struct ct_report *r, struct journals *js, const char *path, const char *label, bool explicit)
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

// A descriptor of the log's text: the file, or its decompressed copy (-2 after a diagnostic).
static int open_log(struct ct_report *r, const struct log_file *f)
{
	if (f->compressed == CT_FORMAT_UNKNOWN)
		return open(f->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	int fd;
	struct ct_decompress_status status;
	enum ct_severity sev = f->direct ? CT_SEVERITY_WARNING : CT_SEVERITY_INFO;
	struct ct_error *err = ct_input_decompress(f->path, f->compressed, CT_LOGS_MAX_DECOMPRESSED, 0, &fd, &status);
	if (err) {
		ct_report_diag(r, sev, 0, CT_DIAG_LOG_COMPRESSED, "%s", ct_error_message(err));
		ct_error_destroy(err);
		return -2;
	}
	// A stream cut short: the lines before the cut are still read.
	if (status.partial)
		ct_report_diag(r, sev, 0, CT_DIAG_LOG_CORRUPT, "%s", status.message);
	return fd;
}

void ct_trail_analyze(const struct ct_options *o, const struct ct_trail_facts *f, struct ct_report *r)
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
	int64_t before = (int64_t)o->logs_window_before * 1000000, after = (int64_t)o->logs_window_after * 1000000;
	int64_t from = t->crash_time.usec - before, to = t->crash_time.usec + after;

	// The journals: --journal, else the system journal of a systemd-coredump core (not with
	// --safe: a bot's report must not carry the host's logs), then journal files under --logs.
	struct journals *js = calloc(1, sizeof(*js));
	struct sources src = { 0 };
	if (!js)
		return;
	if (o->num_log_paths && t->crash_time.present)
		gather(o, r, &src, from);
	bool logs_have_journal = false;
	for (size_t i = 0; i < src.num_files; i++)
		logs_have_journal |= src.files[i].journal;
	if (o->journal)
		open_journal(r, js, o->journal, o->journal, true);
	else if (named && !o->no_journal && !o->safe && !logs_have_journal)
		open_journal(r, js, NULL, "system journal", false);
	size_t num_own = js->num;
	for (size_t i = 0; i < src.num_files; i++) {
		if (src.files[i].journal)
			open_journal(r, js, src.files[i].path, src.files[i].path, src.files[i].direct);
	}
	find_entry(r, js, &who);
	who.unit = t->unit;
	if (f->is_kernel && f->has_uptime && t->crash_time.present && !t->boot_time.present)
		set_time(&t->boot_time, t->crash_time.usec - (int64_t)(f->uptime * 1e6), t->crash_time.source);

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
			struct ct_log_source *s = ct_trail_add_source(r, js->label[i], "journal");
			uint64_t count = 0;
			// Own journals (the system's, --journal) give the process's lines; --logs journals all.
			struct ct_error *err = ct_journal_scan(js->j[i], c, s ? s->file : js->label[i], i < num_own ? &who : NULL, &count);
			if (s)
				s->lines_in_window = count;
			if (err)
				journal_problem(r, err->code != CT_ERROR_LIMIT && js->explicit[i] ? CT_SEVERITY_WARNING
												 : CT_SEVERITY_INFO, err);
		}
		for (size_t i = 0; i < src.num_files; i++) {
			if (src.files[i].journal)
				continue;
			_cleanup_close_ int fd = open_log(r, &src.files[i]);
			if (fd == -2)
				continue;
			if (fd < 0) {
				ct_report_diag(r, src.files[i].direct ? CT_SEVERITY_WARNING : CT_SEVERITY_INFO, 0, CT_DIAG_LOG_UNREADABLE,
					       "%s: %s", src.files[i].path, strerror(errno));
				continue;
			}
			ct_logs_read_text(r, c, src.files[i].path, fd, src.files[i].direct, t->crash_time.usec,
					  t->boot_time.present, t->boot_time.usec);
		}
		ct_log_collector_finish(c, r);
		ct_log_collector_destroy(c);
	}
	for (size_t i = 0; i < js->num; i++)
		ct_journal_close(js->j[i]);
	free(js);
	for (size_t i = 0; i < src.num_files; i++)
		free(src.files[i].path);
	free(src.files);
}
