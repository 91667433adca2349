#!/usr/bin/env python3
"""Corpus conformance driver for coretriage (see docs/corpus-conformance.md).

Two checks over the external corpus in <shared>/corpus/external/:

  frames    for every row of expectations.tsv (x86_64 cases that ship their executable) run
            `coretriage --format json --no-debuginfod EXE CORE`, take the crashing thread (the first
            thread when none is marked crashed), keep the frames whose module is the executable or a
            library shipped with it ("own code"; inline frames count, a frame in an own module that
            coretriage could not name counts as "??"), and require the expected chain to be a prefix
            of that list.  "-" rows only require at least one own-code frame.

  no-crash  for EVERY core file of ANY architecture in the corpus (compressed-only files are
            decompressed into a temporary directory), run `coretriage CORE` and, when the case ships
            an executable, `coretriage EXE CORE`, each as text and as JSON, with a 10 s timeout, and
            require: exit status 0, 1 or 2; no death by signal; CPU time < 2 s; on exit 2 stderr is a
            single line starting with "coretriage: "; on exit 0/1 a report on stdout (JSON parses).

Nothing is ever written below <shared> (CI mounts it read-only): decompression and the tool's
working directory are in a temporary directory.

Exit status: 0 all passed, 1 something failed, 77 the corpus is not there (CTest SKIP_RETURN_CODE).
The last line of output is "N passed, N failed, N skipped".
"""

import argparse
import json
import os
import resource
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COMPRESSED = (".bz2.uu", ".bz2", ".zst", ".gz")
REFERENCE_FILES = {"expected.txt", "eu-stack.txt", "gdb.txt", "eu-readelf-n.txt",
                   "eu-stack-with-libs.txt", "gdb-with-libs.txt", "README.md"}


# ---------------------------------------------------------------------------------------------
# Small ELF reader: file kind, machine, build-id (independent of coretriage on purpose).

ET_EXEC, ET_DYN, ET_CORE = 2, 3, 4
PT_NOTE = 4
SHT_NOTE = 7
NT_GNU_BUILD_ID = 3


def read_head(path, n=64):
    try:
        with open(path, "rb") as f:
            return f.read(n)
    except OSError:
        return b""


def file_kind(path):
    """'core', 'kdump', 'exec', 'dyn', or None."""
    h = read_head(path, 64)
    if h.startswith(b"KDUMP   ") or h.startswith(b"DISKDUMP"):
        return "kdump"
    if len(h) < 20 or h[:4] != b"\x7fELF":
        return None
    end = "<" if h[5] == 1 else ">"
    e_type = struct.unpack(end + "H", h[16:18])[0]
    return {ET_CORE: "core", ET_EXEC: "exec", ET_DYN: "dyn"}.get(e_type)


def _notes(data, end, align):
    off = 0
    while off + 12 <= len(data):
        namesz, descsz, ntype = struct.unpack(end + "III", data[off:off + 12])
        off += 12
        name = data[off:off + namesz]
        off += (namesz + align - 1) // align * align
        desc = data[off:off + descsz]
        off += (descsz + align - 1) // align * align
        yield name.rstrip(b"\0"), ntype, desc


def build_id(path):
    """Hex GNU build-id of an ELF executable/library, or None."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if len(data) < 52 or data[:4] != b"\x7fELF":
        return None
    is64 = data[4] == 2
    end = "<" if data[5] == 1 else ">"
    try:
        if is64:
            e_phoff, e_shoff = struct.unpack(end + "QQ", data[32:48])
            e_phentsize, e_phnum, e_shentsize, e_shnum = struct.unpack(end + "HHHH", data[54:62])
        else:
            e_phoff, e_shoff = struct.unpack(end + "II", data[28:36])
            e_phentsize, e_phnum, e_shentsize, e_shnum = struct.unpack(end + "HHHH", data[42:50])
        ranges = []
        for i in range(e_phnum):
            p = e_phoff + i * e_phentsize
            if is64:
                p_type, _, p_offset, _, _, p_filesz, _, p_align = struct.unpack(end + "IIQQQQQQ", data[p:p + 56])
            else:
                p_type, p_offset, _, _, p_filesz, _, _, p_align = struct.unpack(end + "IIIIIIII", data[p:p + 32])
            if p_type == PT_NOTE:
                ranges.append((p_offset, p_filesz, 8 if p_align == 8 else 4))
        for i in range(e_shnum):
            s = e_shoff + i * e_shentsize
            if is64:
                _, sh_type, _, _, sh_offset, sh_size, _, _, sh_align, _ = struct.unpack(end + "IIQQQQIIQQ", data[s:s + 64])
            else:
                _, sh_type, _, _, sh_offset, sh_size, _, _, sh_align, _ = struct.unpack(end + "IIIIIIIIII", data[s:s + 40])
            if sh_type == SHT_NOTE:
                ranges.append((sh_offset, sh_size, 8 if sh_align == 8 else 4))
        for off, size, align in ranges:
            for name, ntype, desc in _notes(data[off:off + size], end, align):
                if name == b"GNU" and ntype == NT_GNU_BUILD_ID and desc:
                    return desc.hex()
    except struct.error:
        return None
    return None


# ---------------------------------------------------------------------------------------------
# Case materialization: decompress compressed-only files into a temp dir (never into shared/).

def strip_compression(name):
    for suf in COMPRESSED:
        if name.endswith(suf):
            return name[: -len(suf)]
    return name


def uudecode(src, dst):
    import binascii
    out = bytearray()
    with open(src, "rb") as f:
        started = False
        for line in f:
            if not started:
                started = line.startswith(b"begin ")
                continue
            if line.strip() in (b"end", b""):
                if line.strip() == b"end":
                    break
                continue
            try:
                out += binascii.a2b_uu(line)
            except binascii.Error:
                nbytes = (((line[0] - 32) & 63) * 4 + 5) // 3
                out += binascii.a2b_uu(line[:nbytes])
    with open(dst, "wb") as f:
        f.write(out)


def decompress(src, dst, timeout):
    if src.endswith(".bz2.uu"):
        tmp = dst + ".bz2"
        uudecode(src, tmp)
        decompress(tmp, dst, timeout)
        os.unlink(tmp)
        return
    if src.endswith(".bz2"):
        cmd = ["bzip2", "-dc", src]
    elif src.endswith(".zst"):
        cmd = ["zstd", "-dcq", src]
    elif src.endswith(".gz"):
        cmd = ["gunzip", "-c", src]
    else:
        raise ValueError(src)
    with open(dst, "wb") as out:
        subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, check=True, timeout=timeout)


class Corpus:
    def __init__(self, root, tmp, decompress_timeout):
        self.root = root
        self.tmp = tmp
        self.decompress_timeout = decompress_timeout
        self._dirs = {}
        self.decompress_errors = {}

    def cases(self):
        out = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames.sort()
            if "expected.txt" in filenames:
                out.append(os.path.relpath(dirpath, self.root))
        return sorted(out)

    def materialize(self, case):
        """Directory holding every file of the case uncompressed (the case dir itself when possible)."""
        if case in self._dirs:
            return self._dirs[case]
        src = os.path.join(self.root, case)
        names = sorted(os.listdir(src))
        need = [n for n in names if n.endswith(COMPRESSED) and strip_compression(n) not in names]
        if not need:
            self._dirs[case] = src
            return src
        dst = os.path.join(self.tmp, "cases", case)
        os.makedirs(dst, exist_ok=True)
        for n in names:
            if n in REFERENCE_FILES or n.endswith(COMPRESSED):
                continue
            os.symlink(os.path.join(src, n), os.path.join(dst, n))
        for n in need:
            out = os.path.join(dst, strip_compression(n))
            t0 = time.monotonic()
            try:
                decompress(os.path.join(src, n), out, self.decompress_timeout)
            except (subprocess.SubprocessError, OSError, ValueError) as e:
                self.decompress_errors[os.path.join(case, n)] = "%s (%.0f s)" % (e, time.monotonic() - t0)
                if os.path.exists(out):
                    os.unlink(out)
                continue
            if file_kind(out) in ("exec", "dyn"):
                os.chmod(out, 0o755)
        self._dirs[case] = dst
        return dst

    def files(self, case):
        d = self.materialize(case)
        return [os.path.join(d, n) for n in sorted(os.listdir(d))
                if n not in REFERENCE_FILES and not n.endswith(COMPRESSED)
                and os.path.isfile(os.path.join(d, n))]


# ---------------------------------------------------------------------------------------------
# Running coretriage.

class Run:
    def __init__(self, argv, rc, stdout, stderr, elapsed, timed_out):
        self.argv, self.rc, self.stdout, self.stderr = argv, rc, stdout, stderr
        self.elapsed, self.timed_out = elapsed, timed_out


def child_env():
    env = dict(os.environ)
    for k in ("DEBUGINFOD_URLS", "DEBUGINFOD_CACHE_PATH"):
        env.pop(k, None)
    env["NO_COLOR"] = "1"
    return env


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_tool(argv, cwd, timeout):
    # The limit is on CPU time (user + system of the run, from the children's rusage: runs are
    # sequential), which a machine busy with other work does not inflate; the timeout stays wall.
    c0 = child_cpu()
    p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, env=child_env(), start_new_session=True)
    timed_out = False
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(p.pid, signal.SIGKILL)  # only the process group this driver started
        except ProcessLookupError:
            pass
        out, err = p.communicate()
    return Run(argv, p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
               child_cpu() - c0, timed_out)


def describe_rc(run):
    if run.timed_out:
        return "TIMEOUT"
    if run.rc < 0:
        try:
            return "killed by " + signal.Signals(-run.rc).name
        except ValueError:
            return "killed by signal %d" % -run.rc
    return "exit %d" % run.rc


# ---------------------------------------------------------------------------------------------
# Frame-name normalization.

_demangle_cache = {}


def demangle(names):
    todo = sorted({n for n in names if n and n.startswith("_Z") and n not in _demangle_cache})
    if todo and shutil.which("c++filt"):
        try:
            out = subprocess.run(["c++filt"], input="\n".join(todo) + "\n", capture_output=True,
                                 text=True, timeout=10).stdout.splitlines()
            if len(out) == len(todo):
                _demangle_cache.update(zip(todo, out))
        except (subprocess.SubprocessError, OSError):
            pass
    return [_demangle_cache.get(n, n) if n else n for n in names]


def base_name(name):
    """'fu(int)' -> 'fu', 'ns::f(int) const' -> 'ns::f'; plain C names unchanged."""
    if not name:
        return name
    n = name.strip()
    n = re.sub(r"\s+const$", "", n)
    if n.endswith(")"):
        depth = 0
        for i in range(len(n) - 1, -1, -1):
            if n[i] == ")":
                depth += 1
            elif n[i] == "(":
                depth -= 1
                if depth == 0:
                    n = n[:i]
                    break
    return n.strip()


def names_match(expected, got):
    if got is None:
        return False
    return expected == got or base_name(expected) == base_name(demangle([got])[0])


# ---------------------------------------------------------------------------------------------
# Check 1: frames.

def load_expectations(path):
    rows = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 6:
                raise SystemExit("%s:%d: expected 6 tab-separated columns, got %d" % (path, lineno, len(cols)))
            case, exe, core, args, expected, cite = cols
            args = [] if args.strip() in ("", "none", "-") else args.split()
            exact = False
            if expected.strip() == "-":
                chain = []
            else:
                parts = [p.strip() for p in expected.split("<-")]
                if parts[-1].endswith("$"):
                    exact = True
                    parts[-1] = parts[-1][:-1].strip()
                chain = [p for p in parts if p]
            rows.append(dict(case=case, exe=exe, core=core, args=args, chain=chain, exact=exact,
                             expected=expected.strip(), cite=cite, line=lineno))
    return rows


def own_modules(report, shipped):
    """Names of modules[] entries that are the executable or a library shipped with it."""
    real = {os.path.realpath(p) for p in shipped}
    bids = {b for b in (build_id(p) for p in shipped) if b}
    bases = {os.path.basename(p) for p in shipped}
    own = set()
    for m in report.get("modules") or []:
        name = m.get("name")
        f = m.get("file")
        path = m.get("path") or ""
        if (f and f not in ("[dump memory]",) and os.path.realpath(f) in real) \
                or (m.get("build_id") and m.get("build_id") in bids) \
                or (path and os.path.basename(path) in bases) or (name in bases):
            own.add(name)
    return own


def pick_thread(report):
    threads = report.get("threads") or []
    for t in threads:
        if t.get("crashed"):
            return t, True
    return (threads[0], False) if threads else (None, False)


def check_frames(corpus, rows, binary, timeout, verbose):
    results = []
    for row in rows:
        res = dict(case=row["case"], expected=row["expected"], got="", status="FAIL", why="", time=0.0)
        results.append(res)
        case_dir = os.path.join(corpus.root, row["case"])
        if not os.path.isdir(case_dir):
            res.update(status="FAIL", why="case directory missing")
            continue
        d = corpus.materialize(row["case"])
        exe = os.path.join(d, strip_compression(row["exe"]))
        core = os.path.join(d, strip_compression(row["core"]))
        if not os.path.exists(exe) or not os.path.exists(core):
            err = "; ".join(v for k, v in corpus.decompress_errors.items() if k.startswith(row["case"] + "/"))
            res.update(status="SKIP", why="could not decompress: " + err if err else "exe/core missing")
            continue
        shipped = [p for p in corpus.files(row["case"]) if file_kind(p) in ("exec", "dyn")]
        argv = [binary, "--format", "json", "--no-debuginfod"] + row["args"] + [exe, core]
        run = run_tool(argv, corpus.tmp, timeout)
        res["time"] = run.elapsed
        if run.timed_out or run.rc not in (0, 1):
            res["why"] = "%s: %s" % (describe_rc(run), run.stderr.strip().splitlines()[-1] if run.stderr.strip() else "")
            continue
        try:
            report = json.loads(run.stdout)
        except ValueError as e:
            res["why"] = "JSON does not parse: %s" % e
            continue
        thread, crashed = pick_thread(report)
        if thread is None:
            res["why"] = "no threads in report"
            continue
        own = own_modules(report, shipped)
        frames = [f for f in thread.get("frames") or [] if f.get("module") in own]
        got = [f.get("function") for f in frames]
        got_dm = demangle(got)
        shown = [g if g else "??" for g in got_dm]
        n = len(row["chain"]) + 2 if row["chain"] else 3
        res["got"] = " <- ".join(shown[:n]) + (" <- ..." if len(shown) > n else "") if shown else "(no own-code frame)"
        if not crashed:
            res["got"] += " [no thread marked crashed; used first]"
        if verbose:
            print("--- %s (tid %s, %s, own modules %s)" % (row["case"], thread.get("tid"), describe_rc(run), sorted(own)))
            for f in thread.get("frames") or []:
                print("    #%-2s %-18s %-28s %-24s %s" % (f.get("index"), f.get("pc"), f.get("function"),
                                                      f.get("module"), f.get("trust")))
        chain = row["chain"]
        if not chain:
            if frames:
                res["status"] = "PASS"
            else:
                res["why"] = "no frame in the program's own code"
            continue
        mismatch = None
        for i, want in enumerate(chain):
            if i >= len(got):
                mismatch = "own-code frame #%d missing (wanted %s)" % (i, want)
                break
            if not names_match(want, got[i]):
                mismatch = "own-code frame #%d is %s, wanted %s" % (i, shown[i], want)
                break
        if mismatch is None and row["exact"] and len(got) > len(chain):
            mismatch = "extra own-code frame(s) after %s: %s" % (chain[-1], ", ".join(shown[len(chain):]))
        if mismatch:
            res["why"] = mismatch
        else:
            res["status"] = "PASS"
            spelled = [g for g, w in zip(got_dm, chain) if g != w]
            if spelled:
                res["why"] = "names differ only in spelling: " + ", ".join(spelled)
    return results


# ---------------------------------------------------------------------------------------------
# Check 2: no crash / no hang on any core.

def check_no_crash(corpus, rows, binary, timeout, max_seconds):
    exe_of = {r["case"]: strip_compression(r["exe"]) for r in rows}
    results = []
    runs_all = []
    for case in corpus.cases():
        d = corpus.materialize(case)
        files = corpus.files(case)
        cores = [p for p in files if file_kind(p) in ("core", "kdump")]
        failed_dec = [k for k in corpus.decompress_errors if k.startswith(case + "/")]
        for k in failed_dec:
            results.append(dict(case=case, core=os.path.basename(k), status="SKIP",
                                why="decompression failed: " + corpus.decompress_errors[k], runs=[]))
        if case in exe_of:
            exes = [os.path.join(d, exe_of[case])]
        else:
            exes = [p for p in files if file_kind(p) in ("exec", "dyn") and ".so" not in os.path.basename(p)]
        for core in cores:
            res = dict(case=case, core=os.path.basename(core), status="PASS", why="", runs=[])
            results.append(res)
            invocations = [[core]] + [[e, core] for e in exes[:1]]
            problems = []
            for inv in invocations:
                for fmt in ([], ["--format", "json"]):
                    argv = [binary] + fmt + inv
                    run = run_tool(argv, corpus.tmp, timeout)
                    res["runs"].append(run)
                    runs_all.append((case, run))
                    label = "%s%s" % ("EXE CORE" if len(inv) == 2 else "CORE", " json" if fmt else "")
                    p = []
                    if run.timed_out:
                        p.append("hang (killed after %d s)" % timeout)
                    elif run.rc < 0:
                        p.append(describe_rc(run))
                    elif run.rc not in (0, 1, 2):
                        p.append("exit %d" % run.rc)
                    elif run.elapsed >= max_seconds:
                        p.append("slow: %.2f s" % run.elapsed)
                    if not run.timed_out and run.rc == 2:
                        lines = run.stderr.strip("\n").splitlines()
                        if len(lines) != 1 or not lines[0].startswith("coretriage: "):
                            p.append("exit 2 with stderr %r" % run.stderr[:200])
                    if not run.timed_out and run.rc in (0, 1):
                        if not run.stdout.strip():
                            p.append("exit %d but empty report" % run.rc)
                        elif fmt:
                            try:
                                json.loads(run.stdout)
                            except ValueError as e:
                                p.append("JSON does not parse: %s" % e)
                    if p:
                        problems.append("%s: %s" % (label, "; ".join(p)))
            codes = sorted({describe_rc(r) for r in res["runs"]})
            res["codes"] = ",".join(c.replace("exit ", "") for c in codes)
            res["slowest"] = max(r.elapsed for r in res["runs"])
            if problems:
                res["status"] = "FAIL"
                res["why"] = " | ".join(problems)
        if not cores and not failed_dec:
            results.append(dict(case=case, core="-", status="SKIP", why="no core file found", runs=[]))
    return results, runs_all


# ---------------------------------------------------------------------------------------------

def print_table(headers, rows):
    widths = [len(h) for h in headers]
    for r in rows:
        for i, c in enumerate(r[:-1]):
            widths[i] = max(widths[i], len(c))
    fmt = "  ".join("%%-%ds" % w for w in widths[:-1]) + "  %s"
    print(fmt % tuple(headers))
    print(fmt % tuple(["-" * w for w in widths[:-1]] + ["-" * len(headers[-1])]))
    for r in rows:
        print(fmt % tuple(r))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--coretriage", required=True, help="the coretriage binary")
    ap.add_argument("--shared", required=True, help="the shared/ directory (CT_SHARED_DIR)")
    ap.add_argument("--mode", choices=("frames", "no-crash", "all"), default="all")
    ap.add_argument("--expectations", default=os.path.join(HERE, "expectations.tsv"))
    ap.add_argument("--timeout", type=float, default=10.0, help="kill coretriage after this (s)")
    ap.add_argument("--max-seconds", type=float, default=2.0, help="a run slower than this fails")
    ap.add_argument("--decompress-timeout", type=float, default=120.0)
    ap.add_argument("--only", help="only cases whose directory contains this string")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every crashing-thread frame")
    a = ap.parse_args()

    root = os.path.join(a.shared, "corpus", "external")
    if not os.path.isdir(root):
        print("SKIP: external corpus not found at %s (set CT_SHARED_DIR to the shared/ directory)" % root)
        print("0 passed, 0 failed, 1 skipped")
        return 77
    binary = os.path.abspath(a.coretriage)
    if not os.access(binary, os.X_OK):
        print("coretriage binary not executable: %s" % binary)
        return 1
    rows = load_expectations(a.expectations)
    if a.only:
        rows = [r for r in rows if a.only in r["case"]]

    passed = failed = skipped = 0
    with tempfile.TemporaryDirectory(prefix="ct-corpus-") as tmp:
        corpus = Corpus(root, tmp, a.decompress_timeout)
        if a.only:
            all_cases = corpus.cases
            corpus.cases = lambda: [c for c in all_cases() if a.only in c]

        if a.mode in ("frames", "all"):
            res = check_frames(corpus, rows, binary, a.timeout, a.verbose)
            print("== corpus_frames: crashing thread, own-code frames (innermost first) vs upstream expectation")
            print_table(["result", "case", "expected", "got", "note"],
                        [[r["status"], r["case"], r["expected"], r["got"], r["why"]] for r in res])
            print()
            for r in res:
                passed += r["status"] == "PASS"
                failed += r["status"] == "FAIL"
                skipped += r["status"] == "SKIP"

        if a.mode in ("no-crash", "all"):
            res, runs = check_no_crash(corpus, rows, binary, a.timeout, a.max_seconds)
            print("== corpus_no_crash: every core, `coretriage [EXE] CORE` (text and json), %g s timeout, < %g s"
                  % (a.timeout, a.max_seconds))
            print_table(["result", "case", "core", "runs", "exit", "slowest", "problem"],
                        [[r["status"], r["case"], r["core"], str(len(r["runs"])), r.get("codes", "-"),
                          "%.2fs" % r["slowest"] if r.get("runs") else "-", r["why"]] for r in res])
            if runs:
                slow = sorted(runs, key=lambda cr: -cr[1].elapsed)[:5]
                print("\nslowest runs:")
                for case, run in slow:
                    print("  %6.2f s  %s  %s" % (run.elapsed, describe_rc(run),
                                                 " ".join(os.path.relpath(x, tmp) if x.startswith(tmp) else
                                                          (os.path.relpath(x, root) if x.startswith(root) else x)
                                                          for x in run.argv[1:])))
            print()
            for r in res:
                passed += r["status"] == "PASS"
                failed += r["status"] == "FAIL"
                skipped += r["status"] == "SKIP"

    line = "%d passed, %d failed" % (passed, failed)
    if skipped:
        line += ", %d skipped" % skipped
    print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
