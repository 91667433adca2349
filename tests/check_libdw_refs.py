#!/usr/bin/env python3
"""No libdw call that follows a DIE reference the libdw way outside src/modules/dwarf_ref.c (issue 21).

libdw 0.188 resolves DW_FORM_ref_sup4/8 (DWARF 5 supplementary files, `dwz -5`) in the referring
file: dwarf_formref_die, and every libdw function built on it or on dwarf_attr_integrate, lands on
unrelated bytes of the main file (a wrong name, size or scope). src/modules/dwarf_ref.h has the
versions that resolve them in the supplementary file (ct_dwarf_ref_die, ct_dwarf_attr_integrate,
ct_dwarf_diename, ct_dwarf_peel_type, ct_dwarf_aggregate_size, ct_dwarf_bytesize), and
src/modules/scopes.h ct_dwarf_scopes. A call of a FORBIDDEN function anywhere else in src/ fails.

Usage: check_libdw_refs.py ROOT          check the tree at ROOT
       check_libdw_refs.py --self-test   show that a planted call is found and a comment is not
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lint_cli  # noqa: E402

# libdw functions that follow DW_AT_abstract_origin / DW_AT_specification / DW_AT_type references
# through dwarf_formref_die (libdw/dwarf_*.c of 0.188).
FORBIDDEN = [
    "dwarf_formref_die", "dwarf_attr_integrate", "dwarf_hasattr_integrate", "dwarf_diename",
    "dwarf_peel_type", "dwarf_aggregate_size", "dwarf_getscopes", "dwarf_getscopes_die",
    "dwarf_getscopevar", "dwarf_decl_file", "dwarf_decl_line", "dwarf_decl_column",
    "dwarf_func_inline_instances", "dwarf_bytesize", "dwarf_bitsize", "dwarf_bitoffset",
    "dwarf_arrayorder",
]
CALL = re.compile(r"(?<![\w.>])(" + "|".join(FORBIDDEN) + r")\s*\(")
ALLOWED = {os.path.join("src", "modules", "dwarf_ref.c")}
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def problems(root):
    out = []
    src = os.path.join(root, "src")
    for d, _, files in os.walk(src):
        for fn in sorted(files):
            if not fn.endswith((".c", ".h")):
                continue
            path = os.path.join(d, fn)
            rel = os.path.relpath(path, root)
            if rel in ALLOWED:
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            # Comments and strings may name the functions (this explains why they are not called).
            code = STRING.sub('""', COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text))
            for m in CALL.finditer(code):
                line = code.count("\n", 0, m.start()) + 1
                out.append("%s:%d: %s() follows DW_FORM_ref_sup into the wrong file: use modules/dwarf_ref.h"
                           % (rel, line, m.group(1)))
    return out


def self_test():
    with tempfile.TemporaryDirectory() as t:
        os.makedirs(os.path.join(t, "src", "values"))
        os.makedirs(os.path.join(t, "src", "modules"))
        with open(os.path.join(t, "src", "values", "bad.c"), "w") as f:
            f.write("// dwarf_diename(die) is wrong here\nint f(Dwarf_Die *d) { Dwarf_Word s;\n"
                    "  const char *n = \"dwarf_diename(\";\n  return dwarf_aggregate_size (d, &s); }\n")
        with open(os.path.join(t, "src", "modules", "dwarf_ref.c"), "w") as f:
            f.write("int g(Dwarf_Attribute *a, Dwarf_Die *r) { return !!dwarf_formref_die(a, r); }\n")
        with open(os.path.join(t, "src", "values", "good.c"), "w") as f:
            f.write("int h(Dwarf_Die *d) { Dwarf_Word s; return ct_dwarf_aggregate_size(d, &s); }\n")
        found = problems(t)
        if len(found) != 1 or "bad.c:4: dwarf_aggregate_size" not in found[0]:
            print("self-test: expected exactly bad.c:4, got %r" % found)
            return 1
    print("self-test: planted call found, comment, string, wrapper and dwarf_ref.c passed")
    return 0


if __name__ == "__main__":
    sys.exit(lint_cli.run(__doc__, problems, self_test, "forbidden libdw reference calls outside src/modules/dwarf_ref.c"))
