#!/usr/bin/env python3
"""The man page must document every option --help lists, and every exit status."""
import re
import subprocess
import sys

binary, manpage = sys.argv[1:3]
help_text = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
man = open(manpage).read().replace("\\-", "-").replace("\\fB", "").replace("\\fR", "").replace("\\fI", "")
options = sorted(set(re.findall(r"--[a-z][a-z0-9-]+", help_text)))
missing = [o for o in options if o not in man]
exit_codes = re.findall(r"^\s+(\d+)\s{2,}", help_text, re.M)
missing += ["exit status %s" % c for c in exit_codes if not re.search(r"^\.IP \"?%s\"?" % c, man, re.M)]
for m in missing:
    print("man page lacks", m)
print("%d passed, %d failed" % (len(options) + len(exit_codes) - len(missing), len(missing)))
sys.exit(1 if missing or not options else 0)
