#!/usr/bin/env bash
# The test command: the whole matrix defined in noxfile.py, i.e.
#   tests-3.8 .. tests-3.13       pytest (decompiler, verify, semantic corpus)
#   roundtrip-3.8 .. -3.13        stdlib round trip (python -m depyf.verify)
#   torch                         torch.compile integration tests, Python 3.11, torch 2.13.0
#   torch-newest, torch-lowest    (nox tags) the torch smoke suite on the newest torch release
#                                 and on the lowest one supported (pyproject's bound); the
#                                 other releases: nox -t torch-matrix (docs/torch-releases.md)
#   tests-3.14, roundtrip-3.14    the same on CPython 3.14 (WebAssembly, pyodide under node:
#                                 tools/pyodide/python3.14 installs it on first use)
#   docs                          the documentation site, built with mkdocs --strict and
#                                 opened in headless Chromium
# With no arguments it runs two streams side by side (one per core): the `tests` sessions
# and `docs`, then the lowest torch in the foreground; `torch`, the newest torch, then `roundtrip` in
# the background, whose output is printed when they finish. DEPYF_TEST_JOBS=1 runs
# everything in one stream. Arguments go to a single nox run, e.g.
# ./run_tests.sh -s tests-3.12   or   ./run_tests.sh -R
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

work=$(mktemp -d "${TMPDIR:-/tmp}/depyf-tests.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date +%s)

# One stream: nox runs one after another (each with its own report); fails if any failed.
stream() {
    local name=$1 status=0 i=0
    shift
    for selection in "$@"; do
        i=$((i + 1))
        # shellcheck disable=SC2086  # a selection is several words on purpose
        "$DRIVER" -m nox --report "$work/report-$name$i.json" $selection || status=1
    done
    return $status
}

if [ $# -eq 0 ] && [ "${DEPYF_TEST_JOBS:-2}" -ge 2 ]; then
    stream b "-s torch" "-t torch-newest" "-s roundtrip roundtrip-3.14" >"$work/stream-b.log" 2>&1 &
    pid_b=$!
    stream a "-s tests tests-3.14 docs" "-t torch-lowest"
    status_a=$?
    wait "$pid_b"
    status_b=$?
    echo
    echo "======== second stream (torch, newest torch, roundtrip), run alongside the one above ========"
    cat "$work/stream-b.log"
    status=$(( status_a != 0 ? status_a : status_b ))
else
    "$DRIVER" -m nox --report "$work/report-a.json" "$@"
    status=$?
fi
echo "matrix wall time: $(( $(date +%s) - start )) s"

# One closing line for the whole matrix, counted in nox sessions.
"$DRIVER" - "$work" <<'PY' || true
import glob, json, os, sys
sessions = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "report-*.json"))):
    try:
        sessions += json.load(open(path))["sessions"]
    except Exception:
        pass
count = {}
for s in sessions:
    count[s["result"]] = count.get(s["result"], 0) + 1
    print("  %-16s %s" % ((s.get("signatures") or [s["name"]])[0], s["result"]))
line = "sessions: %d passed, %d failed" % (count.get("success", 0), count.get("failed", 0))
if count.get("skipped"):
    line += ", %d skipped" % count["skipped"]
print(line)
PY
exit $status
