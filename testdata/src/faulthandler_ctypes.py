# Python with -X faulthandler: a NULL read inside the _ctypes extension module. faulthandler
# catches the SIGSEGV, prints the Python traceback, then re-raises the signal from its handler.
import ctypes


def read_counter(address):
    # c_long.from_address(0).value reads 8 bytes at address 0 in _ctypes' l_get.
    return ctypes.c_long.from_address(address).value


def main():
    print(read_counter(0))


main()
