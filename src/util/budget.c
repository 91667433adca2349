// The work budget (budget.h): limits derived from the memory the analysis may use.
#include "util/budget.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/statfs.h>

#include "coretriage/coretriage.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

/** Bytes one kept frame costs in all (report frame, raw frame, unwinder and symbol cache share). */
#define FRAME_COST 1024
/**
 * Nodes are work, not memory: a fixed number. 65,536 tasks (tasks.c's cap) with a thread node each and
 * the BTF lookups of a distribution kernel (tens of thousands of members) need under 2^18; 2^22 takes
 * about a second at the speed a dump's pages are read.
 */
#define NODES_LIMIT (UINT64_C(1) << 22)
/** Files looked at: a count of files opened, not of memory, so not derived from it (/var/log holds
 * a few hundred files; 65,536 stats and opens take well under a second). */
#define FILES_DEFAULT 65536

static const char *const kind_names[CT_BUDGET_NUM_] = {
	[CT_BUDGET_FRAMES] = "frames",
	[CT_BUDGET_TEXT] = "text",
	[CT_BUDGET_DEBUG] = "debug",
	[CT_BUDGET_TEMP] = "temp",
	[CT_BUDGET_NODES] = "nodes",
	[CT_BUDGET_ELEMENTS] = "elements",
	[CT_BUDGET_EXPR] = "expr",
	[CT_BUDGET_COPY] = "copy",
	[CT_BUDGET_FILES] = "files",
};

// The diagnostic each kind raises when it is reached ("budget-frames", …: its name after "budget-").
static const enum ct_diag_code kind_codes[CT_BUDGET_NUM_] = {
	[CT_BUDGET_FRAMES] = CT_DIAG_BUDGET_FRAMES,
	[CT_BUDGET_TEXT] = CT_DIAG_BUDGET_TEXT,
	[CT_BUDGET_DEBUG] = CT_DIAG_BUDGET_DEBUG,
	[CT_BUDGET_TEMP] = CT_DIAG_BUDGET_TEMP,
	[CT_BUDGET_NODES] = CT_DIAG_BUDGET_NODES,
	[CT_BUDGET_ELEMENTS] = CT_DIAG_BUDGET_ELEMENTS,
	[CT_BUDGET_EXPR] = CT_DIAG_BUDGET_EXPR,
	[CT_BUDGET_COPY] = CT_DIAG_BUDGET_COPY,
	[CT_BUDGET_FILES] = CT_DIAG_BUDGET_FILES,
};

static const char *const kind_what[CT_BUDGET_NUM_] = {
	[CT_BUDGET_FRAMES] = "frames over all threads",
	[CT_BUDGET_TEXT] = "bytes of names and values",
	[CT_BUDGET_DEBUG] = "bytes inflated from compressed debug sections and logs",
	[CT_BUDGET_TEMP] = "bytes of temporary space for decompressed data",
	[CT_BUDGET_NODES] = "list nodes visited and BTF members searched",
	[CT_BUDGET_ELEMENTS] = "members and array elements of values rendered",
	[CT_BUDGET_EXPR] = "DWARF expression steps and entry-value evaluations",
	[CT_BUDGET_COPY] = "bytes of log lines read and journal fields copied",
	[CT_BUDGET_FILES] = "log files and directory entries looked at",
};

const char *ct_budget_kind_to_string(enum ct_budget_kind kind)
{
	return kind < CT_BUDGET_NUM_ ? kind_names[kind] : "unknown";
}

// $TMPDIR (else /tmp) on a tmpfs is memory: a decompressed core there counts as memory.
static bool tmp_is_memory(void)
{
	const char *dir = getenv("TMPDIR");
	struct statfs st;
	if (statfs(dir && *dir ? dir : "/tmp", &st) != 0)
		return false;
	return (unsigned long)st.f_type == TMPFS_MAGIC;
}

_Static_assert(sizeof(((struct ct_options *)0)->budget) / sizeof(uint64_t) == CT_BUDGET_NUM_,
	       "ct_options.budget has one limit per budget kind");

void ct_budget_init(struct ct_budget *b, const struct ct_options *opts)
{
	*b = (struct ct_budget){ 0 };
	uint64_t mem = opts->max_memory ? opts->max_memory : CT_BUDGET_DEFAULT_MEMORY;
	unsigned tight = opts->safe ? 2 : 1;
	b->limit[CT_BUDGET_FRAMES] = mem / FRAME_COST / tight;
	b->limit[CT_BUDGET_TEXT] = mem / 8 / tight;
	b->limit[CT_BUDGET_DEBUG] = mem / 4 / tight;
	b->limit[CT_BUDGET_COPY] = mem / 64 / tight;
	b->limit[CT_BUDGET_FILES] = FILES_DEFAULT / tight;
	uint64_t temp = opts->safe || tmp_is_memory() ? mem : UINT64_C(64) << 30;
	if (opts->max_core_size)
		temp = opts->max_core_size;
	b->limit[CT_BUDGET_TEMP] = temp;
	b->limit[CT_BUDGET_NODES] = NODES_LIMIT / tight;
	// For 4 GiB, 8 Mi elements and 16 Mi expression steps: under a second of rendering and of
	// evaluation each, far beyond real values (a few elements and steps each, and repeated
	// values are memoized) on million-frame stacks.
	b->limit[CT_BUDGET_ELEMENTS] = mem / 512 / tight;
	b->limit[CT_BUDGET_EXPR] = mem / 256 / tight;
	for (int k = 0; k < CT_BUDGET_NUM_; k++) {
		if (opts->budget[k])
			b->limit[k] = opts->budget[k];
	}
}

bool ct_budget_take(struct ct_budget *b, enum ct_budget_kind kind, uint64_t amount)
{
	if (!b)
		return true;
	if (amount > b->limit[kind] - b->used[kind]) {
		b->reached[kind] = true;
		return false;
	}
	b->used[kind] += amount;
	return true;
}

void ct_budget_spend(struct ct_budget *b, enum ct_budget_kind kind, uint64_t amount)
{
	if (b && !ct_budget_take(b, kind, amount))
		b->used[kind] = b->limit[kind];
}

uint64_t ct_budget_left(const struct ct_budget *b, enum ct_budget_kind kind)
{
	return b ? b->limit[kind] - b->used[kind] : UINT64_MAX;
}

void ct_budget_mark_reached(struct ct_budget *b, enum ct_budget_kind kind)
{
	if (b)
		b->reached[kind] = true;
}

bool ct_budget_next_unreported(struct ct_budget *b, struct ct_budget_reached *ret)
{
	for (int k = 0; b && k < CT_BUDGET_NUM_; k++) {
		if (!b->reached[k] || b->reported[k])
			continue;
		b->reported[k] = true;
		*ret = (struct ct_budget_reached){ (enum ct_budget_kind)k, kind_codes[k], b->limit[k], kind_what[k] };
		return true;
	}
	return false;
}

bool ct_memory_headroom(size_t bytes)
{
	void *p = malloc(bytes);
	if (!p)
		return false;
	// Touch nothing: RLIMIT_DATA counts the mapping, which is what a library's malloc needs.
	free(p);
	return true;
}
