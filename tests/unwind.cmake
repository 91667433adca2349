# Unwinder cross-check (issue #2): coretriage runs with --unwinder=dwfl and --unwinder=libunwind on
# every core and the crashing thread's own frames (module = the executable) must name the same
# functions in the same order (tests/unwind/compare-unwinders.py; docs/unwinding.md).
#
#   unwind_agree_<case>   one per case of testdata/cases.tsv (cores fixture; scale-* cases are
#                         benchmarks, made only by `make-cores --scale`, and are not listed)
#   unwind_agree_selfmade a core of tests/unwind/tiny.c made on the spot (no fixture needed)
#
# Without libunwind (CT_HAVE_LIBUNWIND=0) the libunwind unwinder reports itself unavailable and the
# tests exit 77 (skipped).

set(CT_UNWIND_COMPARE ${CMAKE_CURRENT_SOURCE_DIR}/unwind/compare-unwinders.py)

add_test(NAME unwind_agree_selfmade
  COMMAND ${CT_PYTHON} ${CT_UNWIND_COMPARE} --coretriage ${CT_BIN} --cc ${CMAKE_C_COMPILER}
          --selfmade ${CMAKE_CURRENT_SOURCE_DIR}/unwind/tiny.c)
set_tests_properties(unwind_agree_selfmade PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS unwind)

set(CT_UNWIND_MANIFEST ${PROJECT_SOURCE_DIR}/testdata/cases.tsv)
if(EXISTS ${CT_UNWIND_MANIFEST})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CT_UNWIND_MANIFEST})
  file(STRINGS ${CT_UNWIND_MANIFEST} ct_unwind_rows)
  foreach(row IN LISTS ct_unwind_rows)
    if(row MATCHES "^#" OR row STREQUAL "")
      continue()
    endif()
    string(REGEX REPLACE "\t.*" "" case "${row}")
    # hang-i386-*: i386 cores; libunwind unwinds only the host's architecture.
    if(case MATCHES "^scale-" OR case MATCHES "^hang-i386-" OR NOT case MATCHES "^[A-Za-z0-9_.-]+$")
      continue()
    endif()
    add_test(NAME unwind_agree_${case}
      COMMAND ${CT_PYTHON} ${CT_UNWIND_COMPARE} --coretriage ${CT_BIN} --cores ${CT_CORES_DIR} --all-threads ${case})
    set_tests_properties(unwind_agree_${case} PROPERTIES FIXTURES_REQUIRED cores SKIP_RETURN_CODE 77
      TIMEOUT 300 LABELS unwind)
  endforeach()
endif()

# The cached CFI step against libdwfl's own walk of a real core (docs/unwinding.md).
ct_add_unit_test(test_cfi_cache ${CMAKE_CURRENT_SOURCE_DIR}/unwind/test_cfi_cache.c)
set_tests_properties(test_cfi_cache PROPERTIES FIXTURES_REQUIRED cores LABELS unwind
  ENVIRONMENT "CT_TEST_CORE=${CT_CORES_DIR}/deep-recursion/core;CT_TEST_EXE=${CT_CORES_DIR}/deep-recursion/exe")
