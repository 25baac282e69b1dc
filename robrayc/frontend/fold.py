"""The evaluation of robray values: expressions folded to exact doubles, attribute values
checked against their kind (a name, a string, a number, an array of given lengths).

`attribute_value` evaluates one attribute's value tree (the loader, robray.py, calls it for
every attribute, for a compile and for the language server alike); `fold` evaluates one
expression: `_plain` computes the common case (no problem to report) by a short recursion,
and anything else goes through the walk, which reports each problem at its sub-expression.
The walk is iterative (an explicit stack), so a 10,000-deep expression cannot exhaust Python's
recursion limit. Division by zero, overflow, NaN, complex results and unknown names are errors
at the sub-expression's position; folding of the other expressions goes on so several are
reported.
"""

from __future__ import annotations

import math
import operator
import re

from robrayc.diagnostics import DiagnosticSink, SourcePos, suggest
from robrayc.frontend.tree import Node, Tok

NUM, VEC, SYM, STR = "number", "array", "name", "string"  # attribute kinds (robray_attrs)
BUILTINS: dict[str, float] = {"pi": math.pi, "π": math.pi, "deg": math.pi / 180}

_EXPONENT = re.compile(r"[dDsS]")


def number_value(text: str) -> float:
    """A robray literal as an exact double (`1d-3`, `2.5D2`, `1s2` use other exponent letters)."""
    try:
        return float(text)  # the common spelling (a NUMBER token is never inf, nan or 1_0)
    except ValueError:
        return float(_EXPONENT.sub("e", text))


def first_token(node: Node | Tok) -> Tok | None:
    while isinstance(node, Node):
        if not node.children:
            return None
        node = node.children[0]
    return node


def last_token(node: Node | Tok) -> Tok | None:
    while isinstance(node, Node):
        if not node.children:
            return None
        node = node.children[-1]
    return node


def node_pos(node: Node | Tok, file: str) -> SourcePos:
    """Span of a node, from its first to its last token."""
    first, last = first_token(node), last_token(node)
    if first is None:
        return SourcePos(file)
    return first.span_to(last if last is not None else first, file)


class FoldError(Exception):
    """One sub-expression could not be folded (already reported)."""


class Poisoned(float):
    """The value of a def whose expression failed (already reported): a use of it fails
    silently, rather than each use adding an "unknown name" error."""


POISONED = Poisoned("nan")


_ARITHMETIC = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
               "div": operator.truediv, "pow": operator.pow}
_BINARY = set(_ARITHMETIC)


def fold(expr: Node | Tok, env: dict[str, float], file: str, sink: DiagnosticSink) -> float:
    """Evaluate `expr`; on failure report the problem and raise FoldError."""
    kind = expr.data
    if kind == "number":  # most values are a literal or a name: no walk
        return number_value(expr.children[0].value)
    if kind == "ident":
        return _lookup(expr, env, file, sink)
    try:
        return _plain(expr, env, 48)
    except _Unusual:
        pass  # the walk below computes the same, and reports what there is to report
    # Post-order walk: (node, visited) pairs; results on a value stack.
    stack: list[tuple[Node, bool]] = [(expr, False)]
    values: list[float] = []
    while stack:
        node, visited = stack.pop()
        kind = node.data
        if kind == "number":
            values.append(number_value(node.children[0].value))
            continue
        if kind == "ident":
            values.append(_lookup(node, env, file, sink))
            continue
        if not visited:
            stack.append((node, True))
            operands = [c for c in node.children if isinstance(c, Node)]
            for child in reversed(operands):
                stack.append((child, False))
            continue
        if kind == "paren" or kind == "plus":
            continue  # value already on the stack
        if kind == "neg":
            values.append(-values.pop())
            continue
        if kind not in _BINARY:
            sink.error(f"expected a number, got {_describe(node)}", node_pos(node, file))
            raise FoldError
        right = values.pop()
        left = values.pop()
        if kind == "pow" and node.children[0].data == "neg":
            sink.warning("unary minus binds tighter than power here: -x^y means (-x)^y",
                         node_pos(node, file), "add parentheses to say which you mean",
                         name="parentheses")
        values.append(_binary(kind, left, right, node, file, sink))
    return values[0]


def attribute_value(name: str, kind: str, lengths: tuple[int, ...], node: Node,
                    env: dict[str, float], file: str, sink: DiagnosticSink):
    """The value of attribute `name` of `kind` (NUM, VEC, SYM, STR; `lengths`: the array
    lengths it takes) from its value tree `node`: a float, a tuple of floats or a string. On
    failure report the problem and raise FoldError."""
    data = node.data
    if data == "ident" and kind == SYM:  # the common shapes first: a name,
        return node.children[0].value
    if data == "array" and kind == VEC:  # an array of literals and expressions,
        elements = [c for c in node.children if isinstance(c, Node)]
        if len(elements) in lengths:
            values = tuple([number_value(c.children[0].value) if c.data == "number"
                            else fold(c, env, file, sink) for c in elements])
            return _finite(name, values, node, file, sink)
    elif kind == NUM and data != "array" and data != "string":  # a number expression
        return _finite(name, fold(node, env, file, sink), node, file, sink)
    return _other_value(name, kind, lengths, node, env, file, sink)


def _other_value(name: str, kind: str, lengths: tuple[int, ...], node: Node,
                 env: dict[str, float], file: str, sink: DiagnosticSink):
    """attribute_value's other cases: strings, arrays of numbers, and the wrong shapes."""
    if kind in (SYM, STR):
        if node.data == "string":
            return str(node.children[0])[1:-1]
        if kind == SYM and node.data == "ident":
            return str(node.children[0])
        want = "a name" if kind == SYM else "a string"
        sink.error(f"expected {want} for '{name}', got {_describe(node)}", node_pos(node, file))
        raise FoldError
    if node.data == "array":
        if kind == NUM and not lengths:
            sink.error(f"expected a number for '{name}', got {_describe(node)}",
                       node_pos(node, file))
            raise FoldError
        elements = [c for c in node.children if isinstance(c, Node)]
        if len(elements) not in lengths:
            want = " or ".join(str(k) for k in lengths)
            sink.error(f"expected {want} values for '{name}', got {len(elements)}",
                       node_pos(node, file))
            raise FoldError
        values = tuple([fold(c, env, file, sink) for c in elements])
        return _finite(name, values, node, file, sink)
    if node.data == "string":
        sink.error(f"expected {'a number' if kind == NUM else 'an array'} for "
                   f"'{name}', got a string", node_pos(node, file))
        raise FoldError
    if kind == VEC:
        n = " or ".join(str(k) for k in lengths)
        sink.error(f"expected an array of {n} numbers for '{name}', got a number",
                   node_pos(node, file), f"write '{name} [...]'")
        raise FoldError
    return _finite(name, fold(node, env, file, sink), node, file, sink)


def _finite(name: str, value, node: Node, file: str, sink: DiagnosticSink):
    """Only limits may be infinite (1e999 is how the robray writer spells an open limit);
    an infinite pose, size or mass would reach the C as INFINITY."""
    values = value if isinstance(value, tuple) else (value,)
    if not all(map(math.isfinite, values)) and not name.startswith("limit_"):
        # folding leaves no NaN: an infinity
        sink.error(f"'{name}' must be finite", node_pos(node, file),
                   "the largest double is about 1.8e308")
        raise FoldError
    return value


class _Unusual(Exception):
    """_plain met something to report, or a deep expression."""


_UNARY = {"paren", "plus", "neg"}


def _plain(node: Node, env: dict[str, float], depth: int) -> float:
    """The value of a shallow expression that folds without any diagnostic, by recursion (no
    per-node stack entries); anything else raises _Unusual and fold's walk takes over."""
    kind = node.data
    if kind == "number":
        return number_value(node.children[0].value)
    if kind == "ident":
        value = env.get(node.children[0].value)
        if value is None:
            value = BUILTINS.get(node.children[0].value)
        if value is None or isinstance(value, Poisoned):
            raise _Unusual
        return value
    if not depth or (kind not in _BINARY and kind not in _UNARY):
        raise _Unusual
    children = node.children
    right = _plain(children[-1], env, depth - 1)  # an operand is always the last child
    if kind in _UNARY:
        return -right if kind == "neg" else right
    left = children[0]
    if kind == "pow" and left.data == "neg":
        raise _Unusual  # -x^y: a warning to give
    a = _plain(left, env, depth - 1)
    try:
        r = _ARITHMETIC[kind](a, right)
    except (ZeroDivisionError, OverflowError):
        raise _Unusual from None
    if type(r) is not float or r - r != 0.0:  # complex, inf or nan: reported by the walk
        raise _Unusual
    return r


def _describe(node: Node) -> str:
    if node.data == "array":
        return f"an array of {sum(isinstance(c, Node) for c in node.children)} values"
    if node.data == "string":
        return "a string"
    return node.data


def _lookup(node: Node, env: dict[str, float], file: str, sink: DiagnosticSink) -> float:
    name = str(node.children[0])
    if name in env:
        if isinstance(env[name], Poisoned):
            raise FoldError
        return env[name]
    if name in BUILTINS:
        return BUILTINS[name]
    pos = node_pos(node, file)
    hint = suggest(name, list(env) + ["pi", "deg"])
    if "-" in name:
        parts = name.split("-")
        if all(p in env or p in BUILTINS or _is_number(p) for p in parts):
            hint = (f"a hyphen belongs to the name; for subtraction write "
                    f"'{' - '.join(parts)}'")
    sink.error(f"unknown name '{name}'", pos, hint)
    raise FoldError


def _is_number(text: str) -> bool:
    try:
        number_value(text)
    except ValueError:
        return False
    return True


def _binary(kind: str, a: float, b: float, node: Node, file: str, sink: DiagnosticSink) -> float:
    # node_pos(node) only when reporting: it walks the node's left spine, so computing it for
    # every node made a 100,000-term sum quadratic (minutes).
    if kind == "div" and b == 0:
        sink.error("division by zero", node_pos(node, file))
        raise FoldError
    try:
        r = _ARITHMETIC[kind](a, b)
    except ZeroDivisionError:
        sink.error("division by zero (zero to a negative power)", node_pos(node, file))
        raise FoldError from None
    except OverflowError:
        sink.error("number too large (overflow)", node_pos(node, file))
        raise FoldError from None
    if isinstance(r, complex):
        sink.error(f"complex result: ({a!r}) ** {b!r}", node_pos(node, file),
                   "a negative base needs an integer exponent")
        raise FoldError
    if math.isinf(r):
        sink.error("number too large (overflow to infinity)", node_pos(node, file))
        raise FoldError
    if math.isnan(r):
        sink.error("result is not a number (NaN)", node_pos(node, file))
        raise FoldError
    return r
