"""Attributes and frame statements parsed once per shape: the parser driver's memo of phrases.

A phrase (an attribute `NAME value ;`, or a frame statement `frame NAME { ... }` with blocks
nested at most two deep) that starts in a given parser state with a given sequence of
terminals (keyword spellings told apart) always takes the same parser actions: the same tree
over other tokens, the same state after its last token. The driver parses such a phrase as
usual and, the second time its shape is seen, records the tree as a template (a recipe over
the token positions); later phrases of that shape are built from the template without running
the automaton token by token. Whether the token after the phrase may follow is still checked
in the state the phrase leads to (the same reduction must be taken there), so every syntax
error is found where the automaton alone finds it. The 10,000 generated frames of
benchmarks/vs_aarxc.py have 13 attribute shapes for their 60,000 attributes and 6 frame shapes.
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
    parse.Phrase), and whose value can be read without the tree: `form` is "ident" or
    "string" (the token after the name), "array" (of `count` expressions) or "number" (one
    expression), whose `evaluate(X, i, E)` gives the value from the texts X and the usable
    names E, or None when the tree is to be folded (something to report, see
    fold.expression_source, or not compiled yet); `form` None: fold the tree.

    A template first builds by walking its `recipe` (the recorded tree with token offsets);
    after COMPILE_AFTER uses it is compiled to Python: a compile costs several parses of the
    phrase, which only a shape seen often pays back."""

    __slots__ = ("recipe", "after", "action", "lazy", "form", "count", "build", "evaluate",
                 "uses", "compiled")

    def __init__(self, recipe: tuple, after: int, action: int) -> None:
        self.recipe, self.after, self.action = recipe, after, action
        self.lazy = recipe[1] == "attr"
        value = recipe[2][1] if self.lazy else None
        kind = value[1] if value is not None and value[0] == _NODE else None
        self.form = kind if kind in ("ident", "string", "array") else "number" if kind else None
        self.count = sum(r[0] == _NODE for r in value[2]) if kind == "array" else 1
        self.build = self._walk
        self.evaluate = _not_compiled
        self.uses, self.compiled = 0, False

    def _walk(self, lexed, i: int):
        return _WALK[0](self.recipe, lexed, i)


COMPILE_AFTER = 32
_NODE, _TOKEN, _PHRASE = 0, 1, 2
_WALK: list[Callable] = []  # the recipe walker, made on first use (parse imports this module)


def _not_compiled(texts: list[str], i: int, names: dict) -> None:
    return None


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

    if not _WALK:
        _WALK.append(_walker(Node, Tok, Phrase))
    ends = lexed.ends

    def recipe(x) -> tuple:
        if type(x) is Phrase:
            return _PHRASE, x.template, x.i - i
        if type(x) is Node:
            return _NODE, x.data, tuple(map(recipe, x.children))
        return _TOKEN, x.type, bisect_left(ends, x.end_pos) - i

    made = _TEMPLATES[key] = Template(recipe(node), after, action)
    return made


def _walker(node: type, tok: type, phrase: type) -> Callable:
    def walk(recipe: tuple, lexed, i: int):
        what, a, b = recipe
        if what == _NODE:
            return node(a, [walk(r, lexed, i) for r in b])
        if what == _TOKEN:
            text, end = lexed.texts[i + b], lexed.ends[i + b]
            return tok(a, text, end - len(text), end, lexed.lines)
        return phrase(a, lexed, i + b)
    return walk


def compile_template(made: Template, lexed, i: int) -> None:
    """Compile `made`'s build (and an attribute's evaluate) to Python, from its phrase at
    token i of `lexed`; the templates of a statement's attributes too (they are used as
    often as it is, without counting)."""
    from robrayc.frontend.parse import Node, Phrase, Tok

    made.compiled = True
    shared: list[Template] = []  # the templates of attributes within a statement

    def source(recipe: tuple) -> str:
        what, a, b = recipe
        if what == _PHRASE:
            if not a.compiled:
                compile_template(a, lexed, i + b)
            shared.append(a)
            return f"P(A[{len(shared) - 1}], Lx, i + {b})"
        if what == _NODE:
            return f"N({a!r}, [{', '.join(map(source, b))}])"
        k = f"[i + {b}]"
        return f"T({a!r}, X{k}, E{k} - len(X{k}), E{k}, L)"

    code = ("def build(Lx, i):\n    X, E, L = Lx.texts, Lx.ends, Lx.lines\n"
            f"    return {source(made.recipe)}\n")
    scope = {"N": Node, "T": Tok, "P": Phrase, "A": shared}
    exec(code, scope)  # noqa: S102
    made.build = scope["build"]
    if made.form in ("array", "number"):
        ends = lexed.ends

        def token(x) -> str:
            return f"X[i + {bisect_left(ends, x.end_pos) - i}]"

        made.evaluate = _reader(made.build(lexed, i).children[1], token)
        if made.evaluate is None:
            made.form, made.evaluate = None, _not_compiled


def _reader(value, token: Callable) -> Callable | None:
    """The evaluate function of a value tree (see Template); None: fold the tree."""
    from robrayc.frontend.fold import expression_source, real_pow
    from robrayc.frontend.parse import Node

    array = value.data == "array"
    elements = [c for c in value.children if type(c) is Node] if array else [value]
    sources = [expression_source(c, token) for c in elements]
    if not sources or None in sources:
        return None
    names = [f"v{k}" for k in range(len(sources))]
    body = "".join(f"        {name} = {src}\n" for name, src in zip(names, sources, strict=True))
    finite = " and ".join(f"{name} - {name} == 0.0" for name in names)  # not inf, not nan
    result = f"({', '.join(names)},)" if array else names[0]
    code = (f"def evaluate(X, i, E):\n    try:\n{body}"
            "    except (KeyError, ValueError, ArithmeticError):\n        return None\n"
            f"    return {result} if {finite} else None\n")
    scope = {"real_pow": real_pow}
    exec(code, scope)  # noqa: S102
    return scope["evaluate"]
