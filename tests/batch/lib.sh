# Shared helpers of the batch tests (sourced). Usage in a test: . "$(dirname "$0")/lib.sh" BIN
set -eu
BIN=$1
SRC=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/ct-batch.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# A python3 with jsonschema (the distribution's python3-jsonschema).
PY=/usr/bin/python3
# Runs "$@" in a fresh directory $1 so its core lands there (core_pattern "core", cwd-relative);
# prints the pid.
# A piped core_pattern (systemd-coredump, apport) takes the core away: then gdb writes it with gcore
# at the fatal signal, and the pid printed is gdb's inferior's.
make_core() {
	dir=$1; shift
	mkdir -p "$dir"
	if grep -q '^|' /proc/sys/kernel/core_pattern; then
		(cd "$dir" && gdb -nx -batch -ex run -ex 'gcore core' -ex 'info inferiors' --args "$@" 2>/dev/null |
			sed -n 's/^\*[[:space:]]*1[[:space:]]*process \([0-9]*\).*/\1/p')
		return
	fi
	(cd "$dir" && ulimit -c unlimited && ulimit -s 8192 && { "$@" >/dev/null 2>&1 & pid=$!; wait $pid 2>/dev/null || true; echo $pid; }) 2>/dev/null
}
