/**
 * @file error.h
 * The one error type of libcoretriage.
 *
 * A function that can fail returns `struct ct_error *`: NULL means success. An error gains context as
 * it travels up: ct_error_wrap() prepends "context: " to the message, so the CLI prints a single line
 * such as "core: NT_FILE note: entry count 4000000 exceeds cap 65536".
 */
#ifndef CORETRIAGE_ERROR_H
#define CORETRIAGE_ERROR_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** X-macro: code name and default text. */
#define CT_ERRORS(X)                                                                  \
	X(NO_MEMORY, "out of memory")                                                 \
	X(NOT_FOUND, "not found")                                                     \
	X(OS, "operating system error")                                               \
	X(FAULT, "address not in the dump")                                           \
	X(NODATA, "data not saved in the dump")                                       \
	X(CORRUPT, "corrupt input")                                                   \
	X(UNSUPPORTED, "not supported")                                               \
	X(INVALID_ARGUMENT, "invalid argument")                                       \
	X(LIMIT, "limit reached")                                                     \
	X(LIBRARY, "library error")

enum ct_error_code {
#define CT_X_ENUM(name, text) CT_ERROR_##name,
	CT_ERRORS(CT_X_ENUM)
#undef CT_X_ENUM
	CT_NUM_ERROR_CODES
};

struct ct_error {
	enum ct_error_code code;
	/** False for the static errors (ct_enomem, ct_not_found). */
	bool needs_destroy;
	/** errno for CT_ERROR_OS, else 0. */
	int errnum;
	/** Address for CT_ERROR_FAULT / CT_ERROR_NODATA, else 0. */
	uint64_t address;
	/** "outer: inner" chain; owned. */
	char *message;
};

/** Static errors: never freed, safe to return when allocation fails. */
extern struct ct_error ct_enomem, ct_not_found;

/** Creates an error with a printf-formatted message. Returns &ct_enomem if allocation fails. */
struct ct_error *ct_error_create(enum ct_error_code code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** CT_ERROR_OS with strerror(errnum) appended to the formatted context. */
struct ct_error *ct_error_os(int errnum, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** CT_ERROR_FAULT for @p address, e.g. "cannot read 8 bytes at 0x…". */
struct ct_error *ct_error_fault(uint64_t address, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * Prepends "context: " to @p err's message and returns @p err. NULL passes through unchanged.
 * A static error is copied first. If wrapping runs out of memory the original error is kept.
 */
struct ct_error *ct_error_wrap(struct ct_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** Frees @p err (NULL and static errors are accepted). */
void ct_error_destroy(struct ct_error *err);

/**
 * If *@p errp has code @p code, destroys it, sets *@p errp to NULL and returns true.
 * Otherwise leaves it and returns false.
 */
bool ct_error_catch(struct ct_error **errp, enum ct_error_code code);

/** The full message ("outer: inner: default text" for static errors). Borrowed from @p err. */
const char *ct_error_message(const struct ct_error *err);

#ifdef __cplusplus
}
#endif
#endif
