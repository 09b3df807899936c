"""Readable text for events, outcomes and values, for the reasons a Verdict gives."""

_MAX = 120


def term_text(t, f=None, depth=0):
    if depth > 4:
        return "..."
    tag = t[0]
    if tag == "c":
        return repr(t[2]) if t[1] not in ("float", "complex", "qualname") else str(t[2])
    if tag in ("s", "b", "u"):
        key = t[1]
        if key[0] == "arg" and f is not None and key[1] < len(f.info.params):
            return f.info.params[key[1]]
        if key[0] == "r":
            return "<result %d>" % key[1]
        if key[0] == "exc":
            return "<exception %d>" % key[1]
        if key[0] == "phi":
            return "<value %d.%d>" % (key[1], key[3])
        return "<%s>" % key[0]
    if tag == "k":
        return "<object>"
    if tag == "t":
        inner = ", ".join(term_text(x, f, depth + 1) for x in t[1])
        return "(%s%s)" % (inner, "," if len(t[1]) == 1 else "")
    if tag == "ref":
        obj = f.heap.get(t[2]) if f is not None and t[1] == f.side else None
        if obj is None:
            return "<object>"
        if obj.kind == "function":
            return "<function %s>" % (term_text(obj.contents[2], f) if obj.contents[0] == "fn" else "")
        inner = term_text(obj.contents, f, depth + 1)
        return "%s %s" % (obj.kind, inner)
    if tag == "not":
        return "not %s" % term_text(t[1], f, depth + 1)
    if tag == "is":
        return "%s is %s" % (term_text(t[1], f, depth + 1), term_text(t[2], f, depth + 1))
    if tag == "cell":
        return "<cell %s>" % t[1]
    if tag == "op":
        args = ", ".join(term_text(x, f, depth + 1) if isinstance(x, tuple) and x and
                         isinstance(x[0], str) else str(x) for x in t[2:])
        return "%s(%s)" % (t[1], args)
    return tag


def _short(text):
    return text if len(text) <= _MAX else text[:_MAX - 3] + "..."


def event_text(event, f):
    words = " ".join(str(k) for k in event.kind)
    operands = ", ".join(term_text(x, f) for x in event.operands)
    return "%s%s at %s" % (_short(words), " [%s]" % _short(operands) if operands else "",
                           f.info.describe(f.pc))


def terminal_text(f):
    r = f.result
    if r[0] == "return":
        return "returns %s" % _short(term_text(r[1], f))
    if r[0] == "raise":
        return "raises %s out of the function" % _short(term_text(r[1], f))
    return "never ends (a loop that does nothing)"
