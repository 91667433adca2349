#!/usr/bin/env python3
"""No strcmp on a verdict word in src/ (docs/architecture.md, "The verdict's vocabulary").

The analysis decides in enums; the words of its vocabularies (crash classes, confidence, access,
address kinds, heap subclasses, mutex types, lock kinds, wait objects) exist only in their one table
each, for the writers and for batch reading reports back. A `strcmp`/`strncmp`/`strcasecmp` whose
arguments hold one of those words as a literal, or a model field that carries one (`class_id`, `cls`,
`confidence`, a stop's `stop_reason`, `subclass`, `access`, `address_kind`, a lock's `type`), is a decision on a string:
this check fails on it.

Usage: check_verdict_words.py ROOT     check the tree at ROOT
       check_verdict_words.py --self-test   show that a planted comparison is found
"""
import os
import re
import sys
import tempfile

# The tables the words come from: file, and the regex of the table's body whose literals are words.
TABLES = [
    ("src/model/verdicts.c", None),  # every literal of the file is a word of a verdict table
    ("src/model/hang_model.c", None),
    ("src/triage/locks.c", re.compile(r"mutex_types\[[^\]]*\]\s*=\s*\{([^}]*)\}")),
    ("src/triage/facts.c", re.compile(r"heap_subclasses\[[^\]]*\]\s*=\s*\{(.*?)\n\};", re.S)),
]
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
COMPARE = re.compile(r"\bstr(?:n)?(?:case)?cmp\s*\(")
FIELDS = re.compile(r"(?:->|\.)(class_id|cls|confidence|subclass|access|address_kind|stop_reason)\b|(?:->|\.)type\b(?=[^;]*\"(?:recursive|error-checking|normal|adaptive)\")")
# Literals that are a word of a table by chance, each with its reason.
EXEMPT = {
    ("src/triage/insn_generic.c", "trap"): "PowerPC's trap mnemonic from capstone, not the class",
}
# A word must look like a vocabulary id: lower case, digits and dashes (not a sentence or a format).
WORD = re.compile(r"^[a-z][a-z0-9-]*$")


def words(root):
    out = set()
    for path, body in TABLES:
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            continue
        text = open(full, encoding="utf-8", errors="replace").read()
        parts = [m.group(1) for m in body.finditer(text)] if body else [text]
        for part in parts:
            for lit in LITERAL.findall(part):
                if WORD.match(lit) and len(lit) > 2:
                    out.add(lit)
    return out


def call_args(code, start):
    """The text from the call's '(' at code[start-1] to its matching ')' (or the line's end)."""
    depth, i = 1, start
    while i < len(code) and depth:
        depth += {"(": 1, ")": -1}.get(code[i], 0)
        i += 1
    return code[start:i]


def check(root):
    vocab = words(root)
    problems = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, "src")):
        dirnames.sort()
        for fn in sorted(filenames):
            if not fn.endswith((".c", ".h")):
                continue
            path = os.path.relpath(os.path.join(dirpath, fn), root)
            with open(os.path.join(dirpath, fn), encoding="utf-8", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    code = line.split("//", 1)[0]
                    for m in COMPARE.finditer(code):
                        args = call_args(code, m.end())
                        lits = [l for l in LITERAL.findall(args) if l in vocab and (path, l) not in EXEMPT]
                        field = FIELDS.search(args)
                        if lits or field:
                            what = f'"{lits[0]}"' if lits else f"`{field.group(0)}`"
                            problems.append(f"{path}:{lineno}: compares a verdict word ({what}) as a string: decide on "
                                            "the enum, render through its table")
    return problems, vocab


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        files = {
            "src/model/verdicts.c": 'static const char *n[] = { "null-deref", "high" };\n',
            "src/triage/locks.c": 'static const char *const mutex_types[4] = { "normal", "recursive" };\n',
            "src/triage/hang.c": 'int f(const char *t) { return !strcmp(t, "recursive"); }\n',
            "src/kernel/ksig.c": 'int g(const struct ct_crash *c) { return strcmp(c->class_id, x) == 0; }\n',
            "src/cli/ok.c": 'int h(const char *s) { return strcmp(s, "--format") == 0; }\n',
        }
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "w") as f:
                f.write(text)
        problems, vocab = check(tmp)
        want = {"src/triage/hang.c:1", "src/kernel/ksig.c:1"}
        got = {p.split(": ", 1)[0] for p in problems}
        if got != want or "recursive" not in vocab:
            print(f"self-test failed: found {sorted(got)}, wanted {sorted(want)}", file=sys.stderr)
            return 1
    print("self-test passed: planted comparisons of verdict words are found, other strcmp calls are not")
    return 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems, vocab = check(sys.argv[1])
    if len(vocab) < 20:
        print(f"only {len(vocab)} verdict words found in the tables: the tables moved?", file=sys.stderr)
        return 1
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"no strcmp on any of {len(vocab)} verdict words in src/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
