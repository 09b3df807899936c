"""3.14+ deferred annotations (PEP 649/749): which code objects are the ``__annotate__``
functions the compiler writes (leaf module: the executor asks it on a store).

The compiler's ``__annotate__(format, /)`` starts by refusing the formats it does not
implement, ``if format > 2: raise NotImplementedError``, loading the exception with
LOAD_COMMON_CONSTANT, which no source statement compiles to; a function a user names
``__annotate__`` loads it as a global.
"""
import ast
import dis

from ...bytecode import raw
from ...bytecode import versions as V
from .markers import FuncMarker

_CHECK_LEN = 8  # the format check is in the first instructions


def is_annotate_code(code):
    """Whether ``code`` is an ``__annotate__`` function the compiler wrote."""
    if not V.DEFERRED_ANNOTATIONS or code.co_name != "__annotate__" or code.co_argcount != 1 \
            or code.co_posonlyargcount != 1 or code.co_varnames[:1] != ("format",):
        return False
    opname, arg = V.LOAD_NOT_IMPLEMENTED
    wanted = dis.opmap.get(opname)
    head = [(op, a) for _, op, a in raw.ops(code)][:_CHECK_LEN]
    return (wanted, arg) in head


def is_annotate_store(value, target):
    """Whether storing ``value`` into ``target`` is a class or module body keeping its
    ``__annotate__`` function (``__annotate__ = <annotate>`` / ``__annotate_func__ = ...``)."""
    return isinstance(value, FuncMarker) and isinstance(target, ast.Name) and \
        target.id in V.ANNOTATE_STORE_NAMES and is_annotate_code(value.code)
