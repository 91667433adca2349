#!/usr/bin/env python3
"""Root cause (issue 24, docs/root-cause.md): for every rc-* case of testdata/cases.tsv whose core
exists, run coretriage --format json and compare root_cause.steps with the chain the program
(testdata/src/origin.c, and rcgrid.c for multi-dimensional arrays and a struct reached through a
loaded pointer) builds by construction: each step's kind, function and source line (the line of
the case's source whose text holds the call), and the value. Every step must be right and the chain
complete: a missing step, an extra step or a chain that stops fails, except where the table expects
the stop and its reason (a build without the DWARF that decides it).

Also, over every other x86-64 case: no root-cause step may name a line that is not in the crashing
thread's frames' files (a cheap check that no chain wanders off), and a chain may end in
`stopped` only with a reason.

The same programs built for aarch64 (scripts/make-cross-rc-cores: CORES_DIR/aarch64-<case>, read
with --sysroot) are checked against the same chains with --arch aarch64; a mode whose chain differs
there by what the compiler emits has its own key ("aarch64:switch-clang-O0").

usage: check_root_cause.py [--arch aarch64 --sysroot DIR] CORETRIAGE CASES_TSV CORES_DIR SOURCE_DIR
Exit 0 when all pass, 1 on a failure, 77 when no rc-* core exists.
"""
import json
import os
import re
import shutil
import subprocess
import sys

ATOI = r"^(atoi|strtol|__isoc23_strtol)$"
def via_atoi(fn, call, value):
    """A parameter of @fn whose value atoi returned at the call whose line holds @call."""
    return [("param-of", "^%s$" % fn, call, value), ("return-of", ATOI, call, value)]


# mode -> steps from the fault backwards: (kind, function regex, text on the step's line of origin.c
# or None when the line is in a header (atoi inlined from stdlib.h), expected value or None).
# An arith step (a scaled index at -O0) may come first for index; it is checked by its kind.
EXPECT = {
    "lookup1": [("param-of", "^count_of$", "count_of(it)", "0x0"), ("return-of", "^find_item$", "find_item(name)", "0x0")],
    "lookup3": [("param-of", "^count_of$", "count_of(it)", "0x0"), ("param-of", "^level3$", "level3(it)", "0x0"),
                ("param-of", "^level2$", "level2(it)", "0x0"), ("return-of", "^find_item$", "find_item(name)", "0x0")],
    "field": [("load-from", "^timeout_of$", "n->cfg->timeout", "0x0")],
    "malloc": [("param-of", "^fill$", "fill(malloc(huge))", "0x0"), ("return-of", "^malloc$", "fill(malloc(huge))", "0x0")],
    "getenv": [("param-of", "^first_char$", "first_char(getenv", "0x0"), ("return-of", "^getenv$", "first_char(getenv", "0x0")],
    "strchr": [("param-of", "^cut$", "cut(strchr", "0x0"), ("return-of", "^strchr$", "cut(strchr", "0x0")],
    "fopen": [("param-of", "^fd_of$", "fd_of(fopen", "0x0"), ("return-of", "^fopen$", "fd_of(fopen", "0x0")],
    "index": [("param-of", "^entry$", "entry(atoi(arg))", "0x3b9aca00"), ("return-of", ATOI, "entry(atoi(arg))", "0x3b9aca00")],
    "lindex": [("param-of", "^local_entry$", "local_entry(atoi(arg)", "0x3b9aca00"),
               ("return-of", ATOI, "local_entry(atoi(arg)", "0x3b9aca00")],
    "mindex": [("param-of", "^ring_at$", "ring_at(r, atoi(arg))", "0x3b9aca00"),
               ("return-of", ATOI, "ring_at(r, atoi(arg))", "0x3b9aca00")],
    "hindex": [("param-of", "^heap_entry$", "heap_entry(vals, atoi(arg))", "0x3b9aca00"),
               ("return-of", ATOI, "heap_entry(vals, atoi(arg))", "0x3b9aca00")],
    # gcc -O0 adds the scaled index to the pointer (add rax, rdx) and loads through the sum: the
    # walk cannot tell the pointer from the index there, and says what computed the bad address.
    "hindex-gcc-O0": [("arith", "^heap_entry$", "return vals[i]", None)],
    # qemu-user starts the brk heap inside the executable's last data page; the heap reader takes
    # the heap to begin at the mapping that holds the top chunk and finds no chunk there: the chain
    # is traced, the bound not said (a real aarch64 kernel's heap starts on its own page).
    # aarch64: gcc (both levels) and clang -O2 add the scaled index to r (add x1, x0, w1, sxtw #2)
    # and load at [x1, #8]: the chain is the arith step that computed the bad address. clang -O0
    # adds the member's offset to r first (add x8, x8, #8) and indexes from there: the chain is
    # traced, the member (a base that is not the parameter itself) not named.
    "aarch64:mindex": [("arith", "^ring_at$", "return r->slots[i]", None)],
    "aarch64:mindex-clang-O0": [("param-of", "^ring_at$", "ring_at(r, atoi(arg))", "0x3b9aca00"),
                                ("return-of", ATOI, "ring_at(r, atoi(arg))", "0x3b9aca00")],
    "aarch64:hindex-gcc-O0": [("arith", "^heap_entry$", "return vals[i]", None)],
    "aarch64:hindex": [("param-of", "^heap_entry$", "heap_entry(vals, atoi(arg))", "0x3b9aca00"),
                       ("return-of", ATOI, "heap_entry(vals, atoi(arg))", "0x3b9aca00")],
    "divide": [("param-of", "^ratio$", "ratio(100, atoi(arg))", "0x0"), ("return-of", ATOI, "ratio(100, atoi(arg))", "0x0")],
    "chain": [("load-from", "^second_key$", "l->head->next->key", "0x0")],
    "global": [("load-from", "^hooked_timeout$", "hooks->cfg->timeout", "0x0")],
    "gfield": [("load-from", "^default_timeout$", "defaults.cfg->timeout", "0x0")],
    # The caller jumps through a table: on x86-64 the walk reads the table the code bounds (cmp or
    # sub, ja) and knows the paths into the call again, at -O0 and -O2 (origin_x86.c jump_table).
    "switch": [("param-of", "^count_of$", "count_of(NULL)", "0x0"), ("constant", "^dispatch$", "count_of(NULL)", "0x0")],
    # aarch64: the tables (adrp + add, ldrb/ldrsw, adr, add, br) are read as well. clang -O0 sets x0
    # by `mov x0, xzr` on a row of line 0 (no source line): the step has no place.
    "aarch64:switch-clang-O0": [("param-of", "^count_of$", "count_of(NULL)", "0x0"), ("constant", "^dispatch$", None, "0x0")],
    # aarch64: gcc -O0 compiles the switch to a chain of compares (no table): the walk reaches the
    # constant. clang 14 -O2 jumps through a table and writes no DW_TAG_call_site_parameter for the
    # call: the chain stops at the table.
    "aarch64:switch-gcc-O0": [("param-of", "^count_of$", "count_of(NULL)", "0x0"), ("constant", "^dispatch$", "count_of(NULL)", "0x0")],

    # aarch64 -O0 takes the local array's address (add x1, sp, #0x18) and stores through it in the
    # fill loop: the walk cannot rule out that a store hits i's slot on the loop's path, so it stops
    # at the loop's head; the fault's step still has the index into slots[12].
    "aarch64:lindex-O0": [("stopped", "^local_entry$", "return slots[i]", None)],

    # rcgrid.c: the subscript past its bound, decided from the decomposition of the address, and
    # its chain to atoi. The local cases' subscripts are negative (-2^28: below the stack).
    "gridrow": via_atoi("grid_at", "grid_at(atoi(a), atoi(b), seed)", "0xfffffffff0000000"),
    "gridcol": via_atoi("grid_at", "grid_at(atoi(a), atoi(b), seed)", "0xfffffffff0000000"),
    # clang -O0 takes the array's address (lea rax, [rbp - 0x90]) and the fill loop stores through
    # it: the walk cannot rule out that a store hits the subscript's slot (as aarch64 lindex -O0).
    # The subscript and its dimension are still decided (the registers at the access).
    "gridrow-clang-O0": [("stopped", "^grid_at$", "return grid[i][j]", None)],
    "gridcol-clang-O0": [("stopped", "^grid_at$", "return grid[i][j]", None)],
    "ggridrow": via_atoi("ggrid_at", "ggrid_at(atoi(a), atoi(b))", "0x10000000"),
    "ggridcol": via_atoi("ggrid_at", "ggrid_at(atoi(a), atoi(b))", "0x10000000"),
    "mgridrow": via_atoi("board_at", "board_at(bd, atoi(a), atoi(b))", "0x10000000"),
    "mgridcol": via_atoi("board_at", "board_at(bd, atoi(a), atoi(b))", "0x10000000"),
    "gload": via_atoi("table_item", "table_item(atoi(a))", "0x10000000"),
    # aarch64 gcc -O0 sums i * 8 + j into x0 for the local array, overwrites x1 (i * 8) with the
    # array's address (add x1, sp, #0x18) and w0, w1 (the parameters) with the reloads: neither
    # subscript is kept anywhere, which one is past its bound is not decided, and the chain says so.
    "aarch64:gridrow-gcc-O0": [("stopped", "^grid_at$", "return grid[i][j]", None)],
    "aarch64:gridcol-gcc-O0": [("stopped", "^grid_at$", "return grid[i][j]", None)],
}


# A chain expected to stop: the reason it must give.
STOP_REASON = {"aarch64:lindex-O0": "paths with different sources meet",
               "gridrow-clang-O0": "paths with different sources meet", "gridcol-clang-O0": "paths with different sources meet",
               "aarch64:gridrow-gcc-O0": "are summed by `add x0, x1, x0` before the access and neither is kept",
               "aarch64:gridcol-gcc-O0": "are summed by `add x0, x1, x0` before the access and neither is kept"}

# The object a load-from reads, named from the DWARF types: through a pointer parameter (field), and
# through two loads, a member by offset at each level (chain).
OBJECT = {"field": "n->cfg", "chain": "l->head->next", "global": "hooks->cfg", "gfield": "defaults.cfg"}

# A load from a global's member: the memory it read still holds the value (never set since).
HOLDS = {"gfield": "0x0"}

# The index's array and bound from its DWARF type (the global table[16], the local slots[12] of
# origin.c) and the element the faulting address falls in: the index itself (argv[2] of the case).
ARRAY = {"index": "table[16]", "lindex": "slots[12]", "mindex": "r->slots[8]",
         # malloc(48) is a 64-byte chunk with 56 usable bytes: the bound is what fits the block.
         "hindex": re.compile(r"^the heap block at 0x[0-9a-f]+ \(14 elements of 4 bytes\)$"),
         # rcgrid.c: (array, dimension): the index is that subscript (argv[2] the row, argv[3] the column).
         "gridrow": ("grid[4][8]", 1), "gridcol": ("grid[4][8]", 2),
         "ggridrow": ("ggrid[4][8]", 1), "ggridcol": ("ggrid[4][8]", 2),
         "mgridrow": ("b->cells[4][8]", 1), "mgridcol": ("b->cells[4][8]", 2),
         "gload": "g_table->items[16]"}
# Keys whose chain has no array step (see EXPECT).
NO_ARRAY = {"hindex-gcc-O0", "aarch64:hindex", "aarch64:hindex-gcc-O0", "aarch64:mindex", "aarch64:mindex-clang-O0",
            "aarch64:gridrow-gcc-O0", "aarch64:gridcol-gcc-O0"}


# gdb on the same core is the oracle of the rcgrid.c cases (x86-64): in frame 0, the subscript the
# index is of (by dimension) and the array's type, whose bounds the step's array must name.
GDB_ORACLE = {"grid": ("grid", ["i", "j"]), "ggrid": ("ggrid", ["i", "j"]), "mgrid": ("b->cells", ["i", "j"]),
              "gload": ("g_table->items", ["i"])}


def gdb_frame0(exe, core, exprs):
    """What gdb prints for each of @exprs in frame 0 of the core ("-268435456", "int [4][8]")."""
    cmds = ["-ex", "set pagination off", "-ex", "frame 0"]
    for e in exprs:
        cmds += ["-ex", "echo @@%s\\n" % e, "-ex", ("whatis %s" if e.startswith("whatis:") else "print %s") % e.split(":")[-1]]
    r = subprocess.run(["gdb", "-nx", "-batch", *cmds, exe, core], capture_output=True, text=True, timeout=120)
    out, cur = {}, None
    for line in r.stdout.split("\n"):
        if line.startswith("@@"):
            cur = line[2:]
        elif cur and re.match(r"^(\$\d+|type) = ", line):
            out[cur] = line.split(" = ", 1)[1].strip()
            cur = None
    return out


def check_gdb(prog_mode, first, exe, core):
    """The step's index and array against gdb's values in frame 0 (a subscript optimized out is not compared)."""
    array_expr, subscripts = GDB_ORACLE[prog_mode]
    dim = first.get("dimension") or 1
    want = gdb_frame0(exe, core, ["whatis:" + array_expr, subscripts[dim - 1]])
    errs = []
    gtype = want.get("whatis:" + array_expr, "")
    bounds = "".join(re.findall(r"\[\d+\]", gtype))
    if not bounds or not (first.get("array") or "").endswith(bounds):
        errs.append("array %s, gdb: whatis %s = %s" % (first.get("array"), array_expr, gtype))
    got = want.get(subscripts[dim - 1], "")
    if re.match(r"^-?\d+$", got) and int(got) != first.get("index"):
        errs.append("index %s, gdb: %s = %s" % (first.get("index"), subscripts[dim - 1], got))
    return errs


def run(tool, case, cores, sysroot):
    exe = os.path.join(cores, case, "exe")
    core = os.path.join(cores, case, "core")
    extra = ["--sysroot", sysroot] if sysroot else []
    out = subprocess.run([tool, "--no-abs-paths", "--format", "json"] + extra + [exe, core], capture_output=True,
                         text=True, timeout=120)
    return json.loads(out.stdout)


def expect_key(arch, mode, compiler, level):
    """The most specific expectation: the architecture's (and compiler's), then the optimization level's."""
    for key in (arch + ":" + mode + "-" + compiler + "-" + level, arch + ":" + mode + "-" + level, arch + ":" + mode,
                mode + "-" + compiler + "-" + level, mode + "-" + level, mode):
        if key in EXPECT:
            return key
    return mode


def check_case(case, mode, args, rep, source, lines, arch, cores):
    rc = rep.get("root_cause")
    level = case.rsplit("-", 1)[-1]
    key = expect_key(arch, mode, case.split("-")[2], level)
    if not rc:
        return ["no root_cause"]
    steps = list(rc["steps"])
    errs = []
    if mode in ARRAY and key not in NO_ARRAY:
        # On the first step (the fault's), with the chain's value, and in the sentence.
        first = steps[0] if steps else {}
        want = ARRAY[mode]
        dimension = None
        if isinstance(want, tuple):
            want, dimension = want
        want_index = int(args[dimension or 1])
        array = first.get("array") or ""
        ok = bool(want.match(array)) if hasattr(want, "match") else array == want
        if not ok or first.get("index") != want_index or first.get("dimension") != dimension:
            errs.append("first step: index %s into %s (dimension %s), expected %d into %s (dimension %s)" % (
                first.get("index"), array, first.get("dimension"), want_index, getattr(want, "pattern", want), dimension))
        phrase = "index %d into %s, past its bound" % (want_index, array)
        if dimension:
            dims = [int(d) for d in re.findall(r"\[(\d+)\]", want)]
            phrase = "index %d into %s, dimension %d of %d (bound %d), past its bound" % (
                want_index, want, dimension, len(dims), dims[dimension - 1])
        if phrase not in rc.get("summary", ""):
            errs.append("summary %r does not say %r" % (rc.get("summary"), phrase))
        if arch == "x86_64" and args[0] in GDB_ORACLE and first and shutil.which("gdb") and not hasattr(want, "match"):
            errs += check_gdb(args[0], first, os.path.join(cores, case, "exe"), os.path.join(cores, case, "core"))
        while steps and steps[0]["kind"] == "arith":
            steps.pop(0)
    want = EXPECT[key]
    if key in STOP_REASON and (not steps or STOP_REASON[key] not in (steps[-1].get("reason") or "")):
        errs.append("last step's reason %r does not say %r" % (steps[-1].get("reason") if steps else None, STOP_REASON[key]))
    if steps and steps[-1]["kind"] == "stopped" and key not in STOP_REASON:
        errs.append("the chain stops: %s" % steps[-1].get("reason"))
    if len(steps) != len(want):
        errs.append("%d steps, expected %d: %s" % (len(steps), len(want), [(s["kind"], s["function"], s["reason"]) for s in steps]))
    for i, (st, (kind, fn, text, value)) in enumerate(zip(steps, want)):
        if st["kind"] != kind:
            errs.append("step %d: kind %s, expected %s" % (i, st["kind"], kind))
        if not st["function"] or not re.search(fn, st["function"]):
            errs.append("step %d: function %s, expected %s" % (i, st["function"], fn))
        if st["file"] and st["file"].endswith(source):
            line = st["line"]
            if not line or line > len(lines) or text not in lines[line - 1]:
                errs.append("step %d: line %s (%r) does not hold %r" % (i, line, lines[line - 1] if line and line <= len(lines) else None, text))
        elif text is None and not st["file"]:
            pass  # expected without a place (a row of line 0)
        elif not (st["file"] or "").endswith("stdlib.h"):
            errs.append("step %d: file %s" % (i, st["file"]))
        if value is not None and st["value"] != value:
            errs.append("step %d: value %s, expected %s" % (i, st["value"], value))
    # The object a load-from reads, named from the DWARF type of the pointer parameter it goes through.
    if mode in OBJECT and steps and steps[0].get("object") != OBJECT[mode]:
        errs.append("object %s, expected %s" % (steps[0].get("object"), OBJECT[mode]))
    if mode in HOLDS and steps and steps[0].get("holds") != HOLDS[mode]:
        errs.append("holds %s, expected %s" % (steps[0].get("holds"), HOLDS[mode]))
    if "summary" not in rc or not rc["summary"]:
        errs.append("no summary")
    return errs


def main():
    argv = sys.argv[1:]
    arch, sysroot = "x86_64", None
    while argv[:1] in (["--arch"], ["--sysroot"]):
        if argv[0] == "--arch":
            arch = argv[1]
        else:
            sysroot = argv[1]
        argv = argv[2:]
    if len(argv) != 4:
        print(__doc__)
        return 2
    tool, tsv, cores, srcdir = argv
    prefix = "" if arch == "x86_64" else arch + "-"
    sources = {}
    ran = failed = 0
    for row in open(tsv, encoding="utf-8"):
        cols = row.rstrip("\n").split("\t")
        if len(cols) < 6:
            continue
        case = cols[0]
        if prefix and not case.startswith("rc-"):
            continue
        if not os.path.exists(os.path.join(cores, prefix + case, "core")):
            continue
        try:
            rep = run(tool, prefix + case, cores, sysroot)
        except (subprocess.SubprocessError, ValueError) as e:
            if case.startswith("rc-"):
                print("FAIL %s: %s" % (case, e))
                failed += 1
            continue
        if case.startswith("rc-"):
            ran += 1
            mode = case.split("-")[1]
            if cols[1] not in sources:
                sources[cols[1]] = open(os.path.join(srcdir, cols[1]), encoding="utf-8").read().split("\n")
            errs = check_case(case, mode, cols[3].split(), rep, cols[1], sources[cols[1]], arch, cores)
        else:
            errs = []
            rc = rep.get("root_cause")
            for st in (rc or {}).get("steps", []):
                if st["kind"] == "stopped" and not st["reason"]:
                    errs.append("stopped without a reason")
        if errs:
            failed += 1
            print("FAIL %s%s: %s" % (prefix, case, "; ".join(errs)))
        elif case.startswith("rc-"):
            print("ok   %s%s: %s" % (prefix, case, rep["root_cause"]["summary"]))
    if not ran:
        print("no rc-* cores")
        return 77
    print("%d rc cases, %d failures" % (ran, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
