"""The one lexer (parse.lex, and parse.tokens built on it) finds exactly the tokens, offsets
and first bad offset of lark's own lexer for grammar/robray.lark.

The lexer splits the whole text with one regular expression, a different road from lark's
match by match (a whole-text search may restart inside a comment), so the two are compared on
every corpus scene and on random texts full of comments, strings and stray characters.
"""

from __future__ import annotations

import random

import pytest

from robrayc.frontend.parse import lex, tokens
from robrayc.frontend.tablegen import grammar_text
from robrayc.frontend.tree import Lines
from tests.corpus import CORPUS, corpus_id

SCENES = sorted(CORPUS.rglob("*.robray")) if CORPUS.is_dir() else []

SNIPPETS = ["frame", "a0_1", "x-y", "geometry", "0", "1.5", ".5e-3", "2d3", "pi", "π", "**",
            "^", "*", "/", "+", "-", ",", ";", "{", "}", "[", "]", "(", ")", '"s t"', " ",
            "\n", "\t", "// c } /\n", "# c\n", "/* a * / b */", "/* } // */", "//", "/",
            "@", "$", "`", "/* open", '"open', "\ufeff"]


def reference(text: str) -> tuple[list[tuple[str, int, int]], int | None]:
    """lark's lexer: (text, start, end) of each token, and where no terminal matches."""
    lark = pytest.importorskip("lark")
    lexer = _lark(lark)
    out = []
    try:
        for tok in lexer.lex(text):
            out.append((str(tok), tok.start_pos, tok.end_pos))
    except lark.exceptions.UnexpectedCharacters as err:
        return out, err.pos_in_stream
    return out, None


_LARK: list = []


def _lark(lark):
    if not _LARK:
        _LARK.append(lark.Lark(grammar_text(), parser="lalr", lexer="basic"))
    return _LARK[0]


def split_lexer(text: str) -> tuple[list[tuple[str, int, int]], int | None]:
    lexed = lex(text)
    return [(t, end - len(t), end) for t, end in zip(lexed.texts, lexed.ends, strict=True)], \
        lexed.bad


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


def test_tokens_are_the_lexers_from_an_offset() -> None:
    """The language server's tokens: the same texts and offsets, from any offset, keywords
    as names, and a "$BAD" token where no terminal matches."""
    text = "frame a { x 1; } @"
    got = [(t.type, t.value, t.start_pos, t.end_pos) for t in tokens(text, 6)]
    assert got == [("NAME", "a", 6, 7), ("LBRACE", "{", 8, 9), ("NAME", "x", 10, 11),
                   ("NUMBER", "1", 12, 13), ("SEMICOLON", ";", 13, 14),
                   ("RBRACE", "}", 15, 16), ("$BAD", "", 17, 17)]
    assert next(tokens(text)).type == "NAME"


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
