/**
 * @file options.h
 * Command line → options. The help text here is the source of truth; man/coretriage.1 matches it
 * (a test checks that every option in --help is in the man page).
 */
#ifndef CT_CLI_OPTIONS_H
#define CT_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "coretriage/coretriage.h"
#include "writers/writers.h"

/**
 * AddressSanitizer reserves terabytes of shadow memory as private writable mappings, which
 * RLIMIT_DATA counts: under ASan a memory limit would stop the program at start, so sanitizer
 * builds do not set one (--max-memory is still parsed and documented).
 */
#if defined(__SANITIZE_ADDRESS__)
#define CT_MEMORY_LIMIT_WORKS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CT_MEMORY_LIMIT_WORKS 0
#endif
#endif
#ifndef CT_MEMORY_LIMIT_WORKS
#define CT_MEMORY_LIMIT_WORKS 1
#endif

/** --safe bounds time and memory unless they are given: a bot's worst case must be bounded. */
#define CT_SAFE_DEFAULT_TIMEOUT 60
#define CT_SAFE_DEFAULT_MAX_MEMORY_MIB 4096

/**
 * Exit statuses, documented in --help and man/coretriage.1 (EXIT STATUS); which diagnostics make a
 * report partial: docs/diagnostics.md.
 */
enum {
	CT_EXIT_OK = 0, /**< complete report */
	CT_EXIT_PARTIAL = 1, /**< report written, but something was lost (warnings) */
	CT_EXIT_FATAL = 2, /**< no report: the input could not be analyzed */
	CT_EXIT_NEW_BUCKETS = 3, /**< batch --fail-on-new: a bucket not in --known was found */
	CT_EXIT_USAGE = 64, /**< bad command line (EX_USAGE) */
};

enum ct_output_format {
	CT_OUTPUT_TEXT,
	CT_OUTPUT_JSON,
	CT_OUTPUT_NDJSON,
	CT_OUTPUT_MARKDOWN,
	CT_OUTPUT_SARIF,
	CT_OUTPUT_FOLDED,
	CT_OUTPUT_NUM_
};

enum ct_color_mode { CT_COLOR_AUTO, CT_COLOR_ALWAYS, CT_COLOR_NEVER };

struct ct_cli {
	struct ct_options opts;
	/** `coretriage batch …`: many cores, buckets (src/cli/batch.c). */
	bool batch;
	enum ct_output_format format;
	bool format_given;
	enum ct_color_mode color;
	const char *output; /**< -o FILE, NULL for stdout */
	const char *debug_dirs[64];
	bool verbose, full_log;
	/** --locals: list locals in the text report. */
	bool locals;
	unsigned timeout; /**< seconds, 0 = none */
	unsigned long max_memory_mib; /**< 0 = none */
	const char *positional[2];
	size_t num_positional;
	/** --flamegraph=FILE, --source-root=DIR (SARIF); NULL when not given. Borrowed from argv. */
	const char *flamegraph;
	const char *source_root;
	/* Batch only. */
	char **paths; /**< PATH arguments, borrowed from argv */
	size_t num_paths;
	unsigned jobs; /**< 0 = number of CPUs */
	const char *known; /**< --known=FILE */
	const char *summary; /**< --summary=FILE (JSON) */
	bool fail_on_new;
	/** --db=URL: the crash store (src/store/); --since-build=ID and --record-version=V (batch).
	 * Borrowed from argv. */
	const char *db;
	const char *since_build;
	const char *record_version;
	enum ct_color_mode progress; /**< auto: on a terminal */
	bool swapped; /**< the core and executable were given in the wrong order and swapped */
	/** --cache-dir (borrowed from argv) and --no-cache. */
	const char *cache_dir;
	bool no_cache;
	/** --logs paths, borrowed from argv (docs/trail.md). */
	const char *log_paths[64];
	/** -c/--core (coredumpctl's and eu-stack's spelling), borrowed from argv; NULL when not given. */
	const char *core_opt;
	/** Text display only, never the analysis (writers/writers.h): -n, --thread, -q, --sections. */
	size_t show_frames; /**< -n N: frames per thread shown, 0 = all */
	enum ct_show_threads show_threads;
	int show_tid; /**< --thread=TID */
	unsigned sections; /**< enum ct_text_section bits; 0 = not given */
	bool quiet;
	/** --source[=N] and --source-dir (borrowed from argv). */
	bool source;
	unsigned source_context;
	const char *source_dirs[16];
	size_t num_source_dirs;
	/** `coretriage sample -p PID` (src/cli/sample.c): --duration (seconds), --rate (Hz), --top. */
	bool sample;
	double sample_duration;
	unsigned sample_rate, sample_top;
};

/**
 * Prints "coretriage: MESSAGE" and a newline on stderr, the message made safe for a terminal
 * (writers/sanitize.h): error messages quote paths and names from the dump.
 */
void ct_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * A usage error of subcommand @p command ("buckets", "collect"): "coretriage COMMAND: MESSAGE"
 * and where its help is, on stderr. Returns CT_EXIT_USAGE.
 */
int ct_cli_command_usage(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * Columns of the terminal @p out is, for the text report and the batch table to fit (COLUMNS when
 * set, else the window's width); 0 when @p out is not a terminal (a file or pipe is never cut).
 */
size_t ct_cli_terminal_width(FILE *out);
/** Narrower terminals are not fitted (a cut line would hold nothing useful). */
#define CT_CLI_MIN_WIDTH 20

/**
 * Memory set aside while the dump is analyzed and given back before the report is written, so
 * that an analysis that ran out of memory still writes a whole report (complete JSON) with its
 * diagnostics. Returns the reserve (free() it), NULL when there was no room for it.
 */
void *ct_cli_memory_reserve(void);
/** Bytes of that reserve. */
#define CT_CLI_MEMORY_RESERVE (16u << 20)

/** Parses argv; on a usage error prints it to stderr and returns CT_EXIT_USAGE; -1 to continue; 0 after --help/--version. */
int ct_cli_parse(int argc, char **argv, struct ct_cli *cli);

#endif
