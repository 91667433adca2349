#!/usr/bin/env python3
"""Terminal escape injection (issue 11, defects 2, 9 and 12), end to end on a real core.

    escapes.py --coretriage BIN --workdir DIR

Builds, at test time, a program whose every printed field carries escape sequences and forged
report lines, and crashes it for real (the kernel writes the core):
  * comm: the executable's name is ESC ] 0 ; ... BEL ESC [ 2 J (sets the window title, clears the screen)
  * NT_FILE names: it runs from a directory whose name holds OSC 52 (clipboard) and newlines
  * psargs and the abort message: argv[1] holds escapes and "\\nCrash: none, confidence high"
  * symbol names: two functions renamed in the ELF file (symtab and DWARF) to hold escapes, an
    invalid UTF-8 byte and 200 two-byte characters
plus a kernel dump (ELF vmcore) whose VMCOREINFO OSRELEASE holds escapes, and a batch over files
named with escapes. Every output is checked:
  * text, batch table and stderr: no byte below 0x20 but newline and tab, no DEL, no C1 control,
    valid UTF-8, no forged "Crash:" line; the escapes are shown (\\x1b), so the fields were printed
  * Markdown: the same, and the names kept
  * SVG flame graph: well-formed XML (labels cut on character boundaries, invalid bytes replaced)
  * SARIF and JSON: valid JSON that keeps the valid part of a name with an invalid byte
"""
import argparse
import json
import re
import os
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

ESC_TITLE = b"\x1b]0;PWN\x07\x1b[2J"  # 12 bytes: comm (<= 15)
ESC_CLIP = b"\x1b]52;c;SGk=\x07"
FORGED = b"\nCrash: none, confidence high\n"
# Same lengths as the placeholders they replace in the executable.
FUNC1_PH = b"hostile_function_one_placeholder_name"
FUNC1_HEAD = b"\x1b]0;F\x07\x1b[2J\xff\x9b_\xc2\x9b_\xe2\x80\xae_"
FUNC1 = FUNC1_HEAD + b"x" * (len(FUNC1_PH) - len(FUNC1_HEAD) - 6) + b"_blame"
FUNC2_PH = b"hostile_function_two_" + b"p" * 379
FUNC2 = b"utf8_" + "\u00f1".encode() * 197 + b"\xff" + b"y" * 0  # 5 + 394 + 1 = 400
assert len(FUNC1) == len(FUNC1_PH) and len(FUNC2) == len(FUNC2_PH), (len(FUNC2), len(FUNC2_PH))

SOURCE = r"""
#include <stdlib.h>
extern void __assert_fail(const char *, const char *, unsigned, const char *) __attribute__((noreturn));
__attribute__((noinline)) void %(f1)s(const char *m)
{
	__assert_fail(m, "file\x1b[31m.c", 7, "fn\x1b[0m");
}
__attribute__((noinline)) void %(f2)s(const char *m)
{
	%(f1)s(m);
	__asm__ volatile("" ::: "memory");
}
int main(int argc, char **argv)
{
	%(f2)s(argc > 1 ? argv[1] : "none");
	return 0;
}
"""

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def terminal_safe(name, data, visible=(), color=False):
    """data went to a terminal: nothing a terminal acts on may be in it (with color: but SGR)."""
    if color:
        data = re.sub(rb"\x1b\[[0-9;]*m", b"", data)
    bad = sorted({b for b in data if (b < 0x20 and b not in (9, 10)) or b == 0x7f})
    check(not bad, f"{name}: control bytes {bad[:8]} reach the output")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, f"{name}: invalid UTF-8 reaches the output ({e})")
        text = data.decode("utf-8", "replace")
    c1 = [c for c in text if 0x80 <= ord(c) <= 0x9f or ord(c) in (0x202e, 0x2028, 0x2029)]
    check(not c1, f"{name}: C1 / bidi controls {c1[:4]} reach the output")
    for line in text.splitlines():
        check(not line.startswith("Crash: none"), f"{name}: a forged report line: {line!r}")
    for v in visible:
        check(v in text, f"{name}: {v!r} not shown (field not printed, or not made visible)")
    return text


def run(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, **kw)


def patch(path, pairs):
    data = open(path, "rb").read()
    for old, new in pairs:
        check(old in data, f"placeholder {old[:20]!r} in the executable")
        data = data.replace(old, new)
    open(path, "wb").write(data)


def make_core(work):
    d = os.path.join(work.encode(), b"dir" + ESC_CLIP + FORGED.replace(b"\n", b"\x0b") + b"\r")
    os.makedirs(d)
    src = os.path.join(work, "hostile.c")
    with open(src, "w") as f:
        f.write(SOURCE % {"f1": FUNC1_PH.decode(), "f2": FUNC2_PH.decode()})
    exe = os.path.join(d, ESC_TITLE)
    subprocess.run(["gcc", "-O0", "-g", "-fno-omit-frame-pointer", "-o", exe, src], check=True)
    patch(exe, [(FUNC1_PH, FUNC1), (FUNC2_PH, FUNC2)])
    arg = ESC_CLIP + b"\x1b[2J" + FORGED + b"\x9b\xe2\x80\xaeend"
    subprocess.run([b"sh", b"-c", b'ulimit -c unlimited; exec "$0" "$1"', exe, arg], cwd=d,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for f in sorted(os.listdir(d)):
        if f == b"core" or f.startswith(b"core."):
            return exe, os.path.join(d, f)
    return exe, None


def note(name, ntype, desc):
    n = name + b"\0"
    out = struct.pack("<III", len(n), len(desc), ntype) + n
    out += b"\0" * (-len(out) % 4)
    return out + desc + b"\0" * (-len(desc) % 4)


def make_vmcore(path, vi=None):
    """An x86-64 ELF kdump whose VMCOREINFO OSRELEASE and log-less notes carry escapes (or whose
    VMCOREINFO is @p vi: tests/trail/hostile_trail.py)."""
    if vi is None:
        vi = b"OSRELEASE=6.1" + ESC_TITLE + ESC_CLIP + b"\nPAGESIZE=4096\nKERNELOFFSET=0\n"
    notes = note(b"CORE", 1, bytes(336)) + note(b"VMCOREINFO", 0, vi)
    noff = 64 + 2 * 56
    loff = (noff + len(notes) + 4095) & ~4095
    mem = bytes(8192)
    eh = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    eh += struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56, 2, 64, 0, 0)
    ph = struct.pack("<IIQQQQQQ", 4, 0, noff, 0, 0, len(notes), 0, 4)
    ph += struct.pack("<IIQQQQQQ", 1, 7, loff, 0xFFFFFFFF81000000, 0x1000000, len(mem), len(mem), 4096)
    out = eh + ph + notes
    with open(path, "wb") as f:
        f.write(out + bytes(loff - len(out)) + mem)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coretriage", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    ct = a.coretriage
    work = os.path.abspath(a.workdir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    exe, core = make_core(work)
    if core is None:
        print("SKIP: no core was written (core_pattern?)")
        return 77

    shown = ["\\x1b]0;PWN\\x07\\x1b[2J",  # comm
             "\\x1b]52;c;SGk=\\x07",  # psargs, NT_FILE directory, abort message
             "\\x1b]0;F\\x07\\x1b[2J\\xff\\x9b_\\u009b_\\u202e_x"]  # the symbol
    # Symbols from the file NT_FILE names (default) and from --exe under --safe.
    for label, args in (("text", [ct, "-v", core]), ("text-safe", [ct, "--safe", "-v", exe, core]),
                        ("text-color", [ct, "--color=always", core])):
        p = run(args)
        check(p.returncode in (0, 1), f"{label}: exit {p.returncode}: {p.stderr[-300:]!r}")
        text = terminal_safe(label, p.stdout, shown, color=label == "text-color")
        terminal_safe(label + " stderr", p.stderr)
        check("abort message:" in text, f"{label}: no abort message line")

    p = run([ct, "-f", "markdown", core])
    check(p.returncode in (0, 1), f"markdown: exit {p.returncode}")
    md = terminal_safe("markdown", p.stdout)
    check("utf8_" + "\u00f1" * 20 in md, "markdown: the UTF-8 name is kept")

    svg = os.path.join(work, "threads.svg")
    p = run([ct, "-f", "json", "--flamegraph", svg, core])
    check(p.returncode in (0, 1), f"json+svg: exit {p.returncode}: {p.stderr[-300:]!r}")
    try:
        report = json.loads(p.stdout)
        names = [f.get("function") or "" for t in report["threads"] for f in t["frames"]]
        check(any(n.startswith("\x1b]0;F\x07\x1b[2J\ufffd") and n.endswith("_blame") for n in names),
              f"json: the escaped name keeps its valid part: {names[:4]!r}")
    except (ValueError, KeyError) as e:
        check(False, f"json: not a report: {e}")
    try:
        root = ET.parse(svg).getroot()
        labels = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
        check(any(s.startswith("utf8_\u00f1") and s.endswith("..") for s in labels),
              "svg: the long UTF-8 label is cut (on a character boundary)")
    except ET.ParseError as e:
        check(False, f"svg: not well-formed XML: {e}")

    p = run([ct, "-f", "sarif", core])
    try:
        sarif = json.loads(p.stdout)
        res = sarif["runs"][0]["results"][0]
        fq = res["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
        check(fq.endswith("_blame") and "\ufffd" in fq, f"sarif: blame name kept but the invalid byte: {fq!r}")
        check("_blame" in res["message"]["text"], "sarif: message keeps the blame name")
    except (ValueError, KeyError, IndexError) as e:
        check(False, f"sarif: {e}: {p.stdout[:200]!r}")

    vm = os.path.join(work, "vmcore")
    make_vmcore(vm)
    p = run([ct, vm])
    check(p.returncode in (0, 1), f"vmcore: exit {p.returncode}: {p.stderr[-300:]!r}")
    terminal_safe("vmcore", p.stdout, ["6.1\\x1b]0;PWN\\x07"])

    bdir = os.path.join(work.encode(), b"batch")
    os.makedirs(bdir)
    shutil.copy(core, os.path.join(bdir, b"core-" + ESC_TITLE + b"\n"))
    with open(os.path.join(bdir, b"core.zst" + ESC_CLIP), "wb") as f:
        f.write(b"\x28\xb5\x2f\xfd" + b"garbage" * 10)  # a zstd magic, then nothing valid
    for fmt in ("text", "markdown"):
        p = run([ct, "batch", "--progress=never", "-f", fmt, bdir])
        check(p.returncode in (0, 1), f"batch {fmt}: exit {p.returncode}: {p.stderr[-300:]!r}")
        terminal_safe(f"batch {fmt}", p.stdout, ["core-\\x1b]0;PWN"] if fmt == "text" else [])
        terminal_safe(f"batch {fmt} stderr", p.stderr)

    p = run([ct, os.path.join(work.encode(), b"missing" + ESC_TITLE)])
    check(p.returncode == 2, f"missing core: exit {p.returncode}")
    terminal_safe("error line", p.stderr, ["\\x1b]0;PWN"])

    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
