/**
 * @file journal.h
 * The systemd journal through libsystemd's sd-journal (the only file that includes its header):
 * the systemd-coredump entry of a crash, the start of its unit, the entries around the crash.
 * Every query seeks by time and reads at most CT_JOURNAL_MAX_ENTRIES entries, so a large journal
 * costs what is near the crash, never the whole journal. Built without libsystemd, every function
 * returns CT_ERROR_UNSUPPORTED.
 */
#ifndef CT_TRAIL_JOURNAL_H
#define CT_TRAIL_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "coretriage/error.h"
#include "trail/trail.h"
#include "util/budget.h"

/** Fields of the coredump entry kept (a fixed list: see journal.c). */
#define CT_JOURNAL_MAX_FIELDS 32
/** Longest field value kept, bytes (COREDUMP_PACKAGE_JSON is the longest wanted one). */
#define CT_JOURNAL_MAX_VALUE 4096

struct ct_journal;

/**
 * Opens @p path: a journal file, or a directory of them (also /var/log/journal with its
 * machine-id subdirectories); NULL for the local system journal. *@p ret is owned by the caller.
 * Errors: CT_ERROR_UNSUPPORTED (built without libsystemd), CT_ERROR_OS, CT_ERROR_CORRUPT.
 */
struct ct_error *ct_journal_open(const char *path, struct ct_journal **ret);
void ct_journal_close(struct ct_journal *j);

struct ct_journal_field {
	char *key, *value; /**< owned */
};

/** A systemd-coredump journal entry (MESSAGE_ID fc2e22bc6ee647b6b90729ab34a250b1). */
struct ct_coredump_entry {
	int64_t usec; /**< when it was logged */
	bool has_crash_usec;
	int64_t crash_usec; /**< COREDUMP_TIMESTAMP */
	bool has_boot;
	int64_t boot_usec; /**< the boot's start: realtime − monotonic of the entry */
	struct ct_journal_field fields[CT_JOURNAL_MAX_FIELDS];
	size_t num_fields;
};

/**
 * Finds the coredump entry of process @p pid (@p comm, when known, must match COREDUMP_COMM), the
 * one closest to @p near_usec when @p has_near, else the latest. Errors: CT_ERROR_NOT_FOUND,
 * CT_ERROR_UNSUPPORTED, CT_ERROR_LIBRARY.
 */
struct ct_error *ct_journal_find_coredump(struct ct_journal *j, int pid, const char *comm, bool has_near,
					  int64_t near_usec, struct ct_coredump_entry *ret);
void ct_coredump_entry_deinit(struct ct_coredump_entry *e);
/** Value of @p key in @p e, or NULL. */
const char *ct_coredump_entry_get(const struct ct_coredump_entry *e, const char *key);

/**
 * When systemd last reported unit @p unit started ("Started …", MESSAGE_ID
 * 39f53479d3a045ac8e11786248231fbf) at or before @p before_usec. False when not found.
 */
bool ct_journal_unit_start(struct ct_journal *j, const char *unit, bool user_unit, int64_t before_usec,
			   int64_t *usec_ret);

/**
 * Offers the entries of @p c's window to @p c, labelled @p file. With @p only, just the entries of
 * that process or unit (the system journal: the process's own lines, not the machine's). Adds the
 * number of entries in the window to *@p count. Each field is copied up to CT_LOG_LINE_MAX + 1
 * bytes (a longer one is cut: one large field shared by every entry costs each entry its first
 * 4 KiB), spending CT_BUDGET_COPY of @p budget. Errors: CT_ERROR_LIMIT (stopped at
 * CT_JOURNAL_MAX_ENTRIES, or the copy budget is spent: then that budget kind is marked reached;
 * what was read is kept), CT_ERROR_LIBRARY, CT_ERROR_NO_MEMORY.
 */
struct ct_error *ct_journal_scan(struct ct_journal *j, struct ct_log_collector *c, const char *file,
				 const struct ct_log_filter *only, struct ct_budget *budget, uint64_t *count);

#endif
