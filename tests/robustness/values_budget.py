#!/usr/bin/env python3
"""Hostile DWARF for the values reader (issue 22, defects 3, 4, 5): each case writes an assembly
file whose code crashes and whose .debug_info is written by hand here, assembles and links it
with a small C main, crashes it for a real core, and checks that coretriage ends in time (CPU
seconds), in bounded memory, with a complete JSON report and, where a budget is met, its warning.

    values_budget.py --coretriage BIN --workdir DIR --case NAME

Cases:
  array-wrap    a parameter whose array type has six dimensions whose counts multiply past 2^64
                to strides of 1 and 11 over 4096 zero bytes, of structs whose text fills 1 KiB:
                every element equal, folded into runs at every level (defect 3): the array's layout is refused, the report is written at once
  array-runs    a 4096-element array of equal bytes and a 2-D array of 2^62 × 4 equal structs of
                200 members: runs are folded, and each element and member counts against the value's
                cap (CT_VALUE_MAX_VISITS) and the elements budget
  entry-chain   five frames whose call sites pass DW_AT_GNU_call_site_value expressions of 2047
                DW_OP_GNU_entry_value operations each (defect 4: 2047^3 evaluations without a
                memo): the value, 2047^3, is computed once per frame; under a tiny --max-memory
                the expression budget stops the values with a budget-expr warning naming one
  entry-deep    seven frames whose call sites each pass their own entry value of rdi plus 1 (the
                outermost passes 1): f2's x (4 callers deep) is 4, f0's and f1's chains go past the
                4 callers an entry value may go through and are cut, with one entry-value-cap warning
                naming f0's x
  cxx-bases     a C++ parameter of type std::vector<int> (what libstdc++'s printer reads) whose class has
                100 base classes of a class with 100 base classes, 4 levels deep, and no _M_impl: the
                member search used to look at 100^4 children; each base is searched once
  enum-100k     an enum of 100,000 enumerators, none of them the value (each frame's rbp), on 2,000
                frames: each value compares at most 8,192, and the elements budget stops the values
  members-100k  a struct of 100,000 members (99,800 of them static declarations that are never
                shown) passed on 2,000 frames of a recursion (defect 5): the elements budget stops
                the values with a budget-elements warning naming the first one left out
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hostile  # noqa: E402
import malformed  # noqa: E402

# DWARF 4 numbers (DWARF 4 section 7; GNU extensions from GCC's dwarf2.def).
TAG = dict(compile_unit=0x11, subprogram=0x2E, formal_parameter=0x05, base_type=0x24, array_type=0x01,
           enumeration_type=0x04, enumerator=0x28,
           subrange_type=0x21, structure_type=0x13, member=0x0D, call_site=0x4109, call_site_parameter=0x410A,
           namespace=0x39, inheritance=0x1C)
AT = dict(name=0x03, byte_size=0x0B, encoding=0x3E, type=0x49, low_pc=0x11, high_pc=0x12, frame_base=0x40,
          count=0x37, data_member_location=0x38, language=0x13, external=0x3F, declaration=0x3C,
          location=0x02, abstract_origin=0x31, call_site_value=0x2111, const_value=0x1C)
FORM = dict(addr=0x01, data8=0x07, string=0x08, udata=0x0F, ref4=0x13, exprloc=0x18, flag_present=0x19)
OP_ADDR, OP_REG5, OP_PLUS, OP_LIT1, OP_STACK_VALUE, OP_CFA, OP_ENTRY = 0x03, 0x55, 0x22, 0x31, 0x9F, 0x9C, 0xF3
OP_BREG6 = 0x76  # rbp + offset
ATE_SIGNED, ATE_UNSIGNED = 0x05, 0x07
LANG_C99, LANG_CXX = 0x0C, 0x04


class Dwarf:
    """A .debug_info unit written as assembler directives; DIEs refer to each other by label."""

    def __init__(self):
        self.abbrevs = {}  # (tag, children, ((attr, form), ...)) -> code
        self.lines = []

    def die(self, tag, attrs, children=False, label=None):
        """@p attrs: [(attr, form, value)]; value is a number, a string, a label or a list of bytes."""
        key = (TAG[tag], children, tuple((AT[a], FORM[f]) for a, f, _ in attrs))
        code = self.abbrevs.setdefault(key, len(self.abbrevs) + 1)
        if label:
            self.lines.append(f"{label}:")
        self.lines.append(f"\t.uleb128 {code}")
        for a, f, v in attrs:
            if f == "string":
                self.lines.append('\t.asciz "%s"' % v)
            elif f == "addr":
                self.lines.append(f"\t.quad {v}")
            elif f == "data8":
                self.lines.append(f"\t.quad {v}")
            elif f == "udata":
                self.lines.append(f"\t.uleb128 {v}")
            elif f == "ref4":
                self.lines.append(f"\t.long {v} - .Lcu")
            elif f == "exprloc":
                self.lines.append(f"\t.uleb128 {len(v)}")
                for i in range(0, len(v), 32):
                    self.lines.append("\t.byte " + ", ".join(str(x) for x in v[i:i + 32]))
        return self

    def end_children(self):
        self.lines.append("\t.byte 0")

    def repeat_die(self, tag, attrs, count):
        """@p count DIEs of @p tag whose attributes @p attrs [(attr, form)] take no bytes
        (flag_present): one abbreviation byte each."""
        key = (TAG[tag], False, tuple((AT[a], FORM[f]) for a, f in attrs))
        code = self.abbrevs.setdefault(key, len(self.abbrevs) + 1)
        assert code < 128
        self.lines.append(f"\t.fill {count}, 1, {code}")

    def text(self):
        out = ["\t.section .debug_abbrev,\"\",@progbits", ".Labbrev:"]
        for (tag, children, attrs), code in self.abbrevs.items():
            out.append(f"\t.uleb128 {code}\n\t.uleb128 {tag}\n\t.byte {1 if children else 0}")
            for a, f in attrs:
                out.append(f"\t.uleb128 {a}\n\t.uleb128 {f}")
            out.append("\t.byte 0, 0")
        out.append("\t.byte 0")
        out += ["\t.section .debug_info,\"\",@progbits", ".Lcu:", "\t.long .Lcu_end - .Lcu - 4", "\t.short 4",
                "\t.long .Labbrev", "\t.byte 8"]
        out += self.lines
        out += [".Lcu_end:",
                # .debug_aranges: the unit covers the case's code, so pcs find it without a CU scan.
                "\t.section .debug_aranges,\"\",@progbits", "\t.long .Lar_end - .Lar_start", ".Lar_start:",
                "\t.short 2", "\t.long .Lcu", "\t.byte 8, 0", "\t.long 0",
                "\t.quad .Ltext_start, .Ltext_end - .Ltext_start", "\t.quad 0, 0", ".Lar_end:"]
        return "\n".join(out) + "\n"


def frame_fn(name, body):
    """A frame-pointer function @p name whose @p body (lines) sits between prologue and epilogue."""
    return [f"\t.globl {name}", f"\t.type {name}, @function", f"{name}:", "\t.cfi_startproc", "\tpushq %rbp",
            "\t.cfi_def_cfa_offset 16", "\t.cfi_offset 6, -16", "\tmovq %rsp, %rbp", "\t.cfi_def_cfa_register 6"] + \
        body + ["\tpopq %rbp", "\t.cfi_def_cfa 7, 8", "\tret", "\t.cfi_endproc", f".L{name}_end:",
                f"\t.size {name}, .-{name}"]


CRASH = ["\tmovl $0, 0"]  # a write to address 0: SIGSEGV


def unit(d, lang=LANG_C99):
    """The compile unit DIE around the case's DIEs (added by the caller after this)."""
    d.die("compile_unit", [("name", "string", "hostile.s"), ("language", "udata", lang),
                           ("low_pc", "addr", ".Ltext_start"), ("high_pc", "data8", ".Ltext_end - .Ltext_start")],
          children=True)


def subprogram(d, name, label, children=True):
    d.die("subprogram", [("name", "string", name), ("low_pc", "addr", name),
                         ("high_pc", "data8", f".L{name}_end - {name}"), ("frame_base", "exprloc", [OP_CFA])],
          children=children, label=label)


def param_at(d, name, type_label, sym):
    # DW_OP_addr SYM: the exprloc's 9 bytes are written by hand (the address is a relocation).
    key = (TAG["formal_parameter"], False, ((AT["name"], FORM["string"]), (AT["type"], FORM["ref4"]),
                                            (AT["location"], FORM["exprloc"])))
    code = d.abbrevs.setdefault(key, len(d.abbrevs) + 1)
    d.lines += [f"\t.uleb128 {code}", '\t.asciz "%s"' % name, f"\t.long {type_label} - .Lcu",
                "\t.uleb128 9", f"\t.byte {OP_ADDR}", f"\t.quad {sym}"]


def base_types(d):
    d.die("base_type", [("name", "string", "u8"), ("byte_size", "udata", 1),
                        ("encoding", "udata", ATE_UNSIGNED)], label=".Lu8")
    d.die("base_type", [("name", "string", "long"), ("byte_size", "udata", 8), ("encoding", "udata", ATE_SIGNED)],
          label=".Llong")


def array_type(d, label, dims, elem=".Lu8", byte_size=4096):
    d.die("array_type", [("type", "ref4", elem), ("byte_size", "udata", byte_size)], children=True, label=label)
    for n in dims:
        d.die("subrange_type", [("count", "udata", n)])
    d.end_children()


def cell_type(d):
    """struct cell: one byte seen through 200 members at offset 0, so that each element's text
    fills its 1 KiB and every element of an all-zero array renders the same."""
    d.die("structure_type", [("name", "string", "cell"), ("byte_size", "udata", 1)], children=True, label=".Lcell")
    for i in range(200):
        d.die("member", [("name", "string", f"m{i}"), ("type", "ref4", ".Lu8"), ("data_member_location", "udata", 0)])
    d.end_children()


def source_array_wrap():
    d = Dwarf()
    unit(d)
    base_types(d)
    cell_type(d)
    # 11 * inv = 1 (mod 2^64), both below 2^63: the strides are 11 and 1 by turns, every level
    # holds more than gdb's 10 equal elements, and each level folds them into one run: without a
    # count of the elements folded, (372 * 11)^3 cells (six levels: the cells are within gdb's depth).
    inv = pow(11, -1, 1 << 64)
    assert 11 * inv % (1 << 64) == 1 and inv < 1 << 63
    array_type(d, ".Lwrap", [inv, 11] * 3, elem=".Lcell")
    subprogram(d, "start_case", None)
    param_at(d, "a", ".Lwrap", "zeros")
    d.end_children()
    d.end_children()
    return frame_fn("start_case", CRASH), d


def source_array_runs():
    d = Dwarf()
    unit(d)
    base_types(d)
    cell_type(d)
    array_type(d, ".Lflat", [4096])
    array_type(d, ".Lwide", [1 << 62, 4], elem=".Lcell")
    subprogram(d, "start_case", None)
    param_at(d, "flat", ".Lflat", "zeros")
    param_at(d, "wide", ".Lwide", "zeros")
    d.end_children()
    d.end_children()
    return frame_fn("start_case", CRASH), d


ENTRY_OPS = 2047  # with 2046 DW_OP_plus: 4093 operations, under the evaluator's 4096 steps


def source_entry_chain():
    d = Dwarf()
    unit(d)
    base_types(d)
    code = []
    chain = [OP_ENTRY, 1, OP_REG5] + [OP_ENTRY, 1, OP_REG5, OP_PLUS] * (ENTRY_OPS - 1)
    for i in range(5):
        name = f"f{i}"
        body = CRASH if i == 0 else [f"\tcall f{i - 1}", f".Lret{i}:"]
        code += frame_fn(name, body)
        subprogram(d, name, f".Ldie_f{i}")
        d.die("formal_parameter", [("name", "string", "x"), ("type", "ref4", ".Llong"),
                                   ("location", "exprloc", [OP_ENTRY, 1, OP_REG5, OP_STACK_VALUE])])
        if i:
            d.die("call_site", [("low_pc", "addr", f".Lret{i}"), ("abstract_origin", "ref4", f".Ldie_f{i - 1}")],
                  children=True)
            # The outermost site passes 1; every other passes the sum of 2047 entry values of rdi.
            d.die("call_site_parameter", [("location", "exprloc", [OP_REG5]),
                                          ("call_site_value", "exprloc", [OP_LIT1] if i == 4 else chain)])
            d.end_children()
        d.end_children()
    code += frame_fn("start_case", ["\tcall f4"])
    d.end_children()
    return code, d


ENTRY_FRAMES = 7


def source_entry_deep():
    d = Dwarf()
    unit(d)
    base_types(d)
    code = []
    for i in range(ENTRY_FRAMES):
        name = f"f{i}"
        body = CRASH if i == 0 else [f"\tcall f{i - 1}", f".Lret{i}:"]
        code += frame_fn(name, body)
        subprogram(d, name, f".Ldie_f{i}")
        d.die("formal_parameter", [("name", "string", "x"), ("type", "ref4", ".Llong"),
                                   ("location", "exprloc", [OP_ENTRY, 1, OP_REG5, OP_STACK_VALUE])])
        if i:
            d.die("call_site", [("low_pc", "addr", f".Lret{i}"), ("abstract_origin", "ref4", f".Ldie_f{i - 1}")],
                  children=True)
            last = i == ENTRY_FRAMES - 1
            d.die("call_site_parameter", [("location", "exprloc", [OP_REG5]),
                                          ("call_site_value", "exprloc",
                                           [OP_LIT1] if last else [OP_ENTRY, 1, OP_REG5, OP_LIT1, OP_PLUS])])
            d.end_children()
        d.end_children()
    code += frame_fn("start_case", [f"\tcall f{ENTRY_FRAMES - 1}"])
    d.end_children()
    return code, d


BASES, BASE_LEVELS = 100, 4


def source_cxx_bases():
    d = Dwarf()
    unit(d, LANG_CXX)
    base_types(d)
    # The innermost class: one byte; each level above it: BASES base classes of the level below.
    d.die("structure_type", [("name", "string", "leaf"), ("byte_size", "udata", 1)], children=True, label=".Lbase0")
    d.die("member", [("name", "string", "x"), ("type", "ref4", ".Lu8"), ("data_member_location", "udata", 0)])
    d.end_children()
    for level in range(1, BASE_LEVELS + 1):
        d.die("structure_type", [("name", "string", f"base{level}"), ("byte_size", "udata", 1)], children=True,
              label=f".Lbase{level}")
        for _ in range(BASES):
            d.die("inheritance", [("type", "ref4", f".Lbase{level - 1}"), ("data_member_location", "udata", 0)])
        d.end_children()
    d.die("namespace", [("name", "string", "std")], children=True)
    d.die("structure_type", [("name", "string", "vector<int, std::allocator<int> >"), ("byte_size", "udata", 24)],
          children=True, label=".Lvec")
    for _ in range(BASES):
        d.die("inheritance", [("type", "ref4", f".Lbase{BASE_LEVELS}"), ("data_member_location", "udata", 0)])
    d.end_children()
    d.end_children()
    subprogram(d, "start_case", None)
    param_at(d, "v", ".Lvec", "zeros")
    d.end_children()
    d.end_children()
    return frame_fn("start_case", CRASH), d


# 4,400 static member declarations (visited, never shown) before 95,600 members: 4,525 elements
# per value (the first 125 fill the 1 KiB of its text), 9 Mi over 2,001 frames, past the default 8 Mi.
MEMBERS, STATIC_MEMBERS, DEPTH = 100000, 4400, 2000


def source_members():
    d = Dwarf()
    unit(d)
    base_types(d)
    d.die("structure_type", [("name", "string", "big"), ("byte_size", "udata", 4096)], children=True, label=".Lbig")
    # Static member declarations first (never shown, but each is visited), then shown members.
    d.repeat_die("member", [("declaration", "flag_present")], STATIC_MEMBERS)
    for i in range(MEMBERS - STATIC_MEMBERS):
        d.die("member", [("name", "string", f"m{i}"), ("type", "ref4", ".Lu8"), ("data_member_location", "udata", i)])
    d.end_children()
    subprogram(d, "rec", None)
    param_at(d, "s", ".Lbig", "zeros")
    d.end_children()
    d.end_children()
    # rec(n): recurses n times through a real call, then crashes.
    return recursion(), d


def recursion():
    """rec(n): recurses n times through a real call (returning to .Lrec_ret), then crashes."""
    code = frame_fn("rec", ["\ttestl %edi, %edi", "\tjz .Lrec_crash", "\tdecl %edi", "\tcall rec", ".Lrec_ret:",
                            "\tjmp .Lrec_out", ".Lrec_crash:"] + CRASH + [".Lrec_out:"])
    return code + frame_fn("start_case", [f"\tmovl ${DEPTH}, %edi", "\tcall rec"])


STEP_OPS = 2047  # lit1 and 2046 × (lit1, plus): 4093 steps, the value 2047


def source_expr_steps():
    d = Dwarf()
    unit(d)
    base_types(d)
    subprogram(d, "rec", ".Ldie_rec")
    d.die("formal_parameter", [("name", "string", "x"), ("type", "ref4", ".Llong"),
                               ("location", "exprloc", [OP_ENTRY, 1, OP_REG5, OP_STACK_VALUE])])
    d.die("call_site", [("low_pc", "addr", ".Lrec_ret"), ("abstract_origin", "ref4", ".Ldie_rec")], children=True)
    d.die("call_site_parameter", [("location", "exprloc", [OP_REG5]),
                                  ("call_site_value", "exprloc", [OP_LIT1] + [OP_LIT1, OP_PLUS] * (STEP_OPS - 1))])
    d.end_children()
    d.end_children()
    d.end_children()
    return recursion(), d


ENUMERATORS = 100000


def source_enum():
    d = Dwarf()
    unit(d)
    base_types(d)
    d.die("enumeration_type", [("name", "string", "kind"), ("byte_size", "udata", 8), ("type", "ref4", ".Llong")],
          children=True, label=".Lkind")
    for i in range(ENUMERATORS):
        d.die("enumerator", [("const_value", "udata", i + 1)])
    d.end_children()
    subprogram(d, "rec", None)
    # The frame's rbp as the value: distinct on each frame (no memo), never an enumerator's.
    d.die("formal_parameter", [("name", "string", "k"), ("type", "ref4", ".Lkind"),
                               ("location", "exprloc", [OP_BREG6, 0, OP_STACK_VALUE])])
    d.end_children()
    d.end_children()
    return recursion(), d


SOURCES = {"array-wrap": source_array_wrap, "array-runs": source_array_runs, "entry-chain": source_entry_chain,
           "entry-deep": source_entry_deep, "cxx-bases": source_cxx_bases,
           "expr-steps": source_expr_steps, "members-100k": source_members, "enum-100k": source_enum}

# The zero bytes the parameters point at are written first: a bss page never touched is not in the core.
MAIN = ("#include <string.h>\nextern char zeros[8192];\nvoid start_case(void);\n"
        "int main(void) { memset(zeros, 0, sizeof(zeros)); start_case(); return 0; }\n")


def build_case(workdir, case):
    d = os.path.join(workdir, case)
    os.makedirs(d, exist_ok=True)
    code, dwarf = SOURCES[case]()
    asm = os.path.join(d, "hostile.s")
    with open(asm, "w") as f:
        f.write("\t.text\n.Ltext_start:\n" + "\n".join(code) + "\n.Ltext_end:\n")
        f.write("\t.bss\n\t.align 64\n\t.globl zeros\nzeros:\n\t.zero 8192\n")
        f.write(dwarf.text())
        f.write("\t.section .note.GNU-stack,\"\",@progbits\n")
    main = os.path.join(d, "main.c")
    with open(main, "w") as f:
        f.write(MAIN)
    exe = os.path.join(d, "prog")
    subprocess.run(["gcc", "-O0", "-fno-omit-frame-pointer", "-o", exe, main, asm], check=True)
    for f in os.listdir(d):
        if f == "core" or f.startswith("core."):
            os.unlink(os.path.join(d, f))
    return exe, malformed.crash_for_core(exe, d, case)


def frame_values(rep, name):
    """{variable name: value} of the first frame of the crashing thread named @p name."""
    for t in rep.get("threads", []):
        for fr in t.get("frames", []):
            if fr.get("function") == name:
                return {v["name"]: v.get("value") for v in fr.get("parameters", [])}
    return None


def run(a, f, exe, core, extra=(), cpu=2.0):
    r = hostile.Run([a.coretriage, "--format=json", "--timeout=600"] + list(extra) + [exe, core], timeout=300,
                    watch_rss=True)
    f.check(r.rc in (0, 1) and not r.sanitizer, f"{a.case} {list(extra)}: {r.describe()}")
    f.check(r.cpu_seconds < cpu, f"{a.case} {list(extra)}: {r.cpu_seconds:.2f} s of CPU (limit {cpu} s)")
    f.check(r.peak_rss_kib < 512 * 1024, f"{a.case} {list(extra)}: peak RSS {r.peak_rss_kib} KiB")
    rep = r.json()
    f.check(rep is not None, f"{a.case} {list(extra)}: the JSON report is complete")
    print(f"{a.case} {list(extra)}: exit {r.rc}, {r.cpu_seconds:.2f} s CPU, {r.peak_rss_kib} KiB, "
          f"diagnostics {hostile.diag_codes(rep) if rep else None}")
    return rep or {}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--coretriage", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--case", required=True, choices=sorted(SOURCES))
    a = p.parse_args()
    f = hostile.Failures()
    try:
        exe, core = build_case(a.workdir, a.case)
    except (OSError, subprocess.SubprocessError, RuntimeError) as e:
        print(f"SKIP: cannot build and crash the {a.case} program: {e}")
        return 77
    if a.case == "array-wrap":
        for extra in ([], ["--safe"]):
            rep = run(a, f, exe, core, extra)
            vals = frame_values(rep, "start_case")
            f.check(vals is not None and vals.get("a") == "{...}", f"array-wrap: a = {vals}")
            msgs = [d["message"] for d in rep.get("diagnostics", []) if d.get("code") == "value-cap"]
            f.check(any("parameter a of start_case" in m and "2^64" in m for m in msgs), f"array-wrap: warning {msgs}")
    elif a.case == "array-runs":
        rep = run(a, f, exe, core)
        vals = frame_values(rep, "start_case")
        f.check(vals is not None and vals.get("flat") == "{0 <repeats 4096 times>}", f"array-runs: flat = {vals}")
        msgs = [d["message"] for d in rep.get("diagnostics", []) if d.get("code") == "value-cap"]
        f.check(any("parameter wide of start_case" in m for m in msgs), f"array-runs: warning {msgs}")
        # 1024 rows of 4 equal cells, each visiting 125 members: past the 8192 elements one
        # value may visit (CT_VALUE_MAX_VISITS), so the rows stop early with "...".
        wide = vals.get("wide") if vals else None
        f.check(wide is not None and wide.startswith("{{{m0 = 0, m1 = 0") and wide.endswith("..."),
                f"array-runs: wide = {wide}")
    elif a.case == "entry-chain":
        rep = run(a, f, exe, core)
        vals = frame_values(rep, "f0")
        f.check(vals is not None and vals.get("x") == str(ENTRY_OPS ** 3), f"entry-chain: x = {vals}, want {ENTRY_OPS ** 3}")
        f.check("entry-value-cap" not in hostile.diag_codes(rep), "entry-chain: 4 callers deep is within the cap")
    elif a.case == "entry-deep":
        rep = run(a, f, exe, core)
        xs = {i: (frame_values(rep, f"f{i}") or {}).get("x") for i in range(ENTRY_FRAMES)}
        # f(k)'s x is its callers' count to the outermost site: 6 - k, known within 4 callers.
        for i in range(2, ENTRY_FRAMES - 1):
            f.check(xs[i] == str(ENTRY_FRAMES - 1 - i), f"entry-deep: f{i}'s x = {xs[i]}, want {ENTRY_FRAMES - 1 - i}")
        for i in (0, 1):
            f.check(xs[i] is None or not re.fullmatch(r"-?\d+", xs[i]), f"entry-deep: f{i}'s x = {xs[i]}: not cut")
        msgs = [d["message"] for d in rep.get("diagnostics", []) if d.get("code") == "entry-value-cap"]
        f.check(len(msgs) == 1 and "parameter x of f0" in msgs[0], f"entry-deep: entry-value-cap warnings {msgs}")
    elif a.case == "expr-steps":
        rep = run(a, f, exe, core)
        xs = [v.get("value") for t in rep.get("threads", []) for fr in t.get("frames", []) if fr.get("function") == "rec"
              for v in fr.get("parameters", []) if v.get("name") == "x"]
        # Every rec frame but the outermost (called from start_case, which has no call site) has x.
        f.check(xs.count(str(STEP_OPS)) == DEPTH, f"expr-steps: {xs.count(str(STEP_OPS))} frames with x = {STEP_OPS}")
        f.check("budget-expr" not in hostile.diag_codes(rep), "expr-steps: the default budget holds 8 Mi steps")
        # 64 MiB under --safe: 131,072 steps, 32 call-site values.
        rep = run(a, f, exe, core, ["--safe", "--max-memory=64"])
        f.check("budget-expr" in hostile.diag_codes(rep), f"expr-steps: no budget-expr warning: {hostile.diag_codes(rep)}")
        msgs = [d["message"] for d in rep.get("diagnostics", []) if d.get("code") == "budget-expr"]
        f.check(any("parameter x of rec" in m for m in msgs), f"expr-steps: the warning names the parameter: {msgs}")
        frames = [fr for t in rep.get("threads", []) for fr in t.get("frames", []) if fr.get("function") == "rec"]
        f.check(len(frames) == DEPTH + 1, f"expr-steps --safe: {len(frames)} rec frames, want {DEPTH + 1}")
    elif a.case == "cxx-bases":
        for extra in ([], ["--safe"]):
            rep = run(a, f, exe, core, extra)
            vals = frame_values(rep, "start_case")
            # Not a vector after all: the plain structure, its bases shown in part.
            v = (vals or {}).get("v")
            f.check(v is not None and v.startswith("{"), f"cxx-bases {extra}: v = {v}")
    elif a.case == "enum-100k":
        for extra in ([], ["--safe"]):
            rep = run(a, f, exe, core, extra)
            f.check("budget-elements" in hostile.diag_codes(rep),
                    f"enum-100k {extra}: no budget-elements warning: {hostile.diag_codes(rep)}")
            ks = [v.get("value") for t in rep.get("threads", []) for fr in t.get("frames", [])
                  if fr.get("function") == "rec" for v in fr.get("parameters", []) if v.get("name") == "k"]
            # Values shown before the budget ran out are the numbers (no enumerator matches).
            f.check(ks and all(k is None or re.fullmatch(r"\d+", k) for k in ks), f"enum-100k {extra}: k = {ks[:3]}")
    elif a.case == "members-100k":
        for extra in ([], ["--safe"]):
            rep = run(a, f, exe, core, extra)
            f.check("budget-elements" in hostile.diag_codes(rep),
                    f"members-100k {extra}: no budget-elements warning: {hostile.diag_codes(rep)}")
            frames = [fr for t in rep.get("threads", []) for fr in t.get("frames", []) if fr.get("function") == "rec"]
            f.check(len(frames) == DEPTH + 1, f"members-100k {extra}: {len(frames)} rec frames, want {DEPTH + 1}")
            first = frame_values(rep, "rec") or {}
            f.check(str(first.get("s", "")).startswith("{m0 = 0, m1 = 0, m2 = 0"), f"members-100k: s = {first}")
    return f.exit()


if __name__ == "__main__":
    sys.exit(main())
