"""The compile's lexer (one regex split, parse._lex) finds exactly the tokens, offsets and
first bad offset of the match-by-match lexer the language server uses (parse.tokens).

Both come from the same generated terminal table; the split takes a different road (a whole-
text search that may restart inside a comment), so they are compared on every corpus scene
and on random texts full of comments, strings and stray characters.
"""

from __future__ import annotations

import random

import pytest

from robrayc.frontend.parse import Lines, _lex, tokens
from tests.corpus import CORPUS, corpus_id

SCENES = sorted(CORPUS.rglob("*.robray")) if CORPUS.is_dir() else []

SNIPPETS = ["frame", "a0_1", "x-y", "geometry", "0", "1.5", ".5e-3", "2d3", "pi", "π", "**",
            "^", "*", "/", "+", "-", ",", ";", "{", "}", "[", "]", "(", ")", '"s t"', " ",
            "\n", "\t", "// c } /\n", "# c\n", "/* a * / b */", "/* } // */", "//", "/",
            "@", "$", "`", "/* open", '"open', "\ufeff"]


def reference(text: str) -> tuple[list[tuple[str, int, int]], int | None]:
    out, bad = [], None
    for tok in tokens(text):
        if tok.type == "$BAD":
            bad = tok.start_pos
            break
        out.append((tok.value, tok.start_pos, tok.end_pos))
    return out, bad


def split_lexer(text: str) -> tuple[list[tuple[str, int, int]], int | None]:
    texts, ends, bad = _lex(text)
    return [(t, end - len(t), end) for t, end in zip(texts, ends, strict=True)], bad


@pytest.mark.parametrize("path", SCENES, ids=corpus_id)
def test_corpus_scenes_lex_the_same(path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    assert split_lexer(text) == reference(text)


@pytest.mark.parametrize("seed", range(40))
def test_random_texts_lex_the_same(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(50):
        text = "".join(rng.choice(SNIPPETS) for _ in range(rng.randint(0, 40)))
        assert split_lexer(text) == reference(text), repr(text)


def test_comments_at_the_end_hold_no_tokens() -> None:
    """A trailing comment holding '/' and '}' (the split searches inside it): no tokens."""
    assert split_lexer("a;\n//   }\n// }\n") == ([("a", 0, 1), (";", 1, 2)], None)
    assert split_lexer("a /* { */ @ b") == ([("a", 0, 1)], 10)


@pytest.mark.parametrize("seed", range(5))
def test_line_starts(seed: int) -> None:
    """Lines (offsets to line and column) starts a line after every newline, and only there."""
    rng = random.Random(seed)
    for _ in range(100):
        text = "".join(rng.choice(["a", "\n", "\r\n", "\r", " ", "π"]) for _ in range(30))
        assert Lines(text).starts == [0] + [k + 1 for k, ch in enumerate(text) if ch == "\n"]
