/**
 * @file kind.h
 * A kind of dump (process core, kernel dump; a live process is a dump the process kind runs) as the one pipeline runs it
 * (ct_pipeline_run, src/pipeline.c): the dump (dump/dump.h) and the stages that only this kind has,
 * over a session private to the kind's folder (src/process/process.c's, src/kernel/kernel.c's).
 *
 * The pipeline calls the stages in this order, skipping NULL ones; an error from open, facts or
 * modules skips to finish:
 *   open → facts → modules → for each thread/CPU of the dump: unwind (unwind, symbolize, values)
 *   → stacks_done → runtime → triage (the kind's rules) → signature → late_stacks → finish → close.
 * late_stacks is for stacks the verdict does not weigh and which come after it in the report
 * (a kernel's sleeping tasks, then the user's vmlinux adding DWARF lines to every kernel frame).
 */
#ifndef CT_DUMP_KIND_H
#define CT_DUMP_KIND_H

#include <stdbool.h>
#include <stddef.h>

#include "coretriage/error.h"
#include "dump/dump.h"
#include "dump/format.h"
#include "dump/mapped_file.h"

struct ct_options;
struct ct_budget;
struct ct_report;

/** What the pipeline hands a kind's open(): all borrowed, alive for the whole run (but @c dump, taken over). */
struct ct_dump_env {
	const struct ct_options *opts;
	const struct ct_dump_format *format;
	/** The input's bytes; a kind that reads the file by path (libkdumpfile) may close it. */
	struct ct_mapped_file *file;
	/** A dump opened already (a live process, live/dump_live.c) instead of @c file: the kind's open
	 * takes it over (it is cleared) and closes it with the session. */
	struct ct_dump *dump;
	struct ct_budget *budget;
	struct ct_report *report;
};

struct ct_dump_kind {
	const char *name;
	/** Opens the dump and makes the kind's session (*@p session, freed by close). On an error
	 * *@p session may still be set (then finish and close run) or NULL. */
	struct ct_error *(*open)(const struct ct_dump_env *env, void **session, const struct ct_dump **dump);
	/** The dump's facts: the process and its signal, the kernel's release, log and panic record. */
	struct ct_error *(*facts)(void *session);
	/** Loads the modules the dump's module source names (process modules; kallsyms, BTF, kernel
	 * modules and ORC). */
	struct ct_error *(*modules)(void *session);
	/** Unwinds thread or CPU @p index of the dump, symbolizes it and reads its values; false ends
	 * the loop (out of memory, said). */
	bool (*unwind)(void *session, size_t index);
	/** After every thread: their order (crashing thread first), the module list to the report. */
	void (*stacks_done)(void *session);
	/** A language runtime's own stacks (CPython), from the dump and the symbolized stacks. */
	void (*runtime)(void *session);
	/** The kind's rules over its facts: the verdict, handed to the model. */
	void (*triage)(void *session);
	/** The crash's signature, when triage does not make it with the verdict. */
	void (*signature)(void *session);
	/** Stacks after the verdict (see the file's comment). */
	void (*late_stacks)(void *session);
	/** The stacks and the verdict into the report model (@p ok: every stage ran). */
	void (*finish)(void *session, bool ok);
	/** Frees the session and closes the dump. */
	void (*close)(void *session);
};

#endif
