"""Penetration depth of overlapping closed meshes (issue 32: `collide --distance` gave 0 and a
note): exact for convex meshes, a bound for closed non-convex ones (the deepest
vertex), 0 with the note for open ones; the method in text and JSON. Expected depths come
from the geometry (by hand, or the separating-axis minimum over face normals and edge cross
products of two boxes), not from robrayc."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from tests.run import robrayc

trimesh = pytest.importorskip("trimesh")


def _collide(tmp_path, meshes: dict, placed: str) -> dict:
    from robrayc.cli.main import main

    for name, mesh in meshes.items():
        mesh.export(tmp_path / f"{name}.stl")
    scene = tmp_path / "scene.robray"
    scene.write_text(f"""
frame a {{ geometry {{ shape mesh; mesh "{tmp_path}/a.stl"; }} }}
frame b {{ type prismatic; axis [0, 0, 1]; {placed}
  geometry {{ shape mesh; mesh "{tmp_path}/b.stl"; }} }}
""")
    import contextlib
    import io

    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        assert main(["collide", str(scene), "--distance", "--json"]) == 1
    return json.loads(text.getvalue())


def _sat_depth(ra: np.ndarray, ta, rb: np.ndarray, tb, half: float = 0.5) -> float:
    """Penetration depth of two cubes (rotations ra, rb; centres ta, tb): the smallest overlap
    along the face normals and the edges' cross products (exact for convex polytopes)."""
    corners = np.array(list(itertools.product((-half, half), repeat=3)))
    pa, pb = corners @ ra.T + ta, corners @ rb.T + tb
    axes = list(ra.T) + list(rb.T) + [np.cross(x, y) for x in ra.T for y in rb.T]
    best = math.inf
    for n in axes:
        if np.linalg.norm(n) < 1e-9:
            continue
        n = n / np.linalg.norm(n)
        a, b = pa @ n, pb @ n
        best = min(best, min(a.max() - b.min(), b.max() - a.min()))
    return best


def test_convex_meshes_get_the_exact_depth(tmp_path) -> None:
    box = trimesh.creation.box((1.0, 1.0, 1.0))
    doc = _collide(tmp_path, {"a": box, "b": box},
                   "translation [0.75, 0.125, 0]; rpy [0, 0, 0.3];")
    (_, _, d), = doc["distances"]
    rot = trimesh.transformations.rotation_matrix(0.3, [0, 0, 1])[:3, :3]
    expect = _sat_depth(np.eye(3), np.zeros(3), rot, np.array([0.75, 0.125, 0.0]))
    assert doc["distance_methods"] == ["convex-exact"]
    assert d == pytest.approx(-expect, abs=1e-9) and d < 0


def test_closed_non_convex_mesh_gets_the_deepest_vertex_as_a_bound(tmp_path, capsys) -> None:
    import shapely

    ell = trimesh.creation.extrude_polygon(
        shapely.Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]), 1.0)
    cube = trimesh.creation.box((0.25, 0.25, 0.25))
    # the cube straddles the L's face x = 2: its corners at x = 1.875 are 0.125 deep
    doc = _collide(tmp_path, {"a": ell, "b": cube}, "translation [2, 0.5, 0.5];")
    assert doc["distance_methods"] == ["deepest-vertex-bound"]
    assert doc["distances"][0][2] == pytest.approx(-0.125, abs=1e-9)


def test_open_meshes_keep_zero_and_the_note(tmp_path) -> None:
    box = trimesh.creation.box((1.0, 1.0, 1.0))
    open_box = trimesh.Trimesh(box.vertices, box.faces[2:], process=False)
    doc = _collide(tmp_path, {"a": box, "b": open_box}, "translation [0.75, 0, 0];")
    assert doc["distance_methods"] == ["open-mesh"] and doc["distances"][0][2] == 0.0


def test_text_output_names_the_method(tmp_path) -> None:
    box = trimesh.creation.box((1.0, 1.0, 1.0))
    _collide(tmp_path, {"a": box, "b": box}, "translation [0.875, 0, 0];")
    r = robrayc("collide", tmp_path / "scene.robray", "--distance", process=True)
    line = next(t for t in r.out.splitlines() if t.startswith("distance a b "))
    assert float(line.split()[3]) == pytest.approx(-0.125, abs=1e-6)
    assert line.endswith("(convex: exact)"), line
    assert "no penetration depth" not in r.err
