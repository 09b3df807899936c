"""sha256 of every file ``prepare_debug`` dumps for the torch suite's workloads, to show that
a change to depyf leaves its output unchanged.

Runs each workload of ``tests/torch_debug/workloads.py`` (and, with ``--hf``, the
transformers ones of ``hf_workloads.py``) with the backends ``test_workloads.py`` uses,
once, under ``depyf.prepare_debug(<folder>/<workload>-<backend>)`` after a
``torch._dynamo.reset()``, each in a fresh ``TORCHINDUCTOR_CACHE_DIR``; then writes
``{relative path: sha256}`` of every file under the folder as JSON. The ``depyf`` imported
is the one on ``PYTHONPATH`` (so a ``git archive`` copy of another revision can be digested
with the same workloads). What differs between two runs of the same code is normalized
before hashing (``NORMALIZE``): compile durations (the rest of a ``# Compile time...:`` line
in the full-code files and the overview), memory addresses (object ids of 12+ digits:
Dynamo's guards ``___check_obj_id(..., 1401...)`` and its global names
``___module_collections_1401..._c57``), the dict versions Dynamo's guards compare
(``___dict_version(...) == 968064``), the compile durations in the overview's table
(``'total': 1.153725``), the run's id and process id (the overview,
``.depyf_run.json``), the dump folder's path and the command line (``argv`` in
``.depyf_run.json``). ``diff`` prints every file that still differs.

    PYTHONPATH=<depyf copy> python tools/dump_digest.py run OUT.json [--hf] [--keep DIR]
    python tools/dump_digest.py folder DIR OUT.json     # a folder kept by run --keep
    python tools/dump_digest.py diff A.json B.json
"""
import argparse
import hashlib
import json
import os
import re
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXTRA = [("toy", "aot_eager"), ("mlp_train", "aot_eager"), ("cnn", "aot_eager"),
         ("dynamic_recompile", "aot_eager"), ("toy", "inductor")]


def cases(with_hf):
    sys.path.insert(0, os.path.join(REPO, "tests", "torch_debug"))
    from workloads import WORKLOADS

    table = dict(WORKLOADS)
    if with_hf:
        from hf_workloads import HF_WORKLOADS

        table.update(HF_WORKLOADS)
    names = [(name, "eager") for name in table] + EXTRA
    return [(name, backend, table[name][0]) for name, backend in names]


NORMALIZE = [
    (re.compile(rb"(Compile time[^:\n]*: )[^\n]*"), rb"\1<t>"),
    (re.compile(rb"\b\d{8}-\d{6}-pid\d+\b"), b"<run>"),
    (re.compile(rb'"pid": \d+'), b'"pid": <pid>'),
    (re.compile(rb'"argv": \[[^\]]*\]'), b'"argv": <argv>'),
    (re.compile(rb"(___dict_version\(.*?\) == )\d+"), rb"\1<version>"),
    (re.compile(rb"\d{12,}"), b"<id>"),
]
# the overview's table of compile durations: ``'seconds': {'forward': {'total': 1.153725, ...``
SECONDS = re.compile(rb"('\w+': )\d+\.\d+(?=[,}])")


def normalized(data, folder, path):
    data = data.replace(os.path.abspath(folder).encode(), b"<dump>")
    if os.path.basename(path) == "depyf_overview.py":
        data = SECONDS.sub(rb"\1<t>", data)
    for pattern, repl in NORMALIZE:
        data = pattern.sub(repl, data)
    return data


def digest(folder):
    out = {}
    for root, _, files in os.walk(folder):
        for f in files:
            path = os.path.join(root, f)
            with open(path, "rb") as fh:
                data = normalized(fh.read(), folder, path)
            out[os.path.relpath(path, folder)] = hashlib.sha256(data).hexdigest()
    return dict(sorted(out.items()))


def run(out_json, with_hf, keep):
    import torch

    import depyf

    print("depyf from", os.path.dirname(depyf.__file__), file=sys.stderr)
    folder = keep or tempfile.mkdtemp(prefix="depyf-digest-")
    for name, backend, workload in cases(with_hf):
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="inductor-")
        torch._dynamo.reset()
        with depyf.prepare_debug(os.path.join(folder, "%s-%s" % (name, backend))):
            workload(backend)
        torch._dynamo.reset()
    sums = digest(folder)
    with open(out_json, "w") as f:
        json.dump(sums, f, indent=1)
    print("%d files digested from %s" % (len(sums), folder))


def diff(a_json, b_json):
    with open(a_json) as f:
        a = json.load(f)
    with open(b_json) as f:
        b = json.load(f)
    differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    for k in differ:
        print("%-8s %s" % ("only A" if k not in b else "only B" if k not in a else "differs", k))
    print("%d files, %d differ" % (len(set(a) | set(b)), len(differ)))
    return 1 if differ else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("--hf", action="store_true", help="also the transformers workloads")
    r.add_argument("--keep", help="dump into this folder (default: a new temporary one)")
    f = sub.add_parser("folder", help="digest a folder dumped before (run --keep)")
    f.add_argument("dir")
    f.add_argument("out")
    d = sub.add_parser("diff")
    d.add_argument("a")
    d.add_argument("b")
    args = parser.parse_args()
    if args.cmd == "run":
        os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
        run(args.out, args.hf, args.keep)
        return 0
    if args.cmd == "folder":
        with open(args.out, "w") as f:
            json.dump(digest(args.dir), f, indent=1)
        return 0
    return diff(args.a, args.b)


if __name__ == "__main__":
    sys.exit(main())
