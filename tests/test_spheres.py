"""Certified sphere covers (robrayc.analysis.spheres): every point of a primitive and every point
of every mesh triangle lies in the union, checked by dense sampling (volume and surface) and by
the vertex proof for meshes; the overshoot is what the spheres reach outside the solid."""

from __future__ import annotations

import numpy as np
import pytest

from robrayc import ir
from robrayc.analysis.collision import (
    MESH,
    Solid,
    box_distance,
    round_distance,
    solid_from_shape,
)
from robrayc.analysis.spheres import contains, cover, cover_all, grid_solid, sphere_tree
from tests.corpus import require_corpus, ros_package_path
from tests.urdf_robots import load, robot_path

SHAPES = {
    "sphere": ir.Sphere(0.2),
    "box": ir.Box((1.0, 0.3, 0.02)),
    "cube": ir.Box((0.4, 0.4, 0.4)),
    "cylinder": ir.Cylinder(0.5, 0.1),
    "flat-cylinder": ir.Cylinder(-0.02, 0.4),
    "cone": ir.Cone(0.6, 0.2, 0.0),
    "cone-apex-down": ir.Cone(-0.4, 0.0, 0.3),
    "frustum": ir.Cone(0.6, 0.2, 0.1),
}


def _signed_distance(solid: Solid, p: np.ndarray) -> np.ndarray:
    """Closed form, in the solid's centred frame (negative inside)."""
    par = np.asarray(solid.params)
    if solid.kind == 0:
        return np.sqrt((p * p).sum(axis=1)) - par[0]
    if solid.kind == 1:
        return box_distance(p, par)
    return round_distance(p, np.broadcast_to(par, p.shape))


def _volume_and_surface_points(solid: Solid, rng: np.random.Generator) -> np.ndarray:
    """Dense points of the solid: rejection samples of its volume, and samples pushed onto
    its surface (by bisection along rays from the centre)."""
    half = np.asarray(solid.params, dtype=float)
    if solid.kind == 0:
        half = np.full(3, half[0])
    elif solid.kind != 1:
        half = np.array([max(half[0], half[1])] * 2 + [half[2]])
    x = rng.uniform(-1, 1, (60000, 3)) * half
    inside = x[_signed_distance(solid, x) <= 0]
    d = rng.normal(size=(20000, 3))
    d /= np.linalg.norm(d, axis=1)[:, None]
    lo, hi = np.zeros(len(d)), np.full(len(d), float(np.linalg.norm(half)) * 2)
    for _ in range(50):
        mid = (lo + hi) / 2
        out = _signed_distance(solid, d * mid[:, None]) > 0
        lo, hi = np.where(out, lo, mid), np.where(out, mid, hi)
    return np.concatenate([inside, d * lo[:, None]])


@pytest.mark.parametrize("size", [0.5, 0.1, 0.04])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_primitive_covers_contain_every_point(name: str, size: float) -> None:
    solid = solid_from_shape(SHAPES[name])
    c = cover(solid, size)
    pts = _volume_and_surface_points(solid, np.random.default_rng(1))
    assert contains(c, pts, slack=1e-12).all()
    # the overshoot: what the spheres reach outside (0 only for a sphere itself)
    assert (c.overshoot == 0.0) == (name == "sphere")
    assert 0.0 <= c.overshoot <= 2 * float(np.max(c.radii))


def _in_sphere_and_its_box(c, pts: np.ndarray, slack: float = 1e-12) -> np.ndarray:
    """Which points lie in some sphere AND that same sphere's box (the compiled checker opens
    a leaf's box only where its sphere is hit, so each box must hold its sphere's piece)."""
    held = np.zeros(len(pts), dtype=bool)
    for i in range(len(c)):
        d = pts - c.centres[i]
        local = (pts - c.box_centres[i]) @ c.box_axes[i].T
        held |= ((d * d).sum(axis=1) <= (c.radii[i] + slack) ** 2) & (
            np.abs(local) <= c.box_half[i] + slack).all(axis=1)
    return held


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_primitive_leaf_boxes_hold_their_pieces(name: str) -> None:
    solid = solid_from_shape(SHAPES[name])
    c = cover(solid, 0.1)
    pts = _volume_and_surface_points(solid, np.random.default_rng(4))
    assert _in_sphere_and_its_box(c, pts).all()


def test_sphere_tree_nodes_hold_their_children() -> None:
    rng = np.random.default_rng(5)
    centres, radii = rng.random((500, 3)), rng.uniform(0.001, 0.02, 500)
    tree = sphere_tree(centres, radii, 0.02, rounding=lambda c: c.astype(np.float32))
    assert sorted(tree.leaf[tree.leaf >= 0].tolist()) == list(range(500))
    leaves = tree.leaf >= 0
    assert (tree.count[leaves] == 0).all() and (tree.count[~leaves] >= 2).all()
    np.testing.assert_array_equal(tree.centres[leaves], centres[tree.leaf[leaves]])
    for k in np.flatnonzero(~leaves).tolist():
        kids = slice(tree.first[k], tree.first[k] + tree.count[k])
        reach = np.linalg.norm(tree.centres[kids] - tree.centres[k], axis=1) + tree.radii[kids]
        assert (reach <= tree.radii[k]).all()
        assert (tree.centres[k] == tree.centres[k].astype(np.float32)).all()  # as stored


def test_smaller_cells_mean_more_spheres_and_less_overshoot() -> None:
    solid = solid_from_shape(SHAPES["cylinder"])
    coarse, fine = cover(solid, 0.2), cover(solid, 0.03)
    assert len(fine) > len(coarse)
    assert fine.overshoot < coarse.overshoot


def test_grid_is_covered_as_its_plate() -> None:
    solid = grid_solid(ir.Grid((2.0, 1.0), (0.1, 0.1), 0.01))
    c = cover(solid, 0.2)
    pts = _volume_and_surface_points(solid, np.random.default_rng(2))
    assert contains(c, pts).all()


def _mesh_points(solid: Solid, rng: np.random.Generator, per: int = 20) -> np.ndarray:
    tri = solid.vertices[solid.faces]
    u = rng.random((len(tri), per, 2))
    flip = u.sum(axis=2) > 1
    u[flip] = 1 - u[flip]
    return (tri[:, None, 0] + u[..., :1] * (tri[:, None, 1] - tri[:, None, 0])
            + u[..., 1:] * (tri[:, None, 2] - tri[:, None, 0])).reshape(-1, 3)


@pytest.mark.parametrize("key", ["ur5", "lwa4d"])
def test_mesh_covers_hold_every_vertex_and_triangle(key: str, monkeypatch) -> None:
    monkeypatch.setenv("ROS_PACKAGE_PATH", ros_package_path())
    from robrayc.analysis.collision import CollisionChecker

    checker = CollisionChecker(load([str(robot_path(key))]))
    meshes = [s for s in checker.solids.items if s.kind == MESH]
    assert meshes
    covers, _ = cover_all(meshes, size=0.05)
    rng = np.random.default_rng(0)
    for solid, c in zip(meshes, covers, strict=True):
        local = c.placed(np.linalg.inv(solid.placement))
        # the vertex proof: every vertex of every triangle in one sphere...
        assert contains(local, solid.vertices, slack=1e-12).all()
        # ...and points spread over every triangle too
        points = _mesh_points(solid, rng)
        assert contains(local, points, slack=1e-12).all()
        # each patch's oriented box holds the patch its sphere holds
        assert _in_sphere_and_its_box(local, np.concatenate([solid.vertices, points])).all()


def test_count_mode_keeps_the_total() -> None:
    solids = [solid_from_shape(SHAPES[n]) for n in ("box", "cylinder", "frustum")]
    covers, size = cover_all(solids, count=60)
    assert len(solids) <= sum(len(c) for c in covers) <= 60
    assert size > 0


def test_bad_size_is_refused() -> None:
    with pytest.raises(ValueError):
        cover(solid_from_shape(SHAPES["box"]), 0.0)



def _sphere_urdf_holds_the_scene(path: str, tmp_path) -> None:
    """`robrayc spheres FILE -o x.urdf`, read back by yourdfpy (independent kinematics): at
    random configurations every mesh vertex and dense points of every primitive of the
    original scene, posed by robrayc, are in one of the spheres posed by yourdfpy; the YAML
    holds the same spheres."""
    import yaml
    import yourdfpy

    from robrayc.analysis.collision import CollisionChecker
    from robrayc.analysis.spheres import SphereCover
    from robrayc.cli.main import main

    out, yml = tmp_path / "spheres.urdf", tmp_path / "spheres.yml"
    assert main(["spheres", path, "-o", str(out), "-q"]) == 0
    assert main(["spheres", path, "-o", str(yml), "-q"]) == 0
    robot = yourdfpy.URDF.load(str(out), load_meshes=False, build_scene_graph=True,
                               build_collision_scene_graph=False, load_collision_meshes=False)
    doc = yaml.safe_load(yml.read_text())["collision_spheres"]
    in_urdf = {link.name: [(c.origin[:3, 3].tolist(), c.geometry.sphere.radius)
                           for c in link.collisions] for link in robot.robot.links}
    for link, items in doc.items():
        assert [(s["center"], s["radius"]) for s in items] == in_urdf[link]
    scene = load([path])
    checker = CollisionChecker(scene)
    rng = np.random.default_rng(4)
    points = [s.vertices if s.kind == MESH else _volume_and_surface_points(s, rng)[::20]
              for s in checker.solids.items]
    for _ in range(3):
        q = rng.uniform(-np.pi, np.pi, len(scene.variables))
        robot.update_cfg(dict(zip(scene.variables, q.tolist(), strict=True)))
        centres, radii = [], []
        for link, items in in_urdf.items():
            T = robot.get_transform(link, robot.base_link)
            for c, r in items:
                centres.append(T[:3, :3] @ np.asarray(c) + T[:3, 3])
                radii.append(r)
        union = SphereCover(np.array(centres), np.array(radii), 0.0)
        W = checker._solid_poses(q[None])[0]
        for k, p in enumerate(points):
            assert contains(union, p @ W[k][:3, :3].T + W[k][:3, 3], slack=1e-9).all()


@pytest.mark.parametrize("key", ["ur5"])
def test_sphere_urdf_contains_the_robot_through_yourdfpy(key: str, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ROS_PACKAGE_PATH", ros_package_path())
    _sphere_urdf_holds_the_scene(str(robot_path(key)), tmp_path)


def test_sphere_urdf_of_a_robray_scene(tmp_path) -> None:
    """Any scene robrayc reads gets a sphere URDF (issue 32: a robray input was refused)."""
    mesh = require_corpus() / "urdf/ros-planning+moveit_resources" / (
        "moveit_resources_pr2_description/urdf/meshes/base_v0/caster_L.stl")
    scene = tmp_path / "scene.robray"
    scene.write_text(f"""
frame table {{ geometry {{ shape box; dimension [1, 0.6, 0.05]; }} }}
frame arm {{ parent table; type revolute; axis [0, 1, 0]; translation [0, 0, 0.1];
  rpy [0.1, 0.2, 0.3]; geometry {{ shape cylinder; radius 0.05; height 0.4; }} }}
frame slide {{ parent arm; type prismatic; axis [1, 0, 0]; translation [0, 0, 0.4];
  geometry {{ shape cone; height 0.2; start_radius 0.1; end_radius 0.01; }} }}
frame caster {{ parent slide; translation [0.1, 0, 0]; rpy [0, 0, 1];
  geometry {{ shape mesh; mesh "{mesh}"; }} }}
frame lamp {{ parent table; translation [0.3, 0, 0.1]; geometry {{ shape sphere; radius 0.05; }} }}
""")
    _sphere_urdf_holds_the_scene(str(scene), tmp_path)


@pytest.mark.slow
def test_numpy_overshoot_gives_the_kd_trees_output(tmp_path, monkeypatch) -> None:
    """scipy (the `fast` extra) is optional: without it the numpy search writes the same bytes."""
    pytest.importorskip("scipy")
    import robrayc.analysis.spheres as spheres
    from robrayc.cli.main import main

    monkeypatch.setenv("ROS_PACKAGE_PATH", ros_package_path())
    path = str(robot_path("lwa4d"))
    assert main(["spheres", path, "-o", str(tmp_path / "kd.yml"), "-q"]) == 0
    monkeypatch.setattr(spheres, "_kd_tree", lambda: None)
    assert main(["spheres", path, "-o", str(tmp_path / "grid.yml"), "-q"]) == 0
    assert (tmp_path / "kd.yml").read_bytes() == (tmp_path / "grid.yml").read_bytes()
