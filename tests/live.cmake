# Live processes (docs/live.md, issue 25): coretriage -p PID and --gcore against real processes
# the test starts (testdata/src/hang.c, live.c): a two-lock deadlock named live and in the written
# core, threads blocked in accept and read, --logs around the capture time, gdb's bt of the --gcore core against its bt of the live
# process, coretriage SIGKILLed while it holds the process stopped (the target runs on), another
# user's process (a clear error), 1,000 sleeping threads, a process forking while attached, a gone
# pid and a zombie; coretriage sample: a busy loop (>= 90 % of the samples in its function) and
# threads blocked in accept and read, a server in epoll_wait (-p and sample) (the state, with the descriptor's target, as the root frame), threads on a mutex, a rwlock, a
# condition variable and a raw futex (live_futex.c: the object and its holder in the root frame), a
# thread in nanosleep named by its sleep on every tick (not restart_syscall). Skipped (77) where ptrace is not permitted.
foreach(case deadlock accept logs epoll gcore-gdb sigkill permission many-threads forker errors sample-spin sample-wait sample-sleep
             sample-futex)
  add_test(NAME live_${case}
    COMMAND ${CT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/live/check_live.py --coretriage ${CT_BIN}
            --source-dir ${PROJECT_SOURCE_DIR}/testdata/src --workdir ${CMAKE_CURRENT_BINARY_DIR}/live-${case}
            --schema ${PROJECT_SOURCE_DIR}/docs/schema/report.schema.json --case ${case})
  set_tests_properties(live_${case} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()
