#!/usr/bin/env python3
"""No file includes a folder of a later stage (docs/architecture.md, "Stages").

Every `#include "..."` in src/ and include/ is resolved the way the compiler does (the including
file's own directory, then src/, then include/) to the folder it lands in; a file may include its
own folder and the folders of earlier stages only. Folders of the same stage (the pipelines) do not
include each other. A folder of src/ missing from STAGES fails too: a new folder takes its place in
the order here and in docs/architecture.md.

Usage: check_layers.py ROOT      check the tree at ROOT (the repository)
       check_layers.py --self-test   show that a violation is found (a tree made in a temporary directory)
"""
import os
import re
import sys
import tempfile

# Earlier first. "coretriage" is the public include/coretriage/ (model and error types); "." is
# src/analyze.c (the pipeline choice); the pipelines share one stage.
STAGES = [
    ["coretriage"],
    ["util"],
    ["arch"],
    ["dump"],
    ["input"],
    ["modules"],
    ["unwind"],
    ["values"],
    ["triage"],
    ["report"],
    ["process", "kernel", "trail"],
    ["."],
    ["cli"],
]
RANK = {folder: i for i, stage in enumerate(STAGES) for folder in stage}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(root, path):
    """The stage folder of a file of the tree (a path relative to root), None outside src/ and include/."""
    parts = path.split(os.sep)
    if parts[0] == "src":
        return parts[1] if len(parts) > 2 else "."
    if parts[0] == "include" and len(parts) > 2:
        return parts[1]
    return None


def resolve(root, path, name):
    """The file an include of @name in @path (relative) names, relative to root; None when not found."""
    for base in (os.path.dirname(path), "src", "include"):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def check(root):
    problems = []
    for top in ("src", "include"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            rel_dir = os.path.relpath(dirpath, root)
            if top == "src" and rel_dir != "src" and os.path.dirname(rel_dir) == "src":
                if os.path.basename(rel_dir) not in RANK:
                    problems.append(f"{rel_dir}/: a folder with no stage (add it to STAGES in tests/check_layers.py "
                                    "and to docs/architecture.md)")
            for fn in sorted(filenames):
                if not fn.endswith((".c", ".h")):
                    continue
                path = os.path.join(rel_dir, fn)
                own = folder_of(root, path)
                if own not in RANK:
                    continue
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = resolve(root, path, m.group(1))
                        if target is None:
                            problems.append(f"{path}:{lineno}: \"{m.group(1)}\" is not a file of the tree")
                            continue
                        other = folder_of(root, target)
                        if other is None or other == own:
                            continue
                        if other not in RANK:
                            continue  # reported once above as a folder with no stage
                        if RANK[other] >= RANK[own]:
                            why = "a later stage" if RANK[other] > RANK[own] else "another folder of the same stage"
                            problems.append(f"{path}:{lineno}: includes {target} ({other}/ is {why} than {own}/)")
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        files = {
            "src/util/a.h": "",
            "src/process/process.h": '#include "util/a.h"\n',
            "src/triage/triage.c": '#include "process/process.h"\n',
            "src/kernel/k.c": '#include "process/process.h"\n',
            "src/bogus/b.c": "",
        }
        for name, text in files.items():
            os.makedirs(os.path.join(tmp, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        problems = check(tmp)
        want = ["src/triage/triage.c:1:", "src/kernel/k.c:1:", "src/bogus/"]
        missing = [w for w in want if not any(p.startswith(w) for p in problems)]
        if missing or len(problems) != len(want):
            print("self-test: expected violations", want, "got", problems)
            return 1
        print("self-test: the three planted violations are found")
        return 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} include(s) against the stage order (docs/architecture.md)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
