#!/usr/bin/env python3
"""gdb 13 as the oracle for frames and argument values.

For each case of the cores directory, runs
    gdb -batch -nx -ex 'set backtrace past-main on' -ex 'bt full' EXE CORE
and compares the crashing thread with coretriage's JSON report:
  - every frame gdb shows (gdb's tail-call frames included) must be in coretriage's frames, in the
    same order, at the same pc;
  - every argument gdb prints must have the same value (and the same @entry value), every local
    of `bt full` too;
except for the differences docs/unwinding.md lists with their reasons ("Differences with gdb"),
which are counted and printed, not failed:
  names      gdb prints a frame's DWARF name (__GI_raise), coretriage the symbol (raise);
  scalars    gdb's `print frame-arguments scalars` shows a struct argument as `...`;
  tail-entry gdb resolves an @entry value through a tail-call frame with the registers of the frame
             it called; coretriage treats a tail-call frame's caller-saved registers as unknown;
  tail-inline gdb names a tail-call frame by the innermost function inlined at its pc and shows no
             frame for the function itself; coretriage shows both;
  caller-saved gdb takes a caller-saved register of a caller frame from the frame it called (DWARF's
             "unspecified" rule read as "same value"), so it knows @entry values and caller frames'
             arguments and locals coretriage leaves out (optimized out);
  labels     gdb lists a goto label of the function, or a variable of an inlined function's abstract
             block that has no concrete block at the pc, as a local "<optimized out>";
Cases whose crashing thread gdb shows with the same functions (one bug, several toolchains) must
have one signature.
  pretty-printers gdb's libstdc++ Python printers fail on an uninitialized std::string or std::vector
             (Python exception, negative capacity); coretriage shows the structure.

    gdbvalues.py CORETRIAGE CORES_DIR CASE...
Exit status: 0 all equal but for listed differences, 1 a difference, 77 no gdb.

Parsing of gdb's backtrace lines lives in parse_bt() so that tests/oracle/gdbbt.py (frames and
names) and this file can share it.
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbbt  # noqa: E402

# The C locale: gdb then prints bytes >= 0x80 of a string in octal, as coretriage always does.
GDB_ENV = dict(os.environ, LC_ALL="C", LANG="C")


def split_top(s, sep=","):
    """Splits @s at top-level @sep: not inside quotes, (), {}, [] or <>."""
    out, depth, cur, quote, esc = [], 0, [], None, False
    for ch in s:
        if quote:
            cur.append(ch)
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "({[<":
            depth += 1
        elif ch in ")}]>":
            depth -= 1
        elif ch == sep and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def parse_args(text):
    """gdb's argument list -> {name: (value, entry)}; value None when only @entry is shown."""
    args = {}
    for item in split_top(text):
        m = re.match(r"^([A-Za-z_][\w]*)(@entry)?=(.*)$", item, re.S)
        if not m:
            continue
        name, at_entry, rest = m.group(1), m.group(2), m.group(3)
        value, entry = args.get(name, (None, None))
        m2 = re.match(r"^%s@entry=(.*)$" % re.escape(name), rest, re.S)
        if at_entry:
            entry = rest
        elif m2:
            value = entry = m2.group(1)
        else:
            value = rest
        args[name] = (value, entry)
    return args


def parse_bt(text):
    """gdb `bt full` output -> frames [{index, pc, function, args, locals}] (pc None: frame 0 or inline)."""
    frames = []
    cur = None
    for line in text.splitlines():
        sm = re.match(r"^#(\d+)\s+(?:(0x[0-9a-f]+) in )?<signal handler called>", line)
        if sm:
            cur = {"index": int(sm.group(1)), "pc": None, "function": "<signal handler called>", "args": {},
                   "locals": {}, "signal": True}
            frames.append(cur)
            continue
        # gdbbt's parser: Rust and C++ names hold blanks and parentheses (`call_once<(), (dyn …)>`).
        fr = gdbbt.parse_frame_line(line) if line.startswith("#") else None
        if fr is not None:
            cur = {"index": fr.level, "pc": fr.pc, "function": fr.function or "??",
                   "args": parse_args(fr.args or ""), "locals": {}}
            frames.append(cur)
            continue
        if cur is not None:
            lm = re.match(r"^        ([A-Za-z_]\w*) = (.*)$", line)
            if lm:
                # gdb may list a name twice (a variable and its abstract origin's): keep the first.
                cur["locals"].setdefault(lm.group(1), lm.group(2))
    # gdb prints frame 0 twice (once after "Program terminated") only with `bt` after the banner:
    # keep the last run of frames starting at #0.
    starts = [i for i, f in enumerate(frames) if f["index"] == 0]
    return frames[starts[-1]:] if starts else frames


def normalize(v):
    if v is None:
        return "<optimized out>"
    v = re.sub(r"<error: Cannot access memory at address (0x[0-9a-f]+)>", r"<unreadable \1>", v)
    # C++: gdb shows a function symbol with its parameters (<main(int, char**)>).
    v = re.sub(r"<([\w:~]+)\([^<>]*\)(\+\d+)?>", r"<\1\2>", v)
    return v.strip()


def printed_by_gdb_python(gdb_value, ours):
    """libstdc++'s Python pretty-printers failed on an object that is not initialized yet (gdb's text
    is an error, a field left empty after a Python exception, a vector of negative capacity, or ""
    for a string whose characters are unreadable);
    coretriage's printers (src/values/render_cxx.c) refuse such a layout and show the structure."""
    v = gdb_value or ""
    return "<error reading variable" in v or re.search(r"= [,}]", v) is not None or "capacity -" in v or \
        ('""' in v and "<unreadable" in (ours or ""))  # a string whose characters cannot be read


def data_names(gdb_value, ours):
    """A function-local static: coretriage shows its DWARF name `<w>` (an older coretriage, or a
    static without DWARF, its ELF symbol: GCC's `w.0`, clang's `main.w`); gdb shows `<w>` for GCC
    and `<main[w]>` for clang."""
    if not gdb_value or not ours:
        return False
    fix = re.sub(r"<(\w+)\.\d+(\+\d+)?>", r"<\1\2>", ours)
    fix = re.sub(r"<\w+\.(\w+)(\+\d+)?>", r"<\1\2>", fix)
    theirs = re.sub(r"<\w+\[(\w+)\](\+\d+)?>", r"<\1\2>", gdb_value)  # gdb: clang's as `main[w]`
    return normalize(fix) == normalize(theirs)


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    binary, cores, cases = sys.argv[1], sys.argv[2], sys.argv[3:]
    if not shutil.which("gdb"):
        print("no gdb: skipped")
        return 77
    failures, known, compared_frames, compared_values, summary = [], {}, 0, 0, []
    # One bug built by several toolchains: cases whose crashing threads gdb shows with the same
    # functions must share a signature (issue 10: gcc -O0/-O2/-Os, no aranges, clang -O2).
    by_gdb_functions = {}
    for case in cases:
        d = "%s/%s" % (cores, case)
        try:
            gdb = subprocess.run(["gdb", "-batch", "-nx", "-ex", "set pagination off", "-ex",
                                  "set backtrace past-main on", "-ex", "bt full", d + "/exe", d + "/core"],
                                 capture_output=True, text=True, timeout=120, env=GDB_ENV).stdout
            rep = json.loads(subprocess.run([binary, "-f", "json", d + "/exe", d + "/core"], capture_output=True,
                                            text=True, timeout=120).stdout)
        except (OSError, ValueError, subprocess.TimeoutExpired) as e:
            failures.append("%s: %s" % (case, e))
            continue
        gframes = parse_bt(gdb)
        if gframes:
            key = tuple(g["function"] for g in gframes)
            by_gdb_functions.setdefault(key, []).append((case, (rep.get("signature") or {}).get("hash")))
        start = (len(failures), sum(len(v) for v in known.values()), compared_frames, compared_values)
        thread = next((t for t in rep["threads"] if t["crashed"]), rep["threads"][0] if rep["threads"] else None)
        ours = thread["frames"] if thread else []
        for f in ours:
            f["pc"] = int(f["pc"], 16)

        frame_notes = [0]

        def note(kind, msg):
            known.setdefault(kind, []).append("%s: %s" % (case, msg))
            if kind in ("names", "tail-inline", "gdb-lost"):
                frame_notes[0] += 1

        j = 0
        for g in gframes:
            # The next frame of ours at gdb's pc (frame 0 and inline frames have no pc in gdb's line).
            k = j
            if g["pc"] is not None:
                while k < len(ours) and ours[k]["pc"] != g["pc"] and not (
                        ours[k]["inlined"] and k + 1 < len(ours) and ours[k + 1]["pc"] == g["pc"]):
                    k += 1
            if k >= len(ours) and g["function"] == "??":
                # gdb lost the stack (Go's runtime.sigreturn has no CFI): its trailing `??` frames.
                note("gdb-lost", "#%d ?? at 0x%x" % (g["index"], g["pc"] or 0))
                continue
            if k >= len(ours):
                failures.append("%s: gdb frame #%d %s at 0x%x missing" % (case, g["index"], g["function"],
                                                                          g["pc"] or 0))
                continue
            if g.get("signal"):
                while k < len(ours) and not ours[k].get("signal_frame"):
                    k += 1
                if k >= len(ours):
                    failures.append("%s: gdb's <signal handler called> #%d missing" % (case, g["index"]))
                else:
                    compared_frames += 1
                    j = k + 1
                continue
            o = ours[k]
            # gdb names a tail-call frame by the function inlined at its pc; coretriage shows both.
            if o.get("tail_call") and o["inlined"] and g["function"] != o["function"]:
                note("tail-inline", "#%d %s" % (g["index"], g["function"]))
            elif o.get("tail_call") and k > 0 and ours[k - 1].get("tail_call") and ours[k - 1]["inlined"] and \
                    ours[k - 1]["function"] == g["function"]:
                o = ours[k - 1]
            compared_frames += 1
            if (o["function"] or "??") != g["function"]:
                note("names", "#%d gdb %s, coretriage %s" % (g["index"], g["function"], o["function"]))
            params = {p["name"]: p for p in o.get("parameters", [])}
            caller_tail = k + 1 < len(ours) and ours[k + 1].get("tail_call")
            for name, (value, entry) in g["args"].items():
                p = params.get(name)
                compared_values += 1
                if p is None:
                    failures.append("%s: #%d %s: argument %s missing" % (case, g["index"], g["function"], name))
                    continue
                if value is not None and value.strip() == "...":
                    note("scalars", "#%d %s %s" % (g["index"], g["function"], name))
                elif k > 0 and normalize(value) != "<optimized out>" and p.get("optimized_out") and not p.get("value"):
                    # A caller frame's argument in a caller-saved register (blend's weight in xmm3):
                    # gdb reads the register of the frame it called, coretriage leaves it unknown.
                    note("caller-saved", "#%d %s %s=%s" % (g["index"], g["function"], name, value))
                elif normalize(value) != normalize(p["value"]) and printed_by_gdb_python(value, p["value"]):
                    note("pretty-printers", "#%d %s %s" % (g["index"], g["function"], name))
                elif normalize(value) != normalize(p["value"]) and data_names(value, p["value"]):
                    note("data-names", "#%d %s %s" % (g["index"], g["function"], name))
                elif normalize(value) != normalize(p["value"]):
                    failures.append("%s: #%d %s: %s = %s, gdb %s" % (case, g["index"], g["function"], name,
                                                                      p["value"], value))
                if entry is not None and entry.strip() == "..." and p.get("entry_value"):
                    note("scalars", "#%d %s %s@entry" % (g["index"], g["function"], name))
                elif (entry or None) != (p.get("entry_value") or None):
                    if entry and not p.get("entry_value") and (caller_tail or o.get("tail_call")):
                        note("tail-entry", "#%d %s %s@entry=%s" % (g["index"], g["function"], name, entry))
                    elif entry and not p.get("entry_value"):
                        note("caller-saved", "#%d %s %s@entry=%s" % (g["index"], g["function"], name, entry))
                    elif entry is None or normalize(entry) != normalize(p.get("entry_value")):
                        failures.append("%s: #%d %s: %s@entry = %s, gdb %s" % (
                            case, g["index"], g["function"], name, p.get("entry_value"), entry))
            locs = {}
            for v in o.get("locals", []):
                locs.setdefault(v["name"], v)
            for name, value in g["locals"].items():
                compared_values += 1
                v = locs.get(name)
                if v is None and value == "<optimized out>":
                    note("labels", "#%d %s %s" % (g["index"], g["function"], name))
                elif v is None:
                    failures.append("%s: #%d %s: local %s missing" % (case, g["index"], g["function"], name))
                elif k > 0 and normalize(value) != "<optimized out>" and v.get("optimized_out") and not v.get("value"):
                    # As for arguments: a caller frame's local in a caller-saved register, which gdb
                    # takes from the frame it called (begin_panic_handler's msg in rax).
                    note("caller-saved", "#%d %s %s=%s" % (g["index"], g["function"], name, value))
                elif normalize(value) != normalize(v["value"]) and printed_by_gdb_python(value, v["value"]):
                    note("pretty-printers", "#%d %s %s" % (g["index"], g["function"], name))
                elif normalize(value) != normalize(v["value"]) and data_names(value, v["value"]):
                    note("data-names", "#%d %s %s" % (g["index"], g["function"], name))
                elif normalize(value) != normalize(v["value"]):
                    failures.append("%s: #%d %s: local %s = %s, gdb %s" % (case, g["index"], g["function"], name,
                                                                           v["value"], value))
            j = k + 1
        # Per case: gdb's frames found / gdb's frames, gdb's values equal / compared, and the
        # values that differ for a listed reason (docs/unwinding.md) or fail.
        n_known = sum(len(v) for v in known.values()) - start[1] - frame_notes[0]
        n_fail = len(failures) - start[0]
        n_values = compared_values - start[3]
        summary.append("%-22s frames %3d/%-3d values %3d/%-3d known %3d failed %d" % (
            case, compared_frames - start[2], len(gframes), n_values - n_known - min(n_fail, n_values), n_values,
            n_known, n_fail))
    for line in summary:
        print("case", line)
    for group in by_gdb_functions.values():
        if len(group) > 1:
            hashes = {h for _, h in group}
            print("same functions in gdb: %s: %s" % (", ".join(c for c, _ in group),
                                                     "one signature" if len(hashes) == 1 else "signatures differ"))
            if len(hashes) != 1 or None in hashes:
                failures.append("same functions in gdb, different signatures: " +
                                ", ".join("%s %s" % (c, h) for c, h in group))
    for kind, items in sorted(known.items()):
        print("known difference %-11s %d (%s)" % (kind, len(items), "; ".join(items[:3] if len(items) > 3 and not os.environ.get("CT_ORACLE_ALL") else items)))
    for f in failures:
        print("FAIL", f)
    print("%d cases, %d frames and %d values compared with gdb, %d differences" % (
        len(cases), compared_frames, compared_values, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
