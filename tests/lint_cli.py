"""The command line of the tree checks (tests/check_*.py): `SCRIPT ROOT` checks the tree at ROOT,
`SCRIPT --self-test` shows that a planted violation is found. Exit 0 clean, 1 problems, 2 usage."""
import sys


def run(doc, check, self_test, what):
    """check(root) -> list of problem lines; self_test() -> exit status; what: the problems' name."""
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 2:
        print(doc)
        return 2
    found = check(sys.argv[1])
    for p in found:
        print(p)
    print("%d %s" % (len(found), what))
    return 1 if found else 0
