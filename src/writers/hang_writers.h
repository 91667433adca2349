/**
 * @file hang_writers.h
 * Rendering of the wait states and the wait-for graph (docs/hangs.md) for the text, JSON and
 * markdown writers: text_hang.c, json_hang.c, markdown_hang.c. They only read the report model.
 */
#ifndef CT_HANG_WRITERS_H
#define CT_HANG_WRITERS_H

#include <jansson.h>
#include <stdio.h>

#include "writers/writers.h"

/** The "Waiting" section (thread → state → lock → holder, cycles, summaries); nothing without waits. */
void ct_text_hang(FILE *out, const struct ct_report *r, const struct ct_write_options *o);
/** "  blocked in: read(fd 0) in read_commands" under a thread's header; nothing when not blocked. */
void ct_text_thread_wait(FILE *out, const struct ct_thread *t);

/** A thread's "wait" object, or NULL when the thread is not blocked (then the key is omitted). */
json_t *ct_json_thread_wait(const struct ct_thread *t);
/** The "hang" object ({threads, locks, cycles, summaries}), or NULL without waits (then null). */
json_t *ct_json_hang(const struct ct_report *r);

/** The "Waiting" section of the markdown report; nothing without waits. */
void ct_markdown_hang(FILE *out, const struct ct_report *r);

/** jansson values as the JSON report writes them (json.c): a hex string, a UTF-8-safe string or null. */
json_t *ct_json_hex_value(uint64_t v);
json_t *ct_json_string_value(const char *s);

#endif
