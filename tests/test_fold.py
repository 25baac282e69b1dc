"""fold's recursive fast path (_plain) gives what its reference walk gives: the same value
and the same diagnostics (it gives none itself: anything to report goes to the walk)."""

from __future__ import annotations

import math
import random

import pytest

from robrayc.diagnostics import DiagnosticSink
from robrayc.frontend import fold as folding
from robrayc.frontend.parse import parse_text

ATOMS = ["0", "1", "2.5", "1e-3", "1e308", "0.0", "pi", "deg", "x", "y", "nope", "bad", "-1", "(2)"]
OPERATORS = [" + ", " - ", " * ", " / ", " ** ", " ^ "]


def expression(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(ATOMS)
    if rng.random() < 0.2:
        inner = expression(rng, depth - 1)
        return rng.choice([f"-{inner}", f"+{inner}", f"({inner})"])
    text = expression(rng, depth - 1) + rng.choice(OPERATORS) + expression(rng, depth - 1)
    return f"({text})" if rng.random() < 0.3 else text


def folded(text: str, walk_only: bool, monkeypatch) -> tuple:
    tree = parse_text(f"def v {text};\n")
    node = tree.children[0].children[1]
    env = {"x": 3.0, "y": -0.5, "bad": folding.POISONED}
    sink = DiagnosticSink()
    with monkeypatch.context() as m:
        if walk_only:
            m.setattr(folding, "_plain", _never)
        try:
            value = folding.fold(node, env, "t.robray", sink)
        except folding.FoldError:
            value = "error"
    shown = "nan" if isinstance(value, float) and math.isnan(value) else value
    return shown, [(d.severity, d.message, str(d.pos)) for d in sink.items]


def _never(*_):
    raise folding._Unusual


@pytest.mark.parametrize("seed", range(20))
def test_fast_path_equals_the_walk(seed: int, monkeypatch) -> None:
    rng = random.Random(seed)
    fast = 0
    for _ in range(100):
        text = expression(rng, 5)
        assert folded(text, False, monkeypatch) == folded(text, True, monkeypatch), text
        try:
            folding._plain(parse_text(f"def v {text};").children[0].children[1],
                           {"x": 3.0, "y": -0.5}, 48)
            fast += 1
        except folding._Unusual:
            pass
    assert fast >= 10  # the comparison covers the fast path, not only the walk


def test_deep_and_reported_expressions_take_the_walk(monkeypatch) -> None:
    deep = "1" + " + 1" * 200
    assert folded(deep, False, monkeypatch) == (201.0, [])
    value, diagnostics = folded("-2 ^ 2", False, monkeypatch)
    assert value == 4.0 and diagnostics[0][0] == "warning"  # -x^y: (-x)^y, said
    assert folded("1 / 0", False, monkeypatch)[0] == "error"
    assert folded("bad + 1", False, monkeypatch) == ("error", [])  # already reported
