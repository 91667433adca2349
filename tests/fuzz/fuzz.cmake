# Fuzz targets (tests/fuzz/fuzz_<t>.c, each one LLVMFuzzerTestOneInput).
#
# CT_FUZZ=ON (needs clang): the library is built with -fsanitize=fuzzer-no-link,address,undefined,
# each target links libFuzzer, and ctest runs each for CT_FUZZ_SECONDS from seeds made of real
# cores (scripts/fuzz runs them long). CT_FUZZ=OFF: each target is linked with replay_main.c and
# replays its regression inputs (tests/robustness/regressions/<t>/) under whatever sanitizers the
# build has.
set(CT_FUZZ_SECONDS 20 CACHE STRING "Seconds each fuzz target runs under ctest (CT_FUZZ=ON)")
set(CT_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})

set(CT_FUZZ_TARGETS core_open notes modules analyze insn writers unwind logs dwarf_expr values)
if(CT_KERNEL_SUPPORT)
  list(APPEND CT_FUZZ_TARGETS vmcore btf kindex)
endif()

if(CT_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "CT_FUZZ=ON needs clang (configure with CC=clang CXX=clang++)")
  endif()
  target_compile_options(coretriage_lib PRIVATE -fsanitize=fuzzer-no-link)
  if(NOT CT_SANITIZE)
    target_compile_options(coretriage_lib PUBLIC -fsanitize=address,undefined -fno-omit-frame-pointer
                           -fno-sanitize-recover=undefined)
    target_link_options(coretriage_lib PUBLIC -fsanitize=address,undefined)
  endif()
endif()

foreach(t ${CT_FUZZ_TARGETS})
  if(CT_FUZZ)
    set(exe fuzz_${t})
    add_executable(${exe} ${CT_FUZZ_DIR}/fuzz_${t}.c)
    target_link_options(${exe} PRIVATE -fsanitize=fuzzer)
    target_compile_options(${exe} PRIVATE -fsanitize=fuzzer)
  else()
    set(exe ct_replay_${t})
    add_executable(${exe} ${CT_FUZZ_DIR}/fuzz_${t}.c ${CT_FUZZ_DIR}/replay_main.c)
  endif()
  target_include_directories(${exe} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${exe} PRIVATE coretriage_lib)
  set(regdir ${CMAKE_CURRENT_SOURCE_DIR}/robustness/regressions/${t})
  if(CT_FUZZ)
    # libFuzzer replays given files without fuzzing when they are not directories.
    file(GLOB regs ${regdir}/*)
    if(regs)
      add_test(NAME robustness_replay_${t} COMMAND ${exe} -runs=0 ${regdir})
    endif()
    add_test(NAME fuzz_${t}
      COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/fuzz_run.py
              --target ${t} --fuzzer $<TARGET_FILE:${exe}> --seconds ${CT_FUZZ_SECONDS}
              --workdir ${CMAKE_BINARY_DIR}/fuzz --regressions ${regdir} --cores ${CT_CORES_DIR}
              --shared ${CT_SHARED_DIR})
    set_tests_properties(fuzz_${t} PROPERTIES TIMEOUT 600 FIXTURES_REQUIRED cores RUN_SERIAL TRUE LABELS fuzz)
  else()
    add_test(NAME robustness_replay_${t} COMMAND ${exe} ${regdir})
  endif()
  # The unwinder target rewrites the stack of a real core (fuzz_unwind.c).
  set(env ${CT_ROBUST_ENV})
  if(t STREQUAL "unwind")
    list(APPEND env "CT_FUZZ_UNWIND_CORE=${CT_CORES_DIR}/null-read/core" "CT_FUZZ_UNWIND_EXE=${CT_CORES_DIR}/null-read/exe")
  endif()
  # The values target rewrites the debug sections of a real -O2 -g executable (fuzz_values.c).
  if(t STREQUAL "values")
    list(APPEND env "CT_FUZZ_VALUES_CORE=${CT_CORES_DIR}/values-tail/core" "CT_FUZZ_VALUES_EXE=${CT_CORES_DIR}/values-tail/exe")
  endif()
  if(TEST robustness_replay_${t})
    set_tests_properties(robustness_replay_${t} PROPERTIES TIMEOUT 300 ENVIRONMENT "${env}")
    if(t STREQUAL "unwind" OR t STREQUAL "values")
      set_tests_properties(robustness_replay_${t} PROPERTIES FIXTURES_REQUIRED cores)
    endif()
  endif()
  if(TEST fuzz_${t} AND (t STREQUAL "unwind" OR t STREQUAL "values"))
    set_tests_properties(fuzz_${t} PROPERTIES ENVIRONMENT "${env}")
  endif()
endforeach()
