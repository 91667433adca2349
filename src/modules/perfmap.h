/**
 * @file perfmap.h
 * perf's JIT symbol maps (tools/perf/Documentation/jit-interface.txt): a JIT writes
 * /tmp/perf-PID.map, one "START SIZE NAME" line per compiled function (START and SIZE in hex,
 * without 0x; LuaJIT's -jperf writes "TRACE_7::script.lua:12"). Names frames of JIT-compiled code,
 * which no ELF module covers, when the analyzing machine still has the dumped process's map.
 */
#ifndef CT_PERFMAP_H
#define CT_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coretriage/strpool.h"

/** The largest map read: a JVM's maps reach tens of MiB. */
#define CT_PERFMAP_MAX_BYTES (64u << 20)
/** Entries kept at most. */
#define CT_PERFMAP_MAX_ENTRIES 1000000

struct ct_perfmap_entry {
	uint64_t start, size;
	const char *name; /**< pooled */
};

/** A parsed map: entries in file order (a later entry for the same code wins: code is reused). */
struct ct_perfmap {
	struct ct_perfmap_entry *entries; /**< owned */
	size_t num_entries;
	const char *path; /**< pooled: the map read, NULL when there was none */
};

/**
 * Parses @p len bytes of map text (untrusted): malformed lines, zero sizes and ranges that wrap are
 * skipped, at most CT_PERFMAP_MAX_ENTRIES kept. Names are pooled in @p strings. @p ret is
 * overwritten; release with ct_perfmap_deinit().
 */
void ct_perfmap_parse(struct ct_strpool *strings, const char *text, size_t len, struct ct_perfmap *ret);

/** Reads and parses /tmp/perf-@p pid.map into @p ret (empty when there is none). */
void ct_perfmap_read(struct ct_strpool *strings, int pid, struct ct_perfmap *ret);

/** The entry holding @p addr (the last one in file order), NULL when none. */
const struct ct_perfmap_entry *ct_perfmap_find(const struct ct_perfmap *map, uint64_t addr);

void ct_perfmap_deinit(struct ct_perfmap *map);

#endif
