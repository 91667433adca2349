# The runtime stage (issue 26, docs/runtimes.md): CPython's stacks from the core.
# The 3.11 location table decoder: hostile tables (unit), and CPython's own co_lines() for thousands
# of real code objects.
ct_add_unit_test(test_py_linetable ${CMAKE_CURRENT_LIST_DIR}/runtime/test_py_linetable.c)
if(CT_PYTHON)
  add_test(NAME runtime_linetable_cpython
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/runtime/check_linetable.py $<TARGET_FILE:test_py_linetable>)
  set_tests_properties(runtime_linetable_cpython PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
  # Every py-* core: each thread's Python frames against faulthandler's traceback at the crash and
  # gdb's py-bt (python3.11d cores), the GIL holder, --runtime=off.
  add_test(NAME runtime_python_stacks
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/runtime/check_python.py
            ${CT_BIN} ${PROJECT_SOURCE_DIR}/testdata/cases.tsv ${CT_CORES_DIR})
  set_tests_properties(runtime_python_stacks PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 600 SKIP_RETURN_CODE 77)
endif()
# The built-in 3.11 layout against the installed interpreters' DWARF (python3.11-dbg).
ct_add_unit_test(test_py_layout ${CMAKE_CURRENT_LIST_DIR}/runtime/test_py_layout.c)
if(CT_PYTHON)
  # Hostile CPython state: loops, huge lengths, pointers nowhere, an unknown version (docs/runtimes.md).
  add_test(NAME runtime_python_hostile
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/runtime/hostile_python.py
            ${CT_BIN} ${CT_CORES_DIR} ${CMAKE_BINARY_DIR}/runtime-hostile)
  set_tests_properties(runtime_python_hostile PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()
if(CT_PYTHON)
  # Every go-* core: each goroutine's id, state, frames and creating frame against the traceback
  # the Go runtime printed at the crash (GOTRACEBACK=crash); the stripped binary from the table.
  add_test(NAME runtime_go_stacks
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/runtime/check_go.py
            ${CT_BIN} ${PROJECT_SOURCE_DIR}/testdata/cases.tsv ${CT_CORES_DIR})
  set_tests_properties(runtime_go_stacks PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 600 SKIP_RETURN_CODE 77)
endif()
if(CT_PYTHON)
  # Go built for arm64 (GOARCH=arm64) and crashed under qemu-aarch64 (scripts/make-cross-go-cores;
  # CT_CROSS_GO_CACHE in the environment shares the cores between build trees): the same checks as
  # runtime_go_stacks against the runtime's own traceback, delve and a stripped copy of each
  # executable. Skipped (77) without go or qemu-aarch64.
  if(DEFINED ENV{CT_CROSS_GO_CACHE})
    set(CT_CROSS_GO_CORES_DIR $ENV{CT_CROSS_GO_CACHE})
  else()
    set(CT_CROSS_GO_CORES_DIR ${CMAKE_BINARY_DIR}/cross-go-cores/arm64)
  endif()
  add_test(NAME make_cross_go_cores COMMAND ${PROJECT_SOURCE_DIR}/scripts/make-cross-go-cores ${CT_CROSS_GO_CORES_DIR} arm64)
  set_tests_properties(make_cross_go_cores PROPERTIES FIXTURES_SETUP cross_go_cores TIMEOUT 600 SKIP_RETURN_CODE 77
                       LABELS cross)
  add_test(NAME runtime_go_stacks_arm64
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/runtime/check_go.py
            ${CT_BIN} ${CT_CROSS_GO_CORES_DIR}/cases.tsv ${CT_CROSS_GO_CORES_DIR})
  set_tests_properties(runtime_go_stacks_arm64 PROPERTIES FIXTURES_REQUIRED cross_go_cores TIMEOUT 600
                       SKIP_RETURN_CODE 77 LABELS cross)
endif()
if(CT_PYTHON)
  # Hostile Go state: allgs' length, goroutines and stacks pointing nowhere, a bad pclntab (docs/runtimes.md).
  add_test(NAME runtime_go_hostile
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/runtime/hostile_go.py
            ${CT_BIN} ${CT_CORES_DIR} ${CMAKE_BINARY_DIR}/runtime-hostile-go)
  set_tests_properties(runtime_go_hostile PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()
