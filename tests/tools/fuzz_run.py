#!/usr/bin/env python3
"""Runs one libFuzzer target for a fixed time from seeds made of real cores.

    fuzz_run.py --target T --fuzzer BIN --seconds S --workdir DIR [--regressions DIR]
                [--cores DIR] [--shared DIR] [--jobs N]

Seeds: every core under --cores (scripts/make-cores output) and the uncompressed cores of
SHARED/corpus/external up to 4 MiB; for the notes target the PT_NOTE bodies of those cores (with
the selector byte fuzz_notes.c expects); plus the target's regression inputs. The corpus grows in
WORKDIR/T/corpus across runs. Prints the executions done and exits non-zero when libFuzzer found a
crash, leak or timeout (the input is left in WORKDIR/T/ as crash-*, leak-*, timeout-*; copy it to
tests/robustness/regressions/T/ once fixed).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctelf  # noqa: E402

# Inputs are cut to 64 KiB: headers, notes and the first pages of memory are where the parsing is,
# and small inputs keep the fuzzers fast (a 1 MiB input runs ~50x slower under ASan).
MAX_LEN = 65536
# Module discovery and the pipeline need the ELF headers of the mapped files, a few pages further in.
MAX_LEN_BY_TARGET = {"modules": 262144, "analyze": 262144}
MACHINES = {62: 0, 3: 1, 183: 2, 243: 3, 40: 4, 22: 5, 21: 6}


def core_files(cores, shared):
    out = []
    if cores and os.path.isdir(cores):
        for root, _, files in os.walk(cores):
            out += [os.path.join(root, f) for f in sorted(files) if f == "core" or f.endswith(".core")]
    ext = os.path.join(shared or "", "corpus", "external")
    if shared and os.path.isdir(ext):
        for root, _, files in os.walk(ext):
            for f in sorted(files):
                p = os.path.join(root, f)
                try:
                    if os.path.getsize(p) > (4 << 20):
                        continue
                    with open(p, "rb") as fh:
                        head = fh.read(18)
                except OSError:
                    continue
                if head[:4] == b"\x7fELF" and len(head) == 18 and \
                        int.from_bytes(head[16:18], "big" if head[5] == 2 else "little") == 4:
                    out.append(p)
                elif head[:8] in (b"KDUMP   ", b"DISKDUMP"):
                    out.append(p)
    return out


def scramble_build_ids(data):
    """Flips the bytes of every GNU build-id note in the image. Seeds come from this host's cores,
    whose libraries have debug files in /usr/lib/debug: a matching build-id makes every execution
    load libc's DWARF (~0.2 s), so the fuzzer would spend its time in libdw instead of our parsers."""
    out = bytearray(data)
    for pat, n in ((b"\x04\x00\x00\x00", 4), (b"\x00\x00\x00\x04", 4)):
        be = pat[0] == 0
        start = 0
        while True:
            i = out.find(b"GNU\x00", start)
            if i < 0:
                break
            start = i + 4
            if i < 12:
                continue
            namesz = int.from_bytes(out[i - 12:i - 8], "big" if be else "little")
            descsz = int.from_bytes(out[i - 8:i - 4], "big" if be else "little")
            ntype = int.from_bytes(out[i - 4:i], "big" if be else "little")
            if namesz == 4 and ntype == 3 and 0 < descsz <= 64:
                for k in range(i + 4, min(i + 4 + descsz, len(out))):
                    out[k] ^= 0x5A
    return bytes(out)


def insn_seeds(seeddir):
    """fuzz_insn.c inputs: selector, pc, 17 registers, 16 bytes before pc, then the instruction."""
    import struct
    codes = [bytes.fromhex(h) for h in (
        "c700" "2a000000",          # mov dword [rax], 42
        "0f2800",                   # movaps xmm0, [rax]
        "0f0b",                     # ud2
        "ff5008",                   # call [rax+8]
        "488b45f0" "8910",          # mov rax, [rbp-0x10]; mov [rax], edx
        "f4",                       # hlt
        "48f7f1",                   # div rcx
        "f00fc70e",                 # lock cmpxchg8b [rsi]
        "c3",                       # ret
    )]
    n = 0
    for i, code in enumerate(codes):
        for sel in (0, 1, 2):
            regs = [0x1000 * (k + 1) for k in range(17)]
            regs[6] = 0x7ffc0000  # rbp
            before = bytes.fromhex("488b45f0") + bytes(12)
            blob = bytes([sel]) + struct.pack("<Q", 0x401000) + struct.pack("<17Q", *regs) + before + code + bytes(8)
            with open(os.path.join(seeddir, f"insn{i:02d}-{sel}"), "wb") as f:
                f.write(blob)
            n += 1
    return n


def unwind_seeds(seeddir):
    """fuzz_unwind.c inputs: a selector byte, then stack bytes: the real stack of the base core
    (CT_FUZZ_UNWIND_CORE) from its crashing thread's sp, for both unwinders."""
    import struct
    path = os.environ.get("CT_FUZZ_UNWIND_CORE")
    if not path or not os.path.exists(path):
        return 0
    data = open(path, "rb").read()
    c = ctelf.Core(data)
    pr = next((n for n in c.notes() if n["type"] == 1), None)
    if not pr or c.e_machine != 62:
        return 0
    sp = struct.unpack_from("<Q", data, pr["desc_off"] + 112 + 19 * 8)[0]
    for p in c.phdrs:
        if p["type"] == 1 and p["vaddr"] <= sp < p["vaddr"] + p["filesz"]:
            off = p["offset"] + sp - p["vaddr"]
            stack = data[off:off + min(65536, p["vaddr"] + p["filesz"] - sp)]
            for sel in (0, 1, 2, 3):
                with open(os.path.join(seeddir, f"stack-{sel}"), "wb") as f:
                    f.write(bytes([sel]) + stack)
            return 4
    return 0


# fuzz_values.c's sections, in its order: the first byte of an input picks one of those present.
VALUES_SECTIONS = (".debug_info", ".debug_abbrev", ".debug_loclists", ".debug_loc", ".debug_str", ".debug_rnglists")


def values_seeds(seeddir):
    """fuzz_values.c inputs: a selector byte, then the real bytes of that debug section of the
    base executable (CT_FUZZ_VALUES_EXE), at most MAX_LEN."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "robustness"))
    import hostile
    path = os.environ.get("CT_FUZZ_VALUES_EXE")
    if not path or not os.path.exists(path):
        return 0
    data = open(path, "rb").read()
    by_name = {s["name"]: s for s in hostile.sections(data)}
    present = [by_name[n] for n in VALUES_SECTIONS if n in by_name and by_name[n]["type"] == 1 and by_name[n]["size"]]
    for k, sec in enumerate(present):
        with open(os.path.join(seeddir, f"section-{k}"), "wb") as f:
            f.write(bytes([k]) + data[sec["offset"]:sec["offset"] + min(sec["size"], MAX_LEN - 1)])
    return len(present)


def make_seeds(target, cores, shared, seeddir):
    max_len = MAX_LEN_BY_TARGET.get(target, MAX_LEN)
    if target == "unwind":
        os.makedirs(seeddir, exist_ok=True)
        return unwind_seeds(seeddir)
    if target == "values":
        os.makedirs(seeddir, exist_ok=True)
        return values_seeds(seeddir)
    if target in ("writers", "dwarf_expr", "btf", "kindex"):
        # The regression inputs (hostile strings, operation sequences, hand-built BTF, small kept
        # kernel indexes) are the seeds.
        os.makedirs(seeddir, exist_ok=True)
        return 0
    if target == "insn":
        os.makedirs(seeddir, exist_ok=True)
        return insn_seeds(seeddir)
    if target == "logs":
        # Logs are text: one seed per format the readers know, no cores.
        os.makedirs(seeddir, exist_ok=True)
        for k, text in enumerate(LOG_TEXT_SEEDS):
            with open(os.path.join(seeddir, f"log{k}"), "wb") as f:
                f.write(text)
        return len(LOG_TEXT_SEEDS)
    os.makedirs(seeddir, exist_ok=True)
    n = 0
    for i, path in enumerate(core_files(cores, shared)):
        with open(path, "rb") as f:
            data = f.read()
        if target == "vmcore":
            # The raw file (probe), and the text of its VMCOREINFO note (parser), when it has one.
            try:
                c = ctelf.Core(data)
                for note in c.notes():
                    if note["name"] == b"VMCOREINFO":
                        with open(os.path.join(seeddir, f"vmcoreinfo{i:04d}"), "wb") as f:
                            f.write(data[note["desc_off"]:note["desc_off"] + note["descsz"]])
            except Exception:
                pass
            data = data[:MAX_LEN]
        if target == "notes":
            try:
                c = ctelf.Core(data)
            except (ValueError, Exception):
                continue
            ph = c.note_segment()
            if not ph:
                continue
            sel = (0 if c.is64 else 1) | (2 if c.be else 0) | (MACHINES.get(c.e_machine, 7) << 2)
            data = bytes([sel]) + data[ph["offset"]:ph["offset"] + ph["filesz"]]
        elif target in ("modules", "analyze", "core_open") and len(data) > max_len:
            # libFuzzer's default -max_len is taken from the largest seed: keep seeds small so it
            # mutates near the headers and notes, where the parsing is.
            data = data[:max_len]
        if target in ("modules", "analyze"):
            data = scramble_build_ids(data)
        with open(os.path.join(seeddir, f"seed{i:04d}"), "wb") as f:
            f.write(data)
        n += 1
    if target == "vmcore":
        for k, text in enumerate(VMCORE_TEXT_SEEDS):
            with open(os.path.join(seeddir, f"text{k}"), "wb") as f:
                f.write(text)
    return n


LOG_TEXT_SEEDS = [
    b"2026-12-01T14:03:05.123456Z crashy[1234]: starting\n2026-12-01T14:03:07+00:00 crashy[1234]: boom\n  at frame 1\n",
    b"Dec  1 14:03:06 host crashy[1234]: syslog line\n<13>Dec  1 14:03:07 host kernel: x\n",
    b"<34>1 2026-12-01T14:03:07.003Z host crashy 1234 - - rfc5424\n",
    b"[    1.234567] crashy[1234]: segfault at 8 ip 0 sp 0 error 4\n<6>[    2.000000] y\n",
    b"[Tue Dec  1 14:03:07 2026] dmesg -T line\n",
    b"type=ANOM_ABEND msg=audit(1796133787.042:77): auid=0 pid=1234 comm=\"crashy\"\n",
    b"__CURSOR=s=1\n__REALTIME_TIMESTAMP=1796133787000000\n_PID=1234\n_COMM=crashy\nMESSAGE=hi\n\n"
    b"__REALTIME_TIMESTAMP=1796133788000000\nMESSAGE\n\x05\x00\x00\x00\x00\x00\x00\x00bin\x00y\n\n",
]


VMCORE_TEXT_SEEDS = [
    b"OSRELEASE=6.1.0-18-amd64\nBUILD-ID=0123456789abcdef0123456789abcdef01234567\nPAGESIZE=4096\n"
    b"SYMBOL(prb)=ffffffff82a5c4e0\nSYMBOL(_stext)=ffffffff81000000\nOFFSET(printk_info.text_len)=16\n"
    b"SIZE(printk_info)=88\nLENGTH(printk_ringbuffer)=3\nNUMBER(phys_base)=-2147483648\nKERNELOFFSET=2a000000\n"
    b"CRASHTIME=1700000000\n",
    b"[    1.234567] BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
    b"[    1.234570] #PF: supervisor read access in kernel mode\n"
    b"[    1.234571] Oops: 0000 [#1] PREEMPT SMP NOPTI\n"
    b"[    1.234572] CPU: 1 PID: 42 Comm: insmod Tainted: G           O       6.1.0 #1\n"
    b"[    1.234573] RIP: 0010:ct_null_init+0x5/0x20 [ct_null]\n"
    b"[    1.234580] Kernel panic - not syncing: Fatal exception\n",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", required=True)
    ap.add_argument("--fuzzer", required=True)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--regressions")
    ap.add_argument("--cores")
    ap.add_argument("--shared")
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args()
    wd = os.path.join(a.workdir, a.target)
    corpus, seeds = os.path.join(wd, "corpus"), os.path.join(wd, "seeds")
    os.makedirs(corpus, exist_ok=True)
    shutil.rmtree(seeds, ignore_errors=True)
    n = make_seeds(a.target, a.cores, a.shared, seeds)
    dirs = [corpus, seeds]
    if a.regressions and os.path.isdir(a.regressions):
        dirs.append(a.regressions)
    print(f"fuzz_{a.target}: {n} seeds from real cores, {a.seconds} s")
    argv = [a.fuzzer, f"-max_total_time={a.seconds}", "-timeout=10", "-rss_limit_mb=3072", f"-max_len={MAX_LEN_BY_TARGET.get(a.target, MAX_LEN)}",
            "-print_final_stats=1", f"-artifact_prefix={wd}/"] + dirs
    if a.jobs > 1:
        argv[1:1] = [f"-jobs={a.jobs}", f"-workers={a.jobs}"]
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:allocator_may_return_null=1")
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    log = p.stdout.decode(errors="replace")
    with open(os.path.join(wd, "last.log"), "w") as f:
        f.write(log)
    execs = sum(int(x) for x in re.findall(r"stat::number_of_executed_units:\s*(\d+)", log))
    print(f"fuzz_{a.target}: {execs} executions, exit {p.returncode}")
    if p.returncode != 0:
        print(log[-6000:])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
