"""Another Python for another Python's bytecode.

A ``.pyc`` holds the bytecode of one Python version: only that version's interpreter
can load it, decompile it and prove the result (the proof compiles the text and
compares bytecode). So a ``.pyc`` of another version is handed to an interpreter of
that version, found on ``PATH`` (``pythonX.Y``, then ``python3`` and ``python``, in
``PATH`` order; pyenv's shims are passed over) or among pyenv's versions
(``$PYENV_ROOT``, ``pyenv root``, or ``~/.pyenv``); each candidate is asked for its
version and for the packages depyf needs there (``NEEDS``). That interpreter runs this
same depyf, loaded from this package's folder: depyf need not be installed there, and
nothing beside this package (such as the rest of a site-packages folder) is put on its
path.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

from .output import CliError

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What depyf needs on a Python version besides the stdlib (pyproject.toml's dependencies)
NEEDS = {"3.8": ("astunparse",)}
# True in a depyf run by another depyf: it never hands a file on again
DELEGATED = False

_PROBE = ("import sys, importlib.util\n"
          "print('%d.%d' % sys.version_info[:2])\n"
          "print(sys.executable)\n"
          "print(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))\n")

# Loads this depyf package in the other interpreter, then runs ``depyf ARGS`` (cli ARGS)
# or ``tree.run_batch`` (batch REQUEST RESULT).
_BOOT = """\
import sys
if not getattr(sys.flags, "safe_path", False):
    del sys.path[0]  # the current directory: not where depyf comes from
import importlib.util, os
package = sys.argv[1]
spec = importlib.util.spec_from_file_location(
    "depyf", os.path.join(package, "__init__.py"), submodule_search_locations=[package])
module = importlib.util.module_from_spec(spec)
sys.modules["depyf"] = module
spec.loader.exec_module(module)
from depyf.cli import pythons
pythons.DELEGATED = True
if sys.argv[2] == "batch":
    from depyf.cli import tree
    sys.exit(tree.run_batch_files(sys.argv[3], sys.argv[4]))
from depyf.cli import main
sys.exit(main(sys.argv[3:]))
"""

_found = {}  # version -> (executable, None) or (None, the line saying why there is none)


def find(version, env=None):
    """``(executable, None)`` of an interpreter of ``version`` ("3.8") with what depyf
    needs there, or ``(None, why)``: one line saying what to install."""
    env = os.environ if env is None else env
    key = (version, env.get("PATH"), env.get("PYENV_ROOT"))
    if key not in _found:
        _found[key] = _search(version, env)
    return _found[key]


def _search(version, env):
    needs = NEEDS.get(version, ())
    lacking = None
    for argv in candidates(version, env):
        answer = _probe(argv, needs, env)
        if answer is None or answer[0] != version:
            continue
        _, executable, missing = answer
        if not missing:
            return executable, None
        lacking = lacking or (executable, missing)
    if lacking:
        executable, missing = lacking
        return None, ("Python %s is there (%s) but lacks the %s package%s depyf needs on "
                      "Python %s: install %s with: %s -m pip install %s" % (
                          version, executable, " and ".join(missing), "s" if missing[1:] else "",
                          version, "them" if missing[1:] else "it", executable,
                          " ".join(missing)))
    return None, ("no Python %s was found (looked for python%s, python3 and python on PATH, "
                  "and in %s): install Python %s (pyenv install %s, or from python.org)"
                  % (version, version, _pyenv_versions(env) or "pyenv's versions (no pyenv)",
                     version, version))


def candidates(version, env):
    """The commands that may start a Python ``version``, best first, each once."""
    seen = set()
    names = ["python" + version, "python3", "python"]
    versions = _pyenv_versions(env)
    shims = os.path.join(os.path.dirname(versions), "shims") if versions else None
    for folder in env.get("PATH", "").split(os.pathsep):
        if shims and os.path.realpath(folder or ".") == os.path.realpath(shims):
            continue  # each start of a shim runs pyenv (slow); its versions come below
        for name in names:
            path = shutil.which(name, path=folder) if folder else None
            if path and os.path.realpath(path) not in seen:
                seen.add(os.path.realpath(path))
                yield [path]
    if versions:
        found = [d for d in os.listdir(versions) if d == version
                 or d.startswith((version + ".", version + "-"))]
        for name in sorted(found, key=_release, reverse=True):
            for path in glob.glob(os.path.join(versions, name, "bin", "python")) + \
                    glob.glob(os.path.join(versions, name, "python.exe")):
                if os.path.realpath(path) not in seen:
                    seen.add(os.path.realpath(path))
                    yield [path]
    if shutil.which("py", path=env.get("PATH", "")):  # the Windows launcher
        yield ["py", "-" + version]


def _release(name):
    """``3.8.18`` sorts after ``3.8.9``."""
    return [int(part) if part.isdigit() else -1 for part in name.replace("-", ".").split(".")]


def _pyenv_versions(env):
    """pyenv's folder of installed versions, or None."""
    root = env.get("PYENV_ROOT")
    if not root and shutil.which("pyenv", path=env.get("PATH", "")):
        try:
            root = subprocess.run(["pyenv", "root"], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, universal_newlines=True,
                                  env=env, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            root = None
    root = root or os.path.join(os.path.expanduser("~"), ".pyenv")
    versions = os.path.join(root, "versions")
    return versions if os.path.isdir(versions) else None


def _probe(argv, needs, env):
    """``(version, executable, missing packages)`` of the interpreter ``argv`` starts,
    or None when it does not start (a pyenv shim of a version not selected)."""
    try:
        proc = subprocess.run(argv + ["-c", _PROBE] + list(needs), stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                              universal_newlines=True, env=env, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or len(lines) < 2:
        return None
    return lines[0], lines[1], (lines[2].split() if len(lines) > 2 else [])


def run_cli(executable, argv):
    """Run ``depyf ARGV`` (the command line, ``decompile ...``) under ``executable``, its
    output going where ours goes; its exit status."""
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        return subprocess.call([executable, "-c", _BOOT, PACKAGE, "cli"] + list(argv))
    except OSError as exc:
        raise CliError("cannot run %s: %s" % (executable, exc.strerror or exc)) from None


def run_batch(executable, request, workdir):
    """Run ``tree.run_batch(request)`` under ``executable``: its list of outcomes, or
    ``(None, why)`` when that run failed."""
    request_path = os.path.join(workdir, "request.json")
    result_path = os.path.join(workdir, "result.json")
    with open(request_path, "w", encoding="utf-8") as fh:
        json.dump(request, fh)
    try:
        proc = subprocess.run([executable, "-c", _BOOT, PACKAGE, "batch", request_path,
                               result_path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, universal_newlines=True, errors="replace")
    except OSError as exc:
        return None, "cannot run %s: %s" % (executable, exc.strerror or exc)
    try:
        with open(result_path, encoding="utf-8") as fh:
            return json.load(fh), None
    except (OSError, ValueError):
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return None, "the run under %s failed (exit status %s): %s" % (
            executable, proc.returncode, last)


def delegate(found, args):
    """``depyf decompile`` of another Python's .pyc (``found.version``), run by that
    Python: its output and exit status."""
    executable, why = find(found.version)
    if executable is None:
        raise CliError("%s was written by Python %s: bytecode is version-specific, so only "
                       "Python %s can decompile it and prove the result; %s"
                       % (found.filename, found.version, found.version, why))
    argv = ["decompile", args.target, "--color", args.color]
    argv += ["--check"] if args.check else []
    argv += ["--allow-unproven"] if args.allow_unproven else []
    if args.check:
        sys.stderr.write("depyf decompile: %s was written by Python %s: decompiled by %s\n"
                         % (found.filename, found.version, executable))
    return run_cli(executable, argv)

