# Kernel vmcore tests (issue 5). Real vmcores, made at test time by scripts/make-vmcores from Debian
# packages (QEMU/TCG guests that panic; one genuine kdump capture), cached in ${CT_VMCORE_DIR} by recipe
# hash. A failed generation fails every vmcore test; CT_NO_VMCORE=1 skips them (exit 77) instead.
# scripts/test shares one cache between its build passes through CT_VMCORE_CACHE.
# A cache variable: a later automatic reconfigure without $CT_VMCORE_CACHE in the environment keeps the
# directory chosen at the first configure instead of silently switching to (and rebuilding in) the
# build tree's own.
if(DEFINED ENV{CT_VMCORE_CACHE})
  set(CT_VMCORE_DIR $ENV{CT_VMCORE_CACHE} CACHE PATH "where the test vmcores are made and cached" FORCE)
else()
  set(CT_VMCORE_DIR ${CMAKE_BINARY_DIR}/vmcores CACHE PATH "where the test vmcores are made and cached")
endif()
set(CT_KTEST ${CMAKE_CURRENT_SOURCE_DIR}/kernel)

# The die()/panic line readers and the kernel rule table (unit).
if(CT_KERNEL_SUPPORT)
  ct_add_unit_test(test_kernel_die_line ${CT_KTEST}/test_die_line.c)
endif()

add_test(NAME kernel_make_vmcores
  COMMAND sh -c "[ \"$CT_NO_VMCORE\" = 1 ] || exec \"$0\" \"$1\"" ${PROJECT_SOURCE_DIR}/scripts/make-vmcores ${CT_VMCORE_DIR})
# 14 guests one at a time: about 6 minutes on 2 idle cores the first time, seconds when cached.
set_tests_properties(kernel_make_vmcores PROPERTIES FIXTURES_SETUP vmcores TIMEOUT 900 RUN_SERIAL TRUE)

foreach(case sysrq oom init oops oops-kdump)
  add_test(NAME kernel_vmcore_${case} COMMAND ${CT_PYTHON} ${CT_KTEST}/check_vmcore.py ${CT_BIN} ${CT_VMCORE_DIR} ${case})
  set_tests_properties(kernel_vmcore_${case} PROPERTIES FIXTURES_REQUIRED vmcores SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# arm64 guests (issue 13): Debian's arm64 kernel under qemu-system-aarch64, their own cache beside the
# x86 one (about 80 s the first time: two guests of ~22 s each, the module cross-built; seconds when cached).
set(CT_VMCORE_DIR_AARCH64 ${CT_VMCORE_DIR}-aarch64)
add_test(NAME kernel_make_vmcores_aarch64
  COMMAND sh -c "[ \"$CT_NO_VMCORE\" = 1 ] || exec \"$0\" \"$1\"" ${PROJECT_SOURCE_DIR}/scripts/make-vmcores-aarch64 ${CT_VMCORE_DIR_AARCH64})
set_tests_properties(kernel_make_vmcores_aarch64 PROPERTIES FIXTURES_SETUP vmcores_aarch64 TIMEOUT 900 RUN_SERIAL TRUE)
foreach(case sysrq oops)
  add_test(NAME kernel_aarch64_${case} COMMAND ${CT_PYTHON} ${CT_KTEST}/check_aarch64.py ${CT_BIN} ${CT_VMCORE_DIR_AARCH64} ${case})
  set_tests_properties(kernel_aarch64_${case} PROPERTIES FIXTURES_REQUIRED vmcores_aarch64 SKIP_RETURN_CODE 77 TIMEOUT 120
    ENVIRONMENT "LSAN_OPTIONS=suppressions=${CT_KTEST}/lsan-aarch64.supp")
endforeach()

# Every way a kernel dies (ct_panic.ko, issue 14): class, culprit, task and CPU, evidence, signature.
foreach(kind softlockup rcu hung bug gpf warn overflow divide canary)
  add_test(NAME kernel_kind_${kind} COMMAND ${CT_PYTHON} ${CT_KTEST}/check_kinds.py ${CT_BIN} ${CT_VMCORE_DIR} ${kind})
  set_tests_properties(kernel_kind_${kind} PROPERTIES FIXTURES_REQUIRED vmcores SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()
# --tasks against the guest's own listing (ct-ps lines): the 300-task hung guest, an Oops guest, and the
# hung-task guest's genuine kdump capture filtered by makedumpfile -d 31.
foreach(kind hung bug kdump-hung)
  add_test(NAME kernel_tasks_${kind} COMMAND ${CT_PYTHON} ${CT_KTEST}/check_tasks.py ${CT_BIN} ${CT_VMCORE_DIR} ${kind}
           ${PROJECT_SOURCE_DIR}/docs/schema/report.schema.json)
  set_tests_properties(kernel_tasks_${kind} PROPERTIES FIXTURES_REQUIRED vmcores SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()

# Hostile and filtered task lists and BTF, in synthetic dumps the test writes (no guest needed): each run
# under 2 s with a report and the diagnostic that names what the reader met (issues 21 and 22).
if(CT_KERNEL_SUPPORT AND BPF_FOUND)
  add_test(NAME kernel_hostile_tasks COMMAND ${CT_PYTHON} ${CT_KTEST}/check_hostile_tasks.py ${CT_BIN}
           ${CMAKE_CURRENT_BINARY_DIR}/hostile_tasks ${PROJECT_SOURCE_DIR}/docs/schema/report.schema.json)
  set_tests_properties(kernel_hostile_tasks PROPERTIES TIMEOUT 300)
endif()

# A dump whose BTF does not parse: today's report plus a diagnostic.
add_test(NAME kernel_nobtf COMMAND ${CT_PYTHON} ${CT_KTEST}/check_nobtf.py ${CT_BIN} ${CT_VMCORE_DIR})
set_tests_properties(kernel_nobtf PROPERTIES FIXTURES_REQUIRED vmcores SKIP_RETURN_CODE 77 TIMEOUT 120)

# A kernel's kept index (kallsyms decoded, the raw BTF): same reports with and without it, used only
# while it matches the dump (src/kernel/kindex.h).
add_test(NAME kernel_kindex COMMAND ${CT_PYTHON} ${CT_KTEST}/check_kindex.py ${CT_BIN} ${CT_VMCORE_DIR})
set_tests_properties(kernel_kindex PROPERTIES FIXTURES_REQUIRED vmcores SKIP_RETURN_CODE 77 TIMEOUT 300)

add_test(NAME kernel_vmlinux_mismatch COMMAND ${CT_PYTHON} ${CT_KTEST}/check_vmlinux.py ${CT_BIN} ${CT_VMCORE_DIR})
set_tests_properties(kernel_vmlinux_mismatch PROPERTIES FIXTURES_REQUIRED vmcores SKIP_RETURN_CODE 77 TIMEOUT 120)

# Heads of real dumps from the external corpus: clear error or partial report, never a crash.
add_test(NAME kernel_corpus_heads COMMAND ${CT_PYTHON} ${CT_KTEST}/check_heads.py ${CT_BIN} ${CT_SHARED_DIR})
set_tests_properties(kernel_corpus_heads PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)

# The matching path with the real debug vmlinux (Debian's -dbg package, fetched once into the vmcore
# cache: ~13 s to download, ~75 s to extract).
add_test(NAME kernel_fetch_vmlinux
  COMMAND sh -c "[ \"$CT_NO_VMCORE\" = 1 ] || exec \"$0\" \"$1\" \"$(cat \"$1/kernel-version\")\""
          ${PROJECT_SOURCE_DIR}/scripts/fetch-debug-vmlinux ${CT_VMCORE_DIR})
set_tests_properties(kernel_fetch_vmlinux PROPERTIES FIXTURES_REQUIRED vmcores FIXTURES_SETUP vmlinux TIMEOUT 900)
add_test(NAME kernel_vmlinux_dwarf COMMAND ${CT_PYTHON} ${CT_KTEST}/check_vmlinux_dwarf.py ${CT_BIN} ${CT_VMCORE_DIR})
set_tests_properties(kernel_vmlinux_dwarf PROPERTIES FIXTURES_REQUIRED "vmcores;vmlinux" SKIP_RETURN_CODE 77 TIMEOUT 300)
