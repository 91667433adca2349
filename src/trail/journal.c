// sd-journal glue (journal.h). Matches use the journal's field indexes; seeks are by realtime.
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trail/journal.h"

#if CT_HAVE_SYSTEMD
#include <systemd/sd-journal.h>

#include "lazy/lazy.h"

/** systemd-coredump's "Process … dumped core." (systemd catalog, SD_MESSAGE_COREDUMP). */
#define MESSAGE_COREDUMP "fc2e22bc6ee647b6b90729ab34a250b1"
/** PID 1's "Started UNIT." (SD_MESSAGE_UNIT_STARTED). */
#define MESSAGE_UNIT_STARTED "39f53479d3a045ac8e11786248231fbf"
/** Coredump entries of one pid looked at: a pid is reused a few times a day at most. */
#define MAX_COREDUMP_CANDIDATES 64

// The fields of the coredump entry worth showing. COREDUMP (the core itself), COREDUMP_ENVIRON
// (secrets) and the /proc snapshots (large) are left out on purpose.
static const char *const kept_fields[] = {
	"COREDUMP_PID",	    "COREDUMP_UID",	       "COREDUMP_GID",		"COREDUMP_SIGNAL",
	"COREDUMP_SIGNAL_NAME", "COREDUMP_COMM",	"COREDUMP_EXE",		"COREDUMP_CMDLINE",
	"COREDUMP_CGROUP",  "COREDUMP_UNIT",	       "COREDUMP_USER_UNIT",	"COREDUMP_SLICE",
	"COREDUMP_OWNER_UID", "COREDUMP_SESSION",	"COREDUMP_TIMESTAMP",	"COREDUMP_RLIMIT",
	"COREDUMP_HOSTNAME", "COREDUMP_FILENAME",	"COREDUMP_TRUNCATED",	"COREDUMP_PACKAGE_NAME",
	"COREDUMP_PACKAGE_VERSION", "COREDUMP_PACKAGE_JSON", "COREDUMP_CONTAINER_CMDLINE", "COREDUMP_ROOT",
	"COREDUMP_CWD",
};

struct ct_journal {
	sd_journal *j;
};

static struct ct_error *journal_error(int r, const char *call, const char *path)
{
	return ct_error_create(r == -ENOMEM ? CT_ERROR_NO_MEMORY : CT_ERROR_LIBRARY, "%s: %s: %s",
			       path ? path : "system journal", call, strerror(-r));
}

static struct ct_error *finish_open(sd_journal *sj, const char *label, struct ct_journal **ret)
{
	// Bounded reads: no field is read beyond this, however large it is in the file.
	sd_journal_set_data_threshold(sj, CT_LOG_LINE_MAX + 64);
	struct ct_journal *j = calloc(1, sizeof(*j));
	if (!j) {
		sd_journal_close(sj);
		return &ct_enomem;
	}
	j->j = sj;
	// A journal with no readable entry at all (a file cut short before its first entry).
	int r = sd_journal_seek_head(sj);
	if (r >= 0)
		r = sd_journal_next(sj);
	if (r <= 0) {
		ct_journal_close(j);
		return r < 0 ? journal_error(r, "reading the first entry", label)
			     : ct_error_create(CT_ERROR_CORRUPT, "%s: no readable journal entries", label);
	}
	*ret = j;
	return NULL;
}

struct ct_error *ct_journal_open(const char *path, struct ct_journal **ret)
{
	// libsystemd is loaded now (src/lazy/systemd.c): say so in one line when it is missing.
	struct ct_error *err = ct_lazy_systemd_require();
	if (err)
		return err;
	sd_journal *sj = NULL;
	int r;
	if (!path) {
		r = sd_journal_open(&sj, SD_JOURNAL_LOCAL_ONLY);
		if (r < 0)
			return journal_error(r, "sd_journal_open", NULL);
		return finish_open(sj, "system journal", ret);
	}
	const char *paths[] = { path, NULL };
	r = sd_journal_open_directory(&sj, path, 0);
	if (r == -ENOTDIR)
		r = sd_journal_open_files(&sj, paths, 0);
	if (r < 0)
		return journal_error(r, "not readable as a journal (cut short or corrupt?)", path);
	return finish_open(sj, path, ret);
}

void ct_journal_close(struct ct_journal *j)
{
	if (!j)
		return;
	sd_journal_close(j->j);
	free(j);
}

// The value of @p field in the current entry (not NUL-terminated), or NULL.
static const char *get(sd_journal *j, const char *field, size_t *len)
{
	const void *data;
	size_t n;
	if (sd_journal_get_data(j, field, &data, &n) < 0)
		return NULL;
	size_t k = strlen(field);
	if (n <= k || memcmp(data, field, k) != 0 || ((const char *)data)[k] != '=')
		return NULL;
	*len = n - k - 1;
	return (const char *)data + k + 1;
}

static bool get_int64(sd_journal *j, const char *field, int64_t *ret)
{
	size_t n;
	const char *v = get(j, field, &n);
	char buf[24];
	if (!v || n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, v, n);
	buf[n] = '\0';
	char *end;
	errno = 0;
	long long x = strtoll(buf, &end, 10);
	if (errno || *end)
		return false;
	*ret = x;
	return true;
}

static bool field_is(sd_journal *j, const char *field, const char *want)
{
	size_t n;
	const char *v = get(j, field, &n);
	return v && strlen(want) == n && !memcmp(v, want, n);
}

static void fill_entry(sd_journal *j, struct ct_coredump_entry *e)
{
	memset(e, 0, sizeof(*e));
	uint64_t rt = 0, mono = 0;
	if (sd_journal_get_realtime_usec(j, &rt) >= 0)
		e->usec = (int64_t)rt;
	sd_id128_t boot;
	if (sd_journal_get_monotonic_usec(j, &mono, &boot) >= 0 && rt >= mono) {
		e->has_boot = true;
		e->boot_usec = (int64_t)(rt - mono);
	}
	e->has_crash_usec = get_int64(j, "COREDUMP_TIMESTAMP", &e->crash_usec);
	for (size_t i = 0; i < sizeof(kept_fields) / sizeof(kept_fields[0]) && e->num_fields < CT_JOURNAL_MAX_FIELDS; i++) {
		size_t n;
		const char *v = get(j, kept_fields[i], &n);
		if (!v)
			continue;
		if (n > CT_JOURNAL_MAX_VALUE)
			n = CT_JOURNAL_MAX_VALUE;
		struct ct_journal_field *f = &e->fields[e->num_fields];
		f->key = strdup(kept_fields[i]);
		f->value = strndup(v, n);
		if (!f->key || !f->value) {
			free(f->key);
			free(f->value);
			continue;
		}
		e->num_fields++;
	}
}

// When the current entry says the crash was: COREDUMP_TIMESTAMP, else when it was logged; false
// when neither is a time in CT_CRASH_TIME range (a crafted entry: no distance is computed from it).
static bool entry_crash_time(sd_journal *j, int64_t *ret)
{
	int64_t t;
	uint64_t rt;
	if (get_int64(j, "COREDUMP_TIMESTAMP", &t) && ct_crash_time_in_range(t)) {
		*ret = t;
		return true;
	}
	if (sd_journal_get_realtime_usec(j, &rt) >= 0 && rt <= (uint64_t)CT_CRASH_TIME_MAX_USEC) {
		*ret = (int64_t)rt;
		return true;
	}
	return false;
}

struct candidates {
	bool found;
	uint64_t best; /**< distance of the kept entry from the crash time */
};

// Keeps the current entry in *@p ret when it is closer to @p near_usec than the one kept.
static void consider(sd_journal *j, struct candidates *c, bool has_near, int64_t near_usec, int64_t t, bool has_t,
		     struct ct_coredump_entry *ret)
{
	// Both times are in range, so the difference fits; an entry without a usable time is the
	// farthest there is.
	uint64_t d = !has_near ? 0 : !has_t ? UINT64_MAX : t > near_usec ? (uint64_t)(t - near_usec) : (uint64_t)(near_usec - t);
	if (c->found && d >= c->best)
		return;
	if (c->found)
		ct_coredump_entry_deinit(ret);
	fill_entry(j, ret);
	c->best = d;
	c->found = true;
}

// Walks up to MAX_COREDUMP_CANDIDATES entries of the current matches from the current position
// (@p forward: later ones, else earlier ones), keeping the closest to @p near_usec. Forward, the
// walk ends past the crash time (later entries are farther); backward, at the first entry kept.
static int walk_candidates(sd_journal *j, const char *comm, bool forward, bool has_near, int64_t near_usec,
			   struct candidates *c, struct ct_coredump_entry *ret)
{
	int r = 0;
	for (int n = 0; n < MAX_COREDUMP_CANDIDATES; n++) {
		r = forward ? sd_journal_next(j) : sd_journal_previous(j);
		if (r <= 0)
			break;
		if (comm && !field_is(j, "COREDUMP_COMM", comm))
			continue;
		int64_t t = 0;
		bool has_t = entry_crash_time(j, &t);
		consider(j, c, has_near, near_usec, t, has_t, ret);
		if (!forward || (has_t && t > near_usec))
			break;
	}
	return r;
}

struct ct_error *ct_journal_find_coredump(struct ct_journal *cj, int pid, const char *comm, bool has_near,
					  int64_t near_usec, struct ct_coredump_entry *ret)
{
	sd_journal *j = cj->j;
	char match[64];
	sd_journal_flush_matches(j);
	snprintf(match, sizeof(match), "COREDUMP_PID=%d", pid);
	int r = sd_journal_add_match(j, "MESSAGE_ID=" MESSAGE_COREDUMP, 0);
	if (r >= 0)
		r = sd_journal_add_match(j, match, 0);
	if (r < 0)
		return journal_error(r, "sd_journal_add_match", NULL);
	has_near = has_near && ct_crash_time_in_range(near_usec);
	struct candidates c = { 0 };
	// systemd-coredump logs after it has written the core: seconds to minutes after the crash.
	// Start a little before the crash time and take the closest of the next few entries; without
	// a time, the latest.
	int64_t early = near_usec > 600000000 ? near_usec - 600000000 : 0;
	r = has_near ? sd_journal_seek_realtime_usec(j, (uint64_t)early) : sd_journal_seek_tail(j);
	if (r >= 0)
		r = walk_candidates(j, comm, has_near, has_near, near_usec, &c, ret);
	// Nothing from 10 minutes before on: the time may be a file time long after the crash (a core
	// copied without cp -p, or read much later). The latest entry of the process before is the one.
	if (has_near && !c.found && r >= 0) {
		r = sd_journal_seek_realtime_usec(j, (uint64_t)early);
		if (r >= 0)
			r = walk_candidates(j, comm, false, has_near, near_usec, &c, ret);
	}
	sd_journal_flush_matches(j);
	if (r < 0 && !c.found)
		return journal_error(r, "reading entries", NULL);
	return c.found ? NULL : ct_error_create(CT_ERROR_NOT_FOUND, "no systemd-coredump entry for pid %d", pid);
}

void ct_coredump_entry_deinit(struct ct_coredump_entry *e)
{
	for (size_t i = 0; i < e->num_fields; i++) {
		free(e->fields[i].key);
		free(e->fields[i].value);
	}
	e->num_fields = 0;
}

const char *ct_coredump_entry_get(const struct ct_coredump_entry *e, const char *key)
{
	for (size_t i = 0; i < e->num_fields; i++) {
		if (!strcmp(e->fields[i].key, key))
			return e->fields[i].value;
	}
	return NULL;
}

bool ct_journal_unit_start(struct ct_journal *cj, const char *unit, bool user_unit, int64_t before_usec,
			   int64_t *usec_ret)
{
	sd_journal *j = cj->j;
	char *match = NULL;
	if (asprintf(&match, "%s=%s", user_unit ? "USER_UNIT" : "UNIT", unit) < 0)
		return false;
	sd_journal_flush_matches(j);
	int r = sd_journal_add_match(j, "MESSAGE_ID=" MESSAGE_UNIT_STARTED, 0);
	if (r >= 0)
		r = sd_journal_add_match(j, match, 0);
	free(match);
	uint64_t rt = 0;
	bool found = false;
	if (r >= 0 && sd_journal_seek_realtime_usec(j, (uint64_t)before_usec) >= 0 && sd_journal_previous(j) > 0 &&
	    sd_journal_get_realtime_usec(j, &rt) >= 0 && (int64_t)rt <= before_usec) {
		*usec_ret = (int64_t)rt;
		found = true;
	}
	sd_journal_flush_matches(j);
	return found;
}

// A copy of field @p name (owned by the caller; also in *@p p, *@p n), NULL when absent. At most
// CT_LOG_LINE_MAX + 1 bytes are copied: the collector keeps CT_LOG_LINE_MAX and marks a longer line
// cut, so the byte past it is all it needs to know. *@p copied adds what was copied.
static char *dup_field(sd_journal *j, const char *name, const char **p, size_t *n, uint64_t *copied)
{
	size_t len;
	const char *v = get(j, name, &len);
	if (v && len > CT_LOG_LINE_MAX + 1)
		len = CT_LOG_LINE_MAX + 1;
	char *copy = v ? malloc(len + 1) : NULL;
	if (!copy)
		return NULL;
	*copied += len;
	memcpy(copy, v, len);
	copy[len] = '\0';
	*p = copy;
	*n = len;
	return copy;
}

static int add_only(sd_journal *j, const struct ct_log_filter *only)
{
	char m[300];
	int r = 0, terms = 0;
	if (only->has_pid) {
		snprintf(m, sizeof(m), "_PID=%d", only->pid);
		r = sd_journal_add_match(j, m, 0);
		terms++;
	}
	if (r >= 0 && only->unit && strlen(only->unit) < 256) {
		static const char *const fields[] = { "_SYSTEMD_UNIT", "UNIT", "USER_UNIT", "_SYSTEMD_USER_UNIT" };
		for (size_t i = 0; r >= 0 && i < sizeof(fields) / sizeof(fields[0]); i++) {
			if (terms++)
				r = sd_journal_add_disjunction(j);
			snprintf(m, sizeof(m), "%s=%s", fields[i], only->unit);
			if (r >= 0)
				r = sd_journal_add_match(j, m, 0);
		}
	}
	return terms ? r : -ENOENT;
}

struct ct_error *ct_journal_scan(struct ct_journal *cj, struct ct_log_collector *c, const char *file,
				 const struct ct_log_filter *only, struct ct_budget *budget, uint64_t *count)
{
	sd_journal *j = cj->j;
	int64_t from, to;
	ct_log_collector_window(c, &from, &to);
	sd_journal_flush_matches(j);
	if (only) {
		int r = add_only(j, only);
		if (r == -ENOENT)
			return NULL; // Nothing to match: no pid, no unit.
		if (r < 0)
			return journal_error(r, "sd_journal_add_match", file);
	}
	int r = sd_journal_seek_realtime_usec(j, (uint64_t)(from > 0 ? from : 0));
	struct ct_error *err = NULL;
	for (uint64_t n = 0; r >= 0; n++) {
		if (n == CT_JOURNAL_MAX_ENTRIES) {
			err = ct_error_create(CT_ERROR_LIMIT, "%s: stopped after %d journal entries in the window", file,
					      CT_JOURNAL_MAX_ENTRIES);
			break;
		}
		r = sd_journal_next(j);
		if (r <= 0)
			break;
		uint64_t rt;
		if (sd_journal_get_realtime_usec(j, &rt) < 0 || (int64_t)rt < from)
			continue;
		if ((int64_t)rt > to)
			break;
		// sd_journal_get_data's pointer is valid only until the next get_data: each field is copied.
		struct ct_journal_fields f = { 0 };
		char *copy[7] = { 0 };
		uint64_t copied = 0;
		copy[0] = dup_field(j, "MESSAGE", &f.message, &f.message_len, &copied);
		copy[1] = dup_field(j, "_PID", &f.pid, &f.pid_len, &copied);
		copy[2] = dup_field(j, "_COMM", &f.comm, &f.comm_len, &copied);
		copy[3] = dup_field(j, "SYSLOG_IDENTIFIER", &f.identifier, &f.identifier_len, &copied);
		copy[4] = dup_field(j, "_SYSTEMD_UNIT", &f.systemd_unit, &f.systemd_unit_len, &copied);
		copy[5] = dup_field(j, "UNIT", &f.unit, &f.unit_len, &copied);
		copy[6] = dup_field(j, "USER_UNIT", &f.user_unit, &f.user_unit_len, &copied);
		// An entry costs its fields and CT_LOG_RECORD_COST more: entries with no field to copy (only
		// a time) would be free, and there may be 200,000 of them in each of 1,000 journal files.
		if (!ct_budget_take(budget, CT_BUDGET_COPY, copied + CT_LOG_RECORD_COST)) {
			for (size_t i = 0; i < 7; i++)
				free(copy[i]);
			err = ct_error_create(CT_ERROR_LIMIT,
					      "%s: stopped after %" PRIu64 " journal entries: the work budget of %" PRIu64
					      " bytes of log lines read and journal fields copied is spent (--max-memory; tighter with --safe)",
					      file, *count, budget->limit[CT_BUDGET_COPY]);
			break;
		}
		(*count)++;
		bool ok = ct_log_collector_add_entry(c, file, (int64_t)rt, &f);
		for (size_t i = 0; i < 7; i++)
			free(copy[i]);
		if (!ok) {
			err = &ct_enomem;
			break;
		}
	}
	if (r < 0 && !err)
		err = journal_error(r, "reading entries", file);
	sd_journal_flush_matches(j);
	return err;
}

#else /* !CT_HAVE_SYSTEMD */

static struct ct_error *unsupported(void)
{
	return ct_error_create(CT_ERROR_UNSUPPORTED, "systemd journal: not supported (built without libsystemd)");
}

struct ct_error *ct_journal_open(const char *path, struct ct_journal **ret)
{
	return unsupported();
}

void ct_journal_close(struct ct_journal *j)
{
}

struct ct_error *ct_journal_find_coredump(struct ct_journal *j, int pid, const char *comm, bool has_near,
					  int64_t near_usec, struct ct_coredump_entry *ret)
{
	return unsupported();
}

void ct_coredump_entry_deinit(struct ct_coredump_entry *e)
{
}

const char *ct_coredump_entry_get(const struct ct_coredump_entry *e, const char *key)
{
	return NULL;
}

bool ct_journal_unit_start(struct ct_journal *j, const char *unit, bool user_unit, int64_t before_usec,
			   int64_t *usec_ret)
{
	return false;
}

struct ct_error *ct_journal_scan(struct ct_journal *j, struct ct_log_collector *c, const char *file,
				 const struct ct_log_filter *only, struct ct_budget *budget, uint64_t *count)
{
	return unsupported();
}

#endif
