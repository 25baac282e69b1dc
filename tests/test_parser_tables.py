"""The generated LALR tables match the grammar, and the driver builds lark's tree shape."""

from __future__ import annotations

import pytest

from robrayc.frontend import tablegen
from robrayc.frontend.parse import SyntaxProblem, parse_text
from robrayc.frontend.tree import Node, Tok
from tests.corpus import CORPUS, corpus_id

SCENES = sorted(CORPUS.rglob("*.robray")) if CORPUS.is_dir() else []


def _shape(node):
    if isinstance(node, Tok):
        return (node.type, node.value)
    return (node.data, [_shape(c) for c in node.children])


@pytest.mark.parametrize("source", [
    "def a -x^2 + (1 - 2) * 3 / 4;",
    'frame "a b" { parent x; geometry { mesh "x.obj"; } frame c { } }',
    "object o { } ; allow_collision a \"b\";",
    'include "x" include "y";',
    "class c { isa d; color [1, 2, 3,]; } frame frame-x { } def frame 1;",
])
def test_tree_shape_equals_lark(source: str) -> None:
    assert _shape(parse_text(source)) == _lark_shape(source)


@pytest.mark.parametrize("path", SCENES, ids=corpus_id)
def test_corpus_scenes_parse_as_lark_parses_them(path) -> None:
    """Every robray file of the corpus: the same tree as lark's own parser, or both refuse."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        ours = _shape(parse_text(text))
    except SyntaxProblem:
        ours = None
    assert ours == _lark_shape(text)


def _lark_shape(source: str):
    """lark's tree for `source` (None when lark refuses it), in _shape's form."""
    lark = pytest.importorskip("lark")
    if not _LARK:
        _LARK.append(lark.Lark(tablegen.grammar_text(), parser="lalr", lexer="contextual",
                               maybe_placeholders=False))

    def shape(node):
        if isinstance(node, lark.Token):
            return (node.type, str(node))
        return (str(node.data), [shape(c) for c in node.children])

    try:
        return shape(_LARK[0].parse(source))
    except lark.exceptions.LarkError:
        return None


_LARK: list = []


def test_positions() -> None:
    tree = parse_text('frame a {\n  translation [1,\n 2, 3];\n}\nframe "x\ny" { }')
    attr = tree.children[0].children[1]
    assert isinstance(attr, Node)
    name = attr.children[0]
    assert (name.line, name.column, name.end_column) == (2, 3, 14)
    string = tree.children[1].children[0].children[0]
    assert (string.line, string.column, string.end_line, string.end_column) == (5, 7, 6, 3)


def test_keywords_are_contextual() -> None:
    tree = parse_text("def geometry 1; frame a { parent frame; }")
    assert tree.children[0].children[0].type == "NAME"
    assert tree.children[1].children[1].children[1].children[0].value == "frame"


def test_deep_nesting_does_not_recurse() -> None:
    depth = 20000
    tree = parse_text("def a " + "(" * depth + "1" + ")" * depth + ";")
    assert tree.children[0].data == "def_stmt"
    with pytest.raises(SyntaxProblem):
        parse_text("frame a { " * 10 + "}")
