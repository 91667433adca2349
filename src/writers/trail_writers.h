/**
 * @file trail_writers.h
 * How each format renders the trail (docs/trail.md): crash time, CPU time, unit, coredump entry,
 * package notes, log lines. The writers call these with one line each.
 */
#ifndef CT_TRAIL_WRITERS_H
#define CT_TRAIL_WRITERS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "writers/json_emit.h"
#include "writers/writers.h"

/** Text: the "  crashed: TIME (how it is known)" line of the header. */
void ct_text_write_crash_time(FILE *out, const struct ct_report *r);
/** Text: the Trail section (unit, CPU time, coredump entry, packages, logs); nothing when empty. */
void ct_text_write_trail(FILE *out, const struct ct_report *r, const struct ct_write_options *o);

/** JSON: {"time", "source"} of @p t, or null. */
json_t *ct_json_time(const struct ct_time *t);
/** JSON: the "trail" object. */
json_t *ct_json_trail(const struct ct_report *r, const struct ct_write_options *o);
/** JSON: the "logs" array. */
json_t *ct_json_logs(const struct ct_report *r, const struct ct_write_options *o);
/** JSON: a module's "package" object. */
json_t *ct_json_package(const struct ct_package *p);
/** JSON (streaming threads): ", \"cpu_time\": {…}" of @p t when known. */
void ct_json_emit_cpu_time(struct ct_json_emit *e, const struct ct_thread *t);

/** Markdown: the "#### Trail" section; nothing when empty. */
void ct_markdown_write_trail(FILE *out, const struct ct_report *r, const struct ct_write_options *o);

/** SARIF: the properties of the run's invocation for one core's report (crash time, unit, logs). */
json_t *ct_sarif_invocation_properties(const struct ct_report *r, const struct ct_write_options *o);

#endif
