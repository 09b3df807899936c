"""Which folder of a dump directory this process may write to, for as long as it runs.

A process writes only into a folder it has *claimed*: it holds an exclusive lock on the
folder's ``.depyf_lock`` file (``fcntl.flock``; ``msvcrt.locking`` on Windows) from the
claim until it exits. The operating system drops the lock when the process ends, however
it ends (a crash, ``kill -9``), and a lock belongs to an open file, not to a pid, so a
reused pid never looks alive. Hence:

* a folder whose lock is held belongs to a live process: nothing in it is moved, renamed or
  overwritten, and this process writes to a subfolder of its own instead
  (``fallback_names``), saying so once;
* a folder whose lock this process obtains holds, at most, files of processes that are gone
  (an earlier run): those may be moved aside (``session.DumpSession``).

Forked children do not inherit the claims (the lock files are closed in the child), so a
fork claims a folder of its own.
"""
import errno
import os
import threading
import warnings

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None
try:
    import msvcrt
except ImportError:
    msvcrt = None

LOCK_NAME = ".depyf_lock"
_held = {}  # real path of a claimed folder -> open lock file descriptor
_guard = threading.Lock()


def _try_lock(fd):
    """True when this open file now holds the exclusive lock (never waits), False when
    another open file holds it; None when the file system cannot lock files."""
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        elif msvcrt is not None:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        else:
            return None
        return True
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES, errno.EDEADLK):
            return False
        return None


def claim(folder):
    """Claim ``folder`` (created if needed) for this process until it exits: True when
    it is ours (now or already), False when a live process holds it. Where files cannot
    be locked (some network file systems) the claim is granted with one warning: other
    programs on the directory then go undetected. ``OSError`` when the folder cannot be
    created or its lock file opened."""
    real = os.path.realpath(folder)
    with _guard:
        if real in _held:
            return True
        os.makedirs(folder, exist_ok=True)
        fd = os.open(os.path.join(folder, LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o666)
        locked = _try_lock(fd)
        if locked is False:
            os.close(fd)
            return False
        if locked is None:
            warnings.warn("depyf: files cannot be locked in %s, so other programs writing "
                          "dumps there are not detected" % folder, RuntimeWarning, stacklevel=4)
        _held[real] = fd
        return True


def held_by_this_process(folder):
    return os.path.realpath(folder) in _held


def fallback_names(wanted, pid):
    """Folder names (relative to the dump directory) to try, in order, when ``wanted``
    ('' for the directory itself, ``rank_<r>``, ``process_<pid>``) is in use:
    ``process_<pid>`` (or ``rank_<r>_pid<pid>``), then that name with ``_1``, ``_2``..."""
    if wanted == "" or wanted.startswith("process_"):
        base = "process_%d" % pid
    else:
        base = "%s_pid%d" % (wanted, pid)
    if base != wanted:
        yield base
    for n in range(1, 1000):
        yield "%s_%d" % (base, n)


def choose(root, wanted, pid):
    """The folder (relative to ``root``; '' for ``root`` itself) this process claims:
    ``wanted`` when free, else the first free of ``fallback_names``."""
    if claim(os.path.join(root, wanted) if wanted else root):
        return wanted
    for name in fallback_names(wanted, pid):
        if claim(os.path.join(root, name)):
            return name
    raise OSError("depyf: every fallback folder of %r under %s is in use" % (wanted, root))


def _forget_in_child():
    """After ``fork``: the child holds no claim (its copies of the lock files are closed;
    the parent's locks stay held by the parent)."""
    global _guard
    _guard = threading.Lock()  # another thread may have held it at the fork
    for fd in _held.values():
        try:
            os.close(fd)
        except OSError:
            pass
    _held.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
