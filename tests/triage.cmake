# Triage (issue #3): classifier rules and fact helpers (unit), and every crash case end to end.
ct_add_unit_test(test_triage_classify ${CMAKE_CURRENT_LIST_DIR}/triage/test_classify.c)
ct_add_unit_test(test_triage_facts ${CMAKE_CURRENT_LIST_DIR}/triage/test_facts.c)
ct_add_unit_test(test_triage_rule_order ${CMAKE_CURRENT_LIST_DIR}/triage/test_rule_order.c)
ct_add_unit_test(test_triage_program ${CMAKE_CURRENT_LIST_DIR}/triage/test_program.c)
ct_add_unit_test(test_triage_crashes ${CMAKE_CURRENT_LIST_DIR}/triage/test_crashes.c)
ct_add_unit_test(test_triage_origin ${CMAKE_CURRENT_LIST_DIR}/triage/test_origin.c)
ct_add_unit_test(test_triage_origin_arm64 ${CMAKE_CURRENT_LIST_DIR}/triage/test_origin_arm64.c)

if(CT_PYTHON)
  # Each case of testdata/cases.tsv: crash.class and the blamed frame's function.
  add_test(NAME triage_cases
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/triage/check_cases.py
            ${CT_BIN} ${PROJECT_SOURCE_DIR}/testdata/cases.tsv ${CT_CORES_DIR})
  set_tests_properties(triage_cases PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 600 SKIP_RETURN_CODE 77)
  # The CASR corpus: our class against CASR's verdict through the documented mapping.
  add_test(NAME triage_casr_agreement
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/triage/casr_agreement.py
            ${CT_BIN} ${CT_SHARED_DIR}/corpus/external/casr)
  set_tests_properties(triage_casr_agreement PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()

if(CT_PYTHON)
  # Hangs (issue #12, docs/hangs.md): cycles, owners, blocking calls of the hang-* cores; no false deadlock.
  add_test(NAME triage_hangs
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/triage/check_hangs.py ${CT_BIN} ${CT_CORES_DIR})
  set_tests_properties(triage_hangs PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()

if(CT_PYTHON)
  # Root cause (issue 24, docs/root-cause.md): the rc-* cases' chains step by step against origin.c.
  add_test(NAME triage_root_cause
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/triage/check_root_cause.py
            ${CT_BIN} ${PROJECT_SOURCE_DIR}/testdata/cases.tsv ${CT_CORES_DIR} ${PROJECT_SOURCE_DIR}/testdata/src)
  set_tests_properties(triage_root_cause PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 600 SKIP_RETURN_CODE 77)
endif()

if(CT_PYTHON)
  # glibc heap state (issue 24): the hs-* cases against ASan on the same program, and their chunks.
  add_test(NAME triage_heap
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/triage/check_heap.py
            ${CT_BIN} ${PROJECT_SOURCE_DIR}/testdata/cases.tsv ${CT_CORES_DIR} ${PROJECT_SOURCE_DIR}/testdata/src)
  set_tests_properties(triage_heap PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 600 SKIP_RETURN_CODE 77)
endif()
