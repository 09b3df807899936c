"""``global``, ``nonlocal``, closures and cells (including cells that are arguments)."""
from ._harness import case

COUNTER = 0
CONFIG = {"level": 1}
SHADOWED = "global"


@case((5,), (-2,))
def global_rebind(n):
    global COUNTER
    COUNTER = n
    COUNTER += 1
    return COUNTER


@case((3,),)
def global_read_and_delete(n):
    global TEMP
    TEMP = n * 2
    value = TEMP
    del TEMP
    return value, "TEMP" in globals()


@case(("debug",),)
def global_mutation_without_statement(name):
    old = CONFIG.get(name)
    CONFIG[name] = True
    result = dict(CONFIG)
    del CONFIG[name]
    return old, result


@case((3,),)
def closure_reads_argument(n):
    def get():
        return n * 2

    return get()


@case((3,), (0,))
def cell_argument_rebound(n):
    def get():
        return n

    before = get()
    n = n + 10
    return before, get()


@case((3,),)
def nonlocal_only_declared(v):
    # `nonlocal a` with no other use still makes `a` a cell the closure sees
    a = v

    def f():
        nonlocal a
    return f.__closure__[0].cell_contents, f()


@case((4,),)
def nonlocal_counter(start):
    count = start

    def inc(by=1):
        nonlocal count
        count += by
        return count

    inc()
    inc(5)
    return count, inc(0)


@case((2,),)
def nonlocal_nested_two_levels(x):
    def outer():
        y = x

        def inner():
            nonlocal y
            y *= 3
            return y + x

        return inner(), y

    return outer()


@case((1,),)
def closure_over_loop_variable(k):
    fs = []
    for i in range(3):
        fs.append(lambda: i + k)
    gs = [lambda i=i: i + k for i in range(3)]
    return [f() for f in fs], [g() for g in gs]


@case((5,),)
def closure_in_comprehension(n):
    return [(lambda: x * n)() for x in range(3)]


@case((2,),)
def cell_deleted(n):
    def get():
        return v

    v = n
    first = get()
    del v
    try:
        get()
    except NameError as e:
        return first, "NameError"


@case((1, 2),)
def global_shadowed_by_local(a, b):
    COUNTER = a + b
    return COUNTER


@case((7,),)
def nonlocal_in_closure_with_cell_argument(v):
    def setter(new):
        nonlocal v
        v = new

    def getter():
        return v

    setter(v * 2)
    return getter(), v


@case((3,),)
def closure_chain(a):
    def f1(b):
        def f2(c):
            def f3(d):
                return a + b + c + d

            return f3

        return f2

    return f1(10)(100)(1000)


@case((2,),)
def free_variable_of_class_body(n):
    class C:
        size = n * 2

        def get(self):
            return n + self.size

    return C.size, C().get()


@case((4,),)
def global_used_in_nested_function(n):
    def bump():
        global COUNTER
        COUNTER = n
        return COUNTER

    return bump(), COUNTER


@case((5,),)
def locals_and_builtins_shadowing(n):
    len = lambda x: 42  # noqa: E731
    return len([1, 2]), sum(range(n))


# the only store of a global / nonlocal name is a `:=` in a comprehension or generator
# expression (a code object of its own before 3.12, a generator expression still after):
# the declaration is the function's, the store is the comprehension's
@case((3,), (0,))
def global_bound_by_walrus_in_comprehension(n):
    global COUNTER
    [COUNTER := i * 2 for i in range(n)]
    return COUNTER


@case((3,),)
def global_bound_by_walrus_in_generator_expression(n):
    global COUNTER
    found = [sum((COUNTER := j) for j in range(i)) for i in range(n)]
    list((COUNTER := -i) for i in range(n))
    return found, COUNTER


@case((3,), (0,))
def nonlocal_bound_by_walrus_in_comprehension(n):
    last = None

    def scan():
        nonlocal last
        return [last := i for i in range(n)]

    return scan(), last


@case((3,), (0,))
def nonlocal_bound_by_walrus_in_generator_expression(n):
    last = None

    def scan():
        nonlocal last
        return list((last := -i) < -1 for i in range(n))

    return scan(), last


# `nonlocal __class__` in a function nested in a method rebinds the class cell
@case((3,),)
def nonlocal_class_cell_in_nested_function(n):
    class A:
        def f(self):
            def g():
                nonlocal __class__
                __class__ = n

            before = __class__
            g()
            return before.__name__, __class__

    return A().f()


# a bare annotation makes a name local without binding it (a function does not evaluate
# the annotation): reading it raises UnboundLocalError, not the global's value
@case()
def bare_annotation_makes_local():
    SHADOWED: int
    try:
        return SHADOWED
    except NameError as e:
        return type(e).__name__


@case((2,),)
def bare_annotation_bound_by_nested_functions(n):
    x: int
    read = lambda: x  # noqa: E731

    def bind():
        nonlocal x
        x = n

    try:
        before = read()
    except NameError as e:
        before = type(e).__name__
    bind()
    return before, read(), x
