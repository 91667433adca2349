#!/usr/bin/env python3
"""Validates coretriage's JSON report for every case of testdata/cases.tsv against
docs/schema/report.schema.json, and checks that the output is deterministic (two runs, same bytes)."""
import json
import os
import subprocess
import sys

import jsonschema


def main():
    binary, cores, schema_path, cases = sys.argv[1:5]
    schema = json.load(open(schema_path))
    passed = failed = 0
    for line in open(cases):
        if not line.strip() or line.startswith("#"):
            continue
        case = line.split("\t")[0]
        d = os.path.join(cores, case)
        if not os.path.exists(os.path.join(d, "core")):
            continue
        # A case whose program is gone (exe-moved) is analyzed without it: naming a missing
        # EXECUTABLE is a usage error.
        exe = ["./exe"] if os.path.exists(os.path.join(d, "exe")) else []
        cmd = [binary, "--format", "json", "--no-debuginfod"] + exe + ["core"]
        outs = [subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=60) for _ in range(2)]
        p = outs[0]
        try:
            if p.returncode not in (0, 1):
                raise ValueError("exit %d: %s" % (p.returncode, p.stderr.strip()))
            jsonschema.validate(json.loads(p.stdout), schema)
            if outs[1].stdout != p.stdout:
                raise ValueError("output differs between two runs")
            passed += 1
        except Exception as e:  # report every case, not only the first failure
            failed += 1
            print("FAIL %s: %s" % (case, str(e).splitlines()[0]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
