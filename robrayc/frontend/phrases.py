"""Attributes and frame statements parsed once per shape: the parser driver's memo of phrases.

A phrase (an attribute `NAME value ;`, or a frame statement `frame NAME { ... }` with blocks
nested at most two deep) that starts in a given parser state with a given sequence of
terminals (keyword spellings told apart) always takes the same parser actions: the same tree
over other tokens, the same state after its last token. The driver parses such a phrase as
usual and, the second time its shape is seen, records the tree as a template (a function of
the token positions); later phrases of that shape are built from the template without running
the automaton token by token. Whether the token after the phrase may follow is still checked
in the state the phrase leads to (the same reduction must be taken there), so every syntax
error is found where the automaton alone finds it. A generated scene of 10,000 frames has
about 30 attribute shapes for its 60,000 attributes, and a few frame shapes.
"""

from __future__ import annotations

import re
from bisect import bisect_left

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable

MAX_PHRASE = 48  # tokens: a longer attribute is parsed token by token
MAX_STATEMENT = 400  # tokens of a frame statement
MAX_TEMPLATES = 4096  # shapes a process keeps (a long-lived language server stays bounded)

# (state, terminal codes) -> template; shapes seen once, not yet recorded
_TEMPLATES: dict[tuple, Template] = {}
_SEEN: set[tuple] = set()


def phrase(state: int, codes: str, i: int, ends: Callable) -> tuple[tuple, int] | None:
    """(key, index of the last token) of the phrase starting at token i in `state` whose
    end `ends(codes, i)` finds, or None when it has none (see parse._tables: `codes` holds
    one character per token, its terminal)."""
    j = ends(codes, i)
    return None if j is None else ((state, codes[i:j + 1]), j)


def attribute_end(semicolon: str) -> Callable[[str, int], int | None]:
    """The `;` ending an attribute, with a token after it, within MAX_PHRASE tokens."""
    def end(codes: str, i: int) -> int | None:
        j = codes.find(semicolon, i + 1, min(i + MAX_PHRASE, len(codes) - 1))
        return None if j < 0 else j
    return end


def statement_end(first: str, opening: str, closing: str) -> Callable[[str, int], int | None]:
    """The `}` closing a statement whose first terminal is one of `first` and whose blocks
    nest at most two deep, with a token after it, within MAX_STATEMENT tokens."""
    o, c = re.escape(opening), re.escape(closing)
    shape = re.compile(f"[{re.escape(first)}][^{o}{c}]*+{o}(?:[^{o}{c}]|{o}[^{o}{c}]*+{c})*+{c}")

    def end(codes: str, i: int) -> int | None:
        m = shape.match(codes, i, min(i + MAX_STATEMENT, len(codes) - 1))
        return None if m is None else m.end() - 1
    return end


class Template:
    """What a shape's phrases share: `build(lexed, i)` makes the tree of the phrase from token
    i, `after` is the state its last token leads to, where `action` (a reduction) must be the
    action on the token after it; `lazy`: an attribute, whose tree is made when read (see
    parse.Phrase), and whose value can be read without the tree: `form`
    is "ident" or "string" (the token after the name),
    "array" (of `count` expressions) or "number" (one expression), whose `evaluate(X, i, E)`
    gives the value from the texts X and the usable names E, or None when the tree is to be
    folded (something to report, see fold.expression_source); `form` None: fold the tree."""

    __slots__ = ("build", "after", "action", "lazy", "form", "count", "evaluate")

    def __init__(self, build: Callable, after: int, action: int, node, token: Callable) -> None:
        self.build, self.after, self.action = build, after, action
        self.lazy = node.data == "attr"
        self.form, self.count, self.evaluate = (
            _reader(node.children[1], token) if self.lazy else (None, 0, None))


def template(key: tuple) -> Template | None:
    return _TEMPLATES.get(key)


def record(key: tuple, node, i: int, lexed, after: int, action: int) -> Template | None:
    """Remember the tree a phrase's parse made (`node`, from token i of `lexed`; `after`: the
    state its last token led to, `action` the reduction taken there), from the second phrase
    of its shape on; returns the template made."""
    if key not in _SEEN:
        if len(_SEEN) < 4 * MAX_TEMPLATES:
            _SEEN.add(key)
        return None
    if len(_TEMPLATES) >= MAX_TEMPLATES:
        return None
    from robrayc.frontend.parse import Node, Phrase, Tok  # parse imports this module

    ends = lexed.ends
    shared: list[Template] = []  # the templates of attributes within a statement

    def token(x) -> str:
        return f"X[i + {bisect_left(ends, x.end_pos) - i}]"

    def source(x) -> str:
        if type(x) is Phrase:
            shared.append(x.template)
            return f"P(A[{len(shared) - 1}], Lx, i + {x.i - i})"
        if type(x) is Node:
            return f"N({x.data!r}, [{', '.join(map(source, x.children))}])"
        k = token(x)
        return f"T({x.type!r}, {k}, E{k[1:]} - len({k}), E{k[1:]}, L)"

    code = ("def build(Lx, i):\n    X, E, L = Lx.texts, Lx.ends, Lx.lines\n"
            f"    return {source(node)}\n")
    scope = {"N": Node, "T": Tok, "P": Phrase, "A": shared}
    exec(code, scope)  # noqa: S102
    made = _TEMPLATES[key] = Template(scope["build"], after, action, node, token)
    return made


def _reader(value, token: Callable) -> tuple[str | None, int, Callable | None]:
    """(form, count, evaluate) of a value tree (see Template)."""
    from robrayc.frontend.fold import expression_source, real_pow
    from robrayc.frontend.parse import Node

    if value.data in ("ident", "string"):
        return value.data, 1, None
    array = value.data == "array"
    elements = [c for c in value.children if type(c) is Node] if array else [value]
    sources = [expression_source(c, token) for c in elements]
    if not sources or None in sources:
        return None, 0, None
    names = [f"v{k}" for k in range(len(sources))]
    body = "".join(f"        {name} = {src}\n" for name, src in zip(names, sources, strict=True))
    finite = " and ".join(f"{name} - {name} == 0.0" for name in names)  # not inf, not nan
    result = f"({', '.join(names)},)" if array else names[0]
    code = (f"def evaluate(X, i, E):\n    try:\n{body}"
            "    except (KeyError, ValueError, ArithmeticError):\n        return None\n"
            f"    return {result} if {finite} else None\n")
    scope = {"real_pow": real_pow}
    exec(code, scope)  # noqa: S102
    return "array" if array else "number", len(sources), scope["evaluate"]
