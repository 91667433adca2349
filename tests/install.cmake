# install_consumer   tests/install/check_install.py: `cmake --install` into a DESTDIR holds the binary,
#                    man page, completion, schema, libcoretriage (static and shared), its headers,
#                    coretriage.pc and the CMake package; tests/install/consumer/consumer.c builds
#                    against the .pc and find_package(coretriage) and analyzes a real core (abort) as
#                    the installed binary does. Needs the shared library and the cores.
add_test(NAME install_consumer
  COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/install/check_install.py --build ${CMAKE_BINARY_DIR}
          --workdir ${CMAKE_CURRENT_BINARY_DIR}/install-test --core ${CT_CORES_DIR}/abort/core
          --exe ${CT_CORES_DIR}/abort/exe --expect-class abort)
set_tests_properties(install_consumer PROPERTIES FIXTURES_REQUIRED cores TIMEOUT 600)
