// libsystemd's journal on first use (lazy.h): only --trail reads the journal, and linked in
// libsystemd maps libgcrypt, libgpg-error, libcap, lz4 and zstd into every run. Each function
// forwards to the library's; when it is missing they fail as sd-journal does (-ELIBACC).
#include <errno.h>
#include <systemd/sd-journal.h>

#include "lazy/lazy.h"
#include "util/dynlib.h"

static struct ct_dynlib lib = { .soname = CT_SONAME_SYSTEMD, .what = "reading the journal needs" };

struct ct_error *ct_lazy_systemd_require(void)
{
	return ct_dynlib_require(&lib);
}

int sd_journal_open(sd_journal **ret, int flags)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_open, fn, -ELIBACC);
	return fn(ret, flags);
}

int sd_journal_open_directory(sd_journal **ret, const char *path, int flags)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_open_directory, fn, -ELIBACC);
	return fn(ret, path, flags);
}

int sd_journal_open_files(sd_journal **ret, const char **paths, int flags)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_open_files, fn, -ELIBACC);
	return fn(ret, paths, flags);
}

void sd_journal_close(sd_journal *j)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_close, fn, );
	fn(j);
}

int sd_journal_add_match(sd_journal *j, const void *data, size_t size)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_add_match, fn, -ELIBACC);
	return fn(j, data, size);
}

int sd_journal_add_disjunction(sd_journal *j)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_add_disjunction, fn, -ELIBACC);
	return fn(j);
}

void sd_journal_flush_matches(sd_journal *j)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_flush_matches, fn, );
	fn(j);
}

int sd_journal_get_data(sd_journal *j, const char *field, const void **data, size_t *l)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_get_data, fn, -ELIBACC);
	return fn(j, field, data, l);
}

int sd_journal_get_monotonic_usec(sd_journal *j, uint64_t *ret, sd_id128_t *ret_boot_id)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_get_monotonic_usec, fn, -ELIBACC);
	return fn(j, ret, ret_boot_id);
}

int sd_journal_get_realtime_usec(sd_journal *j, uint64_t *ret)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_get_realtime_usec, fn, -ELIBACC);
	return fn(j, ret);
}

int sd_journal_next(sd_journal *j)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_next, fn, -ELIBACC);
	return fn(j);
}

int sd_journal_previous(sd_journal *j)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_previous, fn, -ELIBACC);
	return fn(j);
}

int sd_journal_seek_head(sd_journal *j)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_seek_head, fn, -ELIBACC);
	return fn(j);
}

int sd_journal_seek_tail(sd_journal *j)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_seek_tail, fn, -ELIBACC);
	return fn(j);
}

int sd_journal_seek_realtime_usec(sd_journal *j, uint64_t usec)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_seek_realtime_usec, fn, -ELIBACC);
	return fn(j, usec);
}

int sd_journal_set_data_threshold(sd_journal *j, size_t sz)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_set_data_threshold, fn, -ELIBACC);
	return fn(j, sz);
}

// sd-journal.h turns sd_journal_sendv() into this call with the caller's code location.
int sd_journal_sendv_with_location(const char *file, const char *line, const char *func, const struct iovec *iov, int n)
{
	CT_DYNLIB_RESOLVE(lib, sd_journal_sendv_with_location, fn, -ELIBACC);
	return fn(file, line, func, iov, n);
}
