# Unit tests: pure functions over hand-built inputs.
ct_add_unit_test(test_notes ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_notes.c)
ct_add_unit_test(test_util ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_util.c)
ct_add_unit_test(test_cache_trim ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_cache_trim.c)
ct_add_unit_test(test_json ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_json.c)
ct_add_unit_test(test_dwarf_expr ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_dwarf_expr.c)
ct_add_unit_test(test_demangle ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_demangle.c)
ct_add_unit_test(test_elfview ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_elfview.c)
ct_add_unit_test(test_present ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_present.c)
ct_add_unit_test(test_signals ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_signals.c)
# The capstone-detail decoder (arm push/vpush, stores with an operand).
ct_add_unit_test(test_insn_generic ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_insn_generic.c)
ct_add_unit_test(test_insn_riscv ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_insn_riscv.c)
# The shared unwinding steps and loop (src/unwind/step.h) over hand-built memory.
ct_add_unit_test(test_unwind_steps ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_unwind_steps.c)
# The probe chain of dump formats (src/dump/format.c).
ct_add_unit_test(test_format ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_format.c)
# The dpkg lookup of the module-no-symbols hint.
ct_add_unit_test(test_symbol_hints ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_symbol_hints.c)

# The man page documents every option of --help.
add_test(NAME manpage_matches_help
  COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_manpage.py ${CT_BIN} ${PROJECT_SOURCE_DIR}/man/coretriage.1
          ${PROJECT_SOURCE_DIR}/src/cli/options.c)

# Start-up maps none of the libraries only some inputs need (issue 28).
add_test(NAME startup_no_optional_libraries
  COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_startup_libs.py ${CT_BIN})

# Command-line behaviour end to end, on real cores.
add_test(NAME cli_end_to_end
  COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/run_cli_tests.py ${CT_BIN} ${CT_CORES_DIR})
set_tests_properties(cli_end_to_end PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 300)

# README's quick-start example: the bundled program crashes for real and is diagnosed.
add_test(NAME quickstart_demo
  COMMAND sh -c "CT_DEMO_BIN=\"$0\" CT_DEMO_WORK=\"$1\" \"$2\" > \"$1.out\" 2>&1; rc=$?; cat \"$1.out\"; [ $rc -eq 0 ] && grep -q 'Crash: null-deref' \"$1.out\" && grep -q 'blame: #0 count_of' \"$1.out\""
          ${CT_BIN} ${CMAKE_BINARY_DIR}/demo-test ${PROJECT_SOURCE_DIR}/scripts/demo)
set_tests_properties(quickstart_demo PROPERTIES TIMEOUT 120)
# README's Quick start: its commands are the scripts', every line of its excerpt is in a real run.
add_test(NAME quickstart_readme
  COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_quickstart.py ${CT_BIN} ${CMAKE_BINARY_DIR}/quickstart-test
          ${PROJECT_SOURCE_DIR})
set_tests_properties(quickstart_readme PROPERTIES TIMEOUT 300)
# Hangs (issue #12): the wait-for graph, syscall and glibc layout tables, the deadlock rule.
ct_add_unit_test(test_waitgraph ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_waitgraph.c)
# coretriage sample's futex root frames over hand-built windows (src/process/sample_futex.c).
ct_add_unit_test(test_sample_futex ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_sample_futex.c)
ct_add_unit_test(test_trail ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_trail.c)
# The verdict and diagnostic-code tables: complete (test_tables), and the docs, the JSON schema and
# every call site of ct_report_diag agree with them (check_tables.py over print_tables' listing).
ct_add_unit_test(test_tables ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_tables.c)
add_executable(print_tables ${CMAKE_CURRENT_SOURCE_DIR}/unit/print_tables.c)
target_include_directories(print_tables PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(print_tables PRIVATE coretriage_lib)
add_test(NAME tables_match_docs
  COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_tables.py $<TARGET_FILE:print_tables> ${PROJECT_SOURCE_DIR})
# Every markdown document named in src/, docs/, man/, scripts/, tests/ and README exists in the tree.
add_test(NAME doc_references_exist
  COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_doc_refs.py ${PROJECT_SOURCE_DIR})

# The command line as people type it (issue 27): the table of spellings and wrong usages, the argv
# coredumpctl builds, 80-column terminals (a pty, tmux).
# --version: the linked libraries' versions, each what the library reports (tests/cli/check_version.py).
add_test(NAME cli_version COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_version.py ${CT_BIN}
  ${PROJECT_VERSION})
add_test(NAME cli_table
  COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_table.py ${CT_BIN} ${CT_CORES_DIR})
set_tests_properties(cli_table PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 300)
