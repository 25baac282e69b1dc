"""Triangle trees (robrayc.analysis.collision.triangles) and the exact proofs the compiled
kernel makes on them (NAME_tprove), checked against FCL's distances through the exact checker."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from robrayc.analysis import acm, acm_proof
from robrayc.analysis.collision import CollisionChecker
from robrayc.analysis.collision.cells import path_variables
from robrayc.analysis.collision.triangles import LEAF_TRIANGLES, triangle_tree
from robrayc.kinematics import sample_configs, sample_ranges
from robrayc.stl import triangles_stl
from tests.test_collision import scene_from
from tests.urdf_robots import load, robot_path, ros_env  # noqa: F401 (a fixture)

needs_cc = pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")


def _walk(nodes, kids, tri, k: int) -> list[int]:
    """The triangles under node k, each node's sphere checked to hold their corners."""
    first, count = int(kids[k, 0]), int(kids[k, 1])
    if count < 0:
        under = list(range(first, first - count))
        assert 1 <= -count <= LEAF_TRIANGLES
    else:
        assert count == 2
        under = [t for c in range(first, first + count) for t in _walk(nodes, kids, tri, c)]
    corners = tri[under].reshape(-1, 3)
    assert (np.linalg.norm(corners - nodes[k, :3], axis=1) <= nodes[k, 3]).all()
    return under


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 1000])
def test_tree_spheres_hold_their_triangles(n: int) -> None:
    """Every node's sphere holds every corner of the triangles under it; leaves hold one or
    two triangles; every triangle is under the root exactly once."""
    rng = np.random.default_rng(n)
    tri = rng.normal(size=(n, 3, 3)) * [3.0, 1.0, 0.2]
    tri[: n // 3] = tri[: n // 3, :1]  # some degenerate (all corners at one point)
    nodes, kids, order = triangle_tree(tri)
    assert sorted(order.tolist()) == list(range(n))
    assert sorted(_walk(nodes, kids, tri[order], 0)) == list(range(n))


def _pairs_scene(tmp_path: Path, rng, count: int):
    """Frames a<k> (fixed) and b<k> (on a joint held at 0) each holding one triangle, the pairs
    10 apart: b's triangle is a's turned a little about a random point and moved by up to
    0.1, so that some cross, some nearly touch and some lie nearly parallel."""
    text = ["frame hold { type revolute; axis [0, 0, 1]; limit_position [0, 0]; }"]
    for k in range(count):
        a = rng.uniform(-0.3, 0.3, size=(3, 3))
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        angle = rng.uniform(-0.3, 0.3) * (k % 3 != 0)
        K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        R = np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K
        pivot = rng.uniform(-0.3, 0.3, size=3)
        b = (a - pivot) @ R.T + pivot + rng.normal(size=3) * rng.uniform(0.0, 0.1)
        for name, t in (("a", a), ("b", b)):
            (tmp_path / f"{name}{k}.stl").write_bytes(triangles_stl(t[None]))
        x = 10.0 * k
        text.append(f'frame a{k} {{ translation [{x}, 0, 0]; geometry {{ shape mesh; '
                    f'mesh "a{k}.stl"; }} }}')
        text.append(f'frame b{k} {{ parent hold; translation [{x}, 0, 0]; geometry {{ '
                    f'shape mesh; mesh "b{k}.stl"; }} }}')
    return scene_from(tmp_path, "\n".join(text))


@needs_cc
def test_triangle_distances_against_fcl(tmp_path: Path) -> None:
    """A pair of single triangles at one configuration is proven farther apart than g exactly
    when FCL's distance exceeds g: crossing, touching, parallel and skew pairs."""
    rng = np.random.default_rng(5)
    scene = _pairs_scene(tmp_path, rng, 60)
    checker = CollisionChecker(scene, use_allowed=False, backend="compiled", cells=False)
    acm_proof._bind_triangles(checker)
    q = np.zeros(len(scene.variables))
    kinds = {"apart": 0, "near": 0, "crossing": 0}
    for k in range(60):
        a = int(np.flatnonzero(checker.owner == scene.index(f"a{k}"))[0])
        b = int(np.flatnonzero(checker.owner == scene.index(f"b{k}"))[0])
        d = checker.distance(q, [(f"a{k}", f"b{k}")])[0].distance
        kinds["crossing" if d <= 0 else "near" if d < 0.02 else "apart"] += 1
        for g in (0.0, d * 0.98, d * 1.02, rng.uniform(0.0, 0.1)):
            if abs(d - g) < 1e-6:
                continue
            proven, _ = checker._kernel.prove_apart(a, b, [0], np.zeros(1), np.zeros(1),
                                                    max(g, 1e-9), 0, q, 10**6)
            assert proven == (d > g), (k, d, g)
    assert min(kinds.values()) >= 5, kinds


@needs_cc
@pytest.mark.slow
@pytest.mark.usefixtures("ros_env")
def test_triangle_proofs_hold_on_a_robot() -> None:
    """UR5: boxes of joint values around random configurations, proven on the triangle trees,
    hold no configuration at which the exact checker finds the pair touching or colliding (its
    centre included); and the allowed-collision proofs prove at least what the FCL proof does,
    every pair of them colliding in none of 20,000 random configurations."""
    scene = load([robot_path("ur5")], missing="error")
    exact = CollisionChecker(scene, use_allowed=False)
    checker = CollisionChecker(scene, use_allowed=False, backend="compiled", cells=False)
    acm_proof._bind_triangles(checker)
    lo, hi = sample_ranges(scene)
    rng = np.random.default_rng(3)
    s = checker.solids
    outcomes = {True: 0, False: 0}
    for fa, fb in checker.frame_pairs:
        a = int(np.flatnonzero(checker.owner == scene.index(fa))[0])
        b = int(np.flatnonzero(checker.owner == scene.index(fb))[0])
        var = path_variables(checker, a, b)
        if not var or len(var) > 3:
            continue
        for q in sample_configs(scene, 6, int(rng.integers(1 << 30))):
            half = rng.uniform(0.001, 0.2, len(var))
            blo, bhi = q[var] - half, q[var] + half
            margin = 1e-6 * (1 + s.brad[a] + s.brad[b])
            ok, _ = checker._kernel.prove_apart(a, b, var, blo, bhi, margin, 30, q, 2 * 10**6)
            outcomes[ok] += 1
            inside = np.repeat(q[None], 25, axis=0)
            inside[:, var] = rng.uniform(blo, bhi, size=(25, len(var)))
            inside[0, var] = q[var]
            if ok:
                gaps = [exact.distance(x, [(fa, fb)])[0].distance for x in inside]
                assert min(gaps) > 0, (fa, fb, q[var], half)
    assert outcomes[True] >= 20 and outcomes[False] >= 5, outcomes
    q0 = acm.default_configuration(scene)
    by_fcl = [p for p in exact.frame_pairs if acm_proof.prove_apart(exact, *p, q0, lo, hi, 3000)]
    by_triangles = [p for p in exact.frame_pairs
                    if acm_proof.prove_apart(checker, *p, q0, lo, hi, 3000)]
    assert set(by_fcl) <= set(by_triangles)
    frames = CollisionChecker(scene, use_allowed=False, frame_pairs=by_triangles)
    assert not frames.collision_matrix(sample_configs(scene, 20000, 5)).any()


@needs_cc
def test_triangle_code_builds_clean(tmp_path: Path) -> None:
    """The kernel's C with the triangle proofs compiles under C99, every warning an error,
    with the address and undefined-behaviour sanitizers."""
    import subprocess

    from robrayc.analysis.collision.compiled import c_source
    from tests.corpus import require_corpus
    from tests.test_collision import DEMO_7DOF

    require_corpus()
    scene = scene_from(tmp_path, DEMO_7DOF.read_text())
    source, _ = c_source(CollisionChecker(scene), "arm", cells=False, triangles=True)
    assert "arm_tprove" in source
    (tmp_path / "arm.c").write_text(source)
    run = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
                          "-fsanitize=address,undefined", "-c", "arm.c"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def _tube(radius: float, height: float, segments: int = 32) -> np.ndarray:
    """The side of a prism of `segments` corners on a circle of `radius`, along z from 0."""
    a = np.linspace(0.0, 2 * np.pi, segments + 1)
    ring = np.column_stack([radius * np.cos(a), radius * np.sin(a)])
    out = []
    for k in range(segments):
        p, q = ring[k], ring[k + 1]
        lo_p, lo_q, hi_p, hi_q = [*p, 0.0], [*q, 0.0], [*p, height], [*q, height]
        out += [[lo_p, lo_q, hi_q], [lo_p, hi_q, hi_p]]
    return np.array(out)


@needs_cc
def test_always_near_pairs_are_proven_before_sampling(tmp_path: Path) -> None:
    """A shaft turning inside a tube, 2 mm from its wall at every angle (the kernel's spheres
    leave it open at every sample): proven before sampling, with the verdicts of sampling
    without proofs; a pair that collides sometimes is not proven."""
    (tmp_path / "tube.stl").write_bytes(triangles_stl(_tube(0.102, 0.2)))
    (tmp_path / "shaft.stl").write_bytes(triangles_stl(_tube(0.1, 0.3)))
    scene = scene_from(tmp_path, """
frame tube { geometry { shape mesh; mesh "tube.stl"; } }
frame spin { type revolute; axis [0, 0, 1]; translation [0, 0, -0.05];
    frame shaft { geometry { shape mesh; mesh "shaft.stl"; } } }
frame swing { type revolute; axis [0, 0, 1]; translation [0.3, 0.12, 0]; limit_position [-1, 1];
    frame arm { translation [-0.12, 0, 0.1];
        geometry { shape box; dimension [0.24, 0.01, 0.01]; } } }
""")
    plain = acm.generate(scene, samples=2000, seed=1, jobs=1, batch=100, prove=False)
    proved = acm.generate(scene, samples=2000, seed=1, jobs=2, batch=100, prove=True)
    assert [(p.a, p.b, p.reason) for p in plain.pairs] == \
        [(p.a, p.b, p.reason) for p in proved.pairs]
    verdicts = {(p.a, p.b): p for p in proved.pairs}
    # (the kernel's exact mesh tests, robrayc/c/convex.c, now find it FREE at each sample:
    # it is proven once sampling has seen it apart, not before)
    assert verdicts[("shaft", "tube")].proven
    assert "proven" in verdicts[("shaft", "tube")].detail
    assert verdicts[("arm", "tube")].reason is None and not verdicts[("arm", "tube")].proven
