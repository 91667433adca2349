/**
 * @file heap.h
 * glibc heap state from the dump (issue 24, docs/root-cause.md): the main arena's bins (tcache of
 * the main heap, fastbins, unsorted, small and large bins), each walk capped; for an address, the
 * chunk it lies in and whether that chunk is free and in which bin. Evidence for the
 * use-after-free class and for naming the chunk of a double free.
 */
#ifndef CT_TRIAGE_HEAP_H
#define CT_TRIAGE_HEAP_H

#include <stdbool.h>
#include <stdint.h>

#include "triage/facts.h"
#include "triage/triage.h"

/** A chunk of the heap and where it sits. */
struct ct_heap_chunk {
	bool present;
	uint64_t address; /**< of the chunk header (the user pointer is address + 16) */
	uint64_t size; /**< without the flag bits */
	bool free; /**< found in a bin, or its successor's PREV_INUSE bit is clear */
	bool in_bin;
	enum ct_heap_bin_kind bin;
	unsigned index; /**< the bin's index (tcache: tcache_idx; fastbin: fastbin_index; bins: bin_at) */
	unsigned count; /**< tcache: counts[index]; other bins: entries walked */
	unsigned position; /**< 0 = the bin's head */
	/** The next chunk's header (its size and PREV_INUSE), when in the dump. */
	bool has_next;
	uint64_t next_address, next_size;
	bool next_prev_inuse;
	/** The previous chunk, when this one's PREV_INUSE is clear (prev_size is then valid). */
	bool has_prev;
	uint64_t prev_address, prev_size;
};

/** What triage takes from the heap. */
struct ct_heap_facts {
	bool analyzed;
	unsigned glibc_major, glibc_minor;
	/** The chunk the subject pointer lies in, and what the subject is ("free() argument", …). */
	struct ct_heap_chunk chunk;
	uint64_t pointer;
	const char *role; /**< static */
	/**
	 * Use after free: the bad pointer was read from a freed chunk (the load's address lies in
	 * one), or is the safe-linked next pointer glibc stored in one. how: static text.
	 */
	bool use_after_free;
	const char *how;
	/** A free() argument that already sits in a bin: the chunk of a double free. */
	bool double_free;
	/** A malloc abort or a fault inside the allocator: the chunk whose end was overrun. */
	struct ct_heap_overflow overflow;
	/** A tcache or fastbin entry that is not a chunk (misaligned, unreadable, wrong size). */
	struct ct_heap_poison poison;
};

/**
 * Reads the heap state for the crash in @p facts: the free() argument of a malloc abort (the frame
 * variable `mem` of free/__libc_free), the load address of the root cause's load-from step, the bad
 * pointer of a memory fault. glibc 2.32 to 2.38 on LP64 (safe-linking; built-in layout).
 */
void ct_heap_analyze(const struct ct_triage_input *s, const struct ct_facts *facts, const struct ct_verdict *verdict,
		     struct ct_heap_facts *ret);

/**
 * What the main heap says of @p addr: "heap chunk 0x…+0x10, size 0x20, in use" (or free, and in
 * which bin), pooled; NULL when no chunk of the main heap holds it (or the heap is not analyzed).
 */
const char *ct_heap_describe(const struct ct_triage_input *s, uint64_t addr);

/**
 * The memory malloc handed out that holds @p addr: an in-use chunk of the main heap, from its user
 * pointer to the end of its successor's prev_size field (what the program may use, which may be
 * more than it asked for), into [*@p start, *@p end); false when no in-use chunk holds it.
 */
bool ct_heap_block_at(const struct ct_triage_input *s, uint64_t addr, uint64_t *start, uint64_t *end);

/** Fills @p verdict->heap from @p h (the report's heap section). */
void ct_heap_to_verdict(const struct ct_heap_facts *h, struct ct_verdict *verdict);

#endif
