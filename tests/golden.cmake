# Golden end-to-end reports: one test per tests/golden/<case>/ directory (see run_golden.py).
file(GLOB CT_GOLDEN_CASES RELATIVE ${CMAKE_CURRENT_SOURCE_DIR}/golden ${CMAKE_CURRENT_SOURCE_DIR}/golden/*/args)
foreach(args_file ${CT_GOLDEN_CASES})
  get_filename_component(case ${args_file} DIRECTORY)
  add_test(NAME golden_${case}
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/golden/run_golden.py ${CT_BIN} ${CT_CORES_DIR}
            ${CMAKE_CURRENT_SOURCE_DIR}/golden ${case})
  set_tests_properties(golden_${case} PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 120)
endforeach()

# Every report the suite makes must validate against the published schema, and be the same bytes
# on a second run. The build tree keeps each case's report: a later run whose report equals the kept
# one for the same core counts that as the second run (validate_schema.py; a fresh tree runs all twice).
add_test(NAME json_schema
  COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/golden/validate_schema.py ${CT_BIN} ${CT_CORES_DIR}
          ${PROJECT_SOURCE_DIR}/docs/schema/report.schema.json ${PROJECT_SOURCE_DIR}/testdata/cases.tsv
          ${CMAKE_BINARY_DIR}/json-schema-seen)
set_tests_properties(json_schema PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 900)
