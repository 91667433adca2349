# Four Python threads busy in pure-Python loops contend for the GIL; the main thread takes it and
# crashes in a C extension (ctypes.string_at(0): strlen(NULL)). At the crash the main thread holds
# the GIL and the busy threads wait for it in take_gil. faulthandler prints every Python stack.
import ctypes
import faulthandler
import threading
import time

faulthandler.enable(all_threads=True)
running = threading.Semaphore(0)


def spin(n):
    running.release()
    total = 0
    while True:
        for i in range(n):
            total += i * i


def crunch():
    spin(1000)


def main():
    for _ in range(4):
        threading.Thread(target=crunch, daemon=True).start()
    for _ in range(4):
        running.acquire()
    time.sleep(0.3)
    ctypes.string_at(0)


main()
