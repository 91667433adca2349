# The trail (docs/trail.md): crash time, journal, logs and package notes on real inputs.
add_test(NAME trail_end_to_end
  COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/trail/run_trail_tests.py ${CT_BIN} ${CT_CORES_DIR})
set_tests_properties(trail_end_to_end PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 300 SKIP_RETURN_CODE 77)

# A kernel dump's trail: CRASHTIME, the boot time, the guest's console placed by it.
if(CT_KERNEL_SUPPORT)
  add_test(NAME trail_vmcore_logs
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/trail/check_vmcore_logs.py ${CT_BIN} ${CT_VMCORE_DIR})
  set_tests_properties(trail_vmcore_logs PROPERTIES FIXTURES_REQUIRED vmcores SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
