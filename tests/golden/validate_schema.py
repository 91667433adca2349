#!/usr/bin/env python3
"""Validates coretriage's JSON report for every case of testdata/cases.tsv against
docs/schema/report.schema.json, and checks that the output is deterministic: two runs on the same
core give the same bytes.

usage: validate_schema.py CORETRIAGE CORES_DIR SCHEMA CASES_TSV [SEEN_DIR]

With SEEN_DIR (the build tree's), the second run is saved: each case's report is kept there with a
key of the core's and executable's size, mtime and inode. A case whose report equals the one an
earlier run of this test kept for the same core already has its two runs with the same bytes (two
processes, often two builds), so it is run only once. A case without a kept report, whose report
changed (a new build that changes the output, or a remade core), or one of the sample (every
SAMPLE-th case, so that each run of the test checks determinism within itself too) is run twice, as
without SEEN_DIR. A fresh build tree therefore runs every case twice.
"""
import hashlib
import json
import os
import subprocess
import sys

import jsonschema

SAMPLE = 8


def input_key(d, files):
    """Identity of a case's inputs: a remade core (make-cores) gets a new inode and mtime."""
    parts = []
    for f in files:
        st = os.stat(os.path.join(d, f))
        parts.append("%s:%d:%d:%d" % (f, st.st_size, st.st_mtime_ns, st.st_ino))
    return "\n".join(parts)


def seen_paths(seen, case):
    safe = hashlib.sha1(case.encode()).hexdigest()[:16]
    return os.path.join(seen, safe + ".key"), os.path.join(seen, safe + ".json")


def seen_before(seen, case, key, stdout):
    """True when an earlier run kept this very report for this case's unchanged inputs."""
    kpath, jpath = seen_paths(seen, case)
    try:
        with open(kpath, encoding="utf-8") as k, open(jpath, encoding="utf-8") as j:
            return k.read() == key and j.read() == stdout
    except OSError:
        return False


def keep(seen, case, key, stdout):
    kpath, jpath = seen_paths(seen, case)
    for path, text in ((jpath, stdout), (kpath, key)):
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(path + ".tmp", path)


def main():
    binary, cores, schema_path, cases = sys.argv[1:5]
    seen = sys.argv[5] if len(sys.argv) > 5 else None
    if seen:
        os.makedirs(seen, exist_ok=True)
    schema = json.load(open(schema_path))
    # One validator for all cases: jsonschema.validate() checks the schema itself and builds a
    # validator on every call, which cost more than the ~190 coretriage runs.
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    passed = failed = index = second_runs = matched = 0
    for line in open(cases):
        if not line.strip() or line.startswith("#"):
            continue
        case = line.split("\t")[0]
        d = os.path.join(cores, case)
        if not os.path.exists(os.path.join(d, "core")):
            continue
        index += 1
        # A case whose program is gone (exe-moved) is analyzed without it: naming a missing
        # EXECUTABLE is a usage error.
        exe = ["./exe"] if os.path.exists(os.path.join(d, "exe")) else []
        cmd = [binary, "--format", "json", "--no-debuginfod"] + exe + ["core"]
        run = lambda: subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=60)
        p = run()
        key = input_key(d, ["exe", "core"] if exe else ["core"]) if seen else None
        try:
            if p.returncode not in (0, 1):
                raise ValueError("exit %d: %s" % (p.returncode, p.stderr.strip()))
            validator.validate(json.loads(p.stdout))
            if index % SAMPLE and seen and seen_before(seen, case, key, p.stdout):
                matched += 1
            else:
                second_runs += 1
                if run().stdout != p.stdout:
                    raise ValueError("output differs between two runs")
            if seen:
                keep(seen, case, key, p.stdout)
            passed += 1
        except Exception as e:  # report every case, not only the first failure
            failed += 1
            print("FAIL %s: %s" % (case, str(e).splitlines()[0]))
    print("%d passed, %d failed (%d run twice, %d matched the report kept by an earlier run)"
          % (passed, failed, second_runs, matched))
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
