// libkdumpfile on first use (lazy.h): only kernel dumps need it, and linked in it maps libstdc++,
// libaddrxlat, snappy, lzo and zstd into every run. Each function forwards to the library's; when the
// library is missing they fail as libkdumpfile does (NULL, KDUMP_ERR_NOTIMPL).
#include <libkdumpfile/kdumpfile.h>

#include "lazy/lazy.h"
#include "util/dynlib.h"

static struct ct_dynlib lib = { .soname = CT_SONAME_KDUMPFILE, .what = "kernel dumps need" };

struct ct_error *ct_lazy_kdumpfile_require(void)
{
	return ct_dynlib_require(&lib);
}

kdump_ctx_t *kdump_new(void)
{
	CT_DYNLIB_RESOLVE(lib, kdump_new, fn, NULL);
	return fn();
}

void kdump_free(kdump_ctx_t *ctx)
{
	CT_DYNLIB_RESOLVE(lib, kdump_free, fn, );
	fn(ctx);
}

const char *kdump_get_err(kdump_ctx_t *ctx)
{
	CT_DYNLIB_RESOLVE(lib, kdump_get_err, fn, "libkdumpfile is not loaded");
	return fn(ctx);
}

kdump_status kdump_open_fdset(kdump_ctx_t *ctx, unsigned nfds, const int *fds)
{
	CT_DYNLIB_RESOLVE(lib, kdump_open_fdset, fn, KDUMP_ERR_NOTIMPL);
	return fn(ctx, nfds, fds);
}

kdump_status kdump_read(kdump_ctx_t *ctx, kdump_addrspace_t as, kdump_addr_t addr, void *buffer, size_t *plength)
{
	CT_DYNLIB_RESOLVE(lib, kdump_read, fn, KDUMP_ERR_NOTIMPL);
	return fn(ctx, as, addr, buffer, plength);
}

kdump_status kdump_get_attr(kdump_ctx_t *ctx, const char *key, kdump_attr_t *valp)
{
	CT_DYNLIB_RESOLVE(lib, kdump_get_attr, fn, KDUMP_ERR_NOTIMPL);
	return fn(ctx, key, valp);
}

kdump_status kdump_get_typed_attr(kdump_ctx_t *ctx, const char *key, kdump_attr_t *valp)
{
	CT_DYNLIB_RESOLVE(lib, kdump_get_typed_attr, fn, KDUMP_ERR_NOTIMPL);
	return fn(ctx, key, valp);
}

kdump_status kdump_set_attr(kdump_ctx_t *ctx, const char *key, const kdump_attr_t *valp)
{
	CT_DYNLIB_RESOLVE(lib, kdump_set_attr, fn, KDUMP_ERR_NOTIMPL);
	return fn(ctx, key, valp);
}

void *kdump_blob_pin(kdump_blob_t *blob)
{
	CT_DYNLIB_RESOLVE(lib, kdump_blob_pin, fn, NULL);
	return fn(blob);
}

unsigned long kdump_blob_unpin(kdump_blob_t *blob)
{
	CT_DYNLIB_RESOLVE(lib, kdump_blob_unpin, fn, 0);
	return fn(blob);
}

size_t kdump_blob_size(const kdump_blob_t *blob)
{
	CT_DYNLIB_RESOLVE(lib, kdump_blob_size, fn, 0);
	return fn(blob);
}
