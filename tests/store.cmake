# The crash store (src/store/, docs/fleet.md): SQLite always, PostgreSQL in a server the test
# starts itself (skipped with a notice only when it cannot start), migrations, 8 concurrent
# writers, buckets queries over a store filled from real cores, regressions, collect.
add_executable(store_writer ${CMAKE_CURRENT_SOURCE_DIR}/store/store_writer.c)
target_include_directories(store_writer PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(store_writer PRIVATE coretriage_lib)
add_test(NAME store_history
  COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/store/run_store_tests.py ${CT_BIN} $<TARGET_FILE:store_writer>
          ${PROJECT_SOURCE_DIR})
set_tests_properties(store_history PROPERTIES LABELS store TIMEOUT 600)
