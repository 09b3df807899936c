"""Compare the outcomes of a target's runs test by test.

``orig`` (the original text) and ``deco`` (the decompiled text) always run. Where some
test's outcome differs, the target runs three more times: ``ctrl`` (the control text,
``texts``), and ``orig`` and ``deco`` again. A differing test is then

- *flaky* when the original disagrees with itself, or the decompiled text's second run
  agrees with the original;
- *source-text dependent* when the control's outcome differs from the original's too
  (the test reads source lines, line numbers or comments, not what the code does);
- *changed* otherwise: the decompiled module behaves differently.

The control moves line numbers and drops comments; a blank line before every statement
moves each statement's line relative to its function's first line too, so a test that
reads the line layout inside a function (line events relative to ``co_firstlineno``,
PEP 626) changes on the control as it does on a decompiled text that puts a statement
on other lines.

A test missing from a run that completed counts as the outcome ``missing``; one missing
from a run that did not complete (killed at its time limit, or the child died) was
*not reached* and is not compared.
"""


def _outcome(run, test):
    if run is None:
        return None
    found = run.outcomes.get(test)
    if found is None and run.done:
        return "missing"
    return found


def differing(orig, deco):
    """The tests whose outcome differs between two runs (neither not reached)."""
    found = []
    for test in sorted(set(orig.outcomes) | set(deco.outcomes)):
        a, b = _outcome(orig, test), _outcome(deco, test)
        if a is not None and b is not None and a != b:
            found.append(test)
    return found


def compare(orig, deco, ctrl=None, orig2=None, deco2=None):
    """The comparison of a target's runs: counts and the lists of changed,
    source-text dependent, flaky and not reached tests (each with its outcomes)."""
    result = {"total": 0, "same": 0, "changed": [], "source_text_dependent": [], "flaky": [],
              "not_reached": []}
    for test in sorted(set(orig.outcomes) | set(deco.outcomes)):
        result["total"] += 1
        a, b = _outcome(orig, test), _outcome(deco, test)
        if a is None or b is None:
            result["not_reached"].append({"test": test, "original": a, "decompiled": b})
            continue
        if a == b:
            result["same"] += 1
            continue
        item = {"test": test, "original": a, "decompiled": b,
                "detail_original": orig.details.get(test, ""),
                "detail_decompiled": deco.details.get(test, "")}
        c = _outcome(ctrl, test)
        if ctrl is not None:
            item["control"] = c
        a2, b2 = _outcome(orig2, test), _outcome(deco2, test)
        if orig2 is not None and a2 is not None and a2 != a:
            item["original_again"] = a2
            result["flaky"].append(item)
        elif deco2 is not None and b2 == a:
            item["decompiled_again"] = b2
            result["flaky"].append(item)
        elif c is not None and c != a:
            item["detail_control"] = ctrl.details.get(test, "")
            result["source_text_dependent"].append(item)
        else:
            if ctrl is None:
                item["note"] = "no control run"
            elif c is None:
                item["note"] = "the control run did not reach it"
            result["changed"].append(item)
    return result
