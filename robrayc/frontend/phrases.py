"""Attribute statements parsed once per shape: the parser driver's memo of whole phrases.

An attribute `NAME value ;` that starts in a given parser state with a given sequence of
terminals (keyword spellings told apart) always takes the same parser actions: the same tree
over other tokens, the same state after its `;`. The driver parses such a phrase as usual and,
the second time its shape is seen, records the tree as a template (a function of the token
positions); later phrases of that shape are built from the template without running the
automaton token by token. Whether the token after the `;` may follow is still checked in the
state the `;` leads to, so every syntax error is found where the automaton alone finds it.
A generated scene of 10,000 frames has about 30 shapes for its 60,000 attributes.
"""

from __future__ import annotations

from bisect import bisect_left

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable

MAX_PHRASE = 48  # tokens: a longer attribute is parsed token by token
MAX_TEMPLATES = 4096  # shapes a process keeps (a long-lived language server stays bounded)

# (state, terminals...) -> (builder, state after the `;`); shapes seen once, not yet recorded
_TEMPLATES: dict[tuple, Template] = {}
_SEEN: set[tuple] = set()


def phrase(state: int, lexical: list[str], texts: list[str], i: int
           ) -> tuple[tuple, int] | None:
    """(key, index of the `;`) of the attribute starting at token i in `state`, or None when
    no `;` ends it within MAX_PHRASE tokens (or none follows it)."""
    try:
        j = texts.index(";", i + 1, min(i + MAX_PHRASE, len(texts) - 1))
    except ValueError:
        return None
    return (state, *lexical[i:j + 1]), j


class Template:
    """What a shape's phrases share: `build(X, S, E, i, L)` makes a phrase's tree (texts,
    starts, ends, first token, lines), `after` is the state its `;` leads to, and its value
    can be read without the tree: `form` is "ident" or "string" (the token after the name),
    "array" (of `count` expressions) or "number" (one expression), whose `evaluate(X, i, E)`
    gives the value from the texts X and the usable names E, or None when the tree is to be
    folded (something to report, see fold.expression_source); `form` None: fold the tree."""

    __slots__ = ("build", "after", "form", "count", "evaluate")

    def __init__(self, build: Callable, after: int, node, token: Callable) -> None:
        self.build, self.after = build, after
        self.form, self.count, self.evaluate = _reader(node.children[1], token)


def template(key: tuple) -> Template | None:
    return _TEMPLATES.get(key)


def record(key: tuple, node, i: int, starts: list[int], after: int) -> None:
    """Remember the tree an attribute's parse made (`node`, from token i; `after`: the state
    its `;` led to), from the second phrase of its shape on."""
    if key not in _SEEN:
        if len(_SEEN) < 4 * MAX_TEMPLATES:
            _SEEN.add(key)
        return
    if len(_TEMPLATES) >= MAX_TEMPLATES:
        return
    from robrayc.frontend.parse import Node, Tok  # parse imports this module

    def token(x) -> str:
        return f"X[i + {bisect_left(starts, x.start_pos) - i}]"

    def source(x) -> str:
        if type(x) is Node:
            return f"N({x.data!r}, [{', '.join(map(source, x.children))}])"
        k = token(x)
        return f"T({x.type!r}, {k}, S{k[1:]}, E{k[1:]}, L)"

    build = eval(f"lambda X, S, E, i, L: {source(node)}", {"N": Node, "T": Tok})  # noqa: S307
    _TEMPLATES[key] = Template(build, after, node, token)


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
