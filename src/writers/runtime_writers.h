/**
 * @file runtime_writers.h
 * How each format renders the runtime section (docs/runtimes.md): a thread's Python stack under
 * its native stack, the Python frames an evaluation-loop frame ran beside that frame; Go's goroutines.
 */
#ifndef CT_RUNTIME_WRITERS_H
#define CT_RUNTIME_WRITERS_H

#include <jansson.h>
#include <stdio.h>

#include "writers/writers.h"

/** Text: the Python frames native frame @p index of @p t ran, one "Python:" line each (merged view). */
void ct_text_runtime_frames(FILE *out, const struct ct_report *r, const struct ct_thread *t, size_t index,
			    const struct ct_write_options *o);
/** Text: the "Python stack" block of @p t (innermost first, as faulthandler prints it); nothing when none. */
void ct_text_runtime_stack(FILE *out, const struct ct_report *r, const struct ct_thread *t,
			   const struct ct_write_options *o);
/** JSON: the "runtime" object, or null. */
json_t *ct_json_runtime(const struct ct_report *r, const struct ct_write_options *o);
/** Markdown: the "Python stack" list of @p t; nothing when none. */
void ct_markdown_runtime_stack(FILE *out, const struct ct_report *r, const struct ct_thread *t,
			       const struct ct_write_options *o);

/** Text: the "Goroutines" section (text_go.c); nothing for a program that is not Go. */
void ct_text_goroutines(FILE *out, const struct ct_report *r, const struct ct_write_options *o);
/** Markdown: the "Goroutines" section (markdown_go.c). */
void ct_markdown_goroutines(FILE *out, const struct ct_report *r, const struct ct_write_options *o);

#endif
