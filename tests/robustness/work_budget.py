#!/usr/bin/env python3
"""Hostile inputs of issue 11 that attack total work rather than one structure.

    work_budget.py --coretriage BIN --workdir DIR --case NAME

Each case writes its input at test time from a real seed core (hostile.py) and checks that
`coretriage --safe` ends within its limits with a valid report saying what was lost (or a one-line
error), never a crash, a hang or a silent loss. Cases:
  deep-chains     200 threads sharing one 1,000,000-frame frame-pointer chain (16 MB core): the
                  frames budget stops them together (defect 1), exit 1, complete JSON
  threads-100k    100,000 threads with distinct 9-frame stacks: the text writer groups them in
                  linear time (defect 4)
  ntfile-70k      70,000 NT_FILE paths mapped on the executable's ELF page: module discovery is
                  linear and reports the page once (defect 5)
  batch-stream    batch -f ndjson over a core with a 60 MiB report and small ones: the parent's
                  memory stays small, every report arrives, in order (defect 3)
  vdso-bomb       a fake vdso in the dump whose compressed .debug_* sections claim 3 GiB: refused
                  by the debug budget, a warning, memory stays low (defect 6)
  debug-corrupt   an executable whose compressed .debug_info does not inflate: a warning, exit 1
                  (defect 10)
  compressed      zstd/xz/lz4 cores cut at 60 % or with a garbage tail: partial reports saying
                  where the stream broke (defect 13)
  temp-space      a core decompressing to 160 MiB of non-zero bytes under --safe --max-memory=128:
                  the temporary space budget stops it, partial report (defect 7)
"""
import argparse
import os
import struct
import sys

import hostile

CHAIN_BASE = 0x7E0000000000


def chain(frames, ra, base=CHAIN_BASE):
    """A frame-pointer chain at @p base: [fp] = next fp, [fp + 8] = @p ra (ra a callable)."""
    words = []
    for i in range(frames):
        nxt = base + 16 * (i + 1) if i + 1 < frames else 0
        words += (nxt, ra(i) if callable(ra) else ra)
    return struct.pack(f"<{len(words)}Q", *words)


def code_address(exe, c, name, off):
    """An address inside function @p name, past its frame-pointer prologue, as mapped in the core."""
    ents = hostile.ntfile_entries(c)
    real = os.path.realpath(exe).encode()
    start = min(e[0] for e in ents if e[3] == real and e[2] == 0)
    # PIE: the first mapping is the ELF header at link address 0.
    return start + hostile.symbol(exe, name) + off


def case_deep_chains(a, f):
    exe, data, c = hostile.seed(a.workdir)
    ra = code_address(exe, c, "crash", 8)
    blob = chain(1000000, ra)
    extra = b"".join(hostile.prstatus(c, tid=200000 + i, cursig=0, rip=ra, rbp=CHAIN_BASE, rsp=CHAIN_BASE - 64)
                     for i in range(200))
    path = os.path.join(a.workdir, "deep-chains.core")
    with open(path, "wb") as out:
        out.write(hostile.rebuild(c, hostile.notes_of(c) + extra, [(CHAIN_BASE, blob)]))
    # 1 GiB under --safe: a budget of 512 Ki frames (src/util/budget.h), far below 200 Mi.
    r = hostile.Run([a.coretriage, "--safe", "--max-memory=1024", "--format=json", exe, path], timeout=120)
    f.check(r.rc == 1 and not r.sanitizer, f"deep-chains: {r.describe()}")
    rep = r.json()
    f.check(rep is not None, "deep-chains: the JSON report is complete")
    if rep:
        threads = rep["threads"]
        total = sum(len(t["frames"]) for t in threads)
        f.check(len(threads) == 202, f"deep-chains: {len(threads)} threads in the report, 202 in the core")
        f.check(all(t["frames"] for t in threads), "deep-chains: every thread keeps at least its first frame")
        f.check("budget-frames" in hostile.diag_codes(rep), f"deep-chains: no budget-frames warning: {hostile.diag_codes(rep)}")
        # Plus the first frame of each thread and one thread's inline frames.
        f.check(total <= 512 * 1024 + 202 + 64, f"deep-chains: {total} frames kept")
        print(f"deep-chains: {total} frames in {r.seconds:.1f} s")
    r = hostile.Run([a.coretriage, "--safe", "--max-memory=1024", exe, path], timeout=120)
    f.check(r.rc == 1 and b"work budget reached" in r.stdout, f"deep-chains text: {r.describe()}")


def case_threads_100k(a, f):
    exe, data, c = hostile.seed(a.workdir)
    # Return addresses from a set of 48 inside main (past its prologue): the last three frames
    # of thread i spell i in base 48, so every stack differs, but only near its end.
    ras = [code_address(exe, c, "main", 8 + k) for k in range(48)]
    n = 100000
    notes, blob = [], bytearray()
    for i in range(n):
        base = CHAIN_BASE + len(blob)
        digits = [(i // 48 ** k) % 48 for k in range(3)]
        blob += chain(9, lambda k: ras[digits[k - 6]] if k >= 6 else ras[0], base)
        notes.append(hostile.prstatus(c, tid=300000 + i, cursig=0, rip=ras[0], rbp=base, rsp=base - 64))
    path = os.path.join(a.workdir, "threads-100k.core")
    with open(path, "wb") as out:
        out.write(hostile.rebuild(c, hostile.notes_of(c) + b"".join(notes[:n - 2]), [(CHAIN_BASE, bytes(blob))]))
    r = hostile.Run([a.coretriage, "--safe", exe, path], timeout=120)
    f.check(r.rc in (0, 1) and not r.sanitizer, f"threads-100k: {r.describe()}")
    f.check(r.stdout.count(b"\nThread ") + r.stdout.count(b" threads with this stack") >= 90000,
            "threads-100k: the other threads are all shown")
    f.check(r.seconds < 60, f"threads-100k: {r.seconds:.1f} s (the --safe limit is 60 s)")
    print(f"threads-100k: text in {r.seconds:.1f} s, {len(r.stdout)} bytes")


def case_ntfile_70k(a, f):
    exe, data, c = hostile.seed(a.workdir)
    ents = hostile.ntfile_entries(c)
    real = os.path.realpath(exe).encode()
    start = min(e[0] for e in ents if e[3] == real and e[2] == 0)
    fake = [(start, start + 4096, 0, b"/nonexistent/" + b"d" * 100 + b"/lib%06d.so" % i) for i in range(70000)]
    nt = hostile.note(b"CORE", hostile.NT_FILE, hostile.ntfile_desc(ents + fake))
    notes = hostile.notes_of(c, lambda x: x["type"] != hostile.NT_FILE) + nt
    path = os.path.join(a.workdir, "ntfile-70k.core")
    with open(path, "wb") as out:
        out.write(hostile.rebuild(c, notes))
    r = hostile.Run([a.coretriage, "--safe", "--format=json", exe, path], timeout=120)
    f.check(r.rc in (0, 1) and not r.sanitizer, f"ntfile-70k: {r.describe()}")
    rep = r.json()
    f.check(rep is not None, "ntfile-70k: a complete JSON report")
    if rep:
        f.check("aliased-mappings" in hostile.diag_codes(rep), f"ntfile-70k: no warning: {hostile.diag_codes(rep)}")
        f.check(any(fr.get("function") == "crash" for t in rep["threads"] for fr in t["frames"]),
                "ntfile-70k: the executable is still symbolized")
    f.check(r.seconds < 20, f"ntfile-70k: {r.seconds:.1f} s")
    print(f"ntfile-70k: {r.seconds:.1f} s")


def compress(tool, data, path):
    """Compresses @p data with the system's own tool (real streams, not hand-made ones)."""
    import shutil
    import subprocess
    if not shutil.which(tool):
        return None
    with open(path, "wb") as out:
        subprocess.run([tool, "-c", "-q"] if tool != "lz4" else [tool, "-c", "-q", "-"], input=data,
                       stdout=out, check=True)
    return path


def case_compressed(a, f):
    """Defect 13: a truncated or garbage-tailed compressed core is a partial report, not fatal."""
    exe, data, c = hostile.seed(a.workdir)
    ran = 0
    for tool, ext in (("zstd", "zst"), ("xz", "xz"), ("lz4", "lz4")):
        full = compress(tool, data, os.path.join(a.workdir, f"core.{ext}"))
        if not full:
            continue
        blob = open(full, "rb").read()
        for label, cut in (("truncated", blob[:len(blob) * 6 // 10]), ("garbage-tail", blob + b"GARBAGE!" * 512)):
            path = os.path.join(a.workdir, f"{label}.core.{ext}")
            with open(path, "wb") as out:
                out.write(cut)
            r = hostile.Run([a.coretriage, "--safe", "--format=json", exe, path])
            rep = r.json()
            ran += 1
            f.check(r.rc == 1 and rep is not None and not r.sanitizer, f"{tool} {label}: {r.describe()}")
            if rep:
                codes = hostile.diag_codes(rep)
                f.check("compressed-core-broken" in codes, f"{tool} {label}: no diagnostic: {codes}")
                msgs = [d["message"] for d in rep["diagnostics"] if d["code"] == "compressed-core-broken"]
                f.check(any("compressed bytes" in m for m in msgs), f"{tool} {label}: where it broke: {msgs}")
                if label == "garbage-tail":
                    f.check(any(fr.get("function") == "crash" for t in rep["threads"] for fr in t["frames"]),
                            f"{tool} {label}: the intact core is analyzed in full")
    f.check(ran > 0, "no compression tool found")


def case_temp_space(a, f):
    """Defect 7: the temporary space of a decompressed core is bounded by --max-memory under --safe."""
    exe, data, c = hostile.seed(a.workdir)
    # 160 MiB of 0x01 after the core: a valid core (trailing bytes are ignored) that takes space
    # when decompressed (only zero blocks become holes), and compresses to almost nothing.
    path = compress("zstd", data + b"\x01" * (160 << 20), os.path.join(a.workdir, "big.core.zst"))
    if not path:
        path = compress("xz", data + b"\x01" * (160 << 20), os.path.join(a.workdir, "big.core.xz"))
    r = hostile.Run([a.coretriage, "--safe", "--max-memory=128", "--format=json", exe, path])
    rep = r.json()
    f.check(r.rc == 1 and rep is not None and not r.sanitizer, f"temp-space: {r.describe()}")
    f.check("budget-temp" in hostile.diag_codes(rep), f"temp-space: no budget-temp warning: {hostile.diag_codes(rep)}")
    r = hostile.Run([a.coretriage, "--format=json", exe, path])
    f.check(r.rc == 0 and "budget-temp" not in hostile.diag_codes(r.json()), f"temp-space without limits: {r.describe()}")


def case_batch_stream(a, f):
    """Defect 3: in -f ndjson the parent holds no report; its memory does not grow with them."""
    exe, data, c = hostile.seed(a.workdir)
    ra = code_address(exe, c, "crash", 8)
    extra = hostile.prstatus(c, tid=400000, cursig=0, rip=ra, rbp=CHAIN_BASE, rsp=CHAIN_BASE - 64)
    big = os.path.join(a.workdir, "batch-big.core")
    with open(big, "wb") as out:
        out.write(hostile.rebuild(c, hostile.notes_of(c) + extra, [(CHAIN_BASE, chain(400000, ra))]))
    small = os.path.join(a.workdir, "seed", "core")
    inputs = [big] + [small] * 8
    r = hostile.Run([a.coretriage, "batch", "-j2", "--progress=never", "-f", "ndjson", "--exe", exe] + inputs,
                    timeout=300, watch_rss=True)
    f.check(r.rc in (0, 1) and not r.sanitizer, f"batch-stream: {r.describe()}")
    lines = r.stdout.splitlines()
    f.check(len(lines) == len(inputs), f"batch-stream: {len(lines)} reports for {len(inputs)} cores")
    try:
        reps = [hostile.json.loads(l) for l in lines]
        f.check([x["input"]["core"] for x in reps] == inputs, "batch-stream: reports in input order")
        f.check(all("error" not in x for x in reps), "batch-stream: every core analyzed")
    except ValueError as e:
        f.check(False, f"batch-stream: a line is not JSON: {e}")
    size = len(r.stdout) >> 20
    f.check(size >= 40, f"batch-stream: the big report is only {size} MiB")
    # The parent copies reports through a 64 KiB buffer: far below the big report.
    f.check(r.peak_rss_kib < 32 * 1024, f"batch-stream: parent RSS peaked at {r.peak_rss_kib >> 10} MiB "
            f"for {size} MiB of reports")
    print(f"batch-stream: {size} MiB of NDJSON, parent peak RSS {r.peak_rss_kib >> 10} MiB, {r.seconds:.1f} s")


SHF_COMPRESSED = 0x800
VDSO_ADDR = 0x7F0000000000


def case_vdso_bomb(a, f):
    """Defect 6: compressed .debug_* sections of a fake vdso in the dump claim 3 GiB."""
    exe, data, c = hostile.seed(a.workdir)
    so = hostile.build(a.workdir, "fakevdso.so", "int vfunc(int x)\n{\n\treturn x * 2 + 1;\n}\n",
                       ["-shared", "-fPIC", "-O0", "-g", "-gz=zlib"])
    img = bytearray(open(so, "rb").read())
    secs = [x for x in hostile.sections(img) if x["name"].startswith(".debug") and x["flags"] & SHF_COMPRESSED]
    if not secs:
        print("SKIP: gcc -gz made no compressed sections")
        raise SystemExit(77)
    for x in secs:  # Elf64_Chdr: ch_type, ch_reserved, ch_size
        struct.pack_into("<Q", img, x["offset"] + 8, 3 << 30)
    img += bytes(-len(img) % 4096)
    at, _ = hostile.malformed.auxv_value(c, hostile.malformed.AT_SYSINFO_EHDR)
    if at is None:
        print("SKIP: the seed core has no AT_SYSINFO_EHDR")
        raise SystemExit(77)
    struct.pack_into("<Q", c.data, at, VDSO_ADDR)
    pc = VDSO_ADDR + hostile.symbol(so, "vfunc") + 4
    extra = hostile.prstatus(c, tid=500000, cursig=0, rip=pc, rbp=0, rsp=CHAIN_BASE)
    path = os.path.join(a.workdir, "vdso-bomb.core")
    with open(path, "wb") as out:
        out.write(hostile.rebuild(c, hostile.notes_of(c) + extra, [(VDSO_ADDR, bytes(img)), (CHAIN_BASE, bytes(4096))]))
    r = hostile.Run([a.coretriage, "--safe", "--format=json", exe, path], timeout=120, watch_rss=True)
    rep = r.json()
    f.check(r.rc == 1 and rep is not None and not r.sanitizer, f"vdso-bomb: {r.describe()}")
    f.check("budget-debug" in hostile.diag_codes(rep), f"vdso-bomb: no budget-debug warning: {hostile.diag_codes(rep)}")
    f.check(r.peak_rss_kib < (1 << 20), f"vdso-bomb: peak RSS {r.peak_rss_kib >> 10} MiB")
    print(f"vdso-bomb: exit {r.rc}, peak RSS {r.peak_rss_kib >> 10} MiB")


def case_debug_corrupt(a, f):
    """Defect 10: debug information that does not inflate is a warning, not a silent exit 0."""
    src = open(os.path.join(hostile.HERE, "crash.c")).read()
    exe = hostile.build(a.workdir, "gz-crash", src, ["-O0", "-g", "-gz=zlib", "-pthread", "-fno-omit-frame-pointer"])
    img = bytearray(open(exe, "rb").read())
    info = [x for x in hostile.sections(img) if x["name"] == ".debug_info" and x["flags"] & SHF_COMPRESSED]
    if not info:
        print("SKIP: gcc -gz made no compressed .debug_info")
        raise SystemExit(77)
    x = info[0]
    # Past the 24-byte header and the zlib header: garbage in the deflate stream.
    for k in range(x["offset"] + 24 + 8, x["offset"] + x["size"] - 8):
        img[k] ^= 0x5A
    bad = exe + "-corrupt"
    with open(bad, "wb") as out:
        out.write(img)
    os.chmod(bad, 0o755)
    import subprocess
    d = os.path.join(a.workdir, "gz-run")
    os.makedirs(d, exist_ok=True)
    subprocess.run(["sh", "-c", 'ulimit -c unlimited; exec "$0"', exe], cwd=d, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    cores = [n for n in os.listdir(d) if n == "core" or n.startswith("core.")]
    if not cores:
        print("SKIP: no core")
        raise SystemExit(77)
    core = os.path.join(d, cores[0])
    r = hostile.Run([a.coretriage, "--format=json", exe, core])
    f.check(r.rc == 0, f"debug-corrupt: the intact file gives a complete report: {r.describe()}")
    r = hostile.Run([a.coretriage, "--safe", "--format=json", bad, core])
    rep = r.json()
    f.check(r.rc == 1 and rep is not None and not r.sanitizer, f"debug-corrupt: {r.describe()}")
    f.check("debug-info-unusable" in hostile.diag_codes(rep), f"debug-corrupt: no warning: {hostile.diag_codes(rep)}")


CASES = {"deep-chains": case_deep_chains, "threads-100k": case_threads_100k, "ntfile-70k": case_ntfile_70k,
         "compressed": case_compressed, "batch-stream": case_batch_stream,
         "vdso-bomb": case_vdso_bomb, "debug-corrupt": case_debug_corrupt, "temp-space": case_temp_space}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coretriage", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    a = ap.parse_args()
    a.workdir = os.path.abspath(a.workdir)
    f = hostile.Failures()
    CASES[a.case](a, f)
    return f.exit()


if __name__ == "__main__":
    sys.exit(main())
