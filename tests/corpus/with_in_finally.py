"""A ``with`` statement inside ``try``/``finally`` whose body returns: on the way out the
compiler runs the with's exit call, then a copy of the finally body, then the return
(3.10+ copies a ``return <constant>`` to the end of each path of a copy that branches);
a suppressing ``__exit__`` goes on after the with instead. Shapes of torch's
``CompiledFxGraph.__call__``."""
from ._harness import case


class Manager:
    def __init__(self, log, suppress=False):
        self.log, self.suppress = log, suppress

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, *exc):
        self.log.append(("exit", exc[0] is not None))
        return self.suppress


def work(log, fail):
    log.append("work")
    if fail:
        raise ValueError(fail)
    return len(log)


@case((True,), (False,))
def with_return_constant_then_branching_finally(flag):
    log = []
    try:
        with Manager(log):
            return 1
    finally:
        if flag:
            log.append("finally")


@case((True, 0, 1), (True, 1, 1), (False, 1, 0), (True, 0, 0), (False, 0, 1))
def with_body_then_return_constant_finally_with_and(suppress, fail, flag):
    log = []
    try:
        with Manager(log, suppress):
            work(log, fail)
            return 1
    finally:
        if flag and log:
            log.append("finally")
        log.append(len(log))


@case((True, 0, 1), (True, 1, 1), (False, 0, 0), (True, 1, 0))
def nested_with_try_finally_returns(p, fail, flag):
    log = []
    try:
        with Manager(log, True):
            try:
                if p:
                    with Manager(log):
                        return work(log, fail)
                else:
                    return 2
            finally:
                log.append("inner")
    finally:
        if flag:
            log.append("outer")


def _attempt(log, fail):
    log.append("attempt")
    if fail:
        raise RuntimeError(fail)


@case((True, 0, 1), (True, 1, 1), (False, 1, 0), (True, 0, 0), (False, 0, 1))
def with_body_then_return_constant_after_with_finally_with_and(suppress, fail, flag):
    # the same, the return after the with: a suppressing __exit__ goes on to it
    log = []
    try:
        with Manager(log, suppress):
            work(log, fail)
        return 1
    finally:
        if flag and log:
            log.append("finally")
        log.append(len(log))


@case((True, 0, 1, 1), (False, 0, 1, 0), (False, 1, 1, 1), (False, 0, 1, 1))
def with_clause_returns_constant_like_the_body(s, fail, a, b):
    # 3.10: both `return False` leave the with the same way (exit call, then the constant
    # loaded on the with's line): two returns, not one block pasted after each POP_BLOCK
    log = []
    with Manager(log):
        if s:
            x = [n for n in log]
        else:
            try:
                _attempt(log, fail)
            except RuntimeError:
                return False
        if a and b:
            log.append("both")
        return False


@case((True, True, 0), (False, True, 0), (True, False, 0), (True, True, 1), (False, False, 1))
def nested_finally_bodies_that_branch_around_a_return_value(a, b, fail):
    log = []
    try:
        try:
            return work(log, fail)
        finally:
            if a:
                log.append("inner")
    finally:
        if b:
            log.append("outer")
