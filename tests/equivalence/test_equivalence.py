"""The equivalence checker (``depyf.equivalence``): what it proves and what it
refuses, on pairs of programs. Each "different" pair is a way to compute something else
that a decompiler could produce; each "equivalent" pair differs only in what the checker
is meant to be blind to."""
import sys

import pytest

from depyf.verify import Verdict, equivalent  # the public name

from .asm import PY, assemble, call_global

EQUIVALENT, DIFFERENT = "equivalent", "different"


def _fn(source, name="f"):
    namespace = {}
    exec(compile(source, "<test>", "exec"), namespace)
    return namespace[name]


# (id, original, candidate, expected, min_python)
CASES = [
    # -- layout: proven -------------------------------------------------------------------
    ("inverted test", "def f(a, b):\n if a:\n  return b\n return a + b\n",
     "def f(a, b):\n if not a:\n  return a + b\n return b\n", EQUIVALENT, None),
    ("else after return", "def f(a):\n if a:\n  return 1\n else:\n  return g()\n",
     "def f(a):\n if a:\n  return 1\n return g()\n", EQUIVALENT, None),
    ("while as while-True-break", "def f(a):\n while a.x:\n  a.step()\n return a\n",
     "def f(a):\n while True:\n  if not a.x:\n   break\n  a.step()\n return a\n", EQUIVALENT, None),
    ("conditional expression", "def f(c, a, b):\n if c:\n  return a()\n return b()\n",
     "def f(c, a, b):\n return a() if c else b()\n", EQUIVALENT, None),
    ("de morgan", "def f(a, b):\n if not (a and b):\n  g()\n",
     "def f(a, b):\n if not a or not b:\n  g()\n", EQUIVALENT, None),
    ("temporary variable", "def f(a):\n return g(a).x\n",
     "def f(a):\n t = g(a)\n return t.x\n", EQUIVALENT, None),
    ("global loaded before the argument is computed", "def f(a):\n return g(h(a))\n",
     "def f(a):\n t = h(a)\n return g(t)\n", DIFFERENT, None),
    ("an exception handled on one side only", "def f(a):\n try:\n  return a.x\n except AttributeError:\n  return 1\n",
     "def f(a):\n return a.x\n", DIFFERENT, None),
    ("a list changed before an exception that leaves, or after",
     "def f(a, g):\n x = []\n g(x)\n x.append(1)\n y = a.y\n x.append(2)\n return y\n",
     "def f(a, g):\n x = []\n g(x)\n y = a.y\n x.append(1)\n x.append(2)\n return y\n", DIFFERENT, None),
    ("renamed locals", "def f(xs):\n t = 0\n for x in xs:\n  t += x\n return t\n",
     "def f(xs):\n total = 0\n for item in xs:\n  total += item\n return total\n", EQUIVALENT, None),
    ("star call of a tuple", "def f(a, b):\n return g(a, b)\n",
     "def f(a, b):\n return g(*(a, b))\n", EQUIVALENT, None),
    ("method call form", "def f(o, x):\n return o.m(x)\n",
     "def f(o, x):\n m = o.m\n return m(x)\n", EQUIVALENT, None),
    ("copied return tail", "def f(a, b):\n if a:\n  x = 1\n else:\n  x = 2\n return g(x, b)\n",
     "def f(a, b):\n if a:\n  return g(1, b)\n return g(2, b)\n", EQUIVALENT, None),
    ("finally body copied or not", "def f(h):\n try:\n  g()\n finally:\n  h()\n",
     "def f(h):\n try:\n  g()\n except:\n  h()\n  raise\n h()\n", EQUIVALENT, None),
    ("list built then extended", "def f(a, b):\n return [a, *b]\n",
     "def f(a, b):\n x = [a]\n x.extend(b)\n return x\n", EQUIVALENT, None),
    ("bool asked twice", "def f(a, b):\n if a:\n  g()\n if a:\n  h()\n",
     "def f(a, b):\n if a:\n  g()\n  h()\n", EQUIVALENT, None),
    ("is not / not is, guard clause", "def f(x):\n if x is not None:\n  return a()\n return b()\n",
     "def f(x):\n if not x is None:\n  return a()\n else:\n  return b()\n", EQUIVALENT, None),
    ("continue for the end of a loop body", "def f(xs):\n for x in xs:\n  if x:\n   a(x)\n",
     "def f(xs):\n for x in xs:\n  if not x:\n   continue\n  a(x)\n", EQUIVALENT, None),
    ("an escaped list kept longer in a temporary, across a loop",
     "def f(g, xs):\n g([1])\n for x in xs:\n  g(x)\n",
     "def f(g, xs):\n t = [1]\n g(t)\n for x in xs:\n  g(x)\n", EQUIVALENT, None),
    ("a list of its own tested twice with nothing between",
     "def f(xs, g):\n q = []\n q.extend(xs)\n while q:\n  g(q.pop())\n",
     "def f(xs, g):\n q = []\n q.extend(xs)\n if q:\n  while q:\n   g(q.pop())\n", EQUIVALENT, None),
    # Dynamo's SWAP before 3.11: items in a list of its own, reversed, unpacked again
    ("a list of its own with known items reversed",
     "def f(a, b, g):\n x = [a, b]\n x.reverse()\n return g(*x)\n",
     "def f(a, b, g):\n return g(b, a)\n", EQUIVALENT, None),
    ("a list of its own reversed, then extended and unpacked",
     "def f(a, b, g):\n x = [a, [b]]\n x.reverse()\n c, d = x\n c += [d]\n return g(c)\n",
     "def f(a, b, g):\n return g([b, a])\n", EQUIVALENT, None),
    # -- different --------------------------------------------------------------------------
    ("a list of its own reversed: items in the old order",
     "def f(a, b, g):\n x = [a, b]\n x.reverse()\n return g(*x)\n",
     "def f(a, b, g):\n return g(a, b)\n", DIFFERENT, None),
    ("a list with items from outside: the reverse call dropped",
     "def f(a, b, g):\n x = [a]\n x.extend(b)\n x.reverse()\n return g(x)\n",
     "def f(a, b, g):\n x = [a]\n x.extend(b)\n return g(x)\n", DIFFERENT, None),
    ("another object's reverse call dropped",
     "def f(a, g):\n a.reverse()\n return g(a)\n",
     "def f(a, g):\n return g(a)\n", DIFFERENT, None),
    ("return value computed after the try", "def f(m):\n with m as p:\n  try:\n   return p.wait()\n"
     "  except:\n   p.kill()\n   raise\n",
     "def f(m):\n with m as p:\n  try:\n   pass\n  except:\n   p.kill()\n   raise\n"
     "  return p.wait()\n", DIFFERENT, None),
    ("statement moved under the condition", "def f(c):\n if c:\n  a()\n b()\n",
     "def f(c):\n if c:\n  a()\n  b()\n", DIFFERENT, None),
    ("code after the try moved into it", "def f():\n try:\n  a()\n except OSError:\n  return\n b()\n",
     "def f():\n try:\n  a()\n  b()\n except OSError:\n  return\n", DIFFERENT, None),
    ("an escaped list passed again after a loop",
     "def f(g, xs):\n g([1])\n for x in xs:\n  g(x)\n g([1])\n",
     "def f(g, xs):\n t = [1]\n g(t)\n for x in xs:\n  g(x)\n g(t)\n", DIFFERENT, None),
    ("a list of its own emptied by a method call, tested again (mutation: difflib)",
     "def f(h):\n q = [1]\n q.pop()\n if q:\n  return 1\n return h()\n",
     "def f(h):\n q = [1]\n q.pop()\n if q:\n  return 1\n return 5\n", DIFFERENT, None),
    ("a list of its own extended by unknown items, tested",
     "def f(h, xs):\n q = []\n q.extend(xs)\n if q:\n  return 1\n return h()\n",
     "def f(h, xs):\n q = []\n q.extend(xs)\n if q:\n  return 1\n return 5\n", DIFFERENT, None),
    ("a value handed to user code is tested again (mutation: weakref)",
     "def f(l, d):\n while l:\n  del d[l.pop()]\n",
     "def f(l, d):\n while l:\n  del d[l.pop()]\n  del d[l.pop()]\n", DIFFERENT, None),
    ("swapped statements", "def f(a):\n g(a)\n h(a)\n", "def f(a):\n h(a)\n g(a)\n", DIFFERENT, None),
    ("duplicated statement", "def f(a):\n g(a)\n", "def f(a):\n g(a)\n g(a)\n", DIFFERENT, None),
    ("inverted test (wrong)", "def f(a):\n if a:\n  g()\n", "def f(a):\n if not a:\n  g()\n",
     DIFFERENT, None),
    ("dropped else", "def f(a):\n if a:\n  g()\n else:\n  h()\n", "def f(a):\n if a:\n  g()\n h()\n",
     DIFFERENT, None),
    ("changed constant", "def f(a):\n return g(a, 1)\n", "def f(a):\n return g(a, 2)\n", DIFFERENT, None),
    ("swapped arguments", "def f(a, b):\n return g(a, b)\n", "def f(a, b):\n return g(b, a)\n",
     DIFFERENT, None),
    ("moved into try", "def f(a):\n g(a)\n try:\n  h()\n except E:\n  pass\n",
     "def f(a):\n try:\n  g(a)\n  h()\n except E:\n  pass\n", DIFFERENT, None),
    ("moved out of try", "def f(s):\n try:\n  return int(s)\n except ValueError:\n  return 0\n",
     "def f(s):\n try:\n  pass\n except ValueError:\n  return 0\n return int(s)\n", DIFFERENT, None),
    # an __exit__ that suppresses g's exception: None, or UnboundLocalError
    ("return moved out of with", "def f(m):\n with m:\n  return g()\n",
     "def f(m):\n with m:\n  x = g()\n return x\n", DIFFERENT, None),
    ("return of a constant moved out of with", "def f(m):\n with m:\n  g()\n  return 1\n",
     "def f(m):\n with m:\n  g()\n return 1\n", DIFFERENT, None),
    ("moved into loop", "def f(xs):\n g()\n for x in xs:\n  h(x)\n",
     "def f(xs):\n for x in xs:\n  g()\n  h(x)\n", DIFFERENT, None),
    ("run in the except clause", "def f():\n try:\n  g()\n except E:\n  pass\n h()\n",
     "def f():\n try:\n  g()\n except E:\n  h()\n else:\n  h()\n", DIFFERENT, None),
    ("fresh list instead of one shared", "def f():\n x = []\n return g(x, x)\n",
     "def f():\n return g([], [])\n", DIFFERENT, None),
    ("test evaluated twice", "def f(a, b):\n if a:\n  while b():\n   g()\n",
     "def f(a, b):\n if a and b():\n  while b():\n   g()\n", DIFFERENT, None),
    ("handled exception differs", "def f():\n try:\n  g()\n except E:\n  pass\n h()\n",
     "def f():\n try:\n  g()\n except E:\n  h()\n  return\n h()\n", DIFFERENT, None),
    ("nested function body differs", "def f():\n def g():\n  return 1\n return g\n",
     "def f():\n def g():\n  return 2\n return g\n", DIFFERENT, None),
    ("lost nonlocal", "def f():\n a = 1\n def g():\n  nonlocal a\n  a = 2\n g()\n return a\n",
     "def f():\n a = 1\n def g():\n  a = 2\n g()\n return a\n", DIFFERENT, None),
    # -- constructs whose bytecode 3.14 changed (LOAD_SPECIAL, POP_ITER, BINARY_OP [],
    # LOAD_COMMON_CONSTANT, argument-less CALL_FUNCTION_EX, __annotate__, t-strings) -----
    ("subscript through a temporary", "def f(a, k):\n return a[k] + a[0]\n",
     "def f(a, k):\n t = a\n x = t[k]\n return x + t[0]\n", EQUIVALENT, None),
    ("all() of a generator through a temporary", "def f(a):\n return all(x for x in a)\n",
     "def f(a):\n r = all(x for x in a)\n return r\n", EQUIVALENT, None),
    ("other context manager", "def f(m, n):\n with m:\n  g()\n",
     "def f(m, n):\n with n:\n  g()\n", DIFFERENT, None),
    ("with body moved out", "def f(m):\n with m as v:\n  g(v)\n",
     "def f(m):\n with m as v:\n  pass\n g(v)\n", DIFFERENT, None),
    ("async with as with", "async def f(m):\n async with m:\n  g()\n",
     "async def f(m):\n with m:\n  g()\n", DIFFERENT, None),
    ("any instead of all", "def f(a):\n return all(x for x in a)\n",
     "def f(a):\n return any(x for x in a)\n", DIFFERENT, None),
    ("list instead of tuple", "def f(a):\n return tuple(x for x in a)\n",
     "def f(a):\n return list(x for x in a)\n", DIFFERENT, None),
    ("assert message changed", "def f(a):\n assert a, 'm'\n", "def f(a):\n assert a, 'n'\n",
     DIFFERENT, None),
    ("keyword arguments of a star call dropped", "def f(a, k):\n return g(*a, **k)\n",
     "def f(a, k):\n return g(*a)\n", DIFFERENT, None),
    ("other index", "def f(a):\n return a[0]\n", "def f(a):\n return a[1]\n", DIFFERENT, None),
    ("for-else lost", "def f(xs):\n for x in xs:\n  if x:\n   break\n else:\n  g()\n",
     "def f(xs):\n for x in xs:\n  if x:\n   break\n g()\n", DIFFERENT, None),
    ("annotation changed", "def f():\n def h(x: int):\n  pass\n return h\n",
     "def f():\n def h(x: str):\n  pass\n return h\n", DIFFERENT, None),
    ("constant slice through a temporary", "def f(a):\n return a[::2], a[1:]\n",
     "def f(a):\n t = a\n return t[::2], t[1:]\n", EQUIVALENT, None),
    ("other constant slice", "def f(a):\n a[1:] = [1]\n return a[::2]\n",
     "def f(a):\n a[1:] = [1]\n return a[::3]\n", DIFFERENT, None),
    ("template through a temporary", "def f(a):\n return t'x{a!r:>{a}}y'\n",
     "def f(a):\n s = t'x{a!r:>{a}}y'\n return s\n", EQUIVALENT, (3, 14)),
    ("template instead of f-string", "def f(a):\n return f'x{a}'\n",
     "def f(a):\n return t'x{a}'\n", DIFFERENT, (3, 14)),
    ("template strings changed", "def f(a):\n return t'x{a}'\n", "def f(a):\n return t'y{a}'\n",
     DIFFERENT, (3, 14)),
    ("template conversion changed", "def f(a):\n return t'{a!r}'\n",
     "def f(a):\n return t'{a!s}'\n", DIFFERENT, (3, 14)),
    ("template format spec changed", "def f(a):\n return t'{a:>3}'\n",
     "def f(a):\n return t'{a:<3}'\n", DIFFERENT, (3, 14)),
    ("template expression text changed", "def f(a):\n return t'{a}'\n",
     "def f(a):\n b = a\n return t'{b}'\n", DIFFERENT, (3, 14)),
    # 3.14: co_consts[0] is a docstring only with CO_HAS_DOCSTRING; else it is whatever
    # constant the compiler met first, which another layout of the same program changes
    ("first string constant is no docstring", "def f(x):\n if x:\n  return 'b'\n return 'a'\n",
     "def f(x):\n if not x:\n  return 'a'\n return 'b'\n", EQUIVALENT, None),
    ("docstring dropped", "def f(x):\n 'doc'\n return x\n", "def f(x):\n return x\n",
     DIFFERENT, None),
    ("docstring changed", "def f(x):\n 'doc'\n return x\n", "def f(x):\n 'other'\n return x\n",
     DIFFERENT, None),
]


@pytest.mark.parametrize("name, original, candidate, expected, min_python",
                         CASES, ids=[c[0] for c in CASES])
def test_pairs(name, original, candidate, expected, min_python):
    if min_python and sys.version_info < min_python:
        pytest.skip("needs Python %d.%d" % min_python)
    verdict = equivalent(_fn(original), _fn(candidate))
    assert isinstance(verdict, Verdict)
    if expected == EQUIVALENT:
        assert verdict, verdict.reason
    else:
        assert not verdict and verdict.different, "not refused: %r" % verdict


# The wrong outputs the decompiler gave for three programs (issue: "it lets wrong code
# through"); the checker must refuse each.
WRONG_OUTPUTS = [
    ("raise_from",
     "def raise_from(s):\n try:\n  try:\n   return int(s)\n  except ValueError as e:\n"
     "   raise RuntimeError('wrapped') from e\n except RuntimeError as e:\n"
     "  return str(e), type(e.__cause__).__name__\n",
     "def raise_from(s):\n try:\n  try:\n   pass\n  except ValueError as e:\n"
     "   raise RuntimeError('wrapped') from e\n  return int(s)\n except RuntimeError as e:\n"
     "  return (str(e), type(e.__cause__).__name__)\n"),
    ("async_try",
     "async def async_try(x):\n try:\n  v = await Tick(x)\n  if x:\n   raise ValueError(v)\n"
     "  return v\n except ValueError as e:\n  return 'err %s' % e\n finally:\n  await Tick(-1)\n",
     "async def async_try(x):\n try:\n  try:\n   v = await Tick(x)\n   if x:\n    raise ValueError(v)\n"
     "   return v\n  except ValueError as e:\n   pass\n  return 'err %s' % e\n finally:\n"
     "  await Tick(-1)\n"),
    ("finally_twice",
     "def f(xs, h):\n for x in xs:\n  try:\n   if x > 2:\n    return x\n  finally:\n"
     "   if x:\n    h(x)\n",
     "def f(xs, h):\n for x in xs:\n  try:\n   if x > 2:\n    return x\n  finally:\n"
     "   if x:\n    h(x)\n  if x:\n   h(x)\n"),
]


@pytest.mark.parametrize("name, original, wrong", WRONG_OUTPUTS, ids=[w[0] for w in WRONG_OUTPUTS])
def test_wrong_outputs_are_refused(name, original, wrong):
    fn_name = original.split("(")[0].split()[-1]
    verdict = equivalent(_fn(original, fn_name), _fn(wrong, fn_name))
    assert not verdict and verdict.different, verdict
    assert verdict.original and verdict.candidate  # both instructions are named
    assert "line" in verdict.reason


def test_reason_names_both_instructions_and_lines():
    verdict = equivalent(_fn("def f(a):\n g(a)\n h(a)\n"), _fn("def f(a):\n h(a)\n g(a)\n"))
    assert "the original" in verdict.reason and "the candidate" in verdict.reason
    assert "load global g" in verdict.original and "line 2" in verdict.original
    assert "load global h" in verdict.candidate and "line 2" in verdict.candidate


def test_a_code_object_is_equivalent_to_itself_without_the_shortcut():
    fn = _fn("def f(xs, h):\n for x in xs:\n  try:\n   if x > 2:\n    return x\n  finally:\n"
             "   if x:\n    h(x)\n")
    verdict = equivalent(fn, fn, shortcut=False)
    assert verdict and verdict.how == "checked"


def test_signature_and_kind_are_compared():
    assert not equivalent(_fn("def f(a, b): pass\n"), _fn("def f(b, a): pass\n"))
    assert not equivalent(_fn("def f(a): yield a\n"), _fn("def f(a): return a\n"))
    assert not equivalent(_fn("def f(a): pass\n"), _fn("def g(a): pass\n", "g"))
    assert equivalent(_fn("def f(a): pass\n"), _fn("def g(a): pass\n", "g"), compare_name=False)


def test_exploration_budget_gives_an_unknown_verdict():
    fn = _fn("def f(xs):\n for x in xs:\n  if x:\n   g(x)\n")
    verdict = equivalent(fn, fn, shortcut=False, budget=2)
    assert not verdict and verdict.unknown and "not proven" in verdict.reason


def test_an_exception_leaving_both_sides_is_not_explored_further():
    """At an event where an exception would leave both functions, that outcome is the
    same on both sides (``product._leaves``): straight-line code of n events explores
    about n states, not 2n."""
    fn = _fn("def f(a):\n return a.b.c.d.e.f.g.h.i.j.k\n")  # (10 attribute loads)
    assert equivalent(fn, fn, shortcut=False, budget=12)


# -- code no source compiles to (Dynamo's) -------------------------------------------------
def _many_args_template():
    return _fn("def f(%s):\n return g()\n" % ", ".join("a%d" % i for i in range(40))).__code__


def test_a_call_with_more_than_30_arguments_in_either_form():
    template = _many_args_template()
    direct = assemble(template, call_global(0, range(40)), names=("g",))
    source = _fn("def f(%s):\n return g(%s)\n" % (
        ", ".join("a%d" % i for i in range(40)), ", ".join("a%d" % i for i in range(40))))
    assert equivalent(direct, source.__code__)
    swapped = _fn("def f(%s):\n return g(%s)\n" % (
        ", ".join("a%d" % i for i in range(40)),
        ", ".join("a%d" % i for i in [1, 0] + list(range(2, 40)))))
    verdict = equivalent(direct, swapped.__code__)
    assert not verdict and verdict.different


def test_bound_constants_and_renamed_globals():
    # Dynamo loads graphs as __compiled_fn_1_<uuid> and keeps objects in co_consts; the
    # decompiled text calls __compiled_fn_1 and names the object __depyf_const_0
    marker = object()
    original = _fn("def f(a):\n return g(a, k)\n").__code__
    original = original.replace(co_names=("g_1234",) + original.co_names[1:],
                                co_consts=original.co_consts)
    candidate = _fn("def f(a):\n return g(a, __depyf_const_0)\n")
    assert equivalent(original, candidate, name_map={"g_1234": "g", "k": "k"},
                      bindings={}) .different  # k is a global there, a constant here
    assert not equivalent(original, candidate, name_map={"g_1234": "g"},
                          bindings={"__depyf_const_0": marker})


class _Size(tuple):
    """A tuple subclass, as Dynamo's ``torch.Size`` constants are: equal to the plain
    tuple, another value all the same."""


def _with_size(value):
    if type(value) is tuple:
        return _Size(value) if value == (2, 8) else tuple(_with_size(v) for v in value)
    return value


@pytest.mark.parametrize("source,bound", [
    ("def f():\n return (2, 8)\n", "def f():\n return __depyf_const_0\n"),
    ("def f(x):\n return x + (2, 8)\n", "def f(x):\n return x + __depyf_const_0\n"),
    ("def f(x):\n return g(x, (1, (2, 8)))\n", "def f(x):\n return g(x, __depyf_const_0)\n")])
def test_a_constant_of_a_subclass_is_not_the_plain_literal(source, bound):
    plain = _fn(source).__code__
    original = plain.replace(co_consts=tuple(_with_size(c) for c in plain.co_consts))
    held = [c for c in original.co_consts if c != c or c in ((2, 8), (1, (2, 8)))]
    assert held and any(type(c) is not tuple or _Size in map(type, c) for c in held)
    verdict = equivalent(original, plain)  # the same bytecode, the plain tuple for the Size
    assert not verdict and verdict.different, verdict
    assert equivalent(original, _fn(bound).__code__, bindings={"__depyf_const_0": held[0]})


def test_fixed_globals_may_be_read_at_another_moment():
    # Dynamo reads its graph (__compiled_fn_1_<uuid>) first and calls it after the
    # profiler hooks; the decompiled text names it where it is called
    original = _fn("def f(x):\n fn = K_1234\n h()\n return fn(x)\n").__code__
    candidate = _fn("def f(x):\n h()\n return K(x)\n")
    name_map = {"K_1234": "K"}
    assert equivalent(original, candidate, name_map=name_map).different
    assert equivalent(original, candidate, name_map=name_map, fixed_globals={"K_1234"})
    # only the names vouched for: h is still read in order
    early_h = _fn("def f(x):\n g = h\n q()\n g()\n return K_1234(x)\n").__code__
    late_h = _fn("def f(x):\n q()\n h()\n return K(x)\n")
    assert equivalent(early_h, late_h, name_map=name_map, fixed_globals={"K_1234", "h"})
    assert equivalent(early_h, late_h, name_map=name_map, fixed_globals={"K_1234"}).different
    # the value is still compared: another fixed global is another value
    other = _fn("def f(x):\n h()\n return L(x)\n")
    assert not equivalent(original, other, name_map=name_map, fixed_globals={"K_1234", "L"})


def test_two_identical_nested_functions_stay_two_values_through_joins():
    # shutil.rmtree (3.12): `def onexc(*args): raise` in two branches, one variable
    source = ("def f(a, b, h, g):\n if a:\n  def cb(*args):\n   raise\n elif b:\n  def cb(*args):\n"
              "   raise\n else:\n  cb = h\n for x in g():\n  h(x)\n return g(cb)\n")
    fn = _fn(source)
    verdict = equivalent(fn, fn, shortcut=False)
    assert verdict, verdict.reason


def _def(src, name="f", filename="<a>"):
    module = compile(src, filename, "exec")
    return next(c for c in module.co_consts if getattr(c, "co_name", None) == name)


_NESTED = "def f(x):\n    g = lambda y: y + x\n    return [g(i) for i in x]\n"


def test_nested_code_in_another_place_is_bytecode_equal_by_code_equality():
    """The shortcut compares code objects with CPython's own equality once the place
    (file, lines, qualified name) is the original's, nested code objects included."""
    from depyf.equivalence import _same_code

    original = _def(_NESTED)
    moved = _def("\n\n\nclass C:\n    pass\n" + _NESTED, "f", "<b>")
    assert moved.co_firstlineno != original.co_firstlineno
    assert _same_code(original, moved)
    assert equivalent(original, moved).how == "bytecode-equal"


@pytest.mark.parametrize("changed", [
    _NESTED.replace("lambda y: y + x", "lambda y: y - x"),  # a nested body differs
    _NESTED.replace("lambda y: y + x", "lambda z: z + x"),  # a nested parameter name
    "def f(x):\n    def g(y):\n        return y + x\n    return [g(i) for i in x]\n",  # nested name
], ids=["body", "parameter", "name"])
def test_nested_code_that_differs_is_not_taken_for_the_same(changed):
    from depyf.equivalence import _same_code

    assert not _same_code(_def(_NESTED), _def(changed))


def _inner(src, name="f"):
    """The code of ``name`` defined inside a function (compiled with CO_NESTED set)."""
    outer = _def("def outer():\n" + "".join("    " + line + "\n" for line in src.splitlines()),
                 "outer")
    return next(c for c in outer.co_consts if getattr(c, "co_name", None) == name)


def test_the_nested_flag_alone_does_not_stop_the_shortcut():
    """A def that the proof compiles inside a wrapper function has CO_NESTED set where
    the original has not; normalized bytecode leaves the flag out, and so does the
    code-equality shortcut (the kind flags still count)."""
    import inspect
    from depyf.equivalence import _same_code

    # (no nested code: up to 3.10 a nested function's qualified name is a constant of
    # the code that makes it, and it differs inside a wrapper)
    src = "def f(x, y):\n    if x:\n        return y\n    return x + y\n"
    top, inner = _def(src), _inner(src)
    assert (top.co_flags ^ inner.co_flags) == inspect.CO_NESTED
    assert _same_code(top, inner) and _same_code(inner, top)
    assert not _same_code(top, _inner(src.replace("return y", "yield y")))  # a generator
    assert not _same_code(top, _inner(src.replace("x + y", "x * y")))
