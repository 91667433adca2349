#!/bin/bash
# >= 30 real cores of 8 bugs (each crashed 5 times with different data, pids and ASLR; some cores
# compressed as systemd-coredump stores them): the batch's buckets must equal the bugs. Also checks
# the NDJSON stream order, the JSON summary, --known/--fail-on-new, and every output format.
. "$(dirname "$0")/lib.sh" "$1"
cc -O0 -g -fno-omit-frame-pointer -o "$W/bugs" "$SRC/bugs.c"
BUGS="null-read null-write assert div double-free overflow null-call abort"
bootid=0123456789abcdef0123456789abcdef
i=0
for bug in $BUGS; do
	for arg in 1 2 3 5 8; do
		d="$W/cores/$bug-$arg"
		pid=$(make_core "$d" "$W/bugs" "$bug" "$arg")
		[ -f "$d/core" ] || fail "no core for $bug $arg (core_pattern: $(cat /proc/sys/kernel/core_pattern))"
		i=$((i + 1))
		ts=$((1700000000000000 + i * 60000000))
		case $((i % 4)) in
		1) zstd -q --rm "$d/core" -o "$d/core.bugs.0.$bootid.$pid.$ts.zst" ;;
		2) xz -c "$d/core" > "$d/core.bugs.0.$bootid.$pid.$ts.xz" && rm "$d/core" ;;
		3) lz4 -q --rm "$d/core" "$d/core.bugs.0.$bootid.$pid.$ts.lz4" ;;
		esac
	done
done
ncores=$(find "$W/cores" -type f -name 'core*' | wc -l)
[ "$ncores" -ge 30 ] || fail "only $ncores cores"

rc=0
"$BIN" batch -j2 -f ndjson --summary "$W/summary.json" --flamegraph "$W/fg.svg" "$W/cores" > "$W/out.ndjson" || rc=$?
[ $rc -le 1 ] || fail "batch exit $rc"
$PY - "$W" "$ncores" <<'PY'
import json, os, sys
w, n = sys.argv[1], int(sys.argv[2])
lines = [json.loads(l) for l in open(w + "/out.ndjson")]
assert len(lines) == n, (len(lines), n)
paths = [l["input"]["core"] for l in lines]
assert paths == sorted(paths), "ndjson not in input order"
for l in lines:
    assert "error" not in l, l.get("error")
    assert l["threads"] and l["threads"][0]["frames"], l["input"]["core"]
# metadata of systemd-coredump names
named = [l for l in lines if "coredump.pid" in (l.get("environment") or {})]
assert len(named) >= 20, len(named)
for l in named:
    assert l["environment"]["coredump.pid"] == str(l["process"]["pid"]), l["environment"]
s = json.load(open(w + "/summary.json"))
bug_of = lambda p: os.path.basename(os.path.dirname(p)).rsplit("-", 1)[0]
buckets = s["buckets"]
assert s["cores"] == n and s["analyzed"] == n and s["failed"] == 0, s
seen = {}
for b in buckets:
    bugs = {bug_of(c) for c in b["cores"]}
    assert len(bugs) == 1, ("two bugs merged", b["signature"], bugs)
    bug = bugs.pop()
    assert bug not in seen, ("bug split", bug, seen[bug], b["signature"])
    seen[bug] = b["signature"]
    assert b["count"] == len(b["cores"]) == 5, b
    assert b["first_seen"] and b["last_seen"] and b["first_seen"] <= b["last_seen"], b
    assert b["blame"]["function"], b
assert len(seen) == 8, seen
print("buckets == bugs:", len(buckets), "buckets for", n, "cores")
with open(w + "/known", "w") as f:
    f.write("# filed bugs\n")
    for b in buckets[:5]:
        f.write("%s https://bugs.example/%s\n" % (b["hash"], b["class"]))
with open(w + "/known-all", "w") as f:
    for b in buckets:
        f.write(b["hash"] + " https://bugs.example/x\n")
PY
grep -q '<title>' "$W/fg.svg" || fail "flame graph without tooltips"
$PY -c "import xml.dom.minidom,sys; d=xml.dom.minidom.parse(sys.argv[1]); assert len(d.getElementsByTagName('rect'))>8" "$W/fg.svg" || fail "bad SVG"

# --known: 3 buckets are new; --fail-on-new fails only for them.
rc=0; "$BIN" batch -j2 --known "$W/known" --fail-on-new "$W/cores" > "$W/table.txt" || rc=$?
[ $rc -eq 3 ] || fail "--fail-on-new with new buckets: exit $rc, expected 3"
[ "$(grep -c ' NEW$' "$W/table.txt")" -eq 3 ] || { cat "$W/table.txt"; fail "expected 3 NEW buckets"; }
rc=0; "$BIN" batch -j2 --known "$W/known-all" --fail-on-new "$W/cores" > /dev/null || rc=$?
[ $rc -eq 0 ] || fail "--fail-on-new without new buckets: exit $rc"

# SARIF: schema-valid, one result per bucket at the blame line of bugs.c.
"$BIN" batch -j2 -f sarif --source-root "$SRC" "$W/cores" > "$W/out.sarif" || true
$PY - "$W/out.sarif" "$SRC/sarif-schema-2.1.0-subset.json" <<'PY'
import json, sys, jsonschema
log, schema = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(log)
res = log["runs"][0]["results"]
assert len(res) == 8, len(res)
for r in res:
    pl = r["locations"][0]["physicalLocation"]
    assert pl["artifactLocation"]["uri"] == "bugs.c" and pl["artifactLocation"]["uriBaseId"] == "SRCROOT", pl
    assert pl["region"]["startLine"] > 0
    assert r["partialFingerprints"]["coretriageSignature/v3"]
print("sarif valid,", len(res), "results")
PY

# folded: one line per bucket weighted by count.
"$BIN" batch -j2 -f folded "$W/cores" > "$W/out.folded" || true
[ "$(wc -l < "$W/out.folded")" -eq 8 ] || fail "folded: expected 8 lines"
[ "$(awk '{s += $NF} END {print s}' "$W/out.folded")" -eq "$ncores" ] || fail "folded counts do not sum to $ncores"
grep -q '^_start;__libc_start_main\(_impl\)\{0,1\};.*;main;load_file;parse_record 5$' "$W/out.folded" || fail "folded stack of null-read"
"$BIN" batch -j2 -f markdown "$W/cores" | grep -c '^| [0-9]' | grep -qx 8 || fail "markdown table rows"
echo PASS
