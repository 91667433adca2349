# Python crashing in a C extension: ctypes.string_at(0) calls strlen(NULL) from _ctypes. faulthandler (all threads) prints every thread's Python stack, then re-raises the
# SIGSEGV: its output on stderr is the oracle for the Python stacks of the core.
import ctypes
import faulthandler
import threading
import time

faulthandler.enable(all_threads=True)


def idle_worker(ready):
    ready.set()
    time.sleep(60)


def read_header(address):
    return ctypes.string_at(address)


def parse(address):
    header = read_header(address)
    return header


def main():
    ready = threading.Event()
    threading.Thread(target=idle_worker, args=(ready,), daemon=True).start()
    ready.wait()
    time.sleep(0.2)
    print(parse(0))


main()
