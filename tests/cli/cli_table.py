#!/usr/bin/env python3
"""The command line as people type it (issue 27): every option spelling, wrong usages with their exit
codes and messages, the argv coredumpctl builds, and the text report on 80-column terminals (a pty,
and tmux when installed).

Each row of TABLE runs coretriage once in a case of the test cores. A row: name, argv, the case
(cwd), the exit status, a regex stderr must match (None: anything), a regex stdout must match, a
regex stdout must not match.

Usage: cli_table.py CORETRIAGE CORES_DIR
"""
import fcntl
import json
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time

BIN, CORES = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the source tree
results = []


def env_for(extra=None):
    env = dict(os.environ, LC_ALL="C.UTF-8")
    for k in ("NO_COLOR", "DEBUGINFOD_URLS", "COLUMNS", "POSIXLY_CORRECT"):
        env.pop(k, None)
    env.update(extra or {})
    return env


def run(args, case="null-read", env=None, stdin=None):
    return subprocess.run([BIN] + args, cwd=os.path.join(CORES, case), env=env_for(env), capture_output=True,
                          text=True, timeout=120, stdin=stdin)


def check(name, cond, detail=""):
    results.append((name, bool(cond)))
    print("%s %s %s" % ("ok  " if cond else "FAIL", name, "" if cond else detail))


JSON = r"^\{\n  \"schema_version\""
CRASH = r"Crash: null-deref"
T = "threads"
# name, argv, case, status, stderr regex, stdout regex, stdout must not match
TABLE = [
    # Options anywhere (GNU order), '--' ends them.
    ("-f json before", ["-f", "json", "./exe", "core"], "null-read", 0, None, JSON, None),
    ("-f json after the core", ["./exe", "core", "-f", "json"], "null-read", 0, None, JSON, None),
    ("--format=json after a lone core", ["core", "--format=json"], "null-read", 0, None, JSON, None),
    ("--format json between", ["./exe", "--format", "json", "core"], "null-read", 0, None, JSON, None),
    ("-fjson", ["-fjson", "core"], "null-read", 0, None, JSON, None),
    ("--form abbreviation", ["--form=json", "core"], "null-read", 0, None, JSON, None),
    ("-- ends options", ["-f", "json", "--", "./exe", "core"], "null-read", 0, None, JSON, None),
    ("-- then a file named like an option", ["--", "-f"], "null-read", 2, r"-f: No such file", None, None),
    # The executable and the core by option: eu-stack, gdb and coredumpctl spellings.
    ("-e EXE", ["-e", "./exe", "core"], "null-read", 0, None, CRASH, None),
    ("--exe=EXE after", ["core", "--exe=./exe"], "null-read", 0, None, CRASH, None),
    ("--executable (eu-stack)", ["--executable", "./exe", "core"], "null-read", 0, None, CRASH, None),
    ("-c CORE", ["-c", "core"], "null-read", 0, None, CRASH, None),
    ("--core=CORE --exe=EXE", ["--core=core", "--exe=./exe"], "null-read", 0, None, CRASH, None),
    ("-e EXE --core CORE (eu-stack)", ["-e", "./exe", "--core", "core"], "null-read", 0, None, CRASH, None),
    ("coredumpctl argv: EXE -c CORE", ["./exe", "-c", "core"], "null-read", 0, None, CRASH, None),
    ("coredumpctl -A argv: ARGS EXE -c CORE", ["-q", "./exe", "-c", "core"], "null-read", 0, None, CRASH,
     r"Registers"),
    # Display controls (text only; the verdict is not changed).
    ("-n 1", ["-n", "1", "./exe", "core"], "null-read", 0, None, r"#0 .*\n  … 4 more frames", r"#1 "),
    ("--frames=2", ["--frames=2", "./exe", "core"], "null-read", 0, None, r"#1 .*\n  … 3 more frames", r"#2 "),
    ("-n keeps the verdict", ["-n", "1", "./exe", "core"], "null-read", 0, None, r"blame: #0 list_sum", None),
    ("-q", ["-q", "./exe", "core"], "null-read", 0, None, r"Crash: null-deref.*\n(.*\n)*  blame: #0 list_sum",
     r"Thread|Registers|Disassembly"),
    ("--quiet", ["./exe", "core", "--quiet"], "null-read", 0, None, CRASH, r"Thread"),
    ("--sections=stacks", ["--sections=stacks", "./exe", "core"], "null-read", 0, None, r"^\nThread \d+ \(crashed\)",
     r"Crash:|Registers"),
    ("--sections=verdict,registers", ["--sections=verdict,registers", "./exe", "core"], "null-read", 0, None,
     r"Crash:(.*\n)*Registers", r"Thread|Disassembly"),
    ("--sections=disassembly", ["--sections=disassembly", "./exe", "core"], "null-read", 0, None,
     r"^\nDisassembly\n", r"Crash"),
    ("--sections=all lists modules", ["--sections=all", "./exe", "core"], "stripped", 0, None, r"Crash:", None),
    ("--thread=crashed", ["--thread=crashed", "./exe", "core"], T, 0, None, r"\(crashed\)",
     r"\nThread \d+\n|threads with this stack"),
    ("--thread=all", ["--thread=all", "./exe", "core"], T, 0, None, r"\(crashed\)(.*\n)*(Thread \d+\n|threads with)",
     None),
    ("--source with --source-dir", ["--source", "--source-dir=" + SRC, "--sections=stacks", "./exe", "core"],
     "null-read", 0, None, r"crashme\.c:63:11\n +61  .*\n +62  .*\n +> +63  .*n->key", None),
    ("--source=0 --source-dir by suffix", ["--source=0", "--source-dir=/nonexist", "--source-dir=" + SRC + "/testdata/src",
     "-n", "1", "./exe", "core"], "null-read", 0, None, r"crashme\.c:63:11\n +> +63  +sum \+= n->key;\n  …",
     r" 62  "),
    ("--source: the crashing thread only", ["--source", "--source-dir=" + SRC, "./exe", "core"], T, 0, None,
     r"> +\d+  ", r"\nThread \d+\n(  #.*\n)*  #.*\n +> "),
    ("--source without the file", ["--source", "./exe", "core"], "null-read", 0, None, r"#1 ", r"> +63 "),
    ("--source=x", ["--source=x", "core"], "null-read", 64, r"--source: 'x' is not a number of lines", None, None),
    ("--color=never", ["--color=never", "./exe", "core"], "null-read", 0, None, CRASH, "\033"),
    ("--color=always", ["--color=always", "./exe", "core"], "null-read", 0, None, "\033\\[", None),
    # Wrong usages: exit 64, the option named, the fix said.
    ("no arguments", [], "null-read", 64, r"^coretriage: no core file given\n", None, None),
    ("-f without a value", ["-f"], "null-read", 64, r"option '-f' \(--format\) needs a value:\n  -f, --format=FORMAT",
     None, None),
    ("--format without a value", ["core", "--format"], "null-read", 64,
     r"option '--format' needs a value:\n  -f, --format=FORMAT +text \(default\), json", None, None),
    ("--output without a value", ["core", "-o"], "null-read", 64, r"'-o' \(--output\) needs a value:\n  -o, --output=FILE",
     None, None),
    ("--format svg", ["--format", "svg", "core"], "null-read", 64,
     r"--format: 'svg' is not a format \(text, json, ndjson, markdown, sarif, folded\); the flame graph is "
     r"--flamegraph=FILE", None, None),
    ("--format=yaml", ["--format=yaml", "core"], "null-read", 64, r"'yaml' is not a format", None, None),
    ("unknown long option", ["--bogus", "core"], "null-read", 64, r"unknown or ambiguous option '--bogus'", None, None),
    ("ambiguous abbreviation", ["--no", "core"], "null-read", 64, r"unknown or ambiguous option '--no'", None, None),
    ("unknown short option", ["-Z", "core"], "null-read", 64, r"unknown option '-Z'", None, None),
    ("a value given to a flag", ["--safe=yes", "core"], "null-read", 64, r"option '--safe' takes no value", None,
     None),
    ("EXECUTABLE does not exist", ["./nonexist", "core"], "null-read", 64,
     r"EXECUTABLE \./nonexist: No such file or directory", None, None),
    ("--exe does not exist", ["--exe=./nonexist", "core"], "null-read", 64, r"EXECUTABLE \./nonexist: No such file",
     None, None),
    ("EXECUTABLE is a directory", [".", "core"], "null-read", 64, r"EXECUTABLE .*directory", None, None),
    ("EXECUTABLE is a core", ["-e", "core", "core"], "null-read", 64, r"EXECUTABLE core is a core dump", None, None),
    ("two cores", ["core", "../abort/core"], "null-read", 64,
     r"2 cores given; .*coretriage batch core \.\./abort/core", None, None),
    ("three cores", ["core", "../abort/core", "../fpe/core"], "null-read", 64, r"3 cores given; .*batch", None,
     None),
    ("too many arguments", ["./exe", "core", "extra"], "null-read", 64, r"too many arguments: 'extra'", None, None),
    ("-c and two positionals", ["-c", "core", "./exe", "x"], "null-read", 64, r"too many arguments: 'x'.*-c", None,
     None),
    ("-c twice", ["-c", "core", "-c", "../abort/core"], "null-read", 64, r"--core given twice.*batch", None, None),
    ("--exe and EXECUTABLE", ["--exe=./exe", "./exe", "core"], "null-read", 64, r"both --exe and an EXECUTABLE",
     None, None),
    ("-n 0", ["-n", "0", "core"], "null-read", 64, r"-n/--frames: '0' is not a positive number", None, None),
    ("--thread=abc", ["--thread=abc", "core"], "null-read", 64, r"--thread: 'abc' is not all, crashed or a thread id",
     None, None),
    ("--thread=TID not in the dump", ["--thread=1", "./exe", "core"], "null-read", 64,
     r"--thread=1: the dump has no thread 1 \(threads \d+", None, None),
    ("--sections=foo", ["--sections=verdict,foo", "core"], "null-read", 64, r"--sections: 'foo' is not a section",
     None, None),
    ("batch option without batch", ["-j", "2", "core"], "null-read", 64, r"--jobs is a batch option", None, None),
    ("--unwinder=gdb", ["--unwinder=gdb", "core"], "null-read", 64, r"--unwinder: 'gdb' is not dwfl or libunwind",
     None, None),
    ("--color=sometimes", ["--color=sometimes", "core"], "null-read", 64, r"--color: 'sometimes' is not auto", None,
     None),
    ("--max-frames=0", ["--max-frames=0", "core"], "null-read", 64, r"--max-frames: '0'", None, None),
    # The warning asks for the executable only when none was given.
    ("exe gone: asks for it", ["--format=json", "core"], "exe-moved", 1, None, r"give it on the command line", None),
]


def table():
    for name, args, case, status, err_re, out_re, out_not in TABLE:
        if not os.path.isdir(os.path.join(CORES, case)):
            check(name, False, "no case %s" % case)
            continue
        p = run(args, case)
        why = []
        if p.returncode != status:
            why.append("exit %d, wanted %d" % (p.returncode, status))
        if err_re and not re.search(err_re, p.stderr):
            why.append("stderr %r lacks /%s/" % (p.stderr[:400], err_re))
        if out_re and not re.search(out_re, p.stdout, re.M):
            why.append("stdout lacks /%s/: %r" % (out_re, p.stdout[:300]))
        if out_not and re.search(out_not, p.stdout, re.M):
            why.append("stdout has /%s/" % out_not)
        if status == 64 and not p.stderr.startswith("coretriage: "):
            why.append("usage error not on stderr")
        check("%s: %s" % (name, " ".join(args)), not why, "; ".join(why))


def computed():
    # --thread=TID of a thread that is not the crashing one shows that thread's group only.
    r = json.loads(run(["-f", "json", "./exe", "core"], T).stdout)
    other = [t["tid"] for t in r["threads"] if not t["crashed"]][-1]
    p = run(["--thread=%d" % other, "./exe", "core"], T)
    ok = p.returncode == 0 and re.search(r"(Thread %d\n|tids [0-9, ]*\b%d\b)" % (other, other), p.stdout) and \
        "(crashed)" not in p.stdout.split("Crash:")[1].split("\n", 2)[2]
    check("--thread=%d: that thread only" % other, ok, p.stdout[-600:])
    # -n is display only: JSON still has every frame and the same verdict.
    a = json.loads(run(["-f", "json", "./exe", "core"]).stdout)
    b = json.loads(run(["-n", "1", "-f", "json", "./exe", "core"]).stdout)
    check("-n does not change JSON", a["crash"] == b["crash"] and len(a["threads"][0]["frames"]) ==
          len(b["threads"][0]["frames"]))
    # Markdown names the program's build-id also when it was started by a relative path ("./exe").
    r = json.loads(run(["-f", "json", "./exe", "core"]).stdout)
    md = run(["-f", "markdown", "./exe", "core"]).stdout
    ids = [m["build_id"] for m in r["modules"] if m["name"] == "exe"]
    check("markdown: build-id row when started as ./exe", r["process"]["executable_path"].startswith("./") and ids and
          ("| build-id | `%s` |" % ids[0]) in md, md[:800])
    # A source file given as the EXECUTABLE (issue 27's parse.c).
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "parse.c")
        open(src, "w").write("int main(void) { return *(int *)0; }\n")
        p = run([src, "core"])
        check("EXECUTABLE parse.c: exit 64 with the reason", p.returncode == 64 and
              "is not an ELF executable or shared object (it is not ELF" in p.stderr, p.stderr)


def symbols():
    # A stripped program without .gnu_debuglink, its debug file beside it (eu-stack's and gdb's
    # X.debug, .debug/X.debug); without one, a hint and exit 1 (the blamed frame has no name).
    exe = os.path.realpath(os.path.join(CORES, "null-read", "exe"))
    if not shutil.which("objcopy"):
        check("symbols beside the executable (objcopy missing)", False)
        return
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(CORES, "null-read", "core"), tmp)
        subprocess.run(["objcopy", "--only-keep-debug", exe, os.path.join(tmp, "app.debug")], check=True)
        subprocess.run(["strip", "--strip-all", "-o", os.path.join(tmp, "app"), exe], check=True)
        def go():
            p = subprocess.run([BIN, "-f", "json", "--no-debuginfod", "./app", "core"], cwd=tmp, env=env_for(),
                               capture_output=True, text=True, timeout=120)
            return p.returncode, (json.loads(p.stdout) if p.returncode in (0, 1) else None)
        rc, r = go()
        check("app.debug beside a stripped app without debuglink: symbols, exit 0", rc == 0 and
              r["threads"][0]["frames"][0]["function"] == "list_sum" and r["threads"][0]["frames"][0]["line"], rc)
        os.makedirs(os.path.join(tmp, ".debug"))
        os.rename(os.path.join(tmp, "app.debug"), os.path.join(tmp, ".debug", "app.debug"))
        rc, r = go()
        check(".debug/app.debug: symbols, exit 0", rc == 0 and r["threads"][0]["frames"][0]["function"] == "list_sum",
              rc)
        os.unlink(os.path.join(tmp, ".debug", "app.debug"))
        rc, r = go()
        codes = [d["code"] for d in r["diagnostics"]] if r else []
        hint = [d["message"] for d in r["diagnostics"] if d["code"] == "module-no-symbols"] if r else []
        check("no debug file: exit 1, blame-no-symbols", rc == 1 and "blame-no-symbols" in codes, codes)
        check("no debug file: one hint for the module, naming app.debug and DEBUGINFOD_URLS", len(hint) == 1 and
              "app.debug" in hint[0] and "DEBUGINFOD_URLS" in hint[0], hint)
        # The batch summary: blame.function null for a frame without a name (never the folded name).
        p = subprocess.run([BIN, "batch", "-f", "json", "--progress=never", "--no-debuginfod", "--exe=./app", "core"],
                           cwd=tmp, env=env_for(), capture_output=True, text=True, timeout=120)
        blame = json.loads(p.stdout)["buckets"][0]["blame"] if p.returncode in (0, 1) else {}
        check("batch: blame.function null when the frame has no name", p.returncode in (0, 1) and
              "function" in blame and blame["function"] is None and blame["module"] == "exe", (p.returncode, blame))
        # A debug file of another build is never taken.
        subprocess.run(["objcopy", "--only-keep-debug", os.path.realpath(os.path.join(CORES, "threads", "exe")),
                        os.path.join(tmp, "app.debug")], check=True)
        rc, r = go()
        check("app.debug of another build: not used", rc == 1 and r["threads"][0]["frames"][0]["function"] is None, rc)


def inputs():
    # Standard input ("-", /dev/stdin) through a pipe and redirected; gzip and bzip2 cores, as files
    # and through the pipe; the caps of a decompression apply to the pipe.
    d = os.path.join(CORES, "null-read")
    core = open(os.path.join(d, "core"), "rb").read()
    with tempfile.TemporaryDirectory() as tmp:
        for tool, ext in (("gzip", "gz"), ("bzip2", "bz2")):
            if shutil.which(tool):
                with open(os.path.join(tmp, "core." + ext), "wb") as f:
                    f.write(subprocess.run([tool, "-c"], input=core, capture_output=True, check=True).stdout)
        def go(args, data=None, stdin_file=None):
            f = open(stdin_file, "rb") if stdin_file else None
            p = subprocess.run([BIN, "-q"] + args, cwd=d, env=env_for(), input=data, stdin=f, capture_output=True,
                               timeout=120)
            if f:
                f.close()
            return p.returncode, p.stdout.decode(), p.stderr.decode()
        for label, args, data, stdin_file in (
                ("pipe into -", ["./exe", "-"], core, None),
                ("pipe into /dev/stdin", ["./exe", "/dev/stdin"], core, None),
                ("- redirected from the file", ["./exe", "-"], None, os.path.join(d, "core")),
                ("-c - (coredumpctl's spelling)", ["./exe", "-c", "-"], core, None),
                ("core.gz", ["./exe", os.path.join(tmp, "core.gz")], None, None),
                ("core.bz2", ["./exe", os.path.join(tmp, "core.bz2")], None, None),
                ("core.gz through the pipe", ["./exe", "-"], open(os.path.join(tmp, "core.gz"), "rb").read(), None),
                ("core.bz2 redirected", ["./exe", "-"], None, os.path.join(tmp, "core.bz2"))):
            rc, out, err = go(args, data, stdin_file)
            check("input: %s" % label, rc == 0 and "Crash: null-deref" in out and "blame: #0 list_sum" in out,
                  "%d %s" % (rc, err))
        rc, out, err = go(["./exe", "-"], b"")
        check("input: empty standard input: exit 2, said", rc == 2 and "standard input is empty" in err, err)
        rc, out, err = go(["--max-core-size=64K", "-f", "json", "./exe", "-"], core)
        r = json.loads(out) if rc in (0, 1) else {}
        check("input: --max-core-size caps the pipe: a truncated core, exit 1", rc == 1 and
              any(x["code"] == "truncated-core" and "65536" in x["message"] for x in r.get("diagnostics", [])), rc)
        bz = open(os.path.join(tmp, "core.bz2"), "rb").read()
        rc, out, err = go(["-f", "json", "./exe", "-"], bz[:len(bz) // 2])
        r = json.loads(out) if rc in (0, 1) else {}
        check("input: a cut bzip2 stream: what came before, said", rc in (1, 2) and
              (rc == 2 or any(x["code"] == "compressed-core-broken" for x in r.get("diagnostics", []))), (rc, err))


def sarif():
    # The same bug run twice (ASLR moves every address): SARIF messages and fingerprints equal, the
    # values only in properties; frames located by file and line; valid against the OASIS schema.
    exe = os.path.realpath(os.path.join(CORES, "null-read", "exe"))
    docs = []
    with tempfile.TemporaryDirectory() as tmp:
        for run_no in (1, 2):
            d = os.path.join(tmp, "run%d" % run_no)
            os.makedirs(d)
            subprocess.run(["sh", "-c", "ulimit -c unlimited; exec '%s' list" % exe], cwd=d, capture_output=True)
            if not os.path.exists(os.path.join(d, "core")):
                check("sarif: two runs of the same bug (no core: core_pattern must be 'core')", False)
                return
            p = subprocess.run([BIN, "-f", "sarif", exe, "core"], cwd=d, env=env_for(), capture_output=True,
                               text=True, timeout=120)
            docs.append(json.loads(p.stdout))
    res = [dd["runs"][0]["results"][0] for dd in docs]
    check("sarif: message.text equal across two runs", res[0]["message"] == res[1]["message"], [r["message"] for r in res])
    check("sarif: message names class, function and file:line only",
          res[0]["message"]["text"] == "null-deref in list_sum at crashme.c:63", res[0]["message"])
    check("sarif: the runs differ in values (the test can fail)",
          res[0]["properties"].get("blameArguments") != res[1]["properties"].get("blameArguments"),
          res[0]["properties"].get("blameArguments"))
    check("sarif: fingerprints equal", res[0]["partialFingerprints"] == res[1]["partialFingerprints"])
    frames = res[0]["stacks"][0]["frames"]
    located = [f for f in frames if "physicalLocation" in f["location"]]
    check("sarif: stack frames with file and line", len(located) >= 2 and
          located[0]["location"]["physicalLocation"]["artifactLocation"]["uri"].endswith("crashme.c") and
          located[0]["location"]["physicalLocation"]["region"]["startLine"] == 63, frames[:2])
    rule = docs[0]["runs"][0]["tool"]["driver"]["rules"][0]
    check("sarif: helpUri is the installed docs", rule["helpUri"].startswith("file:///") and
          rule["helpUri"].endswith("/doc/coretriage/classes.md") and "github" not in json.dumps(docs[0]), rule["helpUri"])
    try:
        import jsonschema
    except ImportError:
        check("sarif: schema (python3-jsonschema missing)", False)
        return
    schema = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sarif-schema-2.1.0.json")))
    for label, args, case in (("one core", ["-f", "sarif", "./exe", "core"], "null-read"),
                              ("one core, --source-root", ["-f", "sarif", "--source-root", SRC, "./exe", "core"], "null-read"),
                              ("batch", ["batch", "-f", "sarif", "--progress=never", "null-read/core", "abort/core",
                                         "stripped/core"], ".")):
        p = run(args, case)
        try:
            jsonschema.validate(json.loads(p.stdout), schema)
            err = None
        except Exception as e:  # a validation error or bad JSON
            err = str(e)[:400]
        check("sarif: %s valid against sarif-schema-2.1.0.json" % label, p.returncode in (0, 1) and not err, err)


def batch_schema():
    # Every JSON line batch writes (reports, error lines) and the summary: one schema.
    try:
        import jsonschema
    except ImportError:
        check("batch schema (python3-jsonschema missing)", False)
        return
    schema = json.load(open(os.path.join(SRC, "docs", "schema", "report.schema.json")))
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "notacore")
        open(bad, "w").write("hello\n")
        cores = [os.path.join(CORES, c, "core") for c in ("null-read", "abort")] + [bad]
        p = run(["batch", "-f", "ndjson", "--progress=never", "--summary=" + os.path.join(tmp, "s.json")] + cores)
        lines = [json.loads(l) for l in p.stdout.splitlines()]
        kinds = ["error" if "error" in l else "report" for l in lines]
        errs = []
        for l in lines + [json.load(open(os.path.join(tmp, "s.json")))]:
            try:
                jsonschema.validate(l, schema)
            except jsonschema.ValidationError as e:
                errs.append(str(e)[:300])
        check("batch ndjson: reports, an error line and the summary valid against report.schema.json",
              p.returncode == 1 and kinds == ["report", "report", "error"] and not errs, (kinds, errs))
        # The schema still refuses what is neither.
        try:
            jsonschema.validate({"schema_version": 1, "tool": {"name": "coretriage", "version": "x"}}, schema)
            refused = False
        except jsonschema.ValidationError:
            refused = True
        check("report.schema.json refuses a line that is neither report, error nor summary", refused)


def pty_run(args, cols, case="null-read", env=None):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
    p = subprocess.Popen([BIN] + args, cwd=os.path.join(CORES, case), stdout=slave, stderr=slave,
                         env=env_for(dict({"TERM": "xterm"}, **(env or {}))))
    os.close(slave)
    out = b""
    # Read until the child has exited and the pty is drained: EIO (the last slave closed) ends the
    # output only once the child is gone, so a loaded machine cannot cut it short.
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if not ready:
            if p.poll() is not None:
                break
            continue
        try:
            d = os.read(master, 65536)
        except OSError:
            if p.poll() is not None or p.wait(timeout=120) is not None:
                break
            continue
        if not d:
            break
        out += d
    os.close(master)
    p.wait(timeout=120)
    return p.returncode, out.decode("utf-8", "replace").replace("\r\n", "\n")


def visible(line):
    return len(re.sub(r"\033\[[0-9;]*[A-Za-z]", "", line))


def terminals():
    for case in ("null-read", "threads", "abort", "cxx"):
        rc, out = pty_run(["./exe", "core"], 80, case)
        lines = out.split("\n")
        widest = max(visible(l) for l in lines)
        check("pty 80 columns, %s: no line wider than 80" % case, rc in (0, 1) and widest <= 80,
              "widest %d" % widest)
    rc, out = pty_run(["./exe", "core"], 80)
    frames = [l for l in out.split("\n") if re.match(r"  (\033\[1m)?#[0-4] *(\033\[0m)? +0x", l)]
    check("pty 80: frames of the program keep file:line", len(frames) == 5 and
          all(re.search(r"crashme\.c:\d+", l) for l in frames[:2]), frames)
    check("pty 80: the summary is folded, not cut", re.search(r"is NULL in\n +list_sum \(crashme\.c:63\)", out),
          out[:900])
    check("pty: color on a terminal", "\033[" in out)
    rc, out = pty_run(["./exe", "core"], 80, env={"COLUMNS": "60"})
    check("COLUMNS=60 honored", max(visible(l) for l in out.split("\n")) <= 60 and "…" in out)
    rc, out = pty_run(["./exe", "core"], 80, env={"TERM": "dumb"})
    check("TERM=dumb: no color", rc == 0 and "\033" not in out and CRASH in out,
          "rc %d, %d bytes, escape at %d:\n%s" % (rc, len(out), out.find("\033"), out[:600]))
    rc, out = pty_run(["--color=always", "./exe", "core"], 80, env={"TERM": "dumb"})
    check("TERM=dumb with --color=always: color", "\033[" in out)
    # A pipe is never cut.
    p = run(["./exe", "core"])
    check("a pipe gets whole lines", max(len(l) for l in p.stdout.split("\n")) > 80 and "…" not in p.stdout)
    # The batch table at 80 columns: one row and its example line per bucket, nothing wider.
    rc, out = pty_run(["batch", "--progress=never", "-j", "2", "null-read/core", "abort/core", "threads/core",
                       "cxx/core"], 80, case=".")
    lines = [l for l in out.split("\n") if l]
    check("batch table at 80 columns: nothing wider", rc in (0, 1) and max(visible(l) for l in lines) <= 80,
          "\n".join(lines))
    check("batch table at 80 columns: header and example rows", any(l.startswith("  #  COUNT") for l in lines) and
          sum("example: " in l for l in lines) >= 3, "\n".join(lines))


def tmux():
    if not shutil.which("tmux"):
        check("tmux captures (tmux not installed: scripts/install-deps)", False)
        return
    with tempfile.TemporaryDirectory() as tmp:
        done = os.path.join(tmp, "done")
        for case in ("null-read", "threads"):
            sock = os.path.join(tmp, "sock-" + case)
            cmd = "cd %s && %s ./exe core; echo $? > %s; sleep 30" % (os.path.join(CORES, case), BIN, done)
            subprocess.run(["tmux", "-S", sock, "new-session", "-d", "-x", "80", "-y", "200", cmd], check=True,
                           env=env_for({"TERM": "xterm"}))
            for _ in range(600):
                if os.path.exists(done) and open(done).read().strip():
                    break
                time.sleep(0.1)
            # -J joins lines the terminal wrapped: a joined line wider than 80 was wrapped.
            cap = subprocess.run(["tmux", "-S", sock, "capture-pane", "-p", "-J", "-S", "-", "-E", "-"],
                                 capture_output=True, text=True).stdout
            subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True)
            os.unlink(done)
            widest = max(len(l) for l in cap.split("\n"))
            check("tmux 80 columns, %s: no wrapped line" % case, CRASH[:6] in cap and widest <= 80,
                  "widest %d:\n%s" % (widest, cap))


def main():
    table()
    computed()
    symbols()
    inputs()
    sarif()
    batch_schema()
    terminals()
    tmux()
    failed = sum(1 for _, ok in results if not ok)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
