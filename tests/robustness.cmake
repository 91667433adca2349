# Robustness: hostile input never crashes, hangs or escapes (issue #4, docs/security.md).
#
#   robustness_malformed    >= 50 malformed dumps generated at test time from a real core (one made
#                           here by crashing a tiny program) plus non-core inputs (empty, directory,
#                           FIFO, no permission, executables, swapped arguments, compressed, other
#                           architectures); each must end in exit 2 with one "coretriage: " line, or
#                           a (partial) report with exit 0/1, within its timeout, with no sanitizer report.
#   robustness_corpus       every core of ${CT_SHARED_DIR}/corpus/external (skip 77 when absent).
#   robustness_replay_<t>   replays tests/robustness/regressions/<t>/ through fuzz target <t>
#                           (built with a plain main() when CT_FUZZ is OFF).
#   fuzz_<t>                with CT_FUZZ=ON (clang): each libFuzzer target for ${CT_FUZZ_SECONDS} s.
if(NOT CT_PYTHON)
  # The lead's rule: Debian's python3, never a PATH (pyenv) one.
  find_program(CT_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
endif()
if(NOT CT_PYTHON)
  message(STATUS "robustness tests need python3; not registered")
  return()
endif()
set(CT_ROBUST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/robustness)
set(CT_ROBUST_WORK ${CMAKE_BINARY_DIR}/robustness)
# Sanitizer settings for every child the runners start: leaks are errors, and sanitizer exits use
# statuses (86, 87) that cannot be mistaken for coretriage's 0/1/2.
set(CT_ROBUST_ENV
  "ASAN_OPTIONS=detect_leaks=1:exitcode=86:abort_on_error=0:allocator_may_return_null=1"
  "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87"
  "LSAN_OPTIONS=exitcode=86")

add_test(NAME robustness_malformed
  COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/malformed.py
          --coretriage ${CT_BIN} --workdir ${CT_ROBUST_WORK}/malformed
          --regressions ${CT_ROBUST_DIR}/regressions --shared ${CT_SHARED_DIR})
set_tests_properties(robustness_malformed PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77
  ENVIRONMENT "${CT_ROBUST_ENV}")

add_test(NAME robustness_corpus
  COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/run_corpus.py
          ${CT_BIN} ${CT_SHARED_DIR} ${CT_ROBUST_WORK}/corpus)
set_tests_properties(robustness_corpus PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77
  ENVIRONMENT "${CT_ROBUST_ENV}")

# Issue 11: hostile inputs generated at test time, one script per defect family.
#   robustness_escapes   a real core (and a vmcore, a batch) with escape sequences in every field the
#                        reports print: no control byte reaches a terminal, SVG/SARIF/JSON stay valid.
add_test(NAME robustness_escapes
  COMMAND ${CT_PYTHON} ${CT_ROBUST_DIR}/escapes.py --coretriage ${CT_BIN} --workdir ${CT_ROBUST_WORK}/escapes)
set_tests_properties(robustness_escapes PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 ENVIRONMENT "${CT_ROBUST_ENV}")

#   robustness_budget_<case>   tests/robustness/work_budget.py: totals attacked (frames over all
#                        threads, 100k threads, NT_FILE tables, batch output, compressed cores).
foreach(case deep-chains threads-100k ntfile-70k compressed temp-space batch-stream vdso-bomb libunwind-loop debug-corrupt no-elf-header notes-cap)
  add_test(NAME robustness_budget_${case}
    COMMAND ${CT_PYTHON} ${CT_ROBUST_DIR}/work_budget.py --coretriage ${CT_BIN} --workdir ${CT_ROBUST_WORK}/budget
            --case ${case})
  set_tests_properties(robustness_budget_${case} PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77
    RESOURCE_LOCK robustness_budget_seed ENVIRONMENT "${CT_ROBUST_ENV}")
endforeach()

#   robustness_sysroot   NT_FILE paths climbing out of --sysroot (.., a symlink to /) open nothing outside.
add_test(NAME robustness_sysroot
  COMMAND ${CT_PYTHON} ${CT_ROBUST_DIR}/sysroot.py --coretriage ${CT_BIN} --workdir ${CT_ROBUST_WORK}/budget)
set_tests_properties(robustness_sysroot PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
  RESOURCE_LOCK robustness_budget_seed ENVIRONMENT "${CT_ROBUST_ENV}")

#   robustness_values_<case>   tests/robustness/values_budget.py (issue 22, defects 3-5): hand-written
#                        DWARF assembled, linked and crashed at test time (arrays whose counts wrap,
#                        chained entry values, 100,000-member structs on 2,000 frames): under 2 s of
#                        CPU with a complete report and the elements or expr budget's warning.
foreach(case array-wrap array-runs cxx-bases entry-chain entry-deep expr-steps members-100k enum-100k)
  add_test(NAME robustness_values_${case}
    COMMAND ${CT_PYTHON} ${CT_ROBUST_DIR}/values_budget.py --coretriage ${CT_BIN} --workdir ${CT_ROBUST_WORK}/values
            --case ${case})
  set_tests_properties(robustness_values_${case} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 ENVIRONMENT "${CT_ROBUST_ENV}")
endforeach()

include(${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz.cmake)
