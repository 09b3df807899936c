"""The dead temporaries rule (see the package docstring): the stores and ``del`` statements
of temporaries that nobody reads go, when all of them can. One walk of the function finds
them; only the temporaries ``Facts`` counts as never read are looked at closely."""
import ast

from .facts import SCOPES, bodies, children, is_pure, replace
from .names import target_names

_BINDERS = (ast.Assign, ast.NamedExpr, ast.AugAssign)


def _set_body(body, kept):
    body[:] = kept or [ast.Pass()]


def _extends_by_a_list(st, bound, facts, list_names):
    """``t += <list or tuple display, or a list temporary>``: only mutates the list ``t``."""
    if not (isinstance(st, ast.AugAssign) and isinstance(st.op, ast.Add)
            and isinstance(st.target, ast.Name) and st.target.id in list_names
            and st.target.id in bound):
        return False
    value = st.value
    if isinstance(value, (ast.List, ast.Tuple)):
        return is_pure(value, bound, facts)
    return isinstance(value, ast.Name) and value.id in list_names and is_pure(value, bound, facts)


class _Scan:
    """What one walk of the function's own scope finds: the edits that would remove each
    unread temporary (in the order of the walk), the names that cannot be removed, the
    temporaries that only ever hold lists, and the parent of each ``:=`` to unwrap."""

    def __init__(self, func, facts, bound, unread):
        self.facts, self.bound, self.unread = facts, bound, unread
        self.edits, self.blocked, self.parent_of = {}, set(), {}
        self.held = {}  # name -> every store is `t = [...]` or `t += ...`
        self.augs = []  # (AugAssign node) of unread temporaries, judged once lists are known
        stack = children(func)  # own_nodes(func)'s order
        while stack:
            node = stack.pop()
            cls = type(node)
            if cls is ast.Name or cls is ast.Constant:
                continue  # (no children; a stored name is judged with its parent)
            self.visit(node, cls)
            if not isinstance(node, SCOPES):
                kids = children(node)
                self.stored_names(node, kids)
                stack.extend(kids)

    def edit(self, name, *edit):
        self.edits.setdefault(name, []).append(edit)

    def visit(self, node, cls):
        unread, blocked = self.unread, self.blocked
        if cls is ast.Assign:
            for t in node.targets:
                if type(t) is not ast.Name:
                    blocked.update(target_names(t))
                elif t.id not in unread:
                    continue
                elif len(node.targets) == 1 and is_pure(node.value, self.bound[id(node)], self.facts):
                    self.edit(t.id, "drop", node)
                elif len(node.targets) > 1:
                    self.edit(t.id, "untarget", node, t)
                else:
                    blocked.add(t.id)
        elif cls is ast.NamedExpr:
            if node.target.id in unread:
                self.edit(node.target.id, "unwrap", node)
        elif cls is ast.Delete:
            for t in node.targets:
                if type(t) is not ast.Name:
                    blocked.update(target_names(t))
                elif t.id not in unread:
                    continue
                elif t.id in self.bound.get(id(node), ()):
                    self.edit(t.id, "undelete", node, t)
                else:
                    blocked.add(t.id)
        elif cls is ast.AugAssign and type(node.target) is ast.Name:
            if node.target.id in unread:
                self.edit(node.target.id, "extend", node)  # judged in `judge_extensions`

    def stored_names(self, parent, kids):
        """The stored names among ``parent``'s children: whether each keeps its name a list
        (``_list_names``), whether the store can be removed at all; the parents of ``:=``."""
        for kid in kids:
            cls = type(kid)
            if cls is ast.NamedExpr:
                self.parent_of[id(kid)] = parent
            elif cls is ast.Name and type(kid.ctx) is ast.Store:
                good = isinstance(parent, ast.AugAssign) or (
                    isinstance(parent, ast.Assign) and parent.targets == [kid]
                    and isinstance(parent.value, ast.List))
                self.held[kid.id] = self.held.get(kid.id, True) and good
                if kid.id in self.unread and not isinstance(parent, _BINDERS):
                    self.blocked.add(kid.id)  # for-loop, with, unpacking...

    def judge_extensions(self):
        """``t += ...`` of an unread temporary: removable when it only extends a list."""
        facts = self.facts
        list_names = {name for name, good in self.held.items() if good and facts.is_temp(name)}
        for name, todo in self.edits.items():
            for i, edit in enumerate(todo):
                if edit[0] != "extend":
                    continue
                node = edit[1]
                if _extends_by_a_list(node, self.bound[id(node)], facts, list_names):
                    todo[i] = ("drop", node)
                else:
                    self.blocked.add(name)


def drop_dead_temporaries(func, facts, bound):
    """Remove every store and ``del`` of temporaries nobody reads, when all of them can go."""
    unread = set(facts.unread_temporaries())
    if not unread:
        return False
    scan = _Scan(func, facts, bound, unread)
    scan.judge_extensions()
    dropped = set()
    changed = False
    for name, todo in scan.edits.items():
        if name in scan.blocked:
            continue
        for edit in todo:
            kind, node = edit[0], edit[1]
            if kind == "drop":
                dropped.add(id(node))
            elif kind == "untarget":
                node.targets = [t for t in node.targets if t is not edit[2]]
            elif kind == "unwrap":
                replace(scan.parent_of[id(node)], node, node.value)
            elif kind == "undelete":
                node.targets = [t for t in node.targets if t is not edit[2]]
                if not node.targets:
                    dropped.add(id(node))
        changed = True
    if dropped:
        for body in bodies(func):
            kept = [st for st in body if id(st) not in dropped]
            if len(kept) != len(body):
                _set_body(body, kept)
    return changed
