"""numpy neighbour searches that replaced scipy's kd-tree (issue 32: scipy was 143 MB of the
install for one kd-tree): radius pairs, the sphere broad phase, sphere-cover containment and
nearest distances, each against scipy's cKDTree (a test dependency only) or brute force."""

from __future__ import annotations

import numpy as np
import pytest

from robrayc.analysis.collision import CONTACT_TOL, radius_pairs, sphere_pairs
from robrayc.analysis.spheres import SphereCover, _farthest_nearest_grid, contains

cKDTree = pytest.importorskip("scipy.spatial").cKDTree


def _set(i, j) -> set:
    return set(zip(np.asarray(i).tolist(), np.asarray(j).tolist(), strict=True))


@pytest.mark.parametrize("case", ["uniform", "clustered", "tiny-radius", "flat", "one"])
def test_radius_pairs_match_a_kd_tree(case: str) -> None:
    rng = np.random.default_rng(len(case))
    a, b, r = rng.uniform(-1, 1, (700, 3)), rng.uniform(-1, 1, (500, 3)), 0.12
    if case == "clustered":
        a = np.concatenate([a * 1e-3, a * 50])
        b = np.concatenate([b * 1e-3, b * 50])
        r = 2e-3
    elif case == "tiny-radius":  # cells would be 1e12 a side: they are widened
        a[0] = b[0] = (1e6, -1e6, 0)
        r = 1e-9
        b[1] = a[1] + (r / 2, 0, 0)
    elif case == "flat":
        a[:, 2] = b[:, 2] = 0.0
    elif case == "one":
        a, b = a[:1], b[:1]
        r = 10.0
    expect = {(i, j) for i, near in enumerate(cKDTree(b).query_ball_point(a, r)) for j in near}
    got = radius_pairs(a, b, r)
    assert len(got[0]) == len(_set(*got)), "a pair reported twice"
    assert _set(*got) == expect


def test_points_not_finite_pair_with_everything() -> None:
    a = np.array([[0.0, 0, 0], [np.nan, 0, 0]])
    b = np.array([[0.05, 0, 0], [5.0, 0, 0], [0, np.inf, 0]])
    assert _set(*radius_pairs(a, b, 0.1)) == {(0, 0), (1, 0), (1, 1), (1, 2), (0, 2)}


def test_sphere_pairs_as_the_kd_tree_gave_them() -> None:
    rng = np.random.default_rng(3)
    c = rng.uniform(-3, 3, (2000, 3))
    r = rng.uniform(0.01, 0.2, 2000)
    r[:5] = 2.0  # big ones, tested against all
    d = np.linalg.norm(c[:, None] - c[None], axis=2)
    near = d <= r[:, None] + r[None] + CONTACT_TOL
    expect = {(i, j) for i, j in zip(*np.nonzero(np.triu(near, 1)), strict=True)}
    got = sphere_pairs(c, r)
    assert len(got[0]) == len(_set(*got)) and expect <= _set(*got)  # sound: none missed
    i, j = got
    assert (i < j).all() and (d[i, j] <= r[i] + r[j] + 2 * CONTACT_TOL).all()


def test_cover_containment_and_nearest_distances() -> None:
    rng = np.random.default_rng(5)
    centres = rng.uniform(-1, 1, (300, 3))
    radii = np.concatenate([rng.uniform(0.01, 0.05, 290), rng.uniform(0.3, 0.6, 10)])
    points = rng.uniform(-1.2, 1.2, (5000, 3))
    expect = np.zeros(len(points), bool)
    for hits in cKDTree(points).query_ball_point(centres, radii + 1e-3):
        expect[hits] = True
    assert (contains(SphereCover(centres, radii, 0.0), points, 1e-3) == expect).all()
    dist, _ = cKDTree(centres).query(points)
    for reach in (1e-4, 0.01, 10.0):
        got = _farthest_nearest_grid(centres, points, reach)
        assert got == pytest.approx(dist.max(), rel=1e-12)
