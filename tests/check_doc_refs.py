#!/usr/bin/env python3
"""Every markdown document named in the tree exists.

Usage: check_doc_refs.py SOURCE_DIR

Looks at src/, include/, docs/, man/, scripts/, tests/ and README.md for names ending in ".md" (a
path such as docs/classes.md, a markdown link, or a bare name in a comment) and fails for each one
that is not a file of the repository: a reference to a note outside the tree (the design notes, a
helper's notes) is stale for whoever reads the repository alone.
"""
import os
import re
import sys

# Documents of other projects, named as such where they are cited, and usage placeholders.
EXTERNAL = {"JOURNAL_EXPORT_FORMATS.md", "OUT.md"}
SKIP_DIRS = {".git", "build", "testdata"}
NAME = re.compile(r"(?<![\w/.-])(\.{1,2}/[\w./-]+\.md|\.?\w[\w./-]*\.md)\b")


def main():
    root = sys.argv[1]
    docs = set()
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")]
        for f in files:
            if f.endswith(".md"):
                docs.add(os.path.relpath(os.path.join(dirpath, f), root))
    problems = []
    for top in ("src", "include", "docs", "man", "scripts", "tests", "README.md"):
        start = os.path.join(root, top)
        paths = [start] if os.path.isfile(start) else [
            os.path.join(d, f) for d, ds, fs in os.walk(start) for f in fs]
        for path in sorted(paths):
            rel = os.path.relpath(path, root)
            if rel == os.path.join("tests", "check_doc_refs.py"):
                continue
            try:
                text = open(path, encoding="utf-8").read()
            except (UnicodeDecodeError, OSError):
                continue
            for m in NAME.finditer(text):
                ref = m.group(1)
                # The word the name is part of: a URL names another site's document.
                word_start = max(text.rfind(c, 0, m.start()) for c in " \t\n(\"'<")
                if ref in EXTERNAL or "://" in text[word_start + 1:m.end()]:
                    continue
                here = os.path.normpath(os.path.join(os.path.dirname(rel), ref))
                candidates = {os.path.normpath(ref.lstrip("./")), here, os.path.join("docs", ref)}
                if not candidates & docs:
                    line = text.count("\n", 0, m.start()) + 1
                    problems.append(f"{rel}:{line}: {ref} is not a document of the repository")
    for p in problems:
        print(p)
    print(f"{len(docs)} documents; {len(problems)} references to missing ones")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
