/**
 * @file writers.h
 * Report writers: they only render a finished report model, never analyze.
 */
#ifndef CT_WRITERS_H
#define CT_WRITERS_H

#include <stdbool.h>
#include <stdio.h>

#include "coretriage/report.h"

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
};

void ct_write_options_init(struct ct_write_options *o);

/** Human-readable report. Returns 0, or -1 on a write error (errno set). */
int ct_write_text(FILE *out, const struct ct_report *report, const struct ct_write_options *o);
/** JSON report (docs/json-report.md); @p compact gives one line (ndjson). */
int ct_write_json(FILE *out, const struct ct_report *report, const struct ct_write_options *o, bool compact);

/** Path as shown: basename when o->no_abs_paths. */
const char *ct_display_path(const char *path, const struct ct_write_options *o);

/**
 * Finds a repeated cycle starting at frame @p i: sets *period and *repeats (>= 2) and returns true
 * when frames [i, i + period*repeats) are the same cycle and long enough to collapse.
 */
bool ct_find_cycle(const struct ct_thread *t, size_t i, size_t min_frames, size_t *period, size_t *repeats);

#endif
