"""The 2D projection against closed forms: rotated boxes, tilted cylinders and cones, spheres,
meshes, height-band slicing; roles, robots, sensors and the option errors."""

from __future__ import annotations

import argparse
import math
import random
from pathlib import Path

import numpy as np
import pytest

from robrayc import ir
from robrayc.analysis.projection import (
    ProjectionOptions,
    geometry_footprint,
    options_from,
    project_scene,
)
from robrayc.diagnostics import NOWHERE, CompileError, DiagnosticSink
from robrayc.frontend import load_scene
from robrayc.kinematics import axis_angle_quat, quat_to_matrix, rpy_to_quat

FINE = 4096  # segments: polygon areas within ~1e-6 of the curved closed forms
EXACT = 1e-9


def _random_quat(rng: random.Random) -> ir.Quat:
    # uniform on SO(3) (Shoemake): no preferred axis, so every face and rim orientation occurs
    u1, u2, u3 = rng.random(), rng.random(), rng.random()
    a, b = math.sqrt(1 - u1), math.sqrt(u1)
    return (a * math.sin(2 * math.pi * u2), a * math.cos(2 * math.pi * u2),
            b * math.sin(2 * math.pi * u3), b * math.cos(2 * math.pi * u3))


def _foot(shape, q=(0.0, 0.0, 0.0, 1.0), v=(0.0, 0.0, 0.0), scale=1.0, **opts):
    g = ir.Geometry(shape, scale=scale)
    poly, lo, hi = geometry_footprint(g, (q, v), ProjectionOptions(**opts), DiagnosticSink())
    return poly, lo, hi


# --- boxes: exact under any rotation ------------------------------------------------------------
@pytest.mark.parametrize("seed", range(40))
def test_rotated_box_area_and_extents_are_exact(seed: int) -> None:
    rng = random.Random(seed)
    d = (rng.uniform(0.01, 2), rng.uniform(0.01, 2), rng.uniform(0.01, 2))
    q = _random_quat(rng)
    t = (rng.uniform(-3, 3), rng.uniform(-3, 3), rng.uniform(-3, 3))
    poly, lo, hi = _foot(ir.Box(d), q, t)
    m = quat_to_matrix(q)
    # A convex body's shadow is half the sum of its faces' |projected areas|.
    area = (abs(m[2][0]) * d[1] * d[2] + abs(m[2][1]) * d[0] * d[2]
            + abs(m[2][2]) * d[0] * d[1])
    assert poly.area == pytest.approx(area, rel=1e-12)
    half = [sum(abs(m[k][j]) * d[j] / 2 for j in range(3)) for k in range(3)]
    minx, miny, maxx, maxy = poly.bounds
    assert abs(minx - (t[0] - half[0])) < EXACT and abs(maxx - (t[0] + half[0])) < EXACT
    assert abs(miny - (t[1] - half[1])) < EXACT and abs(maxy - (t[1] + half[1])) < EXACT
    assert abs(lo - (t[2] - half[2])) < EXACT and abs(hi - (t[2] + half[2])) < EXACT


def test_box_scale_multiplies_dimensions() -> None:
    poly, _, _ = _foot(ir.Box((1.0, 2.0, 3.0)), scale=0.5)
    assert poly.bounds == pytest.approx((-0.25, -0.5, 0.25, 0.5), abs=EXACT)


def test_box_band_matches_an_independent_slice() -> None:
    import shapely
    import trimesh

    rng = random.Random(7)
    for _ in range(20):
        d = (rng.uniform(0.1, 1), rng.uniform(0.1, 1), rng.uniform(0.1, 1))
        q = _random_quat(rng)
        lo, hi = sorted((rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4)))
        poly, zlo, zhi = _foot(ir.Box(d), q, z_min=lo, z_max=hi)
        mesh = trimesh.creation.box(extents=d)
        mesh.apply_transform(_matrix(q, (0, 0, 0)))
        cut = mesh.slice_plane([0, 0, lo], [0, 0, 1]).slice_plane([0, 0, hi], [0, 0, -1])
        if cut.is_empty or len(cut.vertices) == 0:
            assert poly is None
            continue
        expect = shapely.MultiPoint(cut.vertices[:, :2]).convex_hull
        assert poly.symmetric_difference(expect).area < 1e-12
        assert zlo >= lo - EXACT and zhi <= hi + EXACT


def _matrix(q, v) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = quat_to_matrix(q)
    m[:3, 3] = v
    return m


# --- spheres ------------------------------------------------------------------------------------
def test_sphere_extents_exact_and_area_converges() -> None:
    r = 0.3
    poly, lo, hi = _foot(ir.Sphere(r), v=(1.0, -2.0, 0.5))
    assert poly.bounds == pytest.approx((0.7, -2.3, 1.3, -1.7), abs=EXACT)
    assert (lo, hi) == pytest.approx((0.2, 0.8), abs=EXACT)
    n = 64  # inscribed: area between the regular 64-gon's and the disc's
    assert (n / 2) * r * r * math.sin(2 * math.pi / n) - 1e-12 <= poly.area <= math.pi * r * r
    fine, _, _ = _foot(ir.Sphere(r), segments=FINE)
    assert fine.area == pytest.approx(math.pi * r * r, rel=1e-6)


@pytest.mark.parametrize(("z_min", "z_max", "radius"), [
    (0.15, None, math.sqrt(0.3**2 - 0.15**2)),   # cap above the centre
    (None, -0.2, math.sqrt(0.3**2 - 0.2**2)),    # cap below
    (-0.1, 0.1, 0.3),                            # the equator is in the band
    (0.1, 0.2, math.sqrt(0.3**2 - 0.1**2)),      # a slab above: its lower plane is widest
])
def test_sphere_band_slicing(z_min, z_max, radius) -> None:
    poly, lo, hi = _foot(ir.Sphere(0.3), z_min=z_min, z_max=z_max, segments=FINE)
    assert poly.bounds == pytest.approx((-radius, -radius, radius, radius), abs=EXACT)
    assert poly.area == pytest.approx(math.pi * radius * radius, rel=1e-6)
    assert lo == pytest.approx(max(-0.3, z_min if z_min is not None else -1), abs=EXACT)


def test_sphere_outside_the_band_has_no_footprint() -> None:
    assert _foot(ir.Sphere(0.3), z_min=0.31)[0] is None
    assert _foot(ir.Sphere(0.3), z_max=-0.3)[0] is None  # touching is no area


# --- cylinders and cones ------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(25))
def test_tilted_cylinder_area_and_extents(seed: int) -> None:
    rng = random.Random(100 + seed)
    r, h = rng.uniform(0.01, 0.5), rng.uniform(-2, 2)
    q = _random_quat(rng)
    t = (rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1))
    poly, lo, hi = _foot(ir.Cylinder(height=h, radius=r), q, t, segments=FINE)
    m = np.array(quat_to_matrix(q))
    a = m[:, 2]
    area = math.pi * r * r * abs(a[2]) + 2 * r * abs(h) * math.sqrt(max(0.0, 1 - a[2] ** 2))
    assert poly.area == pytest.approx(area, rel=1e-5)
    ends = [np.array(t), np.array(t) + h * a]
    for k, (bmin, bmax) in enumerate(((0, 2), (1, 3))):
        w = r * math.sqrt(max(0.0, 1 - a[k] ** 2))  # a rim's half-width along axis k
        expect_lo = min(e[k] for e in ends) - w
        expect_hi = max(e[k] for e in ends) + w
        assert abs(poly.bounds[bmin] - expect_lo) < EXACT
        assert abs(poly.bounds[bmax] - expect_hi) < EXACT
    w = r * math.sqrt(max(0.0, 1 - a[2] ** 2))
    assert abs(lo - (min(e[2] for e in ends) - w)) < EXACT
    assert abs(hi - (max(e[2] for e in ends) + w)) < EXACT


def _cone_shadow(r: float, h: float, tilt: float) -> float:
    """Area of the shadow of a right circular cone (base radius r, height |h|) whose axis is
    tilted by `tilt` from vertical: the base ellipse, or its hull with the apex."""
    a, b = r, r * abs(math.cos(tilt))
    d = abs(h) * abs(math.sin(tilt))  # apex offset along the ellipse's minor axis
    if b == 0:
        return r * d  # edge-on: the triangle
    if d <= b:
        return math.pi * a * b
    # scale the minor axis by a/b: the ellipse becomes a circle of radius a
    dd = d * a / b
    alpha = math.acos(a / dd)
    return (b / a) * (a * math.sqrt(dd * dd - a * a) + a * a * (math.pi - alpha))


@pytest.mark.parametrize("tilt", [0.0, 0.2, 0.7, 1.2, math.pi / 2, 2.5])
@pytest.mark.parametrize("h", [0.4, -1.5])
def test_tilted_cone_area_and_apex(tilt: float, h: float) -> None:
    r = 0.25
    q = axis_angle_quat((1.0, 0.0, 0.0), tilt)
    poly, _, _ = _foot(ir.Cone(height=h, start_radius=r, end_radius=0.0), q, segments=FINE)
    assert poly.area == pytest.approx(_cone_shadow(r, h, tilt), rel=1e-5)
    apex_y = -h * math.sin(tilt)  # rotation about X takes +Z to (0, -sin, cos)
    minx, miny, maxx, maxy = poly.bounds
    assert minx == pytest.approx(-r, abs=EXACT) and maxx == pytest.approx(r, abs=EXACT)
    rim = r * abs(math.cos(tilt))
    assert miny == pytest.approx(min(-rim, apex_y), abs=EXACT)
    assert maxy == pytest.approx(max(rim, apex_y), abs=EXACT)


def test_frustum_is_hull_of_its_rims() -> None:
    import shapely

    q = rpy_to_quat(0.3, -0.8, 1.1)
    poly, _, _ = _foot(ir.Cone(height=0.5, start_radius=0.2, end_radius=0.1), q, segments=FINE)
    m = np.array(quat_to_matrix(q))
    ts = np.linspace(0, 2 * math.pi, 20000, endpoint=False)
    ring = np.cos(ts)[:, None] * m[:, 0] + np.sin(ts)[:, None] * m[:, 1]
    pts = np.concatenate([0.2 * ring, 0.5 * m[:, 2] + 0.1 * ring])
    expect = shapely.MultiPoint(pts[:, :2]).convex_hull
    assert poly.area == pytest.approx(expect.area, rel=1e-6)


@pytest.mark.parametrize("h", [1.0, -1.0])
def test_cone_band_slicing(h: float) -> None:
    # upright cone from radius 0.5 at z=0 to its apex at z=h: the band [z1, z2] (on the cone's
    # side) projects as the disc of the section nearest the base
    z1, z2 = (0.25, 0.6) if h > 0 else (-0.6, -0.25)
    poly, lo, hi = _foot(ir.Cone(height=h, start_radius=0.5, end_radius=0.0), z_min=z1,
                         z_max=z2, segments=FINE)
    nearest = min(abs(z1), abs(z2))
    radius = 0.5 * (1 - nearest / abs(h))
    assert poly.bounds == pytest.approx((-radius, -radius, radius, radius), abs=EXACT)
    assert poly.area == pytest.approx(math.pi * radius * radius, rel=1e-5)
    assert (lo, hi) == pytest.approx((z1, z2), abs=EXACT)


def test_tilted_cylinder_band_is_its_slab() -> None:
    # a cylinder lying along X (axis +Z rotated to +X) cut at z in [0, r/2]: a rectangle of
    # length h and width from y = -w to w with w = r at z = 0
    r, h = 0.2, 1.0
    q = axis_angle_quat((0.0, 1.0, 0.0), math.pi / 2)
    poly, lo, hi = _foot(ir.Cylinder(height=h, radius=r), q, z_min=0.0, z_max=r / 2,
                         segments=FINE)
    assert poly.bounds == pytest.approx((0.0, -r, h, r), abs=EXACT)
    assert poly.area == pytest.approx(2 * r * h, rel=1e-6)


# --- meshes -------------------------------------------------------------------------------------
L_SHAPE = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]  # area 3, hull area 3.5


@pytest.fixture(scope="module")
def l_mesh(tmp_path_factory) -> ir.Mesh:
    import shapely
    import trimesh

    mesh = trimesh.creation.extrude_polygon(shapely.Polygon(L_SHAPE), height=0.5)
    path = tmp_path_factory.mktemp("mesh") / "l.stl"
    mesh.export(path)
    return ir.Mesh(path=str(path), source="l.stl")


def test_mesh_is_union_of_triangles(l_mesh: ir.Mesh) -> None:
    poly, lo, hi = _foot(l_mesh)
    assert poly.area == pytest.approx(3.0, abs=1e-12)
    assert poly.bounds == pytest.approx((0, 0, 2, 2), abs=EXACT)
    assert (lo, hi) == pytest.approx((0.0, 0.5), abs=EXACT)


def test_mesh_hull_option(l_mesh: ir.Mesh) -> None:
    poly, _, _ = _foot(l_mesh, hull=True)
    assert poly.area == pytest.approx(3.5, abs=1e-12)


def test_mesh_scale_and_rotation(l_mesh: ir.Mesh) -> None:
    # stood up (+Z to -Y): the shadow is the L's x extent times its height
    q = axis_angle_quat((1.0, 0.0, 0.0), math.pi / 2)
    poly, _, _ = _foot(l_mesh, q, scale=2.0)
    assert poly.area == pytest.approx(4.0 * 1.0, rel=1e-9)
    assert poly.bounds == pytest.approx((0, -1, 4, 0), abs=EXACT)


def test_mesh_band_through_the_middle_keeps_the_section(l_mesh: ir.Mesh) -> None:
    # every side face is vertical (no shadow): the band's cross-sections carry the area
    poly, lo, hi = _foot(l_mesh, z_min=0.2, z_max=0.3)
    assert poly.area == pytest.approx(3.0, abs=1e-9)
    assert (lo, hi) == pytest.approx((0.2, 0.3), abs=EXACT)
    assert _foot(l_mesh, z_min=0.6)[0] is None


def test_mesh_band_on_a_sloped_mesh() -> None:
    import trimesh

    # an icosphere: the band's shadow is the section disc at the plane nearest the equator
    mesh = trimesh.creation.icosphere(subdivisions=4, radius=1.0)
    poly_full, _, _ = _mesh_from(mesh)
    poly_band, _, _ = _mesh_from(mesh, z_min=0.5)
    assert poly_full.area == pytest.approx(math.pi, rel=2e-3)
    assert poly_band.area == pytest.approx(math.pi * 0.75, rel=5e-3)


@pytest.mark.parametrize("variant", ["closed", "inside-out", "open"])
def test_mesh_shadow_equals_union_of_all_triangles(variant: str) -> None:
    import shapely
    import trimesh

    # a non-convex closed mesh (a torus, tilted): the fast path for closed surfaces unions one
    # facing half only; it must give what the union of every projected triangle gives
    mesh = trimesh.creation.torus(major_radius=1.0, minor_radius=0.3, major_sections=24,
                                  minor_sections=12)
    mesh.apply_transform(trimesh.transformations.rotation_matrix(0.9, [1, 0.3, 0]))
    if variant == "inside-out":
        mesh.invert()
    elif variant == "open":
        mesh.update_faces(np.arange(len(mesh.faces)) % 7 != 0)
    poly, _, _, stored = _mesh_from(mesh, keep=True)
    tri = stored.vertices[stored.faces][:, :, :2]  # as read back (STL stores float32)
    area2 = ((tri[:, 1, 0] - tri[:, 0, 0]) * (tri[:, 2, 1] - tri[:, 0, 1])
             - (tri[:, 2, 0] - tri[:, 0, 0]) * (tri[:, 1, 1] - tri[:, 0, 1]))
    expect = shapely.union_all(shapely.polygons(tri[np.abs(area2) > 0]))
    assert poly.symmetric_difference(expect).area < 1e-12
    if variant != "open":  # the torus's hole, and no round-off pinholes
        assert poly.geom_type == "Polygon" and len(poly.interiors) == 1


def _mesh_from(mesh, keep: bool = False, **opts):
    import tempfile

    import trimesh

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "m.stl"
        mesh.export(p)
        out = _foot(ir.Mesh(path=str(p), source="m.stl"), **opts)
        if keep:
            return (*out, trimesh.load(p, force="mesh", process=False))
        return out


def test_grid_is_skipped() -> None:
    assert _foot(ir.Grid((1.0, 1.0), (0.1, 0.1), 0.01))[0] is None


# --- roles, robots, sensors, configuration ------------------------------------------------------
SCENE = """
class robot { }
class marker { }
class ultra { }
class pillar { }
frame wall { translation [1, 0, .5]; geometry { shape box; dimension [.1, 2, 1]; } }
frame rug { geometry { shape box; dimension [1, 1, .01]; collision 0; } }
frame spot { geometry { isa marker; shape sphere; radius .1; } }
frame column { geometry { isa pillar; shape cylinder; radius .1; height 1; collision 0; } }
frame grid { geometry { shape grid; dimension [1, 1]; delta [.1, .1]; thickness .01; } }
frame bot {
    translation [-1, 0, 0];
    rpy [0, 0, 90 * deg];
    geometry { isa robot; shape cylinder; radius .1; height .1; }
    frame sonar { isa ultra; translation [.1, 0, .05]; rpy [0, 0, 45 * deg]; }
    frame arm { type revolute; axis [0, 0, 1];
                geometry { shape box; dimension [.3, .02, .02]; } }
}
"""


@pytest.fixture(scope="module")
def role_scene(tmp_path_factory) -> ir.Scene:
    path = tmp_path_factory.mktemp("scene") / "roles.robray"
    path.write_text(SCENE)
    return load_scene([str(path)])


def _project(scene, **kw):
    sink = DiagnosticSink()
    return project_scene(scene, ProjectionOptions(**kw), sink), sink


def test_default_roles(role_scene) -> None:
    proj, sink = _project(role_scene)
    roles = {f.frame.name: f.role for f in proj.footprints}
    assert roles == {"wall": "wall", "rug": "decorative", "spot": "marker",
                     "column": "decorative"}
    assert not sink.items


def test_robot_pose_parts_and_sensors(role_scene) -> None:
    proj, _ = _project(role_scene)
    (bot,) = proj.robots
    assert bot.name == "bot"
    assert bot.position == pytest.approx((-1, 0, 0), abs=EXACT)
    assert bot.heading == pytest.approx(math.pi / 2, abs=EXACT)
    assert sorted(p.frame.name for p in bot.parts) == ["arm", "bot"]
    assert all(p.role == "robot" for p in bot.parts)
    (sonar,) = bot.sensors
    assert sonar.kind == "ultra"
    assert sonar.local == pytest.approx((0.1, 0, 0.05), abs=EXACT)
    assert sonar.heading == pytest.approx(math.pi / 4, abs=EXACT)
    local = bot.to_local(bot.footprint())
    assert local.bounds == pytest.approx((-0.15, -0.1, 0.15, 0.1), abs=EXACT)


def test_configuration_moves_joints(role_scene) -> None:
    proj, _ = _project(role_scene, configuration={"arm": math.pi / 2})
    arm = next(p for p in proj.robots[0].parts if p.frame.name == "arm")
    # the robot faces +Y; its arm turned a further quarter: the arm lies along -X
    assert arm.polygon.bounds == pytest.approx((-1.15, -0.01, -0.85, 0.01), abs=EXACT)


def test_role_overrides(role_scene) -> None:
    proj, sink = _project(role_scene, roles={"pillar": "wall", "marker": "ignore"})
    roles = {f.frame.name: f.role for f in proj.footprints}
    assert roles["column"] == "wall" and "spot" not in roles
    assert not sink.items


def test_robot_frame_option(role_scene) -> None:
    proj, _ = _project(role_scene, robot_frames=("rug",))
    assert [r.name for r in proj.robots] == ["rug", "bot"]
    assert "rug" not in {f.frame.name for f in proj.footprints}


def test_band_drops_solids(role_scene) -> None:
    proj, _ = _project(role_scene, z_min=0.02)
    assert {f.frame.name for f in proj.footprints} == {"wall", "spot", "column"}


def _ns(**kw) -> argparse.Namespace:
    base = dict(z_min=None, z_max=None, hull=False, role=[], robot_frame=[], segments=64,
                configuration={})
    base.update(kw)
    return argparse.Namespace(**base)


def test_unknown_role_is_an_error() -> None:
    sink = DiagnosticSink()
    with pytest.raises(CompileError):
        options_from(_ns(role=["pillar=wal"]), sink)
    (d,) = sink.items
    assert d.severity == "error" and "unknown role 'wal'" in d.message
    assert d.hint == "did you mean 'wall'?"


@pytest.mark.parametrize(("kw", "text"), [
    ({"role": ["pillar"]}, "--role expects TAG=ROLE"),
    ({"z_min": 1.0, "z_max": 0.5}, "above --z-max"),
    ({"z_min": math.nan}, "finite"),
    ({"segments": 3}, "--segments"),
])
def test_option_errors(kw, text) -> None:
    sink = DiagnosticSink()
    with pytest.raises(CompileError):
        options_from(_ns(**kw), sink)
    assert text in sink.items[0].message


def test_obstacle_alias_and_unused_tag_warning(role_scene) -> None:
    sink = DiagnosticSink()
    opts = options_from(_ns(role=["pillar=obstacle", "pilar=wall"]), sink)
    assert opts.roles == {"pillar": "wall", "pilar": "wall"}
    project_scene(role_scene, opts, sink)
    (w,) = sink.items
    assert w.severity == "warning" and "'pilar'" in w.message
    assert w.hint == "did you mean 'pillar'?"


def test_unknown_robot_frame_is_an_error(role_scene) -> None:
    sink = DiagnosticSink()
    with pytest.raises(CompileError):
        project_scene(role_scene, ProjectionOptions(robot_frames=("bott",)), sink)
    assert sink.items[0].hint == "did you mean 'bot'?"


def test_mesh_placed_again_the_same_way_up_moves_its_shadow(l_mesh: ir.Mesh) -> None:
    """A mesh's shadow is computed once per mesh, scale and rotation, then moved: each
    placement still equals the union of its own triangles (the L-shape, tilted)."""
    import shapely

    from robrayc.meshes import load_mesh

    data = load_mesh(l_mesh, DiagnosticSink(), NOWHERE)
    q = axis_angle_quat((1.0, 0.2, 0.0), 0.7)
    for v in [(0.0, 0.0, 0.0), (5.0, -3.0, 2.0), (0.25, 7.5, -1.0)]:
        poly, lo, hi = _foot(l_mesh, q, v)
        m = _matrix(q, v)
        verts = np.asarray(data.vertices) @ m[:3, :3].T + m[:3, 3]
        tri = verts[np.asarray(data.faces)]
        area2 = ((tri[:, 1, 0] - tri[:, 0, 0]) * (tri[:, 2, 1] - tri[:, 0, 1])
                 - (tri[:, 2, 0] - tri[:, 0, 0]) * (tri[:, 1, 1] - tri[:, 0, 1]))
        want = shapely.union_all(shapely.polygons(tri[np.abs(area2) > 0][:, :, :2]))
        assert poly.symmetric_difference(want).area <= 1e-9 * want.area
        assert (lo, hi) == pytest.approx((tri[:, :, 2].min(), tri[:, :, 2].max()), abs=EXACT)
