"""The executor for the hidden function 3.12+ wraps around a generic def, class or type
alias (``def f[T]``): its ``.type_params`` and ``.generic_base`` are values to collect,
not variables to assign. The session runs it (``DecompileSession.type_params_scope``)."""
import ast

from ..mismatch import Mismatch
from ..rewrite.mangling import mangle
from .executor import Executor
from .exprs import name
from .generics import HIDDEN_PREFIX, GenericBase, TypeParam
from .stackops import pop


class TypeParamsExecutor(Executor):
    """Runs ``<generic parameters of X>``: its own names (``T``, ``.type_params``,
    ``.generic_base``, ``.defaults``) stay bookkeeping, never statements."""

    def __init__(self, code, nested, bindings, temp_prefix, arguments):
        super().__init__(code, nested, bindings, temp_prefix)
        self.values = dict(arguments)  # '.defaults' / '.kwdefaults' -> expression
        self.params = {}               # type parameter name -> TypeParam

    def _load_name(self, ins, stack, out):
        n = ins.argval
        if n in self.values:
            stack.append(self.values[n])
        elif n.startswith("."):
            raise Mismatch("%s read before it is set" % n)
        else:  # (a cell here is a type parameter its bound or value closes over, by name)
            stack.append(name(n))

    op_LOAD_FAST = op_LOAD_DEREF = op_LOAD_CLOSURE = _load_name

    def _store_name(self, ins, stack, out):
        n = ins.argval
        value = pop(stack)
        if isinstance(value, TypeParam) and n in self._spellings(value.node.name) and \
                n not in self.params:
            self.params[n] = value
        elif n == ".type_params" and isinstance(value, ast.Tuple) or \
                n == ".generic_base" and isinstance(value, GenericBase):
            self.values[n] = value
        else:
            raise Mismatch("unexpected store to %s in a type parameter scope" % n)

    op_STORE_FAST = op_STORE_DEREF = _store_name

    def _spellings(self, param):
        """The names the scope may store type parameter ``param`` under: a private one
        (``__T``) is mangled with the class the scope belongs to (``class C[__T]``) or
        sits in (a method's ``def m[__T]``)."""
        name = self.code.co_name
        owners = [name[len(HIDDEN_PREFIX):-1]] if name.startswith(HIDDEN_PREFIX) else []
        owners += self.nested.classes[-1:]
        return {param} | {mangle(owner, param) for owner in owners}


