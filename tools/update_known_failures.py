"""Rewrite tests/corpus/known_failures.txt from a fresh run on every interpreter.

    python tools/update_known_failures.py            # all pyenv interpreters 3.8-3.13
    python tools/update_known_failures.py 3.12 3.13  # only these (other lines are kept)

Runs the semantic corpus with the known-failure list switched off and records each
failing case with the first line of its failure. Review the diff before committing: the
list is the decompiler's honest to-do list, and every line is a strict xfail.
"""
import glob
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KNOWN = ROOT / "tests" / "corpus" / "known_failures.txt"
VERSIONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]
FAILED = re.compile(r"^FAILED \S*test_roundtrip\[(?P<case>[^\]]+)\](?: - (?P<reason>.*))?$")


def interpreter(version):
    root = os.environ.get("PYENV_ROOT") or subprocess.run(
        ["pyenv", "root"], capture_output=True, text=True).stdout.strip()
    found = sorted(glob.glob(os.path.join(root, "versions", version + ".*", "bin", "python")))
    return found[-1] if found else None


def failures(version):
    python = interpreter(version)
    if python is None:
        sys.exit("no interpreter for Python %s" % version)
    env = dict(os.environ, DEPYF_IGNORE_KNOWN_FAILURES="1", PYTHONPATH=str(ROOT), COLUMNS="400")
    run = subprocess.run([python, "-m", "pytest", "tests/test_semantic_roundtrip.py", "-q",
                          "-p", "no:cacheprovider", "-rf", "-k", "test_roundtrip"],
                         cwd=ROOT, env=env, capture_output=True, text=True)
    found = []
    for line in run.stdout.splitlines():
        m = FAILED.match(line.strip())
        if m:
            reason = (m.group("reason") or "fails").strip()
            reason = re.sub(r"\s+", " ", reason)[:150]
            found.append((m.group("case"), reason))
    return found


def main(argv):
    versions = argv or VERSIONS
    header, kept = [], []
    for line in KNOWN.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            header.append(line)
        elif line.split()[0] not in versions:
            kept.append(line)
    lines = list(kept)
    for version in versions:
        found = failures(version)
        print("Python %s: %d known failures" % (version, len(found)))
        lines.extend("%s %s  %s" % (version, case, reason) for case, reason in found)
    KNOWN.write_text("\n".join(header + sorted(lines, key=lambda l: (VERSIONS.index(l.split()[0]), l))) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
