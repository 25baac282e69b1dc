"""One configuration a call (checker_kernel.c's pair1) decides a mesh with triangles against a
sphere, a box or another such mesh on its triangles before its float sphere trees, and tests
the trees only where the triangles leave the pair MAYBE: the same answer for every pair as the
trees first (CHECKER_TRIANGLES_FIRST 0), judged at random configurations and ones a hair from
contact, every pair's state (NAME_solid_states) as well as each configuration's answer."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest

from robrayc.analysis.collision import CollisionChecker
from tests.backends.test_c_checker import needs_cc
from tests.test_c_lanes import _library, _ones, _scene, near_contact
from tests.test_collision_motions import configurations


def _states(lib: ctypes.CDLL, q: np.ndarray, pairs: int) -> np.ndarray:
    """(len(q), pairs) uint8: each solid pair's state at each configuration."""
    out = np.zeros((len(q), pairs), dtype=np.uint8)
    fn = lib.rb_solid_states
    fn.argtypes = (ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p)
    fn.restype = None
    fn(q.ctypes.data, len(q), None, out.ctypes.data)
    return out


@needs_cc
@pytest.mark.parametrize("key", ["ur5", pytest.param("fetch", marks=pytest.mark.slow)])
def test_triangles_first_answer_as_the_trees_first(key: str, tmp_path: Path) -> None:
    """A corpus robot among boxes, a ball and a cylinder: its meshes against boxes, a sphere,
    a cylinder (left to the trees first) and each other."""
    scene = _scene(key)
    exact = CollisionChecker(scene)
    (tmp_path / "first").mkdir()
    (tmp_path / "trees").mkdir()
    first = _library(exact, tmp_path / "first", "avx2")
    trees = _library(exact, tmp_path / "trees", "avx2", ["-DCHECKER_TRIANGLES_FIRST=0"])
    pairs = len(exact._pi)  # the solid pairs tested (compiled.py's n_solid_pairs)
    q = configurations(scene, 300, seed=4)
    q = np.ascontiguousarray(np.concatenate([q, near_contact(trees, q,
                                                             np.random.default_rng(3))]))
    ones = _ones(trees, q)
    assert set(ones.tolist()) >= {0, 1}, set(ones.tolist())
    assert (_ones(first, q) == ones).all()
    states = _states(trees, q, pairs)
    assert (_states(first, q, pairs) == states).all()
