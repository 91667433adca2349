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
  libunwind-loop  a fake vdso whose CFA rule is a looping DWARF expression: --unwinder=libunwind
                  stops the step (defect 8)
  debug-corrupt   an executable whose compressed .debug_info does not inflate: a warning, exit 1
                  (defect 10)
  no-elf-header   the executable's ELF header is not in the dump: --safe uses the one given on the
                  command line (defect 10)
  notes-cap       a million junk notes before the crashing thread: the verdict is not "confidence
                  high" (defect 10)
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
    # 512 MiB under --safe: a budget of 256 Ki frames (src/util/budget.h), far below 200 Mi.
    r = hostile.Run([a.coretriage, "--safe", "--max-memory=512", "--timeout=600", "--format=json", exe, path],
                    timeout=300)
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
        f.check(total <= 256 * 1024 + 202 + 64, f"deep-chains: {total} frames kept")
        print(f"deep-chains: {total} frames in {r.seconds:.1f} s")
    r = hostile.Run([a.coretriage, "--safe", "--max-memory=512", "--timeout=600", exe, path], timeout=300)
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
    # The wall-time limit is raised (a shared machine, sanitizer builds); CPU time is what a
    # quadratic grouping spends: 100,000^2 / 2 stack comparisons took over 60 s.
    r = hostile.Run([a.coretriage, "--safe", "--timeout=600", exe, path], timeout=300)
    f.check(r.rc in (0, 1) and not r.sanitizer, f"threads-100k: {r.describe()}")
    f.check(r.stdout.count(b"\nThread ") + r.stdout.count(b" threads with this stack") >= 90000,
            "threads-100k: the other threads are all shown")
    f.check(r.cpu_seconds < 40, f"threads-100k: {r.cpu_seconds:.1f} s of CPU")
    print(f"threads-100k: text in {r.seconds:.1f} s ({r.cpu_seconds:.1f} s CPU), {len(r.stdout)} bytes")


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


def fake_vdso_core(a, c, img, pc, name):
    """A copy of the seed core whose vdso (AT_SYSINFO_EHDR) is @p img, with one more thread at @p pc."""
    img = bytes(img) + bytes(-len(img) % 4096)
    at, _ = hostile.malformed.auxv_value(c, hostile.malformed.AT_SYSINFO_EHDR)
    if at is None:
        print("SKIP: the seed core has no AT_SYSINFO_EHDR")
        raise SystemExit(77)
    struct.pack_into("<Q", c.data, at, VDSO_ADDR)
    # A stack for the thread: a frame-pointer chain of 4 frames back into the vdso.
    stack = chain(4, pc)
    extra = hostile.prstatus(c, tid=500000, cursig=0, rip=pc, rbp=CHAIN_BASE, rsp=CHAIN_BASE)
    path = os.path.join(a.workdir, name)
    with open(path, "wb") as out:
        out.write(hostile.rebuild(c, hostile.notes_of(c) + extra, [(VDSO_ADDR, img, 5), (CHAIN_BASE, stack)]))
    return path


FAKE_VDSO_SRC = "int vfunc(int x)\n{\n\treturn x * 2 + 1;\n}\n"


def case_vdso_bomb(a, f):
    """Defect 6: compressed .debug_* sections of a fake vdso in the dump claim 3 GiB."""
    exe, data, c = hostile.seed(a.workdir)
    so = hostile.build(a.workdir, "fakevdso.so", FAKE_VDSO_SRC, ["-shared", "-fPIC", "-O0", "-g", "-gz=zlib"])
    img = bytearray(open(so, "rb").read())
    secs = [x for x in hostile.sections(img) if x["name"].startswith(".debug") and x["flags"] & SHF_COMPRESSED]
    if not secs:
        print("SKIP: gcc -gz made no compressed sections")
        raise SystemExit(77)
    for x in secs:  # Elf64_Chdr: ch_type, ch_reserved, ch_size
        struct.pack_into("<Q", img, x["offset"] + 8, 3 << 30)
    path = fake_vdso_core(a, c, img, VDSO_ADDR + hostile.symbol(so, "vfunc") + 4, "vdso-bomb.core")
    r = hostile.Run([a.coretriage, "--safe", "--format=json", exe, path], timeout=120, watch_rss=True)
    rep = r.json()
    f.check(r.rc == 1 and rep is not None and not r.sanitizer, f"vdso-bomb: {r.describe()}")
    f.check("budget-debug" in hostile.diag_codes(rep), f"vdso-bomb: no budget-debug warning: {hostile.diag_codes(rep)}")
    # The warning names the section it refused (issue 22), not only the module.
    msgs = [d["message"] for d in (rep or {}).get("diagnostics", []) if d.get("code") == "budget-debug"]
    f.check(any(x["name"] in m for m in msgs for x in secs), f"vdso-bomb: the warning names no .debug_* section: {msgs}")
    f.check(r.peak_rss_kib < (1 << 20), f"vdso-bomb: peak RSS {r.peak_rss_kib >> 10} MiB")
    print(f"vdso-bomb: exit {r.rc}, peak RSS {r.peak_rss_kib >> 10} MiB")


def fde_instructions(img, sec, func_addr):
    """(offset, length) in @p img of the CFA instructions of the .eh_frame FDE covering @p func_addr
    (GCC's layout: CIE augmentation "zR", FDE pointers pcrel sdata4, no FDE augmentation data)."""
    off, end = sec["offset"], sec["offset"] + sec["size"]
    while off + 8 <= end:
        length, cie = struct.unpack_from("<II", img, off)
        if length == 0:
            break
        rec_end = off + 4 + length
        if cie != 0:
            field = off + 8
            begin = (field + struct.unpack_from("<i", img, field)[0]) & 0xFFFFFFFFFFFFFFFF
            size = struct.unpack_from("<I", img, field + 4)[0]
            # The section's file offset equals its address in a small shared object.
            begin = begin - sec["offset"] + sec["addr"] if "addr" in sec else begin
            if begin <= func_addr < begin + size:
                aug_len = img[field + 8]
                start = field + 9 + aug_len
                return start, rec_end - start
        off = rec_end
    return None, None


def case_libunwind_loop(a, f):
    """Defect 8: a looping CFA expression (DW_OP_skip to itself) in a fake vdso: --unwinder=libunwind
    stops that thread's walk instead of spinning until --timeout."""
    exe, data, c = hostile.seed(a.workdir)
    so = hostile.build(a.workdir, "loopvdso.so", FAKE_VDSO_SRC, ["-shared", "-fPIC", "-O0", "-g"])
    img = bytearray(open(so, "rb").read())
    eh = [x for x in hostile.sections(img) if x["name"] == ".eh_frame"]
    func = hostile.symbol(so, "vfunc")
    start, n = fde_instructions(img, eh[0], func) if eh else (None, None)
    if start is None or n < 5:
        print("SKIP: no FDE for vfunc in .eh_frame")
        raise SystemExit(77)
    # DW_CFA_def_cfa_expression, 3 bytes: DW_OP_skip -3 (back to itself); then DW_CFA_nop.
    img[start:start + n] = b"\x0f\x03\x2f\xfd\xff" + bytes(n - 5)
    path = fake_vdso_core(a, c, img, VDSO_ADDR + func + 4, "libunwind-loop.core")
    r = hostile.Run([a.coretriage, "--safe", "--timeout=60", "--unwinder=libunwind", "--format=json", exe, path],
                    timeout=120)
    rep = r.json()
    f.check(r.rc == 1 and rep is not None and not r.sanitizer, f"libunwind-loop: {r.describe()}")
    f.check("unwind-step-budget" in hostile.diag_codes(rep), f"libunwind-loop: no warning: {hostile.diag_codes(rep)}")
    f.check(r.seconds < 30, f"libunwind-loop: {r.seconds:.1f} s")
    if rep:
        t = [t for t in rep["threads"] if t["tid"] == 500000]
        f.check(t and t[0]["frames"], "libunwind-loop: the thread keeps its frames")
    print(f"libunwind-loop: exit {r.rc} in {r.seconds:.1f} s")


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


def case_no_elf_header(a, f):
    """Defect 10: under --safe, the executable given on the command line is used when the dump
    lacks its ELF header (coredump_filter without bit 4), instead of frames "??" and exit 0."""
    exe, data, c = hostile.seed(a.workdir)
    real = os.path.realpath(exe).encode()
    start = min(e[0] for e in hostile.ntfile_entries(c) if e[3] == real and e[2] == 0)
    off = hostile.malformed.va_to_off(c, start)
    if off is None:
        print("SKIP: the executable's first page is not in the seed core")
        raise SystemExit(77)
    c.data[off:off + 64] = bytes(64)
    path = os.path.join(a.workdir, "no-elf-header.core")
    with open(path, "wb") as out:
        out.write(bytes(c.data))
    r = hostile.Run([a.coretriage, "--safe", "--format=json", exe, path])
    rep = r.json()
    f.check(r.rc in (0, 1) and rep is not None, f"no-elf-header: {r.describe()}")
    fns = {fr.get("function") for t in (rep or {}).get("threads", []) for fr in t["frames"]}
    f.check({"crash", "main"} <= fns, f"no-elf-header: the executable is not used: {fns}")


def case_notes_cap(a, f):
    """Defect 10: a core padded past the notes cap before its crashing thread is not "no crash:
    snapshot, confidence high"."""
    exe, data, c = hostile.seed(a.workdir)
    idle = hostile.prstatus(c, tid=600000, cursig=0)
    junk = hostile.note(b"X", 0x7777, b"") * 1000001
    path = os.path.join(a.workdir, "notes-cap.core")
    with open(path, "wb") as out:
        out.write(hostile.rebuild(c, idle + junk + hostile.notes_of(c)))
    r = hostile.Run([a.coretriage, "--safe", "--format=json", exe, path])
    rep = r.json()
    f.check(r.rc == 1 and rep is not None and not r.sanitizer, f"notes-cap: {r.describe()}")
    if rep:
        f.check(rep["crash"]["confidence"] != "high", f"notes-cap: {rep['crash']['class']} with confidence high")


CASES = {"deep-chains": case_deep_chains, "threads-100k": case_threads_100k, "ntfile-70k": case_ntfile_70k,
         "compressed": case_compressed, "batch-stream": case_batch_stream,
         "vdso-bomb": case_vdso_bomb, "libunwind-loop": case_libunwind_loop, "debug-corrupt": case_debug_corrupt,
         "no-elf-header": case_no_elf_header, "notes-cap": case_notes_cap, "temp-space": case_temp_space}


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
