"""Attributes built from templates (frontend/phrases.py) give exactly the automaton's result:
the same tree, token kinds and offsets, and the same syntax error at the same token with the
same expected set, on files where every attribute shape repeats (so templates are used)."""

from __future__ import annotations

import random

import pytest

from robrayc.frontend import parse, phrases
from robrayc.frontend.parse import SyntaxProblem, Tok, parse_text

VALUES = ["1", "-2.5", "x", "pi / 2", "1 * 1e-3", "[0, 1, 0]", "[a, 0, 1 * 1e-3]",
          "[0, 1 * pi / 2, 0]", '"s"', "frame", "geometry", "(x + 1) ^ 2", "[1, 2, 3,]",
          "[]", "def", "-x ** 2"]
NAMES = ["parent", "type", "axis", "translation", "rpy", "isa", "color", "def", "class",
         "include", "allow_collision", "x-y"]


def scene(rng: random.Random, frames: int) -> str:
    out = ["def x 1;\nclass c { color [1, 0, 0]; alpha 0.5; }\n"]
    for k in range(frames):
        attrs = "".join(f"    {rng.choice(NAMES)} {rng.choice(VALUES)};\n"
                        for _ in range(rng.randint(0, 5)))
        geometry = f"    geometry {{ isa c; shape {rng.choice(['box', 'frame'])}; }}\n"
        nested = f"    frame n{k} {{ parent p; }}\n" if rng.random() < 0.2 else ""
        out.append(f"frame f{k} {{\n{attrs}{geometry}{nested}}}\n")
        if rng.random() < 0.1:
            out.append(f"allow_collision f{k} p;\n")
    return "".join(out)


def outcome(text: str):
    """The tree (kinds, texts, offsets), or the syntax error (offset, token, expected)."""
    def shape(node):
        if isinstance(node, Tok):
            return (node.type, node.value, node.start_pos, node.end_pos)
        return (node.data, [shape(c) for c in node.children])
    try:
        return shape(parse_text(text))
    except SyntaxProblem as err:
        tok = err.token
        return ("error", err.pos, tok and (tok.type, tok.value), sorted(err.expected))


def without_templates(text: str, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(phrases, "template", lambda key: None)
        return outcome(text)


@pytest.fixture(autouse=True)
def fresh_templates(monkeypatch):
    monkeypatch.setattr(phrases, "_TEMPLATES", {})
    monkeypatch.setattr(phrases, "_SEEN", set())


@pytest.mark.parametrize("seed", range(6))
def test_templated_trees_equal_the_automaton(seed: int, monkeypatch) -> None:
    text = scene(random.Random(seed), 300)
    used = []
    original = parse._from_template
    monkeypatch.setattr(parse, "_from_template", lambda *a: used.append(1) or original(*a))
    assert outcome(text) == without_templates(text, monkeypatch)
    assert len(used) > 200 and phrases._TEMPLATES  # the templates were really used


@pytest.mark.parametrize("seed", range(4))
def test_errors_are_found_where_the_automaton_finds_them(seed: int, monkeypatch) -> None:
    rng = random.Random(100 + seed)
    text = scene(rng, 120)
    parse_text(text)  # templates of every shape in the file exist now
    for _ in range(30):
        cut = rng.randrange(len(text))
        broken = text[:cut] + rng.choice([";", "}", "{", "[", "frame", " 1 ", ""]) + \
            text[cut + rng.randint(0, 3):]
        assert outcome(broken) == without_templates(broken, monkeypatch), cut


def test_a_file_of_one_shape_equals_lark() -> None:
    lark = pytest.importorskip("lark")
    from robrayc.frontend import regen

    text = scene(random.Random(7), 150)
    reference = lark.Lark(regen.grammar_text(), parser="lalr", maybe_placeholders=False)

    def lark_shape(node):
        if isinstance(node, lark.Token):
            return (node.type, str(node))
        return (str(node.data), [lark_shape(c) for c in node.children])

    def ours(node):
        if isinstance(node, Tok):
            return (node.type, node.value)
        return (node.data, [ours(c) for c in node.children])

    parse_text(text)
    assert ours(parse_text(text)) == lark_shape(reference.parse(text))
