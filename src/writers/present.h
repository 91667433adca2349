/**
 * @file present.h
 * The presentation layer shared by every writer (text, Markdown, SARIF, SVG, folded, batch table):
 * how wide an address is, which threads share a stack, where recursion is collapsed, how a path is
 * shown. Writers decide the layout; these decide the content, once. Untrusted text goes through
 * writers/sanitize.h.
 */
#ifndef CT_REPORT_PRESENT_H
#define CT_REPORT_PRESENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "coretriage/report.h"
#include "writers/sanitize.h"

struct ct_write_options;

/** Hex digits of an address of the dump's architecture: two per byte of its pointers (16 when the
 * pointer size is unknown). */
int ct_present_hex_width(const struct ct_report *report);

/** Path as shown: basename when o->no_abs_paths. */
const char *ct_display_path(const char *path, const struct ct_write_options *o);

/**
 * Threads other than the crashing one, grouped by identical stacks (same pcs, same truncation), in
 * order of each group's first thread. Built with a keyed hash of each stack: linear in the total
 * number of frames, whatever the stacks are (the key is random, so crafted stacks cannot collide).
 */
struct ct_thread_group {
	size_t count; /**< threads in the group (>= 1) */
	size_t start; /**< index of its first member in ct_thread_groups.members */
};
struct ct_thread_groups {
	struct ct_thread_group *groups; /**< owned */
	size_t num_groups;
	size_t *members; /**< owned: thread indices, grouped, each group in thread order */
	const struct ct_report *report; /**< borrowed: the report grouped; outlives the groups */
	/** The stack of item i: report->threads[i], or report->kernel.tasks[i].stack. */
	const struct ct_thread *(*at)(const void *report, size_t i);
};

/**
 * Groups the threads of @p report. Out of memory, every thread becomes a group of its own (still
 * shown, only not merged), so a writer never loses a thread. Cannot fail.
 */
void ct_thread_groups_init(struct ct_thread_groups *g, const struct ct_report *report);
/** The same over the kernel tasks of @p report (their stacks; member indices into kernel.tasks). */
void ct_task_groups_init(struct ct_thread_groups *g, const struct ct_report *report);
void ct_thread_groups_deinit(struct ct_thread_groups *g);
/** Index in report->threads of member @p k of group @p gi. */
size_t ct_thread_group_member(const struct ct_thread_groups *g, size_t gi, size_t k);
/** Members of group @p gi (0 for a slot that holds the crashing thread when ungrouped). */
size_t ct_thread_group_size(const struct ct_thread_groups *g, size_t gi);

/** How ct_group_items() takes item i: grouped by its key, in a group of its own, or in none. */
enum ct_group_role { CT_GROUP_KEYED, CT_GROUP_ALONE, CT_GROUP_SKIP };
struct ct_group_ops {
	const void *ctx;
	enum ct_group_role (*role)(const void *ctx, size_t i);
	/** A keyed hash of item i (key: random per grouping, so crafted items cannot collide). */
	uint64_t (*hash)(const void *ctx, size_t i, uint64_t key);
	bool (*same)(const void *ctx, size_t a, size_t b);
};
/**
 * Groups items 0..n-1 of equal hash and same(): groups in order of each one's first item, members
 * (item indices) in item order; linear in n. False when out of memory (nothing is set).
 */
bool ct_group_items(size_t n, const struct ct_group_ops *ops, struct ct_thread_group **groups, size_t *num_groups,
		    size_t **members);

/**
 * Goroutines grouped by identical stacks (status, wait reason, frames, creating frame), in order
 * of each group's first goroutine (present_go.c); the crashed goroutine and running ones alone.
 * Out of memory, each is its own group; with no memory even for that, no groups.
 */
struct ct_goroutine_groups {
	struct ct_thread_group *groups; /**< owned */
	size_t num_groups;
	size_t *members; /**< owned: indices in runtime.goroutines, grouped */
};
void ct_goroutine_groups_init(struct ct_goroutine_groups *g, const struct ct_runtime *rt);
void ct_goroutine_groups_deinit(struct ct_goroutine_groups *g);

/**
 * Finds a repeated cycle starting at frame @p i: sets *period and *repeats (>= 2) and returns true
 * when frames [i, i + period*repeats) are the same cycle and long enough to collapse.
 */
bool ct_find_cycle(const struct ct_thread *t, size_t i, size_t min_frames, size_t *period, size_t *repeats);

/** What a writer does with each piece of a thread's stack (ct_present_frames()). */
struct ct_frame_walk_ops {
	void (*frame)(void *ctx, const struct ct_frame *f, size_t index);
	/** Frames [from, to] repeat the @p period frames above them @p more_times more times. */
	void (*repeat)(void *ctx, size_t from, size_t to, size_t period, size_t more_times);
	/** @p remaining frames are left out (the writer's limit). */
	void (*more)(void *ctx, size_t remaining);
};

/**
 * Walks @p t's frames innermost first, collapsing recursion cycles of at least @p collapse_min
 * frames (0: never) into one repeat line, and stopping after @p limit lines (0: no limit). The
 * one rule for recursion in every writer.
 */
void ct_present_frames(const struct ct_thread *t, size_t collapse_min, size_t limit,
		       const struct ct_frame_walk_ops *ops, void *ctx);

/**
 * Writes frame @p f's argument list as gdb's backtrace does (" (n=n@entry=0x0, key=0x… \"needle\")",
 * " ()" for a function with DWARF and no parameters, nothing without DWARF), every string under
 * @p rule, each value cut at @p width characters with "…" (0: whole). @p t owns the variables.
 */
void ct_present_parameters(FILE *out, const struct ct_thread *t, const struct ct_frame *f, enum ct_text_rule rule,
			   size_t width);
/** Writes @p f's locals, one "INDENTname = value" line each ("No locals." when it has none). */
void ct_present_locals(FILE *out, const struct ct_thread *t, const struct ct_frame *f, enum ct_text_rule rule,
		       const char *indent, size_t width);

/**
 * Copies @p len bytes of text lines from @p text to @p out, each line cut to @p width columns
 * (0: not cut) with "…" as its last column, so that a terminal never wraps a line. Escape
 * sequences the writers emit (color) take no column and are closed after a cut; a UTF-8
 * character is one column (what the sanitizer lets through is never a control character).
 */
void ct_text_fit(FILE *out, const char *text, size_t len, size_t width);

/** Visible columns of @p len bytes of one line of terminal text (escape sequences take none). */
size_t ct_text_columns(const char *text, size_t len);

/**
 * Writes @p len bytes of one line of terminal text to @p out folded at spaces so that no line is
 * wider than @p width, the first line starting at column @p first_col, the others indented by
 * @p indent spaces; a word longer than a line is cut by ct_text_fit(). No newline at the end.
 */
void ct_text_fold(FILE *out, const char *text, size_t len, size_t width, size_t first_col, size_t indent);

/**
 * The main program's module: the one whose recorded path is the executable's (AT_EXECFN), also when
 * the program was started by a relative path ("./prog", "bin/prog": the path's end, then its base
 * name). NULL when the report names no executable or no module matches.
 */
const struct ct_module *ct_present_main_module(const struct ct_report *r);

#endif
