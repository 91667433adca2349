#!/usr/bin/python3.11
"""Writes CPython's own answer for every instruction of many code objects: one line per code
object, "FIRSTLINENO HEX_LINETABLE OFFSET:LINE,…" (LINE -1: no line), from co_lines(), which walks
co_linetable with the interpreter's own decoder. Run by the interpreter whose table format is tested."""
import sys
import types

MODULES = ["threading", "ctypes", "json.decoder", "asyncio.base_events", "email.message", "argparse", "dataclasses",
           "typing", "re._parser", "inspect", "unittest.case", "http.client"]


def codes(co):
    yield co
    for c in co.co_consts:
        if isinstance(c, types.CodeType):
            yield from codes(c)


def main():
    out = open(sys.argv[1], "w")
    n = 0
    for name in MODULES:
        mod = __import__(name, fromlist=["_"])
        source = open(mod.__file__).read()
        for co in codes(compile(source, mod.__file__, "exec")):
            lines = {}
            for start, end, line in co.co_lines():
                for off in range(start, end, 2):
                    lines[off] = -1 if line is None else line
            pairs = ",".join("%d:%d" % (o, lines.get(o, -1)) for o in range(0, len(co.co_code), 2))
            out.write("%d %s %s\n" % (co.co_firstlineno, co.co_linetable.hex() or "-", pairs or "-"))
            n += 1
    print("%d code objects" % n)


main()
