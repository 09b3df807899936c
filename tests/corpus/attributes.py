"""Attribute and subscript loads, stores and deletes; ``del`` of every target kind."""
from types import SimpleNamespace

from ._harness import case


@case((SimpleNamespace(a=1),), (SimpleNamespace(a=1, b=2),))
def attribute_store_and_delete(obj):
    obj.x = obj.a + 1
    obj.y = obj.z = [obj.x]
    del obj.a
    if hasattr(obj, "b"):
        del obj.b
    return sorted(vars(obj))


@case((SimpleNamespace(inner=SimpleNamespace(v=1)),),)
def nested_attribute_store(obj):
    obj.inner.v += 1
    obj.inner.w = obj.inner.v * 10
    obj.inner.inner = SimpleNamespace(deep=0)
    obj.inner.inner.deep -= 5
    return obj


@case(({"a": 1, "b": 2}, [1, 2, 3]),)
def subscript_store_and_delete(d, lst):
    d["c"] = d["a"] + d["b"]
    lst[0] = lst[-1]
    del d["a"]
    del lst[1]
    d[len(lst)] = lst
    return d, lst


@case(({},),)
def subscript_store_with_tuple_keys(d):
    d[1, 2] = "a"
    d[(3,)] = "b"
    d["x", "y"] = d[1, 2] * 2
    del d[1, 2]
    return d


@case((5,), (0,))
def delete_names(x):
    y = x * 2
    z = y
    del y
    if x:
        del x
        return z, "x deleted"
    return z, x


@case((1,),)
def delete_then_use_raises(x):
    y = x
    del y
    return y


@case(([1, 2, 3, 4, 5, 6],),)
def delete_several_targets(lst):
    a, b = 1, 2
    del a, b, lst[0], lst[-1:]
    return lst


@case(({"k": 1},), ({},))
def delete_missing_key(d):
    del d["k"]
    return d


@case((SimpleNamespace(),), (SimpleNamespace(v=3),))
def missing_attribute(ns):
    return ns.v


@case(([[0, 0], [0, 0]],),)
def store_into_nested_subscripts(m):
    m[0][1] = 5
    m[1][0] = m[0][1] + 1
    i, j = 1, 1
    m[i][j] = m[i - 1][j] * m[i][j - 1]
    return m


@case((SimpleNamespace(items=[1, 2]),),)
def attribute_subscript_mix(obj):
    obj.items[0] = obj.items[1]
    obj.items[1:] = [obj.items[0]] * 3
    del obj.items[-1]
    obj.count = len(obj.items)
    return obj


@case((3,),)
def getattr_setattr_builtins(n):
    ns = SimpleNamespace()
    setattr(ns, "v", n)
    name = "w"
    setattr(ns, name, getattr(ns, "v") + 1)
    delattr(ns, "v")
    return vars(ns), getattr(ns, "v", "gone")
