# min-python: 3.10
"""Parenthesized context managers (official since 3.10)."""
from ._harness import CM, case


@case(([],),)
def parenthesized_with_items(log):
    with (
        CM(log, "a") as a,
        CM(log, "b") as b,
        CM(log, "c"),
    ):
        log.append(a + b)
    return log


@case(([], 0), ([], 1))
def parenthesized_with_return(log, early):
    with (CM(log, "x"), CM(log, "y") as y):
        if early:
            return y
    return "end"
