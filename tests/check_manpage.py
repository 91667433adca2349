#!/usr/bin/env python3
"""--help, the man page and the option table agree.

The option table is long_options[] of src/cli/options.c (what getopt accepts): every long option
and every short letter in it must be in --help and in the man page, every option --help names must
be in the table, and the man page documents every exit status --help lists.

Usage: check_manpage.py CORETRIAGE MANPAGE [OPTIONS_C]
"""
import re
import subprocess
import sys

binary, manpage = sys.argv[1:3]
options_c = sys.argv[3] if len(sys.argv) > 3 else None
help_text = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
man = open(manpage).read().replace("\\-", "-").replace("\\fB", "").replace("\\fR", "").replace("\\fI", "")
options = sorted(set(re.findall(r"--[a-z][a-z0-9-]+", help_text)))
missing = [o for o in options if o not in man]
exit_codes = re.findall(r"^\s+(\d+)\s{2,}", help_text, re.M)
missing += ["exit status %s" % c for c in exit_codes if not re.search(r"^\.IP \"?%s\"?" % c, man, re.M)]
checked = len(options) + len(exit_codes)
if options_c:
    src = open(options_c).read()
    table = src[src.index("long_options[] = {"):]
    table = table[:table.index("};")]
    longs = re.findall(r'\{ "([a-z0-9-]+)", (?:no|required|optional)_argument, NULL, ', table)
    shorts = set(re.findall(r"'([a-zA-Z])' \}", table))
    optstring = re.search(r'getopt_long\(argc, argv, "([^"]+)"', src).group(1)
    shorts |= set(re.findall(r"[a-zA-Z]", optstring))
    for name in longs:
        checked += 1
        if "--" + name not in help_text:
            missing.append("--help lacks --%s (in long_options)" % name)
        if "--" + name not in man:
            missing.append("man page lacks --%s (in long_options)" % name)
    for o in options:
        checked += 1
        if o[2:] not in longs:
            missing.append("%s is in --help but not in long_options" % o)
    for letter in sorted(shorts):
        checked += 1
        if not re.search(r"(^|[ ,])-%s\b" % letter, help_text, re.M):
            missing.append("--help lacks -%s" % letter)
        if not re.search(r"(^|[ ,])-%s\b" % letter, man, re.M):
            missing.append("man page lacks -%s" % letter)
for m in missing:
    print("man page lacks" if not m.startswith(("--help", "man page", "-")) else "", m)
print("%d passed, %d failed" % (checked - len(missing), len(missing)))
sys.exit(1 if missing or not options else 0)
