#!/bin/bash
# Compressed cores as systemd-coredump stores them (single-core command and batch), the size cap,
# broken inputs that must fail alone without taking the batch down, and the exit statuses.
. "$(dirname "$0")/lib.sh" "$1"
cc -O0 -g -o "$W/bugs" "$SRC/bugs.c"
pid=$(make_core "$W/c" "$W/bugs" null-read 2)
[ -f "$W/c/core" ] || fail "no core"
name=core.bugs.1000.0123456789abcdef0123456789abcdef.$pid.1700000000123456
mkdir "$W/in"
zstd -q -c "$W/c/core" > "$W/in/$name.zst"
xz -c "$W/c/core" > "$W/in/$name.xz"
lz4 -q -c "$W/c/core" > "$W/in/$name.lz4"
for f in "$W/in/$name".*; do
	"$BIN" -f json "$W/bugs" "$f" > "$W/out.json" || [ $? -eq 1 ] || fail "$f: exit $?"
	$PY - "$W/out.json" "$pid" <<'PY' || fail "$f: report"
import json, sys
d = json.load(open(sys.argv[1])); env = d["environment"]
assert env["coredump.comm"] == "bugs" and env["coredump.uid"] == "1000", env
assert env["coredump.pid"] == sys.argv[2] == str(d["process"]["pid"]), env
assert env["coredump.boot_id"] == "0123456789abcdef0123456789abcdef" and env["coredump.time"] == "2023-11-14T22:13:20Z"
assert any(f["function"] == "parse_record" for f in d["threads"][0]["frames"])
PY
done
# The decompressed size is capped, with a clear error.
rc=0; "$BIN" --max-core-size=64K "$W/bugs" "$W/in/$name.zst" 2> "$W/err" >/dev/null || rc=$?
[ $rc -eq 2 ] && grep -q "larger than the limit" "$W/err" || fail "--max-core-size: exit $rc: $(cat "$W/err")"
# A truncated stream is a truncated core (issue 11): a partial report whose warning says where the
# stream broke.
head -c $(($(stat -c %s "$W/in/$name.zst") / 2)) "$W/in/$name.zst" > "$W/trunc.zst"
rc=0; "$BIN" "$W/trunc.zst" 2> "$W/err" > "$W/out" || rc=$?
[ $rc -eq 1 ] && grep -q "truncated.*compressed bytes" "$W/out" || fail "truncated zst: exit $rc: $(cat "$W/err")"
# No temporary file is left behind.
mkdir "$W/tmp"
TMPDIR=$W/tmp "$BIN" "$W/bugs" "$W/in/$name.xz" > /dev/null || [ $? -eq 1 ]
[ -z "$(ls -A "$W/tmp")" ] || fail "temporary files left in TMPDIR"

# Batch over good and hostile inputs: each broken one fails alone, in order, with an error object.
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\004\000\076\000garbage' > "$W/in/core.garbage"
: > "$W/empty"
cp "$W/trunc.zst" "$W/in/core.trunc.zst"
rc=0
"$BIN" batch -j2 -f ndjson --summary "$W/s.json" "$W/in" "$W/empty" "$W/does-not-exist" "$W/in/*.zst" \
	> "$W/out.ndjson" 2> "$W/err" || rc=$?
[ $rc -eq 1 ] || fail "batch with broken inputs: exit $rc, expected 1"
$PY - "$W" <<'PY'
import json, sys
w = sys.argv[1]
lines = [json.loads(l) for l in open(w + "/out.ndjson")]
cores = [l["input"]["core"].replace(w + "/", "") for l in lines]
errors = [l["input"]["core"].replace(w + "/", "") for l in lines if "error" in l]
assert len(lines) == 9, cores
assert errors == ["in/core.garbage", "empty", "does-not-exist"], errors
# The truncated stream is a partial report (issue 11) that says where it broke.
trunc = [l for l in lines if l["input"]["core"].endswith("core.trunc.zst")]
assert len(trunc) == 2 and all(any(d["code"] == "compressed-core-broken" for d in l["diagnostics"]) for l in trunc), trunc
s = json.load(open(w + "/s.json"))
assert s["failed"] == 3 and s["analyzed"] == 6 and sum(b["count"] for b in s["buckets"]) == 6, s
print("isolation ok")
PY
# Nothing to analyze at all: fatal.
rc=0; "$BIN" batch "$W/nothing-*" 2>/dev/null || rc=$?
[ $rc -eq 2 ] || fail "batch without cores: exit $rc"
# Per-core time limit: the worker is killed, the batch goes on.
rc=0; "$BIN" batch --timeout=1 -f json "$W/in/$name.xz" > "$W/t.json" || rc=$?
[ $rc -le 1 ] || fail "batch --timeout: exit $rc"
echo PASS
