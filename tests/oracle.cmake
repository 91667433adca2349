# gdb 13 as the oracle for frames (issue 10): coretriage's frames of the crashing thread (every
# thread for `threads`) against gdb's `bt` with `set backtrace past-main on` on the same core:
# same functions in the same order, same inline structure, same file:line
# (tests/oracle/compare_gdb.py; the differences it tolerates are listed in docs/unwinding.md).
#
#   gdb_frames_<case>   the toolchain cases (tc-*: gcc -O0/-O2/-Os/-flto, clang -O2, gcc without
#                       .debug_aranges, g++ templates, rustc, go) and a few of the C cases
#
# tests/oracle/gdbbt.py is the gdb `bt` / `bt full` parser, for other tests to import.
find_program(CT_GDB gdb)
if(NOT CT_GDB)
  return()
endif()
set(CT_ORACLE_COMPARE ${CMAKE_CURRENT_SOURCE_DIR}/oracle/compare_gdb.py)
set(CT_ORACLE_CASES null-read inline-o2 signal-handler reporter-thread cxx uncaught-exception fortify static stripped plt-stub plt-stub-ibt
    nofp abort)
file(STRINGS ${PROJECT_SOURCE_DIR}/testdata/cases.tsv ct_oracle_rows REGEX "^tc-")
foreach(row IN LISTS ct_oracle_rows)
  string(REGEX REPLACE "\t.*" "" case "${row}")
  list(APPEND CT_ORACLE_CASES ${case})
endforeach()
foreach(case IN LISTS CT_ORACLE_CASES)
  add_test(NAME gdb_frames_${case}
    COMMAND ${CT_PYTHON} ${CT_ORACLE_COMPARE} --coretriage ${CT_BIN} --cores ${CT_CORES_DIR} ${case})
  set_tests_properties(gdb_frames_${case} PROPERTIES FIXTURES_REQUIRED cores SKIP_RETURN_CODE 77
    TIMEOUT 300 LABELS oracle)
endforeach()
add_test(NAME gdb_frames_threads
  COMMAND ${CT_PYTHON} ${CT_ORACLE_COMPARE} --coretriage ${CT_BIN} --cores ${CT_CORES_DIR} --all-threads threads)
set_tests_properties(gdb_frames_threads PROPERTIES FIXTURES_REQUIRED cores SKIP_RETURN_CODE 77 TIMEOUT 300
  LABELS oracle)

# PLT stub names (issue 21): every 4th address of every PLT section of every module of a few cores,
# coretriage's name (ct_pltnames, through ct_symbolize) against gdb's `info symbol`.
add_executable(ct_pltnames ${CMAKE_CURRENT_SOURCE_DIR}/oracle/pltnames.c)
target_include_directories(ct_pltnames PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(ct_pltnames PRIVATE coretriage_lib)
add_test(NAME gdb_plt_names COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/oracle/check_plt_names.py
  --pltnames $<TARGET_FILE:ct_pltnames> --cores ${CT_CORES_DIR})
set_tests_properties(gdb_plt_names PROPERTIES FIXTURES_REQUIRED cores SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS oracle)
