#!/usr/bin/env python3
"""A kernel's kept index (src/kernel/kindex.h): same reports with and without it, used only when it matches.

usage: check_kindex.py CORETRIAGE VMCORE_DIR
On the real dumps of scripts/make-vmcores, in a cache directory of its own, checks that
- the first run of a dump writes `<cache>/coretriage/kernel/<BUILD-ID>.kidx` and its report (text with
  --tasks, JSON with --tasks) equals the --no-cache one byte for byte;
- the next runs use the index (the file is not written anew: same inode) with the same reports, for the
  same dump and for a dump of the same kernel from another boot (another KASLR offset);
- --safe and --no-cache keep nothing;
- a damaged index (cut short, another build-id, unsorted addresses, a sample that no longer reads back,
  an empty name hash) is not used: the report is the --no-cache one and the index is written anew;
- a dump whose .BTF is broken (qemu-oops.elf, magic cleared in a copy) gets the no-btf fallback with a
  good index present, as without one.
Exit 0 when all checks pass, 1 on a failure, 77 (skip) only when CT_NO_VMCORE=1.
"""
import json
import ktest
import os
import shutil
import struct
import subprocess
import sys
import tempfile

# struct header of kindex.c: magic, byte order, header size, build-id, 15 u64 fields, token index, samples.
HEADER = struct.Struct("<8sII88s15Q512s" + "IIQ32s" * 8)
FIELDS = ["raw_num_syms", "relative_base", "num_syms", "names_size", "num_slots", "names_stream_len", "btf_size",
          "addrs_off", "name_offs_off", "slots_off", "types_off", "names_off", "btf_off", "file_size", "hash_key"]


check = ktest.check


def run(bin_, env, args):
    p = subprocess.run([bin_, "--no-debuginfod"] + args, capture_output=True, text=True, env=env, timeout=120)
    return p.returncode, p.stdout, p.stderr


def reports(bin_, env, dump, extra=()):
    return [run(bin_, env, list(extra) + ["--tasks", dump]), run(bin_, env, list(extra) + ["--tasks", "-f", "json", dump])]


def header(path):
    with open(path, "rb") as f:
        raw = f.read(HEADER.size)
    v = HEADER.unpack(raw)
    h = dict(zip(FIELDS, v[4:19]))
    h["samples_at"] = HEADER.size - 8 * 48
    return h


def main():
    bin_, d = sys.argv[1:3]
    if os.environ.get("CT_NO_VMCORE") == "1":
        print("CT_NO_VMCORE=1: vmcore tests skipped")
        return 77
    a, b, elf = (os.path.join(d, n) for n in ("kdump-oops.zlib", "qemu-oops.kdump", "qemu-oops.elf"))
    for p in (a, b, elf):
        if not os.path.exists(p):
            print("FAIL: %s missing: scripts/make-vmcores did not run or failed" % p)
            return 1
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "cache")
        os.mkdir(cache)
        env = dict(os.environ, XDG_CACHE_HOME=cache, HOME=os.path.join(tmp, "home"))
        ref_a, ref_b = reports(bin_, env, a, ["--no-cache"]), reports(bin_, env, b, ["--no-cache"])
        check(not os.listdir(cache), "--no-cache wrote into the cache: %r" % os.listdir(cache))
        reports(bin_, env, a, ["--safe"])
        check(not os.listdir(cache), "--safe wrote into the cache: %r" % os.listdir(cache))
        ja, jb = json.loads(ref_a[1][1]), json.loads(ref_b[1][1])
        build_id = ja["kernel"]["build_id"]
        check(build_id and build_id == jb["kernel"]["build_id"], "dumps of one kernel: %r %r" % (build_id, jb["kernel"]["build_id"]))
        check(ja["kernel"]["kaslr_offset"] != jb["kernel"]["kaslr_offset"], "the two boots have one KASLR offset")
        index = os.path.join(cache, "coretriage", "kernel", build_id + ".kidx")

        check(reports(bin_, env, a) == ref_a, "first run with a cache: report differs from --no-cache")
        if not check(os.path.exists(index), "no index written at %s" % index):
            return report()
        ino = os.stat(index).st_ino
        check(reports(bin_, env, a) == ref_a, "run with the index: report differs from --no-cache")
        check(os.stat(index).st_ino == ino, "the index was written anew for the dump it was made from")
        check(reports(bin_, env, b) == ref_b, "another boot with the index: report differs from --no-cache")
        check(os.stat(index).st_ino == ino, "the index was not used for another boot of the kernel (KASLR moved)")

        good = os.path.join(tmp, "good.kidx")
        shutil.copyfile(index, good)
        h = header(good)

        def damage(name, edit):
            shutil.copyfile(good, index)
            with open(index, "r+b") as f:
                edit(f)
            before = os.stat(index).st_ino
            check(reports(bin_, env, a) == ref_a, "%s: report differs from --no-cache" % name)
            check(os.path.exists(index) and os.stat(index).st_ino != before, "%s: the damaged index was not replaced" % name)

        damage("cut short", lambda f: f.truncate(h["file_size"] // 2))
        damage("another build-id", lambda f: (f.seek(16), f.write(b"0" * 40)))

        def unsorted(f):
            f.seek(h["addrs_off"] + 8 * (h["num_syms"] // 2))
            f.write(struct.pack("<Q", 0xffffffffffffffff))
        damage("unsorted addresses", unsorted)

        def sample(f):
            f.seek(h["samples_at"] + 16)
            x = f.read(1)
            f.seek(h["samples_at"] + 16)
            f.write(bytes([x[0] ^ 0xff]))
        damage("a sample that does not read back", sample)
        damage("an empty name hash", lambda f: (f.seek(h["slots_off"]), f.write(b"\0" * 4 * h["num_slots"])))

        # The good index, and a dump of the same kernel whose .BTF magic is cleared.
        shutil.copyfile(good, index)
        dump = os.path.join(tmp, "nobtf.elf")
        shutil.copyfile(elf, dump)
        broken = ktest.break_vmlinux_btf(dump)
        check(broken >= 1, "no vmlinux BTF header found in %s" % elf)
        got, want = reports(bin_, env, dump), reports(bin_, env, dump, ["--no-cache"])
        check(got == want, "broken .BTF with an index: report differs from --no-cache")
        check('"no-btf"' in got[1][1], "broken .BTF with an index: no no-btf diagnostic")
    return report()


def report():
    return ktest.report("kernel index")


sys.exit(main())
