#!/usr/bin/env bash
# The test command: the whole matrix defined in noxfile.py, i.e.
#   tests-3.8 .. tests-3.13       pytest (decompiler, verify, semantic corpus)
#   roundtrip-3.8 .. -3.13        stdlib round trip on a fixed sample
#   torch                         torch.compile integration tests, Python 3.11, torch 2.13.0
# Extra arguments go to nox, e.g. ./run_tests.sh -s tests-3.12   or   ./run_tests.sh -R
set -uo pipefail
cd "$(dirname "$0")"

PYENV_ROOT="${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")}"
export PYENV_ROOT

# nox runs on the 3.11 interpreter (any python3 will do if that one is missing).
DRIVER=$(ls -d "$PYENV_ROOT"/versions/3.11.*/bin/python 2>/dev/null | sort -V | tail -1)
DRIVER=${DRIVER:-$(command -v python3)}
if ! "$DRIVER" -m nox --version >/dev/null 2>&1; then
    echo "installing nox for $DRIVER"
    "$DRIVER" -m pip install --quiet nox || exit 1
fi

report=$(mktemp "${TMPDIR:-/tmp}/depyf-nox-report.XXXXXX.json")
trap 'rm -f "$report"' EXIT
start=$(date +%s)
"$DRIVER" -m nox --report "$report" "$@"
status=$?
echo "matrix wall time: $(( $(date +%s) - start )) s"

# One closing line for the whole matrix, counted in nox sessions.
"$DRIVER" - "$report" <<'PY' || true
import json, sys
try:
    sessions = json.load(open(sys.argv[1]))["sessions"]
except Exception:
    sys.exit(0)
count = {}
for s in sessions:
    count[s["result"]] = count.get(s["result"], 0) + 1
for s in sessions:
    print("  %-16s %s" % ((s.get("signatures") or [s["name"]])[0], s["result"]))
line = "nox sessions: %d passed, %d failed" % (count.get("success", 0), count.get("failed", 0))
if count.get("skipped"):
    line += ", %d skipped" % count["skipped"]
print(line)
PY
exit $status
