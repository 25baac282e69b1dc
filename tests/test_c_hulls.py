"""The lanes' proof by convex hulls (robrayc/c/hulls.c): a pair with a mesh that the sphere trees
leave near in a lane is shown apart by a plane between the two solids' hulls, over each mesh's
hull points (robrayc.analysis.collision.triangles.hull_points), so that check1 need not run
for that lane; never where check1 or the exact checker would not answer FREE."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from robrayc.analysis.collision import CollisionChecker
from robrayc.analysis.collision.triangles import hull_points
from tests.backends.test_c_checker import needs_cc
from tests.test_c_lanes import PROVEN, SIMD, _library, _ones, near_contact
from tests.test_collision_motions import among_boxes, configurations

FREE = 0


def _bumpy_sphere(rng: np.random.Generator) -> np.ndarray:
    """(T, 3, 3): a closed, non-convex mesh: a sphere's triangles, every corner pushed in or
    out at random (the pushed-in ones lie inside the hull)."""
    import trimesh

    mesh = trimesh.creation.icosphere(subdivisions=2)
    radius = rng.uniform(0.7, 1.0, len(mesh.vertices))[:, None]
    return (mesh.vertices * radius)[mesh.faces]


def test_hull_points_hold_every_corner() -> None:
    """Every corner of a non-convex mesh lies in the convex hull of its hull points (checked
    on scipy's hull of the points kept, to rounding), and the corners inside are left out."""
    from scipy.spatial import ConvexHull

    tri = _bumpy_sphere(np.random.default_rng(3))
    corners = np.unique(tri.reshape(-1, 3), axis=0)
    kept = hull_points(tri)
    planes = ConvexHull(kept).equations
    assert (corners @ planes[:, :3].T + planes[:, 3]).max() <= 1e-12
    assert set(map(tuple, ConvexHull(corners).points[ConvexHull(corners).vertices])) \
        <= set(map(tuple, kept))
    assert 10 < len(kept) < 0.8 * len(corners)


def test_hull_points_without_scipy_are_every_corner(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without scipy (an extra), every distinct corner: the same hull, only more points."""
    import builtins

    real_import = builtins.__import__

    def no_scipy(name, *args, **kwargs):
        if name.startswith("scipy"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    tri = _bumpy_sphere(np.random.default_rng(4))
    monkeypatch.setattr(builtins, "__import__", no_scipy)
    assert len(hull_points(tri)) == len(np.unique(tri.reshape(-1, 3), axis=0))


def _proven(tmp_path: Path, q: np.ndarray, hulls: int) -> np.ndarray:
    """Which configurations (blocks of 8) the lanes prove FREE without check1, the hulls'
    proof on (1) or off (0: CHECKER_HULLS), the generated checker rb_avx2.c (_library)."""
    (tmp_path / "rb.c").write_text((tmp_path / "rb_avx2.c").read_text())
    (tmp_path / "proven.c").write_text(PROVEN)
    exe = tmp_path / f"proven{hulls}"
    run = subprocess.run(["gcc", "-std=c99", "-O2", *SIMD["avx2"], f"-DCHECKER_HULLS={hulls}",
                          "-o", str(exe), str(tmp_path / "proven.c"), "-lm"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    text = "\n".join(" ".join(map(repr, row)) for row in q[:len(q) // 8 * 8].tolist())
    out = subprocess.run([str(exe)], input=text, capture_output=True, text=True,
                         check=True).stdout
    return np.array([c == "0" for c in out], dtype=bool)


@needs_cc
@pytest.mark.slow
def test_lanes_prove_near_mesh_pairs_apart_by_their_hulls(tmp_path: Path) -> None:
    """UR5 among boxes, random configurations and ones a hair from contact: the hulls' proof
    makes lanes FREE that the sphere trees left to check1 (its forearm against its wrist, its
    links against boxes, a few millimetres to centimetres apart), only lanes check1 answers
    FREE and the exact checker finds free, and opens none the trees proved."""
    scene = among_boxes("ur5", seed=11, boxes=10)
    exact = CollisionChecker(scene)
    lib = _library(exact, tmp_path, "avx2")
    q = configurations(scene, 400, seed=3)
    everything = np.ascontiguousarray(np.concatenate(
        [q, near_contact(lib, q, np.random.default_rng(5))]))
    with_hulls, without = (_proven(tmp_path, everything, h) for h in (1, 0))
    ones = _ones(lib, everything[:len(with_hulls)])
    assert not (without & ~with_hulls).any()
    fresh = with_hulls & ~without
    assert fresh.sum() >= 20, (fresh.sum(), without.sum())
    assert (ones[with_hulls] == FREE).all()
    assert not exact.in_collision(everything[:len(fresh)][fresh]).any()
