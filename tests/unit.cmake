# Unit tests: pure functions over hand-built inputs.
ct_add_unit_test(test_notes ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_notes.c)
ct_add_unit_test(test_util ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_util.c)
