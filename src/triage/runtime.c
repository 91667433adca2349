// Which frames are runtime, not code to blame (issue 16, docs/classes.md "Blame"): the C and C++
// runtime by module, interposers named in the core's LD_PRELOAD, and the language runtimes' panic
// and signal machinery by function name. Everything else, including libraries under /usr/lib
// (libsqlite3, libcrypto, libpython, a Python extension), is code that can be blamed.
#include <string.h>

#include "triage/facts.h"

// Short module names (sonames) of the C/C++ runtime, matched up to ".so": libc.so.6, ld-linux-x86-64.so.2.
static const char *const runtime_modules[] = {
	"libc", "libm", "libmvec", "libpthread", "librt", "libdl", "libutil", "libresolv", "libanl",
	"ld-linux", "ld-linux-x86-64", "ld-linux-aarch64", "ld-linux-armhf", "ld-linux-riscv64-lp64d", "ld64",
	"ld", "linux-vdso", "linux-gate", "libstdc++", "libgcc_s", "libatomic", "libc++", "libc++abi",
	"libasan", "libubsan", "libtsan", "liblsan", "libhwasan", "libmsan", NULL,
};

static bool module_is(const char *module, const char *stem)
{
	size_t n = strlen(stem);
	if (strncmp(module, stem, n) != 0)
		return false;
	// "libc.so.6", or an old versioned name "libc-2.27.so" / "ld-2.27.so".
	return strncmp(module + n, ".so", 3) == 0 ||
	       (module[n] == '-' && module[n + 1] >= '0' && module[n + 1] <= '9' && strstr(module + n, ".so"));
}

bool ct_module_is_runtime(const char *module)
{
	if (!module)
		return false;
	for (const char *const *m = runtime_modules; *m; m++) {
		if (module_is(module, *m))
			return true;
	}
	// LLVM's sanitizer runtimes: libclang_rt.asan-x86_64.so.
	return strncmp(module, "libclang_rt.", 12) == 0 || strncmp(module, "[vdso", 5) == 0;
}

bool ct_module_is_preloaded(const char *module, const char *ld_preload)
{
	if (!module || !ld_preload)
		return false;
	// LD_PRELOAD: paths or names separated by blanks or colons (ld.so(8)).
	size_t mlen = strlen(module);
	for (const char *p = ld_preload; *p;) {
		size_t n = strcspn(p, " :\t");
		const char *base = p;
		for (const char *q = p; q < p + n; q++) {
			if (*q == '/')
				base = q + 1;
		}
		size_t blen = (size_t)(p + n - base);
		if (blen == mlen && strncmp(base, module, mlen) == 0)
			return true;
		p += n;
		p += strspn(p, " :\t");
	}
	return false;
}

/* Rust's panic path and start-up glue (std 1.63 names; a trailing "::h<hash>" of legacy mangling is
 * ignored). */
static const char *const rust_panic_prefixes[] = {
	"std::panicking::", "core::panicking::", "std::panic::", "core::panic::", "panic_abort::",
	"panic_unwind::", "std::sys::unix::abort_internal", "std::process::abort",
	"std::sys_common::backtrace::__rust_end_short_backtrace", "core::result::unwrap_failed",
	"core::option::expect_failed", "core::option::Option$LT$T$GT$::", "core::option::Option<T>::",
	"core::result::Result$LT$T$C$E$GT$::", "core::result::Result<T, E>::", "<core::option::Option",
	"<core::result::Result",
	// The start-up glue around main: like __libc_start_main, not the program's code.
	"std::rt::lang_start", "std::sys_common::backtrace::__rust_begin_short_backtrace",
	"core::ops::function::FnOnce::call_once", NULL,
};
/* Rust's core and alloc crates, monomorphized into the executable (core::ptr::read_volatile::<u64>,
 * core::iter::adapters::map::map_fold): the language's library, like libstdc++ — runtime for blame,
 * not panic machinery. The program's closures they call stay its own. */
static const char *const rust_library_prefixes[] = { "core::", "alloc::", "<core::", "<alloc::", NULL };
static const char *const rust_panic_names[] = { "rust_panic", "__rust_start_panic", "rust_begin_unwind",
						"rust_panic_with_hook", "begin_panic_handler", NULL };

static bool starts_with_any(const char *fn, const char *const *list)
{
	for (; *list; list++) {
		if (strncmp(fn, *list, strlen(*list)) == 0)
			return true;
	}
	return false;
}

static bool equals_any(const char *fn, const char *const *list)
{
	for (; *list; list++) {
		size_t n = strlen(*list);
		// "rust_panic" and "rust_panic::h0123…" (hash suffix), not "rust_panic_x".
		if (strncmp(fn, *list, n) == 0 && (fn[n] == '\0' || strncmp(fn + n, "::h", 3) == 0))
			return true;
	}
	return false;
}

bool ct_function_is_rust_panic(const char *fn)
{
	return fn && (starts_with_any(fn, rust_panic_prefixes) || equals_any(fn, rust_panic_names));
}

bool ct_function_is_go_runtime(const char *fn)
{
	// Go's runtime (panics, the signal path, the scheduler) is the language's runtime, like libc.
	return fn && strncmp(fn, "runtime.", 8) == 0;
}

const struct ct_runtime_frame *ct_goroutine_own_frame(const struct ct_goroutine *g)
{
	for (size_t k = 0; k < g->num_frames; k++) {
		const char *fn = g->frames[k].function;
		// sync.runtime_SemacquireMutex and the like are the runtime's, linked into the package.
		if (fn && !ct_function_is_go_runtime(fn) && !strstr(fn, ".runtime_"))
			return &g->frames[k];
	}
	return NULL;
}

bool ct_function_is_runtime(const char *fn)
{
	return ct_function_is_rust_panic(fn) || ct_function_is_go_runtime(fn) ||
	       (fn && starts_with_any(fn, rust_library_prefixes));
}

/* The C runtime's start-up and stack-protector objects linked into every executable (crt1.o/Scrt1.o,
 * crti.o, crtbegin.o, libc_nonshared.a) and static glibc's start-up (csu/libc-start.c). */
static const char *const crt_names[] = {
	"_start", "_init", "_fini", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
	"__libc_csu_init", "__libc_csu_fini", "__libc_init_first", "__stack_chk_fail_local", "frame_dummy",
	"register_tm_clones", "deregister_tm_clones", "__do_global_dtors_aux", "_dl_relocate_static_pie", NULL,
};

bool ct_function_is_crt(const char *fn)
{
	if (!fn)
		return false;
	for (const char *const *n = crt_names; *n; n++) {
		if (strcmp(fn, *n) == 0)
			return true;
	}
	return false;
}
