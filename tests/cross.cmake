# Cross-architecture cores (docs/architectures.md): testdata/src/crashme.c built with the Debian cross
# compilers of tests/cross/arches.tsv, crashed under qemu-user (or natively for i386), checked by
# tests/cross/check_cross.py against the program's source (tests/cross/cases.tsv).
#
#   make_cross_cores   fixture cross_cores: scripts/make-cross-cores into ${CT_CROSS_CORES_DIR}; cores
#                      are kept while newer than their inputs (made once per build tree; set
#                      CT_CROSS_CACHE in the environment to share them between build trees)
#   cross_<arch>       one per architecture; skipped (77) when its compiler or qemu-user is missing
#   cross_gdb_oracle   the crashing thread's frames and own-code arguments of every cross core against
#                      gdb-multiarch's bt, one gdb run per core (tests/cross/gdb_oracle.py; the known
#                      differences in tests/cross/gdb_known.tsv); skipped (77) without gdb-multiarch
#   make_cross_rc_cores  fixture cross_rc_cores: scripts/make-cross-rc-cores into ${CT_CROSS_RC_CORES_DIR}
#                      (the rc-* root-cause programs built for aarch64 by gcc and clang, crashed under
#                      qemu-aarch64; CT_CROSS_RC_CACHE in the environment shares them between build trees)
#   cross_root_cause_aarch64  their chains against the same expectations as on x86-64
#                      (tests/triage/check_root_cause.py --arch aarch64); skipped (77) without the tools
#   corpus_arch_frames the non-x86-64 cores of the external corpus against their upstream
#                      expectations (tests/corpus/arch_expectations.tsv)
#   prstatus_arches    pr_pid, pr_cursig, pr_utime/pr_stime of the corpus and cross cores against
#                      eu-readelf -n (tests/corpus/check_prstatus.py)
if(DEFINED ENV{CT_CROSS_CACHE})
  set(CT_CROSS_CORES_DIR $ENV{CT_CROSS_CACHE})
else()
  set(CT_CROSS_CORES_DIR ${CMAKE_BINARY_DIR}/cross-cores)
endif()
set(CT_CROSS_ARCHES ${CMAKE_CURRENT_SOURCE_DIR}/cross/arches.tsv)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CT_CROSS_ARCHES})

add_test(NAME make_cross_cores COMMAND ${PROJECT_SOURCE_DIR}/scripts/make-cross-cores ${CT_CROSS_CORES_DIR})
set_tests_properties(make_cross_cores PROPERTIES FIXTURES_SETUP cross_cores TIMEOUT 600 LABELS cross)

file(STRINGS ${CT_CROSS_ARCHES} ct_cross_rows)
foreach(row IN LISTS ct_cross_rows)
  if(row MATCHES "^#" OR row STREQUAL "")
    continue()
  endif()
  string(REGEX REPLACE "\t.*" "" arch "${row}")
  add_test(NAME cross_${arch}
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cross/check_cross.py ${CT_BIN} ${CT_CROSS_CORES_DIR} ${arch})
  set_tests_properties(cross_${arch} PROPERTIES FIXTURES_REQUIRED cross_cores SKIP_RETURN_CODE 77 TIMEOUT 300
                       LABELS cross)
endforeach()

if(DEFINED ENV{CT_CROSS_RC_CACHE})
  set(CT_CROSS_RC_CORES_DIR $ENV{CT_CROSS_RC_CACHE})
else()
  set(CT_CROSS_RC_CORES_DIR ${CMAKE_BINARY_DIR}/cross-rc-cores)
endif()
add_test(NAME make_cross_rc_cores COMMAND ${PROJECT_SOURCE_DIR}/scripts/make-cross-rc-cores ${CT_CROSS_RC_CORES_DIR})
set_tests_properties(make_cross_rc_cores PROPERTIES FIXTURES_SETUP cross_rc_cores TIMEOUT 600 LABELS cross)
if(CT_PYTHON)
  add_test(NAME cross_root_cause_aarch64
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/triage/check_root_cause.py --arch aarch64
            --sysroot /usr/aarch64-linux-gnu ${CT_BIN} ${PROJECT_SOURCE_DIR}/testdata/cases.tsv
            ${CT_CROSS_RC_CORES_DIR} ${PROJECT_SOURCE_DIR}/testdata/src)
  set_tests_properties(cross_root_cause_aarch64 PROPERTIES FIXTURES_REQUIRED cross_rc_cores SKIP_RETURN_CODE 77
                       TIMEOUT 600 LABELS cross)
endif()

if(CT_PYTHON)
  add_test(NAME cross_gdb_oracle
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cross/gdb_oracle.py ${CT_BIN} ${CT_CROSS_CORES_DIR})
  set_tests_properties(cross_gdb_oracle PROPERTIES FIXTURES_REQUIRED cross_cores SKIP_RETURN_CODE 77 TIMEOUT 600
                       LABELS cross)
endif()

if(CT_PYTHON)
  add_test(NAME corpus_arch_frames
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/corpus/run_corpus.py --mode frames
            --coretriage ${CT_BIN} --shared ${CT_SHARED_DIR}
            --expectations ${CMAKE_CURRENT_SOURCE_DIR}/corpus/arch_expectations.tsv)
  set_tests_properties(corpus_arch_frames PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS corpus)
endif()

if(CT_PYTHON)
  add_test(NAME prstatus_arches
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/corpus/check_prstatus.py ${CT_BIN} ${CT_SHARED_DIR}
            ${CT_CROSS_CORES_DIR})
  set_tests_properties(prstatus_arches PROPERTIES FIXTURES_REQUIRED cross_cores SKIP_RETURN_CODE 77 TIMEOUT 300
                       LABELS cross)
endif()
