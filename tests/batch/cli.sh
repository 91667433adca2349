#!/bin/bash
# The command line: every option is in --help, usage errors exit 64, batch-only options are refused
# outside batch.
. "$(dirname "$0")/lib.sh" "$1"
"$BIN" --help > "$W/help"
for opt in format output exe sysroot debug-dir no-debuginfod debuginfod-timeout safe timeout max-memory \
	max-core-size max-frames max-threads unwinder all-registers color no-abs-paths source-root flamegraph \
	log verbose help version jobs summary known fail-on-new progress; do
	grep -q -- "--$opt" "$W/help" || fail "--$opt missing from --help"
done
grep -q "coretriage batch \[OPTIONS\] PATH" "$W/help" || fail "batch usage missing from --help"
for args in "--format=xml core" "--jobs=2 core" "--max-core-size=12Q core" "batch" "batch --progress=sometimes x" \
	"--known=k core" "a b c"; do
	rc=0; "$BIN" $args > /dev/null 2>&1 || rc=$?
	[ $rc -eq 64 ] || fail "'$args': exit $rc, expected 64"
done
rc=0; "$BIN" batch --known "$W/nope" x > /dev/null 2>&1 || rc=$?
[ $rc -eq 64 ] || fail "missing --known file: exit $rc"
echo PASS
