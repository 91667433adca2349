// Names through libiberty (src/modules/demangle.c): C++, Rust legacy and v0, D, symbol versions.
#include "modules/demangle.h"
#include "test.h"

static struct ct_report r;

TEST(symbol_names_as_gdb_shows_symbol_only_frames)
{
	CHECK(ct_report_init(&r));
	CHECK_STR(ct_demangle_symbol(&r.strings, "_ZNK9inventory8RegistryINS_4ItemEE11quantity_ofEi"),
		  "inventory::Registry<inventory::Item>::quantity_of(int) const");
	CHECK_STR(ct_demangle_symbol(&r.strings, "_ZSt9terminatev"), "std::terminate()");
	// Rust legacy: no hash, escapes decoded.
	CHECK_STR(ct_demangle_symbol(&r.strings, "_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$"
					 "closure$u7d$$u7d$$GT$17h0123456789abcdefE"),
		  "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>");
	CHECK_STR(ct_demangle_symbol(&r.strings, "_ZN3std2rt10lang_start17h0123456789abcdefE"), "std::rt::lang_start");
	// Rust v0: no crate disambiguator.
	CHECK_STR(ct_demangle_symbol(&r.strings, "_RNvCsjsgrwiHdm0p_9rustcrash9read_slot"), "rustcrash::read_slot");
	CHECK_STR(ct_demangle_symbol(&r.strings, "_D3foo3barFiZv"), "foo.bar(int)");
	// Symbol versions go; other names stay.
	CHECK_STR(ct_demangle_symbol(&r.strings, "__libc_start_main@@GLIBC_2.34"), "__libc_start_main");
	CHECK_STR(ct_demangle_symbol(&r.strings, "_ZTISt13runtime_error@@GLIBCXX_3.4"), "typeinfo for std::runtime_error");
	CHECK_STR(ct_demangle_symbol(&r.strings, "main.main"), "main.main");
	CHECK_STR(ct_demangle_symbol(&r.strings, "_Znot_mangled"), "_Znot_mangled");
	CHECK(ct_demangle_symbol(&r.strings, NULL) == NULL);
	ct_report_deinit(&r);
}

TEST(function_names_as_gdb_shows_debug_info_frames)
{
	CHECK(ct_report_init(&r));
	// No parameters, no return type, no const.
	CHECK_STR(ct_demangle_function(&r.strings, "_ZNK9inventory8RegistryINS_4ItemEE11quantity_ofEi"),
		  "inventory::Registry<inventory::Item>::quantity_of");
	CHECK_STR(ct_demangle_function(&r.strings, "_ZN3foo3maxIiEET_S1_S1_"), "foo::max<int>");
	CHECK_STR(ct_demangle_function(&r.strings, "_ZN12_GLOBAL__N_13fooEv"), "(anonymous namespace)::foo");
	CHECK(ct_demangle_function(&r.strings, "plain_c") == NULL);
	CHECK(ct_demangle_function(&r.strings, NULL) == NULL);
	ct_report_deinit(&r);
}

TEST(hostile_names_are_bounded)
{
	CHECK(ct_report_init(&r));
	// Too long to demangle: shown as it is, not fed to the demangler's stack arrays.
	static char huge[CT_DEMANGLE_MAX_INPUT + 100];
	memset(huge, 'N', sizeof(huge) - 1);
	huge[0] = '_';
	huge[1] = 'Z';
	CHECK(ct_demangle_function(&r.strings, huge) == NULL);
	const char *s = ct_demangle_symbol(&r.strings, huge);
	CHECK(s && strlen(s) == sizeof(huge) - 1);
	// A short name that expands past the output cap (each S0_ repeats a 92-character type) is cut.
	static char longname[1024];
	size_t n = (size_t)snprintf(longname, sizeof(longname), "_Z1fN90");
	memset(longname + n, 'a', 90);
	n += 90;
	n += (size_t)snprintf(longname + n, sizeof(longname) - n, "1bE");
	for (int i = 0; i < 120; i++)
		n += (size_t)snprintf(longname + n, sizeof(longname) - n, "S0_");
	const char *cut = ct_demangle_symbol(&r.strings, longname);
	CHECK(cut && strlen(cut) < CT_DEMANGLE_MAX_OUTPUT && strcmp(cut + strlen(cut) - 3, "...") == 0);
	ct_report_deinit(&r);
}

TEST_MAIN()
