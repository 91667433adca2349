# The trail (docs/trail.md): crash time, journal, logs and package notes on real inputs.
add_test(NAME trail_end_to_end
  COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/trail/run_trail_tests.py ${CT_BIN} ${CT_CORES_DIR})
set_tests_properties(trail_end_to_end PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 300 SKIP_RETURN_CODE 77)
