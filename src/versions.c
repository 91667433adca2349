// The versions of the libraries this build links (coretriage --version): asked from each library
// at run time where it has a version call, so that the answer is the library actually loaded, not
// the header the build saw; the others say the version they were built with. A library opened on
// first use (src/lazy/: capstone, Zydis, libunwind, libkdumpfile, libsystemd) is not opened for
// --version, which must stay a start-up-only run (issue 28): it says the version built with.
#include <capstone/capstone.h>
#include <elfutils/libdwfl.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "coretriage/coretriage.h"

#if CT_HAVE_LIBUNWIND
#include <libunwind.h>
#endif
#if CT_HAVE_KDUMPFILE
#include <libkdumpfile/kdumpfile.h>
#endif
#if CT_HAVE_ZSTD
#include <zstd.h>
#endif
#if CT_HAVE_LZMA
#include <lzma.h>
#endif
#if CT_HAVE_LZ4
#include <lz4.h>
#endif
#if CT_HAVE_ZLIB
#include <zlib.h>
#endif
#if CT_HAVE_BZIP2
#include <bzlib.h>
#endif
#if CT_HAVE_LIBBPF
#include <bpf/libbpf.h>
#endif
#if CT_HAVE_ZYDIS
#include <Zydis/Zydis.h>
#endif

static void put(struct ct_library_version *out, size_t cap, size_t *n, const char *name, bool runtime,
		const char *version)
{
	if (*n < cap) {
		out[*n].name = name;
		out[*n].runtime = runtime;
		// The number only: libbpf says "v1.1", bzip2 "1.0.8, 13-Jul-2019".
		if (version && version[0] == 'v')
			version++;
		size_t len = version ? strcspn(version, ", ") : 0;
		snprintf(out[*n].version, sizeof(out[*n].version), "%.*s", len ? (int)len : 1, len ? version : "?");
	}
	(*n)++;
}

size_t ct_library_versions(struct ct_library_version *out, size_t cap)
{
	size_t n = 0;
	char v[sizeof(out->version)];
	put(out, cap, &n, "elfutils", true, dwfl_version(NULL));
	snprintf(v, sizeof(v), "%d.%d.%d", CS_VERSION_MAJOR, CS_VERSION_MINOR, CS_VERSION_EXTRA);
	put(out, cap, &n, "capstone", false, v);
	put(out, cap, &n, "jansson", true, jansson_version_str());
#if CT_HAVE_ZYDIS
	ZyanU64 zv = ZYDIS_VERSION;
	snprintf(v, sizeof(v), "%u.%u.%u", (unsigned)ZYDIS_VERSION_MAJOR(zv), (unsigned)ZYDIS_VERSION_MINOR(zv),
		 (unsigned)ZYDIS_VERSION_PATCH(zv));
	put(out, cap, &n, "zydis", false, v);
#endif
#if CT_HAVE_LIBUNWIND
	snprintf(v, sizeof(v), "%d.%d.%d", UNW_VERSION_MAJOR, UNW_VERSION_MINOR, UNW_VERSION_EXTRA);
	put(out, cap, &n, "libunwind", false, v);
#endif
#if CT_HAVE_KDUMPFILE
	snprintf(v, sizeof(v), "%d.%d.%d", KDUMPFILE_VER_MAJOR, KDUMPFILE_VER_MINOR, KDUMPFILE_VER_MICRO);
	put(out, cap, &n, "libkdumpfile", false, v);
#endif
#if CT_HAVE_LIBBPF
	put(out, cap, &n, "libbpf", true, libbpf_version_string());
#endif
#if CT_HAVE_SYSTEMD
	put(out, cap, &n, "libsystemd", false, CT_SYSTEMD_BUILD_VERSION);
#endif
#if CT_HAVE_DEBUGINFOD
	// dlopen'ed when a query is made (modules/debuginfod.c): the version of the header.
	put(out, cap, &n, "libdebuginfod", false, CT_DEBUGINFOD_BUILD_VERSION);
#endif
#if CT_HAVE_ZLIB
	put(out, cap, &n, "zlib", true, zlibVersion());
#endif
#if CT_HAVE_BZIP2
	put(out, cap, &n, "bzip2", true, BZ2_bzlibVersion());
#endif
#if CT_HAVE_ZSTD
	put(out, cap, &n, "zstd", true, ZSTD_versionString());
#endif
#if CT_HAVE_LZMA
	put(out, cap, &n, "xz", true, lzma_version_string());
#endif
#if CT_HAVE_LZ4
	put(out, cap, &n, "lz4", true, LZ4_versionString());
#endif
	return n;
}
