# N Python threads (20, or argv[1]) asleep in time.sleep, at different depths and lines; the main
# thread aborts (SIGABRT) once they all sleep: faulthandler prints every thread's Python stack first.
import faulthandler
import os
import sys
import threading
import time

faulthandler.enable(all_threads=True)
started = threading.Semaphore(0)


def nap(seconds):
    started.release()
    time.sleep(seconds)


def poll(depth):
    if depth == 0:
        nap(60)
    else:
        poll(depth - 1)


def heartbeat():
    started.release()
    while True:
        time.sleep(30)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    for i in range(n):
        target = heartbeat if i % 5 == 0 else poll
        args = () if i % 5 == 0 else (i % 10,)
        threading.Thread(target=target, args=args, daemon=True, name="worker-%d" % i).start()
    for _ in range(n):
        started.acquire()
    time.sleep(0.3)
    os.abort()


main()
