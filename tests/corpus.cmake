# External corpus conformance (docs/corpus-conformance.md): real cores from other projects' test suites
# in ${CT_SHARED_DIR}/corpus/external, checked against the upstream expectations in
# tests/corpus/expectations.tsv.
#   corpus_frames    x86_64 cases that ship their executable: crashing thread's own-code frames
#   corpus_no_crash  every core of every architecture: no crash, no hang, < 2 s, clean fatal errors
# Both exit 77 (skipped) when the corpus is not there. The driver only uses the Python standard library
# and never writes into CT_SHARED_DIR (read-only in CI): it decompresses into a temporary directory.
if(NOT CT_PYTHON)
  find_program(CT_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
endif()
if(NOT CT_PYTHON)
  message(STATUS "corpus tests: no python3; corpus_frames and corpus_no_crash are not registered")
  return()
endif()

foreach(mode frames no_crash)
  string(REPLACE "_" "-" arg ${mode})
  add_test(NAME corpus_${mode}
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/corpus/run_corpus.py --mode ${arg}
            --coretriage ${CT_BIN} --shared ${CT_SHARED_DIR}
            --expectations ${CMAKE_CURRENT_SOURCE_DIR}/corpus/expectations.tsv)
  set_tests_properties(corpus_${mode} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS corpus)
endforeach()

# Float/vector registers of real cores (corpus and the test cores) against eu-readelf -n.
add_executable(print_vregs ${CMAKE_CURRENT_SOURCE_DIR}/unit/print_vregs.c)
target_include_directories(print_vregs PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(print_vregs PRIVATE coretriage_lib)
add_test(NAME vregs_against_readelf
  COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/corpus/check_vregs.py $<TARGET_FILE:print_vregs>
          ${CT_SHARED_DIR} ${CT_CORES_DIR})
set_tests_properties(vregs_against_readelf PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS corpus
                     FIXTURES_REQUIRED cores)
