#!/usr/bin/env python3
"""README's Quick start is true: its commands are the scripts' own, and its excerpt is what the demo prints.

    check_quickstart.py CORETRIAGE WORKDIR TOP

1. Each command of the Quick start's sh block (`scripts/demo`, `scripts/test`) is an executable
   script of the repository whose header says to run it exactly so ("Run as root on Debian 12:  X").
2. scripts/demo runs (CT_DEMO_BIN: the built binary, no install or build) and prints progress lines
   ("demo: …") on stderr before the report.
3. Every line of the README's excerpt (the block after "ends with a report like this") is a line of
   the demo's output, in the same order, once what changes from run to run is masked: pids,
   addresses, the crash time, and the clone's directory (the README shows it as /src/coretriage).
"""
import os
import re
import subprocess
import sys

README_TOP = "/src/coretriage"
failures = []


def check(ok, msg):
    if not ok:
        failures.append(msg)
        print("FAIL: " + msg)
    return ok


def mask(line, top):
    line = line.replace(top, README_TOP)
    line = re.sub(r"0x[0-9a-f]+", "0xX", line)
    line = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "TIME", line)
    line = re.sub(r"(pid |Thread )\d+", r"\1N", line)
    return line.rstrip()


def blocks(section):
    """The fenced blocks of @p section: [(info string, [lines])]."""
    out, cur, info = [], None, None
    for line in section.splitlines():
        if line.startswith("```"):
            if cur is None:
                cur, info = [], line[3:].strip()
            else:
                out.append((info, cur))
                cur = None
        elif cur is not None:
            cur.append(line)
    return out


def main():
    binary, work, top = sys.argv[1:4]
    readme = open(os.path.join(top, "README.md")).read()
    start = readme.index("## Quick start")
    section = readme[start:readme.index("\n## ", start + 1)]
    bl = blocks(section)
    if not check(len(bl) >= 2, f"Quick start: {len(bl)} code blocks, want the commands and the excerpt"):
        return 1
    commands = [ln.split("#")[0].strip() for ln in bl[0][1] if ln.strip()]
    check(commands, "Quick start: no commands")
    for cmd in commands:
        path = os.path.join(top, cmd)
        if not check(os.path.isfile(path) and os.access(path, os.X_OK), f"{cmd}: not an executable script"):
            continue
        header = open(path).read().split("\n\n")[0]
        m = re.search(r"Run as root on Debian 12:\s+(\S+)", header)
        check(m and m.group(1) == cmd, f"{cmd}: its header says to run {m.group(1) if m else None!r}")
    env = dict(os.environ, CT_DEMO_BIN=os.path.abspath(binary), CT_DEMO_WORK=work)
    p = subprocess.run(["sh", os.path.join(top, "scripts/demo")], capture_output=True, text=True, env=env, timeout=300)
    check(p.returncode == 0, f"scripts/demo: exit {p.returncode}: {p.stderr[-500:]}")
    progress = [ln for ln in p.stderr.splitlines() if ln.startswith("demo: ")]
    check(len(progress) >= 3, f"scripts/demo: progress lines on stderr: {progress}")
    print("\n".join(progress))
    out = [mask(ln, top) for ln in p.stdout.splitlines()]
    excerpt = [ln for ln in bl[1][1] if ln.strip() and ln.strip() != "…"]
    at = 0
    for ln in excerpt:
        want = mask(ln, top)
        try:
            at = out.index(want, at) + 1
        except ValueError:
            near = [o for o in out if o.split()[:2] == want.split()[:2]]
            check(False, f"README line not in the demo's output (in order): {ln!r}; the demo has {near[:1]}")
    print(f"{len(excerpt)} README lines checked against {len(out)} lines of output; {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
