"""The child process that runs CPython test modules and records each test's outcome.

Run as a script by ``launch`` (never imported by depyf): ``python -S -s -B -X
frozen_modules=off child.py ARGS``, where ARGS is a file holding a marshalled dict:

- ``lib``: a folder put first on ``sys.path`` (the modules under test), or None;
- ``test_dir``: a folder put first on the ``test`` package's ``__path__`` (test modules
  under test), or None; ``test_root``: the folder that holds it;
- ``targets``: the module names that must come from those folders;
- ``tests``: the test modules to run, by name (``test.test_json``);
- ``per_test``: seconds one test may run (0: no limit), ``limits`` {test id: seconds}
  for the tests that have their own limit;
- ``out``: the file the records are appended to, one ``marshal.dump`` each.

Records (tuples): ``("preloaded", name)`` a target already imported at start-up;
``("import", name, origin)`` each import of a target (or a module inside a target
package) and the file it came from; ``("start", test_id)``; ``("loaded", name, __file__)`` for each target in
``sys.modules`` at the end; ``("outcome", test_id, kind,
detail, seconds)``, kind one of pass, fail, error, skip, xfail, xpass, timeout; ``("fatal",
text)``; ``("done",)``. Records are written as they happen, so a run killed for its time
limit still says which test was running.

Until the import recorder is installed only built-in modules are used (``sys``,
``marshal``, ``time``, ``_signal``): any module of the standard library may be one under test, and
it must be imported from its folder, not before.
"""
import sys
import marshal
import time
import _signal

RECORDS = None


def record(*item):
    marshal.dump(item, RECORDS)
    RECORDS.flush()


class TestTimeout(BaseException):
    """One test ran past ``per_test`` seconds (raised in it by SIGALRM). A BaseException so
    that the test's own ``except Exception`` does not swallow it."""


class Recorder:
    """A ``sys.meta_path`` finder that finds nothing itself: for a target module (or one
    inside a target package) it asks the finders after it and records the file they found,
    so the run says which copy each import of a module under test used."""

    def __init__(self, targets):
        self.targets = tuple(targets)

    def _watched(self, name):
        return any(name == t or name.startswith(t + ".") for t in self.targets)

    def find_spec(self, name, path=None, target=None):
        if not self._watched(name):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                record("import", name, str(spec.origin))
                return spec
        return None


def describe(err):
    """``ExcType: message`` and the innermost frame's ``file:line`` of an exc_info."""
    kind, value, tb = err
    where = ""
    while tb is not None:
        where = " at %s:%s" % (tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    try:
        text = str(value)
    except BaseException:
        text = "<str() failed>"
    text = text.splitlines()[0] if text.strip() else ""
    return ("%s: %s" % (getattr(kind, "__name__", kind), text[:300]) + where)[:500]


def test_id(test):
    """The id a test's outcome is recorded under: a subtest counts for its test."""
    case = getattr(test, "test_case", None)  # unittest's _SubTest
    if case is not None and getattr(test, "_subDescription", None) is not None:
        test = case
    try:
        return test.id()
    except BaseException:
        return str(test)


def make_result(unittest, per_test, limits):
    """A ``unittest.TestResult`` that records every outcome (subtests under their test)
    and how long each test took; a test runs at most ``limits.get(id, per_test)`` s."""

    def on_alarm(signum, frame):
        raise TestTimeout("the test ran past its time limit")

    class Result(unittest.TestResult):
        started = {}

        def startTest(self, test):
            super().startTest(test)
            name = test_id(test)
            record("start", name)
            self.started[name] = time.perf_counter()
            limit = limits.get(name, per_test)
            if limit:
                _signal.signal(_signal.SIGALRM, on_alarm)
                _signal.setitimer(_signal.ITIMER_REAL, limit)

        def stopTest(self, test):
            _signal.setitimer(_signal.ITIMER_REAL, 0)
            super().stopTest(test)

        def _out(self, test, kind, err=None):
            if err is not None and isinstance(err[0], type) and issubclass(err[0], TestTimeout):
                kind = "timeout"
            name = test_id(test)
            seconds = time.perf_counter() - self.started.get(name, time.perf_counter())
            record("outcome", name, kind, describe(err) if err else "", seconds)

        def addSuccess(self, test):
            self._out(test, "pass")

        def addFailure(self, test, err):
            self._out(test, "fail", err)

        def addError(self, test, err):
            self._out(test, "error", err)

        def addSkip(self, test, reason):
            self._out(test, "skip")
            record("reason", test_id(test), str(reason)[:300])

        def addExpectedFailure(self, test, err):
            self._out(test, "xfail")

        def addUnexpectedSuccess(self, test):
            self._out(test, "xpass")

        def addSubTest(self, test, subtest, err):
            if err is not None:
                failed = issubclass(err[0], test.failureException)
                self._out(subtest, "fail" if failed else "error", err)

    return Result()


def configure(support, unittest, result):
    """Quiet, no resources (network, cpu, ...), and the old ``test_main()`` style of 3.8
    recorded too: ``support.run_unittest`` runs its suite through ``result``."""
    support.verbose = 0
    support.use_resources = []
    if hasattr(support, "_run_suite"):
        support._run_suite = lambda suite: suite.run(result)
    run_doctest = getattr(support, "run_doctest", None)
    if run_doctest is not None:
        def recorded_doctest(module, *args, **kwargs):
            name = "doctest:%s" % getattr(module, "__name__", module)
            record("start", name)
            try:
                outcome = run_doctest(module, *args, **kwargs)
            except BaseException:
                record("outcome", name, "fail", describe(sys.exc_info()))
                return (1, 1)
            record("outcome", name, "pass", "")
            return outcome
        support.run_doctest = recorded_doctest


def discover_in(support, roots):
    """``support.load_package_tests`` for test packages under ``roots`` too: it names the
    modules it discovers from the standard library's folder, which a package under test
    is not in (discovery would fail with "Path must be within the project")."""
    import os
    original = getattr(support, "load_package_tests", None)
    if original is None:
        return

    def load_package_tests(pkg_dir, loader, standard_tests, pattern):
        root = next((r for r in roots if pkg_dir.startswith(r + os.sep)), None)
        if root is None:
            return original(pkg_dir, loader, standard_tests, pattern)
        found = loader.discover(start_dir=pkg_dir, top_level_dir=root, pattern=pattern or "test*")
        standard_tests.addTests(found)
        return standard_tests
    support.load_package_tests = load_package_tests


def run_module(name, unittest, result):
    record("start", name)
    try:
        module = __import__(name, fromlist=["*"])
    except BaseException:
        record("outcome", name, "error", "import failed: " + describe(sys.exc_info()))
        return
    record("outcome", name, "pass", "")
    main = getattr(module, "test_main", None)
    if callable(main):
        record("start", name + ".test_main")
        try:
            main()
        except BaseException:
            record("outcome", name + ".test_main", "error", describe(sys.exc_info()))
        else:
            record("outcome", name + ".test_main", "pass", "")
        return
    loader = unittest.TestLoader()
    suite = loader.loadTestsFromModule(module)
    for k, error in enumerate(getattr(loader, "errors", ())):
        record("outcome", "%s.<loading %d>" % (name, k), "error", str(error).strip()[-300:])
    suite.run(result)


def main(args):
    global RECORDS
    RECORDS = open(args["out"], "ab", buffering=0)
    if args["lib"]:
        sys.path[0] = args["lib"]
    else:
        del sys.path[0]
    for name in args["targets"]:
        if name in sys.modules:
            record("preloaded", name)
    sys.meta_path.insert(0, Recorder(args["targets"]))
    try:
        import unittest
        if args["test_dir"]:
            import test
            test.__path__.insert(0, args["test_dir"])
        from test import support
        result = make_result(unittest, args["per_test"], args.get("limits") or {})
        configure(support, unittest, result)
        discover_in(support, [r for r in (args["lib"], args.get("test_root")) if r])
        for name in args["tests"]:
            run_module(name, unittest, result)
    except BaseException:
        record("fatal", describe(sys.exc_info()))
    for name in args["targets"]:
        module = sys.modules.get(name)
        if module is not None:
            record("loaded", name, str(getattr(module, "__file__", None)))
    record("done")


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as f:
        ARGS = marshal.load(f)
    main(ARGS)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        import os  # leave now: threads a test left running must not hold the exit
        os._exit(0)
