/**
 * @file lazy.h
 * The optional libraries opened on first use (util/dynlib.h), one glue file each in src/lazy/:
 * the glue file defines the library's functions the code calls (so the callers are unchanged) and
 * forwards each to the library, which a run loads only when its input needs it. A missing library
 * makes its functions fail as the library's own failures do; the entry points that need one call
 * its *_require() first for a one-line message.
 */
#ifndef CT_LAZY_H
#define CT_LAZY_H

#include "coretriage/error.h"

/** NULL when capstone loads, else why not (instructions then stay undecoded; batch loads it before
 * its workers fork, so that each inherits it instead of relocating it per core). */
struct ct_error *ct_lazy_capstone_require(void);
/** NULL when libkdumpfile loads, else why not (kernel dumps need it). */
struct ct_error *ct_lazy_kdumpfile_require(void);
/** NULL when libunwind loads, else why not (--unwinder=libunwind needs it). */
struct ct_error *ct_lazy_libunwind_require(void);
/** NULL when libpq loads, else why not (a PostgreSQL crash store needs it). */
struct ct_error *ct_lazy_libpq_require(void);
/** NULL when libsqlite3 loads, else why not (the SQLite crash store needs it). */
struct ct_error *ct_lazy_sqlite_require(void);
/** NULL when libsystemd loads, else why not (reading the journal needs it). */
struct ct_error *ct_lazy_systemd_require(void);

#endif
