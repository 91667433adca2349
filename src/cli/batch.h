/**
 * @file batch.h
 * `coretriage batch`: many cores in isolated worker processes, bucketed by signature; and the
 * per-core summary ("meta") that workers send back, also used by the single-core SARIF and
 * flame-graph outputs.
 */
#ifndef CT_CLI_BATCH_H
#define CT_CLI_BATCH_H

#include <jansson.h>

#include "cli/options.h"
#include "writers/writers.h"
#include "store/store.h"

/** Innermost frames of the crashing thread kept in a core's meta (bucket stacks, flame graphs). */
#define CT_META_STACK_FRAMES 128

/**
 * The bucketing facts of one analyzed core as a JSON object: signature (the report's, or the
 * fallback recipe of docs/batch.md: class + top 3 frames from the blame frame), class, summary,
 * blame frame, crashing stack (outermost first), time (systemd-coredump name, else file mtime).
 * Returns a new reference, or NULL when out of memory.
 */
json_t *ct_cli_core_meta(const struct ct_report *report, const char *path);

/**
 * Fills @p b from @p meta (as made by ct_cli_core_meta). Strings are borrowed from @p meta;
 * b->stack is a malloc'd array the caller frees. Returns false when out of memory.
 */
bool ct_cli_bucket_from_meta(json_t *meta, struct ct_bucket *b);

/**
 * The crash store's record of a core from its @p meta: what the meta says (time, executable,
 * build, package and version, class, signature and bucket, blame); host, core, JSON are the
 * caller's. Strings borrowed from @p meta.
 */
void ct_cli_store_report_from_meta(json_t *meta, struct ct_store_report *r);

/** Folded stacks of every thread of @p report (identical stacks merged) for a flame graph.
 * Writes the SVG to @p path. Returns 0, or -1 with errno set. */
int ct_cli_write_report_flamegraph(const char *path, const struct ct_report *report);

/**
 * One column of a text table (the batch's, the store's buckets): untrusted text made visible
 * (writers/sanitize.h), cut to @p width columns on a character boundary with "…" as its last
 * column, padded to it when @p pad.
 */
void ct_cli_cell(FILE *out, const char *s, size_t width, bool pad);

/** Runs batch mode; returns the exit status. */
int ct_cli_batch(struct ct_cli *cli);

#endif
