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
_TEMPLATES: dict[tuple, tuple[Callable, int]] = {}
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


def template(key: tuple) -> tuple[Callable, int] | None:
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

    def source(x) -> str:
        if type(x) is Node:
            return f"N({x.data!r}, [{', '.join(map(source, x.children))}])"
        k = bisect_left(starts, x.start_pos) - i
        return f"T({x.type!r}, X[i + {k}], S[i + {k}], E[i + {k}], L)"

    build = eval(f"lambda X, S, E, i, L: {source(node)}", {"N": Node, "T": Tok})  # noqa: S307
    _TEMPLATES[key] = (build, after)
