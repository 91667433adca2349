/**
 * @file budget.h
 * The work budget of one analysis: totals, not per-item caps. Per-count caps (threads × frames)
 * do not bound memory: 200 threads × 1,000,000 frames each is within both caps and is 200 million
 * frames. The budget bounds what an analysis may spend in all, whatever the dump's shape:
 *
 * | kind | what it counts | default | --safe |
 * |---|---|---|---|
 * | FRAMES | frames kept, over all threads | memory / 1 KiB | memory / 2 KiB |
 * | TEXT | bytes of names and values kept (symbols, paths, values of variables) | memory / 8 | memory / 16 |
 * | DEBUG | bytes inflated: compressed debug sections (also those inside the dump) and compressed logs | memory / 4 | memory / 8 |
 * | TEMP | bytes written to $TMPDIR: a decompressed core, then decompressed logs | 64 GiB (memory when $TMPDIR is a tmpfs) | memory |
 * | NODES | list nodes visited (kernel task and thread lists) and BTF members searched | 2^22 | 2^21 |
 * | ELEMENTS | members, array elements and enumerators visited rendering values (folded repeats too) | memory / 512 | memory / 1024 |
 * | EXPR | DWARF expression steps and entry-value evaluations of values | memory / 256 | memory / 512 |
 * | COPY | bytes of untrusted records read or copied: log lines scanned, journal fields copied | memory / 64 | memory / 128 |
 * | FILES | files a reader looks at (stats and opens one file): log files under --logs | 65,536 | 32,768 |
 *
 * "memory" is --max-memory (ct_options.max_memory), else 4 GiB. A stage asks before it spends
 * (ct_budget_take()); a refusal is final for that kind, and the first refusal becomes one warning
 * diagnostic ("budget-frames", …) through ct_budget_report() (model/budget_diag.h), so the report says which budget was
 * reached and stays complete JSON (exit 1). Any stage can use it: it lives in the analysis context
 * (the process pipeline's session, the kernel pipeline's vmcore).
 */
#ifndef CT_UTIL_BUDGET_H
#define CT_UTIL_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coretriage/report.h"

struct ct_options;

enum ct_budget_kind {
	CT_BUDGET_FRAMES,
	CT_BUDGET_TEXT,
	CT_BUDGET_DEBUG,
	CT_BUDGET_TEMP,
	CT_BUDGET_NODES,
	CT_BUDGET_ELEMENTS,
	CT_BUDGET_EXPR,
	CT_BUDGET_COPY,
	CT_BUDGET_FILES,
	CT_BUDGET_NUM_
};
/** "frames", "text", "debug", "temp", "nodes", "elements", "expr", "copy", "files". */
const char *ct_budget_kind_to_string(enum ct_budget_kind kind);

/** Memory assumed when --max-memory is not given. */
#define CT_BUDGET_DEFAULT_MEMORY (UINT64_C(4) << 30)

struct ct_budget {
	uint64_t limit[CT_BUDGET_NUM_];
	uint64_t used[CT_BUDGET_NUM_];
	/** Refused at least once (reported by ct_budget_report(), model/budget_diag.h). */
	bool reached[CT_BUDGET_NUM_];
	bool reported[CT_BUDGET_NUM_];
};

/** Limits from @p opts (max_memory, safe, max_core_size; ct_options.budget overrides). */
void ct_budget_init(struct ct_budget *b, const struct ct_options *opts);

/**
 * Spends @p amount of @p kind. Returns false, spending nothing and marking the kind reached, when
 * that would pass the limit. A NULL budget allows everything.
 */
bool ct_budget_take(struct ct_budget *b, enum ct_budget_kind kind, uint64_t amount);

/** Spends @p amount of @p kind already used (up to the limit; past it marks the kind reached). */
void ct_budget_spend(struct ct_budget *b, enum ct_budget_kind kind, uint64_t amount);

/** What is left of @p kind (UINT64_MAX for a NULL budget). */
uint64_t ct_budget_left(const struct ct_budget *b, enum ct_budget_kind kind);

/** Marks @p kind reached (a stage that found the limit by itself, e.g. a capped stream). */
void ct_budget_mark_reached(struct ct_budget *b, enum ct_budget_kind kind);

/** A budget reached: what its warning says (model/budget_diag.h turns it into the diagnostic). */
struct ct_budget_reached {
	enum ct_budget_kind kind;
	enum ct_diag_code code; /**< "budget-KIND" */
	uint64_t limit;
	const char *what; /**< what the limit counts ("frames over all threads") */
};

/** The next kind reached and not yet reported, marked reported now; false when none is left. */
bool ct_budget_next_unreported(struct ct_budget *b, struct ct_budget_reached *ret);

/**
 * True when @p bytes can be allocated now. Libraries that do not check their own allocations
 * (capstone's cs_disasm) are called only after this: out of memory becomes a diagnostic, never a
 * write through NULL.
 */
bool ct_memory_headroom(size_t bytes);

#endif
