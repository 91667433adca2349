/**
 * @file input.h
 * Inputs as users store them: compressed cores (systemd-coredump's .zst, .xz, .lz4; .gz, .bz2),
 * cores through a pipe on standard input, and the metadata systemd-coredump puts in the file name.
 *
 * Decompression streams into an anonymous temporary file (O_TMPFILE in $TMPDIR, else an unlinked
 * mkstemp file), so a core is never held in memory whole; the file disappears when its last
 * descriptor closes, also when the process is killed. Runs of zero bytes become holes, so a
 * mostly-empty core costs little disk.
 */
#ifndef CT_INPUT_H
#define CT_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "coretriage/error.h"
#include "coretriage/report.h"
#include "dump/sniff.h"

/** Default cap on the decompressed size of a core: larger than any sane process core. */
#define CT_DEFAULT_MAX_CORE_SIZE (UINT64_C(64) << 30)

/** True when @p format is a compression container this module handles (built in or not). */
bool ct_input_is_compressed(enum ct_format format);

/**
 * A new anonymous temporary file in $TMPDIR (O_TMPFILE, else an unlinked mkstemp file): read/write,
 * O_CLOEXEC, gone when its last descriptor closes. Returns the descriptor, or -1 with errno set.
 */
int ct_input_tmpfile(void);

/** How a decompression ended when it did not fail outright. */
struct ct_decompress_status {
	/** The stream broke (truncated, trailing garbage) or a limit was reached after some output:
	 * the file holds what came before, a truncated core. */
	bool partial;
	/** The limit reached was the temporary space of the work budget (util/budget.h). */
	bool space_reached;
	/** The limit reached was @p max_size (of ct_input_decompress()). */
	bool size_reached;
	/** Bytes decompressed (the file's size) and bytes really written (holes are free). */
	uint64_t size, written;
	char message[512]; /**< why, and where the stream broke; empty when complete */
};

/**
 * Decompresses @p path (already sniffed as @p format: zstd, xz, lz4, gzip or bzip2)
 * into a new anonymous temporary file.
 * On success *@p fd_ret is a read/write descriptor of that file (owned by the caller, O_CLOEXEC),
 * positioned anywhere; its size is the decompressed size.
 * Errors: CT_ERROR_UNSUPPORTED (format not built in: says which library is missing),
 * CT_ERROR_LIMIT (the output would exceed @p max_size bytes), CT_ERROR_CORRUPT (bad or truncated
 * stream), CT_ERROR_OS (read/write/temporary file, e.g. ENOSPC), CT_ERROR_NO_MEMORY. A stream that
 * breaks, or reaches @p max_size or @p max_space (bytes really written: holes are free; 0 = no
 * cap), after some output is no error: *@p status says so and the output is kept (partial).
 */
struct ct_error *ct_input_decompress(const char *path, enum ct_format format, uint64_t max_size, uint64_t max_space,
				     int *fd_ret, struct ct_decompress_status *status);

/**
 * As ct_input_decompress(), from the open descriptor @p in (read from its position to its end;
 * not closed), @p path naming it in messages. CT_FORMAT_UNKNOWN copies the bytes as they are (a
 * core through a pipe), under the same caps.
 */
struct ct_error *ct_input_decompress_fd(int in, const char *path, enum ct_format format, uint64_t max_size,
					uint64_t max_space, int *fd_ret, struct ct_decompress_status *status);

/** True when @p path names standard input: "-", /dev/stdin, /dev/fd/0, /proc/self/fd/0. */
bool ct_input_is_stdin(const char *path);
/** True when standard input is a regular file (`coretriage - < core`): it is mapped as it is. */
bool ct_input_stdin_is_file(void);

/**
 * Standard input that is not a regular file (a pipe, a socket) copied into a new anonymous
 * temporary file, as ct_input_decompress() does: at most @p max_size bytes and @p max_space of
 * temporary space; beyond, the file holds what came before (*@p status says so). Errors:
 * CT_ERROR_INVALID_ARGUMENT (a terminal), CT_ERROR_OS, CT_ERROR_LIMIT, CT_ERROR_NO_MEMORY.
 */
struct ct_error *ct_input_read_stdin(uint64_t max_size, uint64_t max_space, int *fd_ret,
				     struct ct_decompress_status *status);

/**
 * Parsed systemd-coredump file name: core.COMM.UID.BOOTID.PID.TIMESTAMP[.zst|.xz|.lz4].
 * COMM keeps systemd's \xNN escapes decoded. Strings are owned by the struct.
 */
struct ct_coredump_name {
	char *comm;
	unsigned long uid;
	char boot_id[33];
	unsigned long pid;
	/** Microseconds since the epoch (systemd's "now" when the core arrived). */
	uint64_t timestamp_usec;
	const char *compression; /**< "zst", "xz", "lz4" or NULL; static */
};

/**
 * Parses the base name of @p path. Returns false (and leaves @p ret untouched) when the name is
 * not a systemd-coredump name or allocation fails.
 */
bool ct_coredump_name_parse(const char *path, struct ct_coredump_name *ret);
void ct_coredump_name_deinit(struct ct_coredump_name *name);

/**
 * Adds the systemd-coredump metadata of @p path's name to @p report's environment
 * ("coredump.comm", "coredump.uid", "coredump.boot_id", "coredump.pid", "coredump.timestamp" in
 * microseconds, "coredump.time" in ISO 8601 UTC). Does nothing for other names.
 */
void ct_input_add_name_metadata(const char *path, struct ct_report *report);

#endif
