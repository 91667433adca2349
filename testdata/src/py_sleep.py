# 20 Python threads asleep in time.sleep, at different depths and lines; the main thread aborts
# (SIGABRT) once they all sleep: faulthandler prints every thread's Python stack first.
import faulthandler
import os
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
    for i in range(20):
        target = heartbeat if i % 5 == 0 else poll
        args = () if i % 5 == 0 else (i % 4,)
        threading.Thread(target=target, args=args, daemon=True, name="worker-%d" % i).start()
    for _ in range(20):
        started.acquire()
    time.sleep(0.3)
    os.abort()


main()
