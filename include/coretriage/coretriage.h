/**
 * @file coretriage.h
 * Public entry point of libcoretriage: analyze one dump into a report model.
 */
#ifndef CORETRIAGE_H
#define CORETRIAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coretriage/error.h"
#include "coretriage/report.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_VERSION "0.1.0"

/** Default frame cap per thread: enough for a whole 8 MiB stack overflow of small frames. */
#define CT_DEFAULT_MAX_FRAMES 1000000
/** Default thread cap: far above any real process, low enough to bound memory. */
#define CT_DEFAULT_MAX_THREADS 100000

/** Default --logs-window: a minute either side holds what led in and the first reactions. */
#define CT_DEFAULT_LOGS_WINDOW 60

enum ct_unwinder { CT_UNWINDER_DWFL, CT_UNWINDER_LIBUNWIND, CT_UNWINDER_NUM_ };

struct ct_options {
	/** The dump (ELF core or vmcore). Borrowed. */
	const char *core_path;
	/** When has_core_fd: core_path is already open as core_fd (read from it, not opened by name;
	 * `coretriage collect` opens a core before it drops privileges). Not closed. */
	bool has_core_fd;
	int core_fd;
	/** The executable (or vmlinux), NULL to find it from the dump. Borrowed. */
	const char *executable;
	/** Prefix for file paths recorded in the dump, or NULL. Borrowed. */
	const char *sysroot;
	/** Extra debug directories (layout .build-id/xx/rest.debug). Borrowed. */
	const char *const *debug_dirs;
	size_t num_debug_dirs;
	/** Use debuginfod when DEBUGINFOD_URLS is set. */
	bool debuginfod;
	/** Seconds a debuginfod query may take in all. */
	int debuginfod_timeout;
	/** Never open files named inside the dump, never use the network. */
	bool safe;
	size_t max_frames;
	size_t max_threads;
	enum ct_unwinder unwinder;
	/** Record all registers of every thread, not only the crashing one. */
	bool all_registers;
	/** Show paths relative (basename) in the report, for golden tests. */
	bool no_abs_paths;
	/** Cache directory for decompressed debug files; NULL for none (docs/performance.md). */
	const char *cache_dir;
	/** Cap on that cache's size, bytes (least recently used copies go first); 0 = 4 GiB. */
	uint64_t cache_size;
	/** Cap on the decompressed size of a compressed core (.zst/.xz/.lz4), bytes; 0 = 64 GiB. */
	uint64_t max_core_size;
	/** Memory the analysis may use (--max-memory), bytes; 0 = unknown (the work budget assumes 4 GiB). */
	uint64_t max_memory;
	/** Overrides of the work budget's limits (src/util/budget.h, by enum ct_budget_kind); 0 = derived. */
	uint64_t budget[9];
	/** --logs: text logs, journal files or directories of them to search around the crash
	 * time (docs/trail.md). Borrowed. */
	const char *const *log_paths;
	size_t num_log_paths;
	/** --logs-window: seconds searched before and after the crash time (default 60 each). */
	unsigned logs_window_before, logs_window_after;
	/** --journal: journal file or directory holding the systemd-coredump entry; NULL for the system
	 * journal (read only for cores named by systemd-coredump). Borrowed. */
	const char *journal;
	/** --no-journal: never read the system journal. */
	bool no_journal;
	/** Vmcores: list every kernel task with its stack (--tasks), not only the D-state ones. */
	bool kernel_tasks;
	/** --runtime=off: do not read a language runtime's stacks (docs/runtimes.md). */
	bool no_runtime;
	/** -p PID: analyze this live process instead of a dump (docs/live.md); 0 = a dump. */
	int pid;
	/** --gcore FILE with -p: also write the capture as an ELF core there. Borrowed. */
	const char *gcore_path;
	/** Keep the live process stopped this many more milliseconds (tests only: a coretriage killed
	 * while it holds the process). */
	unsigned live_hold_ms;
};

/** Fills @p opts with defaults. */
void ct_options_init(struct ct_options *opts);

/**
 * Analyzes the dump named in @p opts (or the live process opts->pid) into @p report (initialized by the caller with
 * ct_report_init()). On error the report may hold partial results; the caller still deinits it.
 * Errors: CT_ERROR_OS (cannot open), CT_ERROR_CORRUPT (not a dump / unreadable headers),
 * CT_ERROR_UNSUPPORTED (format or architecture not built in), CT_ERROR_INVALID_ARGUMENT.
 */
struct ct_error *ct_analyze(const struct ct_options *opts, struct ct_report *report);

/** One library this build links and its version. */
struct ct_library_version {
	const char *name; /**< "elfutils", "capstone", … (static) */
	/** From the library's own version call at run time (the library loaded); false: the version
	 * the build was made with (the library has no version call). */
	bool runtime;
	char version[32];
};

/**
 * The libraries this build links, with their versions, into @p out (at most @p cap); returns how
 * many there are (more than @p cap when @p out is too small).
 */
size_t ct_library_versions(struct ct_library_version *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
