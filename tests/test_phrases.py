"""Attributes built from templates (frontend/phrases.py) give exactly the automaton's result:
the same tree, token kinds and offsets, and the same syntax error at the same token with the
same expected set, on files where every attribute shape repeats (so templates are used)."""

from __future__ import annotations

import random

import pytest

from robrayc.diagnostics import DiagnosticSink
from robrayc.frontend import parse, phrases, robray
from robrayc.frontend.common import LoadContext, LoadOptions
from robrayc.frontend.parse import SyntaxProblem, Tok, parse_text

VALUES = ["1", "-2.5", "x", "pi / 2", "1 * 1e-3", "[0, 1, 0]", "[a, 0, 1 * 1e-3]",
          "[0, 1 * pi / 2, 0]", '"s"', "frame", "geometry", "(x + 1) ^ 2", "[1, 2, 3,]",
          "[]", "def", "-x ** 2"]
NAMES = ["parent", "type", "axis", "translation", "rpy", "isa", "color", "def", "class",
         "include", "allow_collision", "x-y"]


def scene(rng: random.Random, frames: int) -> str:
    """Frames of a few repeating shapes (so whole frames are templated too) and fresh ones,
    nested up to three deep, with `object` and `frame` as names here and there."""
    def body(k: int) -> str:
        attrs = "".join(f"    {rng.choice(NAMES)} {rng.choice(VALUES)};\n"
                        for _ in range(rng.randint(0, 5)))
        geometry = f"    geometry {{ isa c; shape {rng.choice(['box', 'frame'])}; }}\n"
        nested = rng.choice(["", "", "", f"    frame n{k} {{ parent p; }}\n",
                             f"    object n{k} {{ frame m{k} {{ isa c; }} }}\n"])
        return f"{attrs}{geometry}{nested}"

    pool = [body(k) for k in range(6)]
    out = ["def x 1;\nclass c { color [1, 0, 0]; alpha 0.5; }\n"]
    for k in range(frames):
        keyword = "object" if rng.random() < 0.1 else "frame"
        out.append(f"{keyword} f{k} {{\n{rng.choice(pool) if rng.random() < 0.6 else body(k)}}}\n")
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


@pytest.fixture(autouse=True, params=[1, 10**9], ids=["compiled", "walked"])
def fresh_templates(request, monkeypatch):
    """No templates yet; each compiled at its first use, or never (built by walking)."""
    monkeypatch.setattr(phrases, "_TEMPLATES", {})
    monkeypatch.setattr(phrases, "_SEEN", set())
    monkeypatch.setattr(phrases, "COMPILE_AFTER", request.param)


@pytest.mark.parametrize("seed", range(6))
def test_templated_trees_equal_the_automaton(seed: int, monkeypatch) -> None:
    text = scene(random.Random(seed), 300)
    used = []
    original = parse._from_template
    monkeypatch.setattr(parse, "_from_template", lambda *a: used.append(1) or original(*a))
    assert outcome(text) == without_templates(text, monkeypatch)
    assert len(used) > 200 and phrases._TEMPLATES  # the templates were really used
    assert sum(not made.lazy for made in phrases._TEMPLATES.values()) >= 3  # frames too


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


# Attribute values the loader reads from a templated phrase's texts (or hands back to the tree
# walk: problems to report, names not usable, other kinds): each repeats, so templates exist.
READ_VALUES = ["0.5", "-2.5", "k", "pi / 2", "1 * 1e-3", "1d-3", "1 / 0", "1e999", "bad",
               "nope", "2 ^ 0.5", "(-8) ^ 0.5", "-k ** 2", "big * 0", '"s"', "box",
               "[0, 1, 0]", "[k, 0, 1 * 1e-3]", "[0, 1 * pi / 2, 0]", "[1, 2]", "[bad, 0, 0]",
               "[1e999, 0, 0]", "[-big, big]", "[1, 2, 3, 4]", "[0, 0, 1 / k]"]
READ_NAMES = ["translation", "rpy", "axis", "offset", "mass", "parent", "type", "variable",
              "limit_position", "limit_velocity", "radius", "color", "alpha", "isa", "mesh",
              "no_shadow", "nonsense"]


def read_scene(rng: random.Random, frames: int) -> str:
    out = ["def k 2;\ndef big 1e999;\ndef bad 1 / 0;\nclass c { alpha 0.5; }\n"]
    for n in range(frames):
        attrs = "".join(f"    {rng.choice(READ_NAMES)} {rng.choice(READ_VALUES)};\n"
                        for _ in range(rng.randint(1, 6)))
        geometry = "".join(f"{rng.choice(READ_NAMES)} {rng.choice(READ_VALUES)}; "
                           for _ in range(rng.randint(1, 3)))
        out.append(f"frame f{n} {{\n{attrs}    geometry {{ shape box; {geometry}}}\n}}\n")
    return "".join(out)


def loaded(path, monkeypatch, read_texts: bool):
    """The loader's frames (with where each names its parent) and diagnostics."""
    sink = DiagnosticSink()
    with monkeypatch.context() as m:
        if not read_texts:
            m.setattr(robray._Unit, "_phrase_value", lambda self, item: (None, None))
        partial = robray.load(path, LoadContext(LoadOptions(need_meshes=False), sink))
    return ([(p.frame, p.parent_position()) for p in partial.frames],
            [(d.severity, d.message, str(d.pos), d.hint) for d in sink.items])


@pytest.mark.parametrize("seed", range(4))
def test_values_read_from_texts_equal_the_tree_walk(seed: int, tmp_path, monkeypatch) -> None:
    path = tmp_path / "s.robray"
    path.write_text(read_scene(random.Random(200 + seed), 150))
    read: list[str] = []  # the forms of the values read from texts
    quick = robray._Unit._phrase_value

    def reading(self, item):
        name, value = quick(self, item)
        if value is not None:
            read.append(item.template.form)
        return name, value

    monkeypatch.setattr(robray._Unit, "_phrase_value", reading)
    fast = loaded(path, monkeypatch, True)
    assert fast == loaded(path, monkeypatch, False)
    assert len(read) > 150 and fast[1]  # values were read from texts, problems were reported
    if phrases.COMPILE_AFTER == 1:  # evaluated expressions too
        assert {"array", "number"} <= set(read)
