/**
 * @file writers.h
 * Report writers: they only render a finished report model, never analyze.
 */
#ifndef CT_WRITERS_H
#define CT_WRITERS_H

#include <stdbool.h>
#include <stdio.h>

#include "coretriage/report.h"
#include "writers/present.h"
#include "writers/sanitize.h"

/** Parts of the text report (--sections, -q); their names are the CLI's (src/cli/options.c). */
enum ct_text_section {
	CT_SECTION_VERDICT = 1u << 0, /**< header, crash class, summary, blame, evidence */
	CT_SECTION_WARNINGS = 1u << 1,
	CT_SECTION_KERNEL = 1u << 2, /**< vmcores: release, panic, the log's tail */
	CT_SECTION_HANG = 1u << 3, /**< who waits for whom */
	CT_SECTION_STACKS = 1u << 4, /**< the threads' backtraces */
	CT_SECTION_TRAIL = 1u << 5, /**< crash time, journal, log lines */
	CT_SECTION_TASKS = 1u << 6, /**< vmcores: kernel tasks */
	CT_SECTION_REGISTERS = 1u << 7,
	CT_SECTION_DISASSEMBLY = 1u << 8,
	CT_SECTION_MODULES = 1u << 9, /**< modules without a file or with a build-id mismatch */
	CT_SECTION_ALL_ = (1u << 10) - 1,
};
/** What the text report shows when nothing is chosen: all but the module list (-v adds it). */
#define CT_SECTIONS_DEFAULT (CT_SECTION_ALL_ & ~CT_SECTION_MODULES)

/** Which threads' stacks the text report shows (--thread). */
enum ct_show_threads { CT_SHOW_THREADS_ALL, CT_SHOW_THREADS_CRASHED, CT_SHOW_THREADS_TID };

/**
 * Source lines for the text report (--source), read by the caller (the CLI): writers never open
 * files. @c line returns line @p line (1-based) of @p file, tabs expanded and without its newline,
 * borrowed until the next call, or NULL when the file or the line is not there.
 */
struct ct_source_lines {
	const char *(*line)(void *ctx, const char *file, int line);
	void *ctx;
};

struct ct_write_options {
	bool color;
	/** Show only file names, not directories (golden tests, --no-abs-paths). */
	bool no_abs_paths;
	/** Collapse repeated frame cycles longer than this many frames (text). */
	size_t collapse_min;
	/** Show every register and the disassembly (text). */
	bool verbose;
	/** Print the whole kernel log (text). */
	bool full_log;
	/** List each frame's locals under it (text: --locals, -v). */
	bool locals;
	/** Characters of one argument value in a text frame line before it is cut with "…"; 0: all. */
	size_t value_width;
	/** Text: the parts shown (enum ct_text_section bits; CT_SECTIONS_DEFAULT). */
	unsigned sections;
	/** Text: frames shown per thread before "… N more frames" (-n); 0: the writer's default. */
	size_t show_frames;
	/** Text: whose stacks are shown (--thread); @c show_tid for CT_SHOW_THREADS_TID. */
	enum ct_show_threads show_threads;
	int show_tid;
	/** Text: columns of the terminal; lines longer are cut with "…" instead of wrapping; 0: none. */
	size_t width;
	/** Text: lines of source either side of each frame line of the crashing thread (--source);
	 * NULL: none. Borrowed. */
	const struct ct_source_lines *source;
	unsigned source_context;
};

void ct_write_options_init(struct ct_write_options *o);

/** Human-readable report. Returns 0, or -1 on a write error (errno set). */
int ct_write_text(FILE *out, const struct ct_report *report, const struct ct_write_options *o);
/** JSON report (docs/json-report.md); @p compact gives one line (ndjson). */
int ct_write_json(FILE *out, const struct ct_report *report, const struct ct_write_options *o, bool compact);


/* ---- Batch buckets and the extra formats (markdown.c, sarif.c, folded.c, flamegraph.c) ---- */

/**
 * One bucket of a batch: the cores whose signature hash is the same. Every pointer is borrowed from
 * whoever built the bucket and must outlive the writer call.
 */
struct ct_bucket {
	const char *hash; /**< signature hash (the bucket key) */
	const char *signature; /**< signature text */
	bool fallback; /**< the signature was made by the CLI's fallback recipe (docs/batch.md) */
	const char *class_id; /**< crash class, NULL when unknown */
	const char *summary; /**< one line of the example core, or NULL */
	const char *blame_function, *blame_module, *blame_file; /**< blamed frame, each may be NULL */
	/** What people are shown for the blamed frame: its function, else its folded name
	 * ("libfoo.so+0xe197"); NULL when there is no blamed frame. */
	const char *blame_label;
	int blame_line; /**< 0 when unknown */
	/** The example's crashing stack, outermost first, as folded frame names. */
	const char *const *stack;
	size_t num_stack;
	/** Each stack frame's source file (NULL when unknown) and line (0), in the order of @c stack;
	 * NULL when not known. In the same allocation as @c stack. */
	const char *const *stack_file;
	const int *stack_line;
	size_t count; /**< cores in the bucket */
	bool has_time;
	long long first_seen, last_seen; /**< seconds since the epoch */
	const char *example; /**< path of the first core (in input order) */
	const char *known_url; /**< bug link from --known, NULL when the bucket is new */
	/** The blamed frame's arguments as a backtrace shows them (" (n=0x0)"), or NULL. */
	const char *blame_arguments;
};

/** A stack with a weight, outermost frame first, for folded output and flame graphs. */
struct ct_folded_stack {
	const char *const *frames; /**< borrowed */
	size_t num_frames;
	unsigned long long count;
};

/**
 * Folded name of a frame: function, else "module+0xOFF", else "0xPC"; ';' and control characters
 * replaced. Writes at most @p size bytes (NUL included) to @p buf and returns @p buf.
 */
char *ct_folded_frame_name(const struct ct_report *report, const struct ct_frame *f, char *buf, size_t size);

/** Ready-to-paste Markdown bug report of one core (GitHub/GitLab flavored). Returns 0 or -1. */
int ct_write_markdown(FILE *out, const struct ct_report *report, const struct ct_write_options *o);
/** Markdown table of batch buckets (most frequent first, as given). Returns 0 or -1. */
int ct_write_markdown_buckets(FILE *out, const struct ct_bucket *buckets, size_t num_buckets, size_t num_cores,
			      size_t num_failed);

/** Options of the SARIF writer. */
struct ct_sarif_options {
	/** Prefix removed from source paths to make them relative to the repository (uriBaseId
	 * SRCROOT); NULL to keep paths as recorded. Borrowed. */
	const char *source_root;
	bool no_abs_paths;
	/** One core's report: its crash time, unit and logs go in the run's invocation (docs/trail.md).
	 * NULL for batches. Borrowed. */
	const struct ct_report *report;
};
/** SARIF 2.1.0 log: one result per bucket, located at the blame frame's file:line. Returns 0 or -1. */
int ct_write_sarif(FILE *out, const struct ct_bucket *buckets, size_t num_buckets, const struct ct_sarif_options *o);

/** Every thread's stack of one core in folded format ("outer;…;inner count"), identical stacks
 * merged, sorted. Returns 0 or -1. */
int ct_write_folded(FILE *out, const struct ct_report *report);
/** One folded line per stack, weighted by its count, in the order given. Returns 0 or -1. */
int ct_write_folded_stacks(FILE *out, const struct ct_folded_stack *stacks, size_t num_stacks);

/**
 * Interactive SVG flame graph (tooltips, click to zoom) of @p stacks; @p unit names what a count
 * counts, singular ("core", "thread"). Returns 0 or -1.
 */
int ct_write_flamegraph(FILE *out, const struct ct_folded_stack *stacks, size_t num_stacks, const char *title,
			const char *unit);

/* ---- coretriage sample's profile (profile.c; coretriage/profile.h) ---- */
struct ct_profile;
/** Text summary: the sampling, then the @p top states and stacks by share of thread samples. */
int ct_write_profile_text(FILE *out, const struct ct_profile *p, size_t top);
/** The profile's stacks in folded format, the state as the root frame. */
int ct_write_profile_folded(FILE *out, const struct ct_profile *p);
/** The profile as an interactive SVG flame graph. */
int ct_write_profile_flamegraph(FILE *out, const struct ct_profile *p);

#endif
