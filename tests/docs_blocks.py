"""The examples of the documentation that are tested, and how to run them.

A fenced block is tested when the line above its opening fence is a marker comment
(invisible on GitHub and on the built site):

    <!-- test: run -->          run it (```python: as a script; ```bash: every line must
                                succeed), without torch: tests/test_docs.py
    <!-- test: run torch -->    the same with torch installed: tests/torch_debug/test_docs_torch.py
    <!-- test: setup -->        a set-up command of the README (installs, runs the whole
                                matrix): checked piece by piece by tests/test_docs.py, the
                                example it runs by tests/torch_debug/test_example.py

A bash block runs in a temporary folder holding a copy of ``examples/``, with ``depyf`` and
``python`` on PATH being this interpreter (``python -m depyf``) and this checkout first on
PYTHONPATH; a python block runs there too, as a script.
"""
import glob
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r"^<!-- test: (run|run torch|setup) -->\s*$")
FENCE = re.compile(r"^(\s*)```(\w+)\s*$")


class Block:
    def __init__(self, path, line, kind, language, text):
        self.path, self.line, self.kind, self.language, self.text = path, line, kind, language, text

    @property
    def id(self):
        return "%s:%d" % (os.path.relpath(self.path, REPO), self.line)


def pages():
    """README.md and every page of the documentation site."""
    found = [os.path.join(REPO, "README.md")]
    found += sorted(glob.glob(os.path.join(REPO, "docs", "**", "*.md"), recursive=True))
    return found


def blocks(kinds=None):
    """Every marked block of every page (``kinds``: only those); a marker that is not
    right above a fenced block raises ValueError."""
    out = []
    for path in pages():
        lines = open(path, encoding="utf-8").read().splitlines()
        for i, line in enumerate(lines):
            m = MARKER.match(line)
            if not m:
                continue
            fence = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
            if not fence:
                raise ValueError("%s:%d: a test marker not followed by a fenced block" % (path, i + 1))
            indent, body = fence.group(1), []
            for j in range(i + 2, len(lines)):
                if lines[j].strip() == "```":
                    break
                body.append(lines[j][len(indent):])
            else:
                raise ValueError("%s:%d: unclosed fenced block" % (path, i + 2))
            block = Block(path, i + 2, m.group(1), fence.group(2), "\n".join(body) + "\n")
            if kinds is None or block.kind in kinds:
                out.append(block)
    return out


def workspace(tmp_path):
    """A folder with a copy of examples/ and a bin/ of ``depyf`` and ``python`` shims."""
    import shutil

    tmp = str(tmp_path)
    shutil.copytree(os.path.join(REPO, "examples"), os.path.join(tmp, "examples"))
    bin_dir = os.path.join(tmp, "bin")
    os.mkdir(bin_dir)
    for name, args in (("depyf", '-m depyf "$@"'), ("python", '"$@"')):
        path = os.path.join(bin_dir, name)
        with open(path, "w") as f:
            f.write('#!/bin/sh\nexec "%s" %s\n' % (sys.executable, args))
        os.chmod(path, 0o755)
    env = dict(os.environ)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    env["PYTHONBREAKPOINT"] = "0"
    return tmp, env


def run(block, tmp_path, timeout=600):
    """Run one block; returns the finished process (stdout and stderr as text)."""
    cwd, env = workspace(tmp_path)
    if block.language == "python":
        script = os.path.join(cwd, "example.py")
        with open(script, "w") as f:
            f.write(block.text)
        cmd = [sys.executable, script]
    elif block.language == "bash":
        cmd = ["bash", "-e", "-o", "pipefail", "-c", block.text]
    else:
        raise ValueError("%s: only python and bash blocks run, not %s" % (block.id, block.language))
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
