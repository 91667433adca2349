/**
 * @file dump_live.h
 * A captured live process as a struct ct_dump (dump/dump.h): what `coretriage -p` analyzes.
 */
#ifndef CT_LIVE_DUMP_LIVE_H
#define CT_LIVE_DUMP_LIVE_H

#include <stddef.h>

#include "coretriage/error.h"
#include "dump/dump.h"
#include "live/live.h"

/**
 * Opens @p snap as a dump of format "live" (input.kind) into @p ret, with at most @p max_threads
 * threads (the main thread first). The copied memory moves from the snapshot into the dump (the
 * snapshot's mapping buffers are freed; the rest stays the caller's to free). Its impl is a
 * struct ct_core, as for an ELF process core: the process kind's stages read both alike.
 * Errors: CT_ERROR_UNSUPPORTED (no architecture table), out of memory.
 */
struct ct_error *ct_live_dump_open(struct ct_live_snapshot *snap, size_t max_threads, struct ct_dump *ret);

#endif
