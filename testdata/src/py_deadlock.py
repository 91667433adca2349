# Two Python threads deadlocked on two threading.Locks taken in opposite orders; the main thread
# waits until both are stuck, then aborts (SIGABRT): faulthandler prints every thread's Python
# stack before the core is written.
import faulthandler
import os
import threading
import time

faulthandler.enable(all_threads=True)

accounts = threading.Lock()
journal = threading.Lock()
both_hold = threading.Barrier(2)


def transfer():
    with accounts:
        both_hold.wait()
        with journal:
            pass


def audit():
    with journal:
        both_hold.wait()
        with accounts:
            pass


def main():
    threading.Thread(target=transfer, daemon=True).start()
    threading.Thread(target=audit, daemon=True).start()
    time.sleep(0.5)
    os.abort()


main()
