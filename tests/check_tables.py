#!/usr/bin/env python3
"""Holds the docs, the JSON schema and the call sites to the tables of the code.

Usage: check_tables.py PRINT_TABLES SOURCE_DIR

PRINT_TABLES (tests/unit/print_tables.c) lists the tables of src/model/verdicts.c (classes with their
scope, address kinds, confidence, access), the rule tables of src/triage/classify.c and
src/kernel/kclass.c, and src/model/diag_codes.c (every diagnostic code with its default severity).
Checked against them:
  - docs/classes.md: every class is named in its part (process or kernel dumps); the numbered rows of
    each part's rule table name the rules in the order of the code's rule table;
  - docs/schema/report.schema.json: crash.class, confidence, access and address_kind enums;
  - docs/json-report.md: the address kinds of crash.address_kind;
  - hang's wait.object and locks[].kind (src/model/hang_model.c): the schema's enums and their rows
    in docs/json-report.md;
  - docs/diagnostics.md: one row per diagnostic code with its default severity, nothing else;
  - src/model/diag_codes.c: each code's enum name spells its string (CT_DIAG_NO_NOTES, "no-notes");
  - src/: every code of the table is passed somewhere (as its enum; the compiler checks the rest).
"""
import json
import os
import re
import subprocess
import sys

errors = []


def fail(msg):
    errors.append(msg)


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return f.read()


def enum_name(code):
    return "CT_DIAG_" + code.upper().replace("-", "_")


def check_call_sites(root, codes):
    """Call sites pass enum ct_diag_code values (the compiler checks that they exist): each table
    entry's enum name spells its string, and each code is passed somewhere in src/."""
    table = read(root, "src/model/diag_codes.c")
    for m in re.finditer(r"\[(CT_DIAG_\w+)\]\s*=\s*\{\s*\"([^\"]+)\"", table):
        if m.group(1) != enum_name(m.group(2)):
            fail(f"src/model/diag_codes.c: {m.group(1)} is named \"{m.group(2)}\": "
                 f"the enum should be {enum_name(m.group(2))}")
    used = set()
    for dirpath, _, files in os.walk(os.path.join(root, "src")):
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            if not name.endswith((".c", ".h")) or rel == "src/model/diag_codes.c":
                continue
            used.update(re.findall(r"\bCT_DIAG_\w+", read(root, rel)))
    for code in codes:
        if enum_name(code) not in used:
            fail(f"diagnostic code \"{code}\" ({enum_name(code)}) of src/model/diag_codes.c is passed nowhere in src/")


def table_rows(part):
    """(number, class cell) of the numbered rows of the markdown tables in @part."""
    rows = []
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].isdigit():
            rows.append((int(cells[0]), cells[1]))
    return rows


def row_rule(cell):
    """The rule a row of docs/classes.md documents: "(`go-fault` rule)", else its first id."""
    m = re.search(r"\(`([a-z0-9-]+)` rule\)", cell)
    if m:
        return m.group(1)
    m = re.search(r"`([a-z0-9-]+)`", cell)
    return m.group(1) if m else None


def check_classes(root, classes, rules):
    doc = read(root, "docs/classes.md")
    marker = "# Crash classes of kernel dumps"
    if marker not in doc:
        fail(f"docs/classes.md: no section \"{marker}\"")
        return
    parts = {"process": doc[:doc.index(marker)], "kernel": doc[doc.index(marker):]}
    for name, scope in classes.items():
        for part in ("process", "kernel"):
            if scope in (part, "both") and f"`{name}`" not in parts[part]:
                fail(f"docs/classes.md: class `{name}` ({scope}) is not described in the {part} part")
    for part in ("process", "kernel"):
        rows = table_rows(parts[part])
        numbers = [n for n, _ in rows]
        if numbers != list(range(1, len(rows) + 1)):
            fail(f"docs/classes.md: the {part} table's rows are numbered {numbers}")
        doc_rules = [row_rule(cell) for _, cell in rows]
        if doc_rules != rules[part]:
            fail(f"docs/classes.md: the {part} table lists the rules {doc_rules}, the code's rule table "
                 f"is {rules[part]} (same order: the first rule that matches wins)")
        for _, cell in rows:
            for ident in re.findall(r"`([a-z0-9-]+)`", cell):
                if ident not in classes and ident not in rules[part]:
                    fail(f"docs/classes.md: `{ident}` in the {part} table is neither a class nor a rule")


def check_schema(root, classes, kinds, confidences, accesses):
    schema = json.loads(read(root, "docs/schema/report.schema.json"))
    crash = schema["definitions"]["crash"]["properties"] if "crash" in schema.get("definitions", {}) \
        else schema["properties"]["crash"]["properties"]

    def enum_of(prop):
        p = crash[prop]
        if "enum" in p:
            return set(p["enum"])
        for alt in p.get("oneOf", []):
            if "enum" in alt:
                return set(alt["enum"])
        return None

    for prop, want in (("class", set(classes)), ("address_kind", set(kinds)),
                       ("confidence", set(confidences)), ("access", set(accesses))):
        have = enum_of(prop)
        if have != want:
            fail(f"docs/schema/report.schema.json: crash.{prop} enum {sorted(have or [])} differs from the "
                 f"table {sorted(want)}")


def check_hang_enums(root, objects, lock_kinds):
    """hang's wait.object and locks[].kind: the schema's enums and docs/json-report.md's rows."""
    schema = json.loads(read(root, "docs/schema/report.schema.json"))
    defs = schema.get("definitions", {})
    doc = read(root, "docs/json-report.md")
    for where, prop, want in (("wait", "object", objects), ("lock", "kind", lock_kinds)):
        have = set(defs.get(where, {}).get("properties", {}).get(prop, {}).get("enum") or [])
        if have != set(want):
            fail(f"docs/schema/report.schema.json: {where}.{prop} enum {sorted(have)} differs from the table {sorted(want)}")
        rows = [l for l in doc.splitlines() if l.startswith(f"| `{prop}` |") and all(f"`{w}`" in l for w in want[:2])]
        if not rows:
            fail(f"docs/json-report.md: no row for {where}.{prop} listing the table {want}")
        elif sorted(set(re.findall(r"`([a-z-]+)`", rows[0].split("|")[3]))) != sorted(want):
            fail(f"docs/json-report.md: {where}.{prop} lists {re.findall(r'`([a-z-]+)`', rows[0].split('|')[3])}, "
                 f"the table has {want}")


def check_json_doc(root, kinds):
    doc = read(root, "docs/json-report.md")
    row = next((l for l in doc.splitlines() if l.startswith("| `address_kind`")), None)
    if not row:
        fail("docs/json-report.md: no row for `address_kind`")
        return
    listed = re.findall(r"`([a-z-]+)`", row.split("|")[3])
    if sorted(listed) != sorted(kinds):
        fail(f"docs/json-report.md: address_kind lists {listed}, the table has {kinds}")


def check_diag_doc(root, codes):
    if not os.path.exists(os.path.join(root, "docs/diagnostics.md")):
        fail("docs/diagnostics.md: missing")
        return
    doc = read(root, "docs/diagnostics.md")
    documented = {}
    for line in doc.splitlines():
        m = re.match(r"\|\s*`([a-z0-9-]+)`\s*\|\s*(info|warning|error)\s*\|", line)
        if m:
            if m.group(1) in documented:
                fail(f"docs/diagnostics.md: `{m.group(1)}` has two rows")
            documented[m.group(1)] = m.group(2)
    for code, sev in codes.items():
        if code not in documented:
            fail(f"docs/diagnostics.md: diagnostic code `{code}` is not documented")
        elif documented[code] != sev:
            fail(f"docs/diagnostics.md: `{code}` is documented as {documented[code]}, the table says {sev}")
    for code in documented:
        if code not in codes:
            fail(f"docs/diagnostics.md: `{code}` is not a code of src/model/diag_codes.c")


def main():
    printer, root = sys.argv[1], sys.argv[2]
    out = subprocess.run([printer], check=True, capture_output=True, text=True).stdout
    classes, rules, kinds, confidences, accesses, codes = {}, {"process": [], "kernel": []}, [], [], [], {}
    objects, lock_kinds = [], []
    for line in out.splitlines():
        f = line.split()
        if f[0] == "class":
            classes[f[1]] = f[2]
        elif f[0] == "rule":
            rules[f[1]].append(f[2])
        elif f[0] == "address-kind":
            kinds.append(f[1])
        elif f[0] == "confidence":
            confidences.append(f[1])
        elif f[0] == "access":
            accesses.append(f[1])
        elif f[0] == "wait-object":
            objects.append(f[1])
        elif f[0] == "lock-kind":
            lock_kinds.append(f[1])
        elif f[0] == "diag":
            codes[f[1]] = f[2]
    if not classes or not codes or not rules["process"] or not rules["kernel"]:
        fail(f"{printer} printed no tables")
    check_classes(root, classes, rules)
    check_schema(root, classes, kinds, confidences, accesses)
    check_json_doc(root, kinds)
    check_hang_enums(root, objects, lock_kinds)
    check_diag_doc(root, codes)
    check_call_sites(root, codes)
    for e in errors:
        print(e)
    print(f"{len(classes)} classes, {sum(map(len, rules.values()))} rules, {len(kinds)} address kinds, "
          f"{len(codes)} diagnostic codes: {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
