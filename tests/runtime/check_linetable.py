#!/usr/bin/env python3
"""The 3.11 location table decoder against CPython 3.11 itself: gen_linetables.py (run by
python3.11) writes co_lines() of thousands of stdlib code objects, test_py_linetable compares.
Usage: check_linetable.py TEST_BINARY"""
import os
import shutil
import subprocess
import sys
import tempfile

python = shutil.which("python3.11", path="/usr/bin")
if not python:
    print("python3.11 not installed: skipped")
    sys.exit(77)
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "linetables.txt")
    subprocess.run([python, os.path.join(os.path.dirname(__file__), "gen_linetables.py"), path], check=True)
    sys.exit(subprocess.run([sys.argv[1]], env=dict(os.environ, CT_PY_LINETABLES=path)).returncode)
