"""Collision checking and allowed-collision generation with ball and floating joints: the
exact checker follows them; the compiled one is not used for them (auto falls back, compiled
refuses); no proof that assumed a joint of one variable proves a pair apart across a ball;
pairs moved by a floating joint (whose translation is never sampled) are never 'never'."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.spatial.transform import Rotation

from robrayc.diagnostics import DiagnosticSink
from robrayc.frontend import load_scene
from tests.run import robrayc

ARM = """
frame obstacle { translation [0, 0, 1]; geometry { shape sphere; radius 0.1; } }
frame shoulder { type ball; variable s; }
frame tip { parent shoulder; translation [1, 0, 0]; geometry { shape sphere; radius 0.1; } }
"""
FLOATING = """
frame floor { geometry { shape box; dimension [4, 4, 0.1]; } }
frame body { type floating; translation [3, 0, 1]; rpy [0.2, 0.1, 0.3];
  geometry { shape sphere; radius 0.1; } }
frame head { parent body; translation [0, 0, 0.5]; geometry { shape sphere; radius 0.1; } }
"""


def _scene(tmp_path: Path, text: str, name: str = "s.robray"):
    path = tmp_path / name
    path.write_text(text)
    return path, load_scene([str(path)])


def test_exact_checker_follows_a_ball(tmp_path: Path) -> None:
    """The tip reaches the obstacle by a turn about -y of the ball (pi/2), about no other
    axis; the compiled backend is refused, auto says it uses the exact one."""
    path, _ = _scene(tmp_path, ARM)
    down = Rotation.from_rotvec([0, -np.pi / 2, 0]).apply([1, 0, 0])
    assert np.allclose(down, [0, 0, 1])
    hit = robrayc("collide", str(path), "--var", "s_ry", "--val", repr(-np.pi / 2), "--backend",
                  "auto", process=True)
    assert hit.status == 1 and "obstacle" in hit.out and "tip" in hit.out
    assert "exact checker used: the scene has ball or floating joints ('shoulder')" in \
        hit.err
    for var in ("s_rx", "s_rz"):
        assert robrayc("collide", str(path), "--var", var, "--val", repr(-np.pi / 2),
                       process=True).status == 0
    refused = robrayc("collide", str(path), "--backend", "compiled", process=True)
    assert refused.status == 2 and "the compiled checker is not available: the scene " \
        "has ball or floating joints ('shoulder')" in refused.err


def test_exact_checker_follows_a_floating_joint(tmp_path: Path) -> None:
    path, scene = _scene(tmp_path, FLOATING)
    # the body's translation (in its fixed frame) that puts it on the floor, with scipy
    fixed = Rotation.from_euler("xyz", [0.2, 0.1, 0.3])
    t = fixed.inv().apply(np.array([1.0, 0.5, 0.0]) - [3, 0, 1])
    args = []
    for axis, value in zip("xyz", t, strict=True):
        args += ["--var", f"body_{axis}", "--val", repr(float(value))]
    hit = robrayc("collide", str(path), *args, "--backend", "exact", process=True)
    assert hit.status == 1 and "body" in hit.out and "floor" in hit.out
    assert robrayc("collide", str(path), "--backend", "exact", process=True).status == 0


def test_no_one_variable_proof_across_a_ball(tmp_path: Path) -> None:
    """A proof over the ball's first variable alone (the others at 0) would find the pair
    apart everywhere: the tip turns about x, staying at (1, 0, 0)."""
    from robrayc.analysis.acm_proof import out_of_reach, pair_rates, prove_apart
    from robrayc.analysis.collision import CollisionChecker
    from robrayc.kinematics import sample_ranges

    _, scene = _scene(tmp_path, ARM)
    checker = CollisionChecker(scene, DiagnosticSink(), use_allowed=False)
    lo, hi = sample_ranges(scene)
    assert pair_rates(checker, "obstacle", "tip", lo, hi) is None
    assert not out_of_reach(checker, "obstacle", "tip", lo, hi)
    assert not prove_apart(checker, "obstacle", "tip", np.zeros(3), lo, hi, 1e5)


def test_acm_never_proves_or_samples_away_a_floating_pair(tmp_path: Path) -> None:
    from robrayc.analysis.acm import generate

    _, scene = _scene(tmp_path, FLOATING + ARM)
    result = generate(scene, samples=400, seed=1, jobs=1, backend="exact", prove=True)
    by_pair = {(p.a, p.b): p for p in result.pairs}
    for pair in (("body", "floor"), ("floor", "head"), ("body", "obstacle"),
                 ("head", "tip")):
        verdict = by_pair[pair]
        assert verdict.reason is None and "floating joint 'body'" in verdict.detail, verdict
    assert by_pair[("body", "head")].reason == "adjacent"
    # the tip meets the obstacle in some of the samples of the ball: never proven apart
    assert not by_pair[("obstacle", "tip")].proven
