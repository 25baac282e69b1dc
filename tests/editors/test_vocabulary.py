"""The editors' word lists (Vim, Emacs, TextMate cannot import Python) match the compiler's:
every attribute the front end accepts, shapes, joint types and statement keywords."""

from __future__ import annotations

import json
import re

from robrayc.frontend.robray_attrs import ALIASES, FRAME_ATTRS, GEOM_ATTRS, JOINT_TYPES, SHAPES
from tests.editors.conftest import EDITORS

# `isa` is highlighted as its own class; `parent`, `type`, `shape`, `mesh` have own rules.
FRAME = set(FRAME_ATTRS) - {"isa"}
GEOM = (set(GEOM_ATTRS) | set(ALIASES)) - {"isa"}
KEYWORDS = {"include", "def", "class", "frame", "object", "geometry", "allow_collision"}


def words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*", text))


def test_vim_lists():
    text = (EDITORS / "vim" / "syntax" / "robray.vim").read_text()
    frame = re.search(r"let s:frame_attrs = \[(.*?)\]", text, re.S).group(1)
    geom = re.search(r"let s:geom_attrs = \[(.*?)\]", text, re.S).group(1)
    assert words(frame) == FRAME
    assert words(geom) == GEOM
    assert set(SHAPES) <= words(re.search(r"robrayShape contained.*", text).group())
    assert set(JOINT_TYPES) <= words(re.search(r"robrayJointType contained.*", text).group())
    assert KEYWORDS <= words(text)


def test_emacs_lists():
    text = (EDITORS / "emacs" / "robray-mode.el").read_text()

    def const(name: str) -> set[str]:
        body = re.search(rf"\(defconst {name}\s+'\((.*?)\)", text, re.S).group(1)
        return set(re.findall(r'"([^"]+)"', body))

    assert const("robray-frame-attributes") == FRAME
    assert const("robray-geometry-attributes") == GEOM
    assert const("robray-shapes") == set(SHAPES)
    assert const("robray-joint-types") == set(JOINT_TYPES)


def test_textmate_lists():
    g = json.loads((EDITORS / "textmate" / "robray.tmLanguage.json").read_text())
    attr = json.dumps(g["repository"]["attribute"])
    found = set()
    for rule in g["repository"]["attribute"]["patterns"]:
        # the attribute alternation right after the statement-start prefix
        m = re.search(r"\\b\((?:\(\?:)?([A-Za-z_|-]+)\)?\)", rule["match"])
        found |= set(m.group(1).split("|"))
    assert found - {"isa"} == FRAME | GEOM, attr
    assert set(SHAPES) | set(JOINT_TYPES) <= words(attr)
    assert KEYWORDS <= words(json.dumps(g["repository"]))
