# Values of arguments and locals, and tail-call frames, against gdb 13 on the same cores
# (tests/oracle/gdbvalues.py; the differences it accepts are listed in docs/unwinding.md).
set(CT_GDB_VALUE_CASES
  values-tail values-free values-lookup values-float null-read null-write null-call signal-handler inline-o2 nofp
  nopie static cxx threads assertion fortify double-free abort stack-protector div-zero uncaught-exception
  tc-gcc-O0 tc-gcc-O2 tc-gcc-Os tc-gcc-noaranges tc-clang-O2 tc-gcc-lto tc-gxx-templates tc-rust-null
  tc-rust-unwrap tc-rust-v0 tc-go-nil rust-unwrap rust-expect tc-clangxx-templates join-tail)
add_test(NAME gdb_values_oracle
  COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/oracle/gdbvalues.py ${CT_BIN} ${CT_CORES_DIR} ${CT_GDB_VALUE_CASES})
set_tests_properties(gdb_values_oracle PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 600 SKIP_RETURN_CODE 77)
