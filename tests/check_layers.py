#!/usr/bin/env python3
"""No file includes a folder of a later stage (docs/architecture.md, "Stages").

Every `#include "..."` in src/ and include/ is resolved the way the compiler does (the including
file's own directory, then src/, then include/) to the folder it lands in; a file may include its
own folder and the folders of earlier stages only. Folders of the same stage (the pipelines) do not
include each other. A folder of src/ missing from STAGES fails too: a new folder takes its place in
the order here and in docs/architecture.md.

The stages inside a pipeline (SINK_STAGES: modules, unwind, values, triage) return their own types
and write text through a struct ct_sink: in their folders `struct ct_report` and the report's
functions (`ct_report_*()`) appear only in a hand-off function (`…_to_report()`, e.g.
ct_verdict_move_to_report, ct_stacks_move_to_report, ct_modules_to_report); any other use fails
(a read of the model or a write into it).

Usage: check_layers.py ROOT      check the tree at ROOT (the repository)
       check_layers.py --self-test   show that a violation is found (a tree made in a temporary directory)
"""
import os
import re
import sys
import tempfile

# Earlier first. "coretriage" is the public include/coretriage/ (model and error types); "." is
# src/analyze.c and src/pipeline.c (the pipeline choice, the one pipeline); the kinds share one stage.
STAGES = [
    ["coretriage"],
    ["util"],
    ["lazy"],
    ["arch"],
    ["dump"],
    # A live process is a dump implementation over dump/'s interface and process image (dump_live.c).
    ["live"],
    ["input"],
    ["modules"],
    ["unwind"],
    ["values"],
    ["runtime"],
    ["triage"],
    ["report"],
    ["store"],
    ["process", "kernel", "trail"],
    ["."],
    ["cli"],
]
RANK = {folder: i for i, stage in enumerate(STAGES) for folder in stage}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')

# The stages that see the report only through their hand-off functions.
SINK_STAGES = ["modules", "unwind", "values", "runtime", "triage"]
HANDOFF = re.compile(r"\b\w+_to_report\s*\(")
REPORT_USE = re.compile(r"\bstruct ct_report\b|\bct_report_\w+\s*\(")


def check_report_uses(root):
    """Places in SINK_STAGES that use the report model outside a hand-off function."""
    problems = []
    for stage in SINK_STAGES:
        sdir = os.path.join(root, "src", stage)
        for fn in sorted(os.listdir(sdir)) if os.path.isdir(sdir) else []:
            if not fn.endswith((".c", ".h")):
                continue
            path = os.path.join("src", stage, fn)
            in_handoff = False
            with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    code = line.split("//", 1)[0]
                    if code.lstrip().startswith(("*", "/*")):
                        continue
                    if HANDOFF.search(code):
                        # A definition (at the line's start, not ending in ';') opens the hand-off's
                        # body; a declaration or a call, even one continued on the next lines, does not.
                        in_handoff = fn.endswith(".c") and not code[:1].isspace() and not code.rstrip().endswith(";")
                        continue
                    if in_handoff:
                        in_handoff = line.rstrip("\n") != "}"
                        continue
                    m = REPORT_USE.search(code)
                    if m:
                        problems.append(f"{path}:{lineno}: uses the report model (`{m.group(0).rstrip('(').strip()}`) "
                                        f"outside a …_to_report() hand-off: the {stage} stage returns its own type "
                                        f"and writes text through its struct ct_sink")
    return problems


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
    return problems + check_report_uses(root)


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        files = {
            "src/util/a.h": "",
            "src/process/process.h": '#include "util/a.h"\n',
            "src/triage/triage.c": '#include "process/process.h"\n',
            "src/kernel/k.c": '#include "process/process.h"\n',
            "src/bogus/b.c": "",
            "include/coretriage/report.h": "struct ct_report {\n\tstruct ct_thread *threads; /**< x */\n"
                                           "\tstruct ct_crash crash;\n};\n"
                                           "struct ct_thread *ct_report_crashing_thread(const struct ct_report *report);\n",
            "src/triage/gather.c": "void f(struct ct_report *r) { r->crash.x = r->threads[0].tid; }\n"
                                   "void g(const struct ct_triage_input *s) { ct_report_crashing_thread(s->report); }\n",
            "src/triage/handoff.c": "void ct_verdict_move_to_report(struct ct_verdict *v, struct ct_report *r)\n{\n"
                                    "\tr->crash = v->crash;\n\tct_report_strdup(r, \"x\");\n}\n",
            "src/values/v.c": "void f(struct ct_values_input *s) { ct_report_diag(s->report, 0, 0, 0, \"x\"); }\n",
        }
        for name, text in files.items():
            os.makedirs(os.path.join(tmp, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        problems = check(tmp)
        want = ["src/triage/triage.c:1:", "src/kernel/k.c:1:", "src/bogus/", "src/triage/gather.c:1:",
                "src/triage/gather.c:2:", "src/values/v.c:1:"]
        missing = [w for w in want if not any(p.startswith(w) for p in problems)]
        if missing or len(problems) != len(want):
            print("self-test: expected violations", want, "got", problems)
            return 1
        print("self-test: the six planted violations are found (and the hand-off is not one)")
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
        print(f"{len(problems)} place(s) against the stage order (docs/architecture.md)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
