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

# Hostile trail inputs (issue 22), each built from nothing by tests/trail/hostile_trail.py: journal
# entries sharing a 16 MiB field and the copy budget, compressed logs against one inflation and temp
# budget, 300,000 files under --logs, crash times out of range from all three sources, a coredump
# entry long before the file time, invisible Unicode in log lines. Each: under 2 s of CPU, a report
# valid by the schema, a diagnostic.
foreach(case journal-shared-field journal-copy-budget journal-empty-entries compressed-logs many-files crash-time-name crash-time-journal
        crash-time-vmcore window-follows-journal invisible-text)
  add_test(NAME trail_hostile_${case}
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/trail/hostile_trail.py --coretriage ${CT_BIN} --cores ${CT_CORES_DIR}
            --workdir ${CMAKE_CURRENT_BINARY_DIR}/trail-hostile --schema ${PROJECT_SOURCE_DIR}/docs/schema/report.schema.json
            --case ${case})
  set_tests_properties(trail_hostile_${case} PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()
