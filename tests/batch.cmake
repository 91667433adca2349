# Batch mode, compressed inputs, output formats and debuginfod (issue #6). The tests make their own
# cores from tests/batch/bugs.c (core_pattern must write "core" in the cwd, as in CI).
foreach(t buckets inputs debuginfod cli)
  add_test(NAME batch_${t} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/batch/${t}.sh ${CT_BIN})
  set_tests_properties(batch_${t} PROPERTIES SKIP_RETURN_CODE 77 LABELS batch TIMEOUT 600)
endforeach()
