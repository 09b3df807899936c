"""One dump session: where files go, how they are named, and what was recorded.

Directory policy (documented in docs/reference/dump-folder.md):

* Each process writes into its own folder under the directory given to ``prepare_debug``:
  the directory itself for a plain (main) process, ``rank_<r>/`` for a rank of a
  distributed job (``torchrun`` sets ``RANK``; an initialized process group counts too;
  a directory already named ``rank_<r>`` for this rank is used as it is), and
  ``process_<pid>/`` for a child started by ``multiprocessing`` /
  ``torch.multiprocessing``.
* A process writes only into a folder it has claimed (``folders``: a lock held until the
  process exits). When its folder is in use by another live process (two programs started
  on one directory), it writes to ``process_<pid>/`` (``rank_<r>_pid<pid>/`` for a rank)
  instead, with one warning naming that subfolder. Nothing of a live process is ever moved,
  renamed or overwritten.
* A claimed folder holding dump files of an EARLIER run (its process has ended: nobody held
  the lock) is never overwritten: those files are first moved to
  ``previous_runs/<run id>/`` beside them, with one warning saying where. Files that are not
  depyf's (other names) are left alone. Re-entering ``prepare_debug`` with the same
  directory in the same process continues the same session (counters go on).
* A directory that cannot be created or written raises ``DumpDirError`` before anything
  runs. ``~`` is expanded; ``None`` (``TypeError``) and ``""`` (``ValueError``) are refused
  with an error naming ``dump_src_dir`` (``"."`` is how to ask for the current directory).
* One dump session at a time: a ``prepare_debug``/``debug`` block inside another one for
  the same directory continues the enclosing session (one set of hooks, one dump); for
  another directory it raises ``NestedSessionError`` (under ``depyf run``, whose session
  encloses the whole program, it joins that session instead: ``registry.on_nested``).
"""
import json
import multiprocessing
import os
import re
import shutil
import sys
import threading
import time
import warnings

from . import folders

MARKER = ".depyf_run.json"
OVERVIEW_NAME = "depyf_overview.py"
_DUMP_FILE = re.compile(
    r"^(full_code_for_.*\.py|__transformed_code_.*\.py|__compiled_fn_.*\.py|"
    + re.escape(OVERVIEW_NAME)
    + "|"
    + re.escape(MARKER)
    + r")$"
)


class DumpDirError(OSError):
    """The dump directory cannot be used (not creatable, not writable)."""


class NestedSessionError(RuntimeError):
    """A dump session for one directory was opened inside the session of another."""


def dump_dir_path(value, func="prepare_debug"):
    """The absolute dump directory for the ``dump_src_dir`` a user passed. ``os.path``
    alone would turn ``""`` into the current directory, keep ``"~"`` as a folder name and
    fail on ``None`` with a TypeError from deep inside ``posixpath``."""
    if value is None or not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(
            "depyf.%s: dump_src_dir must be a directory path (str or os.PathLike), got %r"
            % (func, value)
        )
    path = os.fsdecode(os.fspath(value))
    if not path.strip():
        raise ValueError(
            "depyf.%s: dump_src_dir is empty (%r); pass a directory such as "
            "'./dump_src_dir' ('.' writes into the current directory)" % (func, value)
        )
    return os.path.abspath(os.path.expanduser(path))


def process_folder():
    """The sub-folder (relative, '' for the directory itself) this process writes to."""
    rank = os.environ.get("RANK")
    world = os.environ.get("WORLD_SIZE")
    if rank is not None and rank.isdigit() and (world is None or world != "1"):
        return "rank_%s" % rank
    from . import adapter

    dist_rank = adapter.distributed_rank()
    if dist_rank is not None:
        return "rank_%d" % dist_rank
    if multiprocessing.current_process().name != "MainProcess":
        return "process_%d" % os.getpid()
    return ""


def name_part(co_name):
    """``co_name`` as a part of a file name and of a ``def`` name: an identifier
    (``<lambda>`` -> ``lambda``, ``torch_dynamo_resume_in_<lambda>_at_3`` ->
    ``torch_dynamo_resume_in_lambda_at_3``)."""
    return re.sub(r"\W", "_", co_name.replace("<", "").replace(">", "")) or "_"


class DumpSession:
    """State of one ``prepare_debug`` directory in this process.

    Holds the counters that name files, what was compiled, and which code objects are
    running from dump files. Created by ``open_session``; lives until the process exits
    so that ``debug()`` and re-entered sessions find it.
    """

    def __init__(self, root, folder):
        self.root = os.path.abspath(root)
        self.wanted = folder  # the folder this process would write to ('' for root)
        self.folder = None  # the folder it claimed (prepare_directory)
        self.dir = os.path.join(self.root, folder) if folder else self.root
        self.key = (self.root, folder)
        self.pid = os.getpid()
        self.run_id = "%s-pid%d" % (time.strftime("%Y%m%d-%H%M%S"), self.pid)
        self.lock = threading.RLock()
        self._written = set()
        self._warned = set()
        self._name_counters = {}
        # what was compiled
        self.originals = {}  # id(original code) -> original code, in first-seen order
        self.parents = {}  # id(resume code) -> parent original code
        self.records = []  # TransformedRecord, in compile order
        self.records_by_code = {}  # id(code that runs) -> TransformedRecord
        self.graph_breaks = {}  # (gb id, file, line, reason title) -> GraphBreak
        self.recompiles = []  # (compile id text, function name, reason text)
        self.compiled_fn_files = {}  # K -> [file names]
        self.full_code_index = {}  # id(user function code) -> n of full_code_for_<fn>_<n>.py
        self.resume_links = {}  # id(resume code) -> [resume.ResumeLink] (who calls it, as what)
        self.triggers = {}  # compile id text -> [(file, line, function)], outermost first
        self.compile_times = {}  # compile id text -> {'forward'|'backward': {phase: seconds}}
        self.used_files = set()  # transformed-code file names given to a record
        self.reserved_files = {}  # id(resume code) -> its first file name, reserved by the caller
        self.active = False

    # ---- directory -------------------------------------------------------------------

    def prepare_directory(self):
        taken_from = None
        try:
            if self.folder is None:
                self.folder = folders.choose(self.root, self.wanted, self.pid)
                self.dir = os.path.join(self.root, self.folder) if self.folder else self.root
                if self.folder != self.wanted:
                    taken_from = os.path.join(self.root, self.wanted) if self.wanted else self.root
            else:  # the same folder again in this process: the user may have deleted it since
                os.makedirs(self.dir, exist_ok=True)
            probe = os.path.join(self.dir, ".depyf_write_probe_%d" % os.getpid())
            with open(probe, "w") as f:
                f.write("ok")
            os.remove(probe)
        except OSError as exc:
            raise DumpDirError(
                exc.errno,
                "depyf.prepare_debug: cannot write dump files to %r (%s). Pass a "
                "directory you can create and write to." % (self.dir, exc.strerror or exc),
            ) from exc
        if taken_from is not None:
            warnings.warn(
                "depyf: %s is in use by another running process (%s); so that neither "
                "overwrites the other, this process (pid %d) writes its dump to the "
                "subfolder %s" % (taken_from, _describe_run(taken_from), self.pid, self.dir),
                RuntimeWarning, stacklevel=_user_stacklevel())
        self._archive_earlier_run()
        marker = {"run": self.run_id, "pid": self.pid, "argv": sys.argv,
                  "folder": self.folder, "wanted_folder": self.wanted}
        tmp = os.path.join(self.dir, MARKER + ".tmp%d" % self.pid)
        with open(tmp, "w") as f:
            json.dump(marker, f)
        os.replace(tmp, os.path.join(self.dir, MARKER))

    def _archive_earlier_run(self):
        marker = os.path.join(self.dir, MARKER)
        old_run = None
        try:
            with open(marker) as f:
                old_run = json.load(f).get("run")
        except (OSError, ValueError):
            pass
        if old_run == self.run_id:
            return
        old = [
            n
            for n in os.listdir(self.dir)
            if _DUMP_FILE.match(n) and os.path.isfile(os.path.join(self.dir, n))
        ]
        if not old:
            return
        label = old_run or "unknown-%s" % time.strftime("%Y%m%d-%H%M%S")
        rel = os.path.relpath(self.dir, self.root)
        dest = os.path.join(self.root, "previous_runs", label, "" if rel == "." else rel)
        os.makedirs(dest, exist_ok=True)
        for name in old:
            shutil.move(os.path.join(self.dir, name), os.path.join(dest, name))
        warnings.warn(
            "depyf: %s held %d dump files of an earlier run (its process has ended); they "
            "were moved to %s so that nothing is overwritten." % (self.dir, len(old), dest),
            RuntimeWarning,
            stacklevel=_user_stacklevel(),
        )

    # ---- naming and writing ----------------------------------------------------------

    def next_index(self, key):
        """0, 1, 2, ... for each call with the same key (file-name counters)."""
        with self.lock:
            n = self._name_counters.get(key, 0)
            self._name_counters[key] = n + 1
            return n

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, text):
        """Write a dump file atomically; returns its absolute path. Rewriting a file this
        session wrote is allowed (it is refreshed); a file of anyone else is not touched."""
        path = self.path(name)
        with self.lock:
            if path not in self._written and os.path.exists(path):
                base, ext = os.path.splitext(name)
                name = "%s.%s%s" % (base, self.run_id, ext)
                path = self.path(name)
            tmp = path + ".tmp%d" % os.getpid()
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
            self._written.add(path)
        return path

    def written_files(self):
        return sorted(self._written)

    def warn_once(self, key, message):
        with self.lock:
            if key in self._warned:
                return
            self._warned.add(key)
        warnings.warn("depyf: " + message, RuntimeWarning, stacklevel=3)

    # ---- records ---------------------------------------------------------------------

    def note_original(self, code, parent=None):
        with self.lock:
            self.originals.setdefault(id(code), code)
            if parent is not None and parent is not code:
                self.parents.setdefault(id(code), parent)

    def root_of(self, code):
        """The user function a (possibly nested) resume function belongs to."""
        seen = set()
        while id(code) in self.parents and id(code) not in seen:
            seen.add(id(code))
            code = self.parents[id(code)]
        return code

    def add_record(self, record):
        with self.lock:
            self.records.append(record)
            self.records_by_code[id(record.running_code)] = record


def _describe_run(folder):
    """Who holds ``folder``, from its marker: 'pid N, started as `argv`'."""
    try:
        with open(os.path.join(folder, MARKER)) as f:
            data = json.load(f)
        return "pid %s, run %s: %s" % (data.get("pid"), data.get("run"), " ".join(data.get("argv") or []))
    except (OSError, ValueError, TypeError, AttributeError):
        return "its marker is not written yet"


def _user_stacklevel():
    """The ``stacklevel`` of a warning that points at the program's line (the first frame
    outside depyf and contextlib) instead of depyf's own."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(here) and not filename.endswith("contextlib.py"):
            return level
        frame, level = frame.f_back, level + 1
    return 2


class _Registry:
    """The sessions of this process: one per dump directory, and the last one used
    (what ``debug()`` replays)."""

    def __init__(self):
        self.sessions = {}
        self.last = None
        self.active = None  # (session, capture) of the dump block running now, if any
        # None: a block of another directory inside the active one raises
        # NestedSessionError. ``depyf run`` sets a callable (outer session, directory,
        # function name) that is told of such a block, which then joins the active session.
        self.on_nested = None
        self.lock = threading.Lock()

    @staticmethod
    def key(root):
        path, folder = dump_dir_path(root), process_folder()
        if folder and os.path.basename(path) == folder:  # `.../rank_0` given to rank 0
            folder = ""
        return (path, folder)

    def open(self, root):
        key = self.key(root)
        folder = key[1]
        with self.lock:
            session = self.sessions.get(key)
            if session is None or session.pid != os.getpid():  # (a fork has its own)
                session = DumpSession(key[0], folder)
                session.prepare_directory()
                self.sessions[key] = session
            else:
                session.prepare_directory()
            self.last = session
            return session


registry = _Registry()
