#!/usr/bin/env python3
"""QMP side of scripts/make-vmcores: wait until the guest panics, pause it, write the dumps, quit.

usage: qmp.py SOCKET CONSOLE_LOG TIMEOUT_S FORMAT:PATH...
FORMAT is elf, elf-paging or kdump-zlib (the formats Debian's QEMU 7.2 offers besides win-dmp).
Exit status 0 when every dump was written, 1 otherwise (the reason goes to stderr).
"""
import json
import os
import socket
import sys
import time


def main():
    sock_path, console, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
    dumps = [a.split(":", 1) for a in sys.argv[4:]]
    deadline = time.monotonic() + timeout
    s = None
    while s is None:
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(sock_path)
        except OSError:
            s = None
            if time.monotonic() > deadline:
                sys.exit("qmp: cannot connect to " + sock_path)
            time.sleep(0.2)
    f = s.makefile("rw")

    def cmd(name, **args):
        f.write(json.dumps({"execute": name, "arguments": args}) + "\n")
        f.flush()
        while True:
            line = f.readline()
            if not line:
                sys.exit("qmp: connection closed during " + name)
            msg = json.loads(line)
            if "return" in msg:
                return msg["return"]
            if "error" in msg:
                sys.exit("qmp: %s: %s" % (name, msg["error"].get("desc")))
            # Asynchronous events (STOP, GUEST_PANICKED, ...) are skipped here.

    f.readline()  # greeting
    cmd("qmp_capabilities")
    # pvpanic pauses the guest (-action panic=pause) and QMP reports guest-panicked. The console line is
    # the fallback for a kernel whose pvpanic driver did not bind.
    while True:
        status = cmd("query-status")["status"]
        if status == "guest-panicked":
            break
        try:
            with open(console, "rb") as c:
                if b"Kernel panic - not syncing" in c.read():
                    time.sleep(2)
                    cmd("stop")
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            sys.exit("qmp: guest did not panic within %.0f s (status %s)" % (timeout, status))
        time.sleep(0.5)
    for fmt, path in dumps:
        paging = fmt == "elf-paging"
        qfmt = "elf" if fmt.startswith("elf") else fmt
        if os.path.exists(path):
            os.unlink(path)
        cmd("dump-guest-memory", paging=paging, protocol="file:" + os.path.abspath(path), format=qfmt)
    try:
        cmd("quit")
    except SystemExit:
        pass  # QEMU closes the socket while answering quit


main()
