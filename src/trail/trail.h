/**
 * @file trail.h
 * The trail stage (docs/trail.md): after a dump's pipeline, when the crash happened (crash time
 * and its source), what ran (the systemd unit and its start, from the journal), and the log
 * lines around the crash time from --logs, --journal or the system journal.
 *
 * Every problem with a log source is a diagnostic of the report, never a failure of the analysis.
 */
#ifndef CT_TRAIL_H
#define CT_TRAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coretriage/coretriage.h"

/** Lines kept that name the process (the ones closest to the crash time when there are more). */
#define CT_LOGS_MAX_MATCHED 200
/** Lines kept from just before the crash, whatever they name. */
#define CT_LOGS_CONTEXT_LINES 20
/** Files read from one --logs directory tree: /var/log holds a few hundred. */
#define CT_LOGS_MAX_FILES 1000
/** Directory entries read under --logs in all (only the first CT_LOGS_MAX_FILES by name are kept
 * per directory; reading the rest costs a getdents each, about 0.1 µs). */
#define CT_LOGS_MAX_DIR_ENTRIES 4000000
/** Directory depth walked below a --logs directory (/var/log/journal/MACHINE-ID/ is 2). */
#define CT_LOGS_MAX_DEPTH 3
/** Bytes of one text log read inside the window: a log busier than this per window is cut. */
#define CT_LOGS_MAX_SCAN_BYTES (256u << 20)
/** A compressed log (gzip, zstd, xz, lz4) is decompressed up to this size into a temporary file
 * (and no further than the run's inflation and temporary-space budgets allow). */
#define CT_LOGS_MAX_DECOMPRESSED (UINT64_C(256) << 20)
/** Least bytes of the copy budget (util/budget.h) a log line or journal entry read costs, so that
 * records with (almost) nothing in them are not free: 64 MiB is at most 1 Mi records. */
#define CT_LOG_RECORD_COST 64
/** Journal entries read per query, so a huge journal never hangs the report. */
#define CT_JOURNAL_MAX_ENTRIES 200000
/**
 * The crash times accepted from a source, microseconds since the epoch: 1970-01-01T00:00:00Z to
 * 9999-12-31T23:59:59.999999Z (RFC 3339's four-digit years). A source outside is not used (a
 * diagnostic says so); inside, every sum with a --logs-window (at most 2^32 s) fits int64_t.
 */
#define CT_CRASH_TIME_MIN_USEC INT64_C(0)
#define CT_CRASH_TIME_MAX_USEC INT64_C(253402300799999999)

static inline bool ct_crash_time_in_range(int64_t usec)
{
	return usec >= CT_CRASH_TIME_MIN_USEC && usec <= CT_CRASH_TIME_MAX_USEC;
}

/** What the trail needs from the dump's pipeline. Strings are borrowed. */
struct ct_trail_facts {
	const char *core_path;
	bool has_pid;
	int pid;
	const char *command;
	/** A kernel dump: CRASHTIME from VMCOREINFO and the panic's seconds since boot. */
	bool is_kernel;
	bool has_vmcoreinfo_time;
	int64_t vmcoreinfo_time; /**< seconds since the epoch */
	bool has_uptime;
	double uptime;
	/** A live process (-p): when it was captured, which stands for the crash time. */
	bool has_capture_time;
	int64_t capture_time; /**< seconds since the epoch */
};

struct ct_budget;

/**
 * Runs the trail stage into @p report (report->trail and diagnostics), spending @p budget (the
 * run's, borrowed; NULL allows everything): files looked at, bytes inflated and written for
 * compressed logs, bytes of journal fields copied. Never fails.
 */
void ct_trail_analyze(const struct ct_options *opts, const struct ct_trail_facts *facts, struct ct_budget *budget,
		      struct ct_report *report);

/* ---- The line collector every log source feeds (collect.c) ---- */

/** Who the lines should name. */
struct ct_log_filter {
	bool has_pid;
	int pid;
	const char *command; /**< NULL when unknown */
	const char *unit; /**< NULL when unknown */
};

struct ct_log_collector;

/**
 * A collector for the window [@p from, @p to] around @p crash_usec; lines up to @p context_until
 * (the crash time plus its source's precision) count as before the crash. NULL when out of memory.
 */
struct ct_log_collector *ct_log_collector_create(int64_t crash_usec, int64_t context_until, int64_t from, int64_t to,
						 const struct ct_log_filter *filter);
void ct_log_collector_destroy(struct ct_log_collector *c);
/** The window the collector was made for. */
void ct_log_collector_window(const struct ct_log_collector *c, int64_t *from, int64_t *to);

/** What a line of text names (enum ct_log_match bits): "[PID]", "pid PID", the command, the unit. */
unsigned ct_log_match_text(const struct ct_log_filter *filter, const char *text, size_t len);

/**
 * Offers one line at @p usec (inside the window: the caller checks) from @p file (pooled, borrowed
 * until ct_log_collector_finish). @p matches are the bits the caller already knows (journal
 * fields); the text is matched too. The text is copied (at most CT_LOG_LINE_MAX bytes) when kept.
 * Returns false when out of memory.
 */
bool ct_log_collector_add(struct ct_log_collector *c, const char *file, uint64_t line_number, int64_t usec,
			  const char *text, size_t len, unsigned matches);

/** Moves the kept lines into @p report->trail.logs, in time order. */
void ct_log_collector_finish(struct ct_log_collector *c, struct ct_report *report);

/** Fields of a journal entry that place and name it; each a (pointer, length), NULL when absent. */
struct ct_journal_fields {
	const char *message, *pid, *comm, *identifier, *systemd_unit, *unit, *user_unit;
	size_t message_len, pid_len, comm_len, identifier_len, systemd_unit_len, unit_len, user_unit_len;
};

/**
 * Offers a journal entry to @p c as "IDENTIFIER[PID]: MESSAGE" (journalctl's short form), matched
 * by its fields (_PID, _COMM, _SYSTEMD_UNIT/UNIT/USER_UNIT) and its text. Returns false when out of
 * memory.
 */
bool ct_log_collector_add_entry(struct ct_log_collector *c, const char *file, int64_t usec,
				const struct ct_journal_fields *f);

/** Appends a log source to the report; returns it or NULL when out of memory. */
struct ct_log_source *ct_trail_add_source(struct ct_report *report, const char *file, const char *format);

/* ---- Readers ---- */

/**
 * Reads the text log @p path (already opened as @p fd, a regular file; not owned) into @p c:
 * binary search for the window's start, then lines up to its end. @p direct: given on the command
 * line (a problem is a warning) rather than found in a directory (an info). Every byte of a line
 * read spends CT_BUDGET_COPY of @p budget; when it is spent the reading stops with a warning
 * (budget-copy) naming the file and the limit.
 */
void ct_logs_read_text(struct ct_report *report, struct ct_budget *budget, struct ct_log_collector *c, const char *path,
		       int fd, bool direct, int64_t reference_usec, bool has_boot, int64_t boot_usec);

#endif
