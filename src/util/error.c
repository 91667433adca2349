// The one error type: creation, context wrapping, catching. See include/coretriage/error.h.
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coretriage/error.h"

static const char *const error_texts[CT_NUM_ERROR_CODES] = {
#define CT_X_TEXT(name, text) [CT_ERROR_##name] = text,
	CT_ERRORS(CT_X_TEXT)
#undef CT_X_TEXT
};

struct ct_error ct_enomem = { .code = CT_ERROR_NO_MEMORY, .message = (char *)"out of memory" };
struct ct_error ct_not_found = { .code = CT_ERROR_NOT_FOUND, .message = (char *)"not found" };

__attribute__((format(printf, 4, 0))) static struct ct_error *error_vcreate(enum ct_error_code code, int errnum, uint64_t address,
				      const char *fmt, va_list ap)
{
	struct ct_error *err = calloc(1, sizeof(*err));
	if (!err)
		return &ct_enomem;
	err->code = code;
	err->needs_destroy = true;
	err->errnum = errnum;
	err->address = address;
	if (fmt) {
		if (vasprintf(&err->message, fmt, ap) < 0)
			err->message = NULL;
	} else {
		err->message = strdup(error_texts[code]);
	}
	if (!err->message) {
		free(err);
		return &ct_enomem;
	}
	return err;
}

struct ct_error *ct_error_create(enum ct_error_code code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct ct_error *err = error_vcreate(code, 0, 0, fmt, ap);
	va_end(ap);
	return err;
}

struct ct_error *ct_error_os(int errnum, const char *fmt, ...)
{
	char *context = NULL;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&context, fmt, ap);
	va_end(ap);
	if (r < 0)
		return &ct_enomem;
	struct ct_error *err = ct_error_create(CT_ERROR_OS, "%s: %s", context, strerror(errnum));
	free(context);
	if (err->needs_destroy)
		err->errnum = errnum;
	return err;
}

struct ct_error *ct_error_fault(uint64_t address, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct ct_error *err = error_vcreate(CT_ERROR_FAULT, 0, address, fmt, ap);
	va_end(ap);
	return err;
}

struct ct_error *ct_error_wrap(struct ct_error *err, const char *fmt, ...)
{
	if (!err)
		return NULL;
	char *context = NULL;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&context, fmt, ap);
	va_end(ap);
	if (r < 0)
		return err;
	char *message = NULL;
	if (asprintf(&message, "%s: %s", context, ct_error_message(err)) < 0) {
		free(context);
		return err;
	}
	free(context);
	if (!err->needs_destroy) {
		// A static error is shared: wrap a private copy.
		struct ct_error *copy = calloc(1, sizeof(*copy));
		if (!copy) {
			free(message);
			return err;
		}
		*copy = *err;
		copy->needs_destroy = true;
		copy->message = message;
		return copy;
	}
	free(err->message);
	err->message = message;
	return err;
}

void ct_error_destroy(struct ct_error *err)
{
	if (!err || !err->needs_destroy)
		return;
	free(err->message);
	free(err);
}

bool ct_error_catch(struct ct_error **errp, enum ct_error_code code)
{
	if (!*errp || (*errp)->code != code)
		return false;
	ct_error_destroy(*errp);
	*errp = NULL;
	return true;
}

const char *ct_error_message(const struct ct_error *err)
{
	if (!err)
		return "success";
	return err->message ? err->message : error_texts[err->code];
}
