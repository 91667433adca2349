#!/usr/bin/env python3
"""No file includes or calls into a folder of a later stage (docs/architecture.md, "Stages").

Every `#include "..."` in src/ and include/ is resolved the way the compiler does (the including
file's own directory, then src/, then include/) to the folder it lands in; a file may include its
own folder and the folders of earlier stages only. Folders of the same stage (the pipelines) do not
include each other. A folder of src/ missing from STAGES fails too: a new folder takes its place in
the order here and in docs/architecture.md.

The stages inside a pipeline (SINK_STAGES: modules, unwind, values, runtime, triage, and the kernel
kind's own stages in src/kernel/ but its kind, kernel.c) return their own types
and write text through a struct ct_sink: in their folders `struct ct_report` and the report's
functions (`ct_report_*()`) appear only in a hand-off function (`…_to_report()`, e.g.
ct_verdict_move_to_report, ct_stacks_move_to_report, ct_modules_to_report); any other use fails
(a read of the model or a write into it).

Calls are ranked the same way (check_calls): a map from every function defined with external linkage
in a .c file of src/ to that file is built from the sources (comments and strings blanked), and each
call `name(` in src/ (.c and .h, macros included) to a function of another folder is ranked by the
folder that defines the callee. A name the calling file defines itself (a static function of the same
name) is its own. Every stage fills the model (src/model/, just above util/) and none calls into the
writers (src/writers/), which only render it.

Usage: check_layers.py ROOT      check the tree at ROOT (the repository)
       check_layers.py --self-test   show that a violation is found (a tree made in a temporary directory)
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lint_cli  # noqa: E402

# Earlier first. "coretriage" is the public include/coretriage/ (model and error types); "." is
# src/analyze.c and src/pipeline.c (the pipeline choice, the one pipeline); the kinds share one stage.
STAGES = [
    ["coretriage"],
    ["util"],
    ["lazy"],
    ["arch"],
    # The model names signals in the numbering of arch/signal_numbers.h; arch/ fills nothing of it.
    ["model"],
    ["dump"],
    # A live process is a dump implementation over dump/'s interface and process image (dump_live.c).
    ["live"],
    ["input"],
    ["modules"],
    ["unwind"],
    ["values"],
    ["runtime"],
    ["triage"],
    ["writers"],
    ["store"],
    ["process", "kernel", "trail"],
    ["."],
    ["cli"],
]
RANK = {folder: i for i, stage in enumerate(STAGES) for folder in stage}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')

# The stages that see the report only through their hand-off functions. The kernel kind's folder
# holds stages too (tasks, stacks, the log, the rules): only its kind, KIND_FILES, fills the report.
SINK_STAGES = ["modules", "unwind", "values", "runtime", "triage", "kernel"]
KIND_FILES = {"src/kernel/kernel.c"}
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
            if path in KIND_FILES:
                continue
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
    return problems + check_report_uses(root) + check_calls(root)


COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
PARAMS = r"\((?:[^;{}()]|\([^;{}()]*\))*\)"
# A function definition at file scope: return type and name at the line's start, parameters, a body.
DEFINITION = re.compile(r"^(?!typedef\b|extern\b|#)[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)\s*" + PARAMS +
                        r"\s*(?:__attribute__\s*\(\(.*?\)\)\s*)?\{", re.M)
# A call of a function by name (not through a member: `o->fn(`, `s.fn(`).
CALL = re.compile(r"(?<!->)(?<!\.)\b([A-Za-z_]\w*)\s*\(")


def blank_comments_and_strings(text):
    """The code of @text with comments blanked (newlines kept: line numbers stay) and strings emptied."""
    text = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    return STRING.sub('""', text)


def check_calls(root):
    """Calls from a file of src/ into a function defined by a later stage (or another folder of its stage)."""
    sources = {}
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, "src")):
        dirnames.sort()
        for fn in sorted(filenames):
            if fn.endswith((".c", ".h")):
                path = os.path.relpath(os.path.join(dirpath, fn), root)
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                    sources[path] = blank_comments_and_strings(f.read())
    defined = {}  # name -> the files defining it with external linkage
    own_names = {}  # path -> every name the file defines (static ones included)
    for path, code in sources.items():
        names = own_names.setdefault(path, set())
        for m in DEFINITION.finditer(code):
            names.add(m.group(1))
            if path.endswith(".c") and not re.match(r"static\b", m.group(0)):
                defined.setdefault(m.group(1), set()).add(path)
    problems = []
    for path, code in sorted(sources.items()):
        own = folder_of(root, path)
        if own not in RANK:
            continue
        reported = set()
        for m in CALL.finditer(code):
            name = m.group(1)
            if name in own_names[path] or name not in defined or name in reported:
                continue
            folders = {folder_of(root, d): d for d in sorted(defined[name])}
            if own in folders:
                continue
            other, where = min(((RANK.get(f, -1), f, d) for f, d in folders.items()))[1:]
            if other not in RANK or RANK[other] < RANK[own]:
                continue
            reported.add(name)
            lineno = code.count("\n", 0, m.start()) + 1
            why = "a later stage" if RANK[other] > RANK[own] else "another folder of the same stage"
            problems.append(f"{path}:{lineno}: calls {name}() of {where} ({other}/ is {why} than {own}/)")
    return problems


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
            # A kernel stage writing the model is found; the kernel kind filling it is not.
            "src/kernel/tasks.c": "void f(struct ct_report *r) { r->kernel.num_tasks = 1; }\n",
            "src/kernel/kernel.c": "static void finish(struct ct_report *r) { ct_report_diag(r, 0, 0, 0, \"x\"); }\n",
            # Calls: util/ calling up into triage/ fails; triage/ filling the model, a static function
            # of the caller's own that shares a writer's name, and a name only in a comment pass.
            "src/triage/rules.c": "bool ct_rule_fired(int x)\n{\n\treturn x > 0;\n}\n",
            "src/model/model.c": "void ct_crash_add_evidence(struct ct_crash *c, const char *t)\n{\n}\n",
            "src/writers/text.c": "void ct_write_text(FILE *f)\n{\n}\n",
            "src/util/u.c": "static int helper(void)\n{\n\treturn 1;\n}\n"
                            "int ct_util_thing(int x)\n{\n\t// ct_write_text(x) is not a call\n"
                            "\treturn ct_rule_fired(x) + helper();\n}\n",
            "src/triage/classify.c": "static void ct_write_text(int x)\n{\n}\n"
                                     "void ct_classify(struct ct_crash *c)\n{\n\tct_crash_add_evidence(c, \"\");\n"
                                     "\tct_write_text(1);\n}\n",
        }
        for name, text in files.items():
            os.makedirs(os.path.join(tmp, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        problems = check(tmp)
        want = ["src/triage/triage.c:1:", "src/kernel/k.c:1:", "src/bogus/", "src/triage/gather.c:1:",
                "src/triage/gather.c:2:", "src/values/v.c:1:", "src/kernel/tasks.c:1:",
                "src/util/u.c:8: calls ct_rule_fired()"]
        missing = [w for w in want if not any(p.startswith(w) for p in problems)]
        if missing or len(problems) != len(want):
            print("self-test: expected violations", want, "got", problems)
            return 1
        print("self-test: the eight planted violations are found, the upward call included (and the "
              "hand-off, the kernel kind, the model's fill and a static namesake are not one)")
        return 0


def main():
    return lint_cli.run(__doc__, check, self_test, "place(s) against the stage order (docs/architecture.md)")


if __name__ == "__main__":
    sys.exit(main())
