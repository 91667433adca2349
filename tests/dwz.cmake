# Debug files shared through dwz (issue 21): names and types in a shared file reached through
# DW_FORM_GNU_strp_alt/ref_alt (DWARF 5: strp_sup/ref_sup) and partial units (docs/unwinding.md,
# "Debug files shared through dwz").
#
#   dwz_handmade   two small programs built at test time, split into debug files, `dwz -m` over both:
#                  the shared file present (relative altlink name, compressed sections and the cache),
#                  found only by build-id, absent, and a wrong file at its path; real cores compared
#                  with gdb and eu-stack, every DIE walked by ct_diewalk
#   dwz_debian     real cores of Debian programs whose -dbg packages are built with dwz, killed in the
#                  middle of real work, every frame's function and inline chain compared with gdb and
#                  eu-stack, cache on and off: lua5.4 (liblua5.4-0-dbg) and a program of ours running
#                  Lua in liblua5.4.so.0 (the other shared file, liblua5.4-dev); binutils' objdump,
#                  readelf and nm (binutils-x86-64-linux-gnu-dbg; built with -flto) deep in libopcodes
#                  and libbfd (libbinutils-dbg; each package has its own shared file): disassembly,
#                  line lookup, DWARF dumps, nm -l (tests/dwz/debian_binutils.py); ct_diewalk over
#                  all their -dbg files.
#                  Each part is skipped when its packages are missing, 77 when both are
#
# ct_diewalk (tests/dwz/diewalk.c) compares coretriage's name readers with libdw's, DIE by DIE.
add_executable(ct_diewalk ${CMAKE_CURRENT_SOURCE_DIR}/dwz/diewalk.c)
target_include_directories(ct_diewalk PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(ct_diewalk PRIVATE coretriage_lib)
foreach(t handmade debian)
  add_test(NAME dwz_${t} COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/dwz/check_${t}.py
    --coretriage ${CT_BIN} --diewalk $<TARGET_FILE:ct_diewalk>)
  set_tests_properties(dwz_${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS dwz)
endforeach()
