"""Obstacles given at run time (CollisionChecker.set_obstacles, attach; robrayc/c/obstacles.c)
against a reference of its own: python-fcl objects built here from the scene text and the
obstacles' own numbers (the robot's poses written out below, not robrayc's kinematics). The
exact and compiled backends answer as python-fcl does on random configurations and at 10 um
either side of contacts found by bisection on python-fcl's answer, for each obstacle kind,
point clouds, far from the origin and with an attached part; a new set costs no compile; the
C API works from a C program under strict gcc."""

from __future__ import annotations

import gc
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from robrayc.analysis.collision import (
    Box,
    Capsule,
    CollisionChecker,
    Cylinder,
    PointCloud,
    Sphere,
)
from robrayc.frontend import load_scene

fcl = pytest.importorskip("fcl")
_no_cc = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                            reason="no C compiler")


def needs_cc(test):
    """A test of the compiled checker (a C build: slow)."""
    return pytest.mark.slow(_no_cc(test))

# a mobile arm: a rail along x (bx), the base turning (yaw), an arm turning (j1) with a box, a
# cylinder, a sphere and a mesh (an octahedron); a fixed floor
SCENE = """
frame floor { translation [0, 0, -0.3]; geometry { shape box; dimension [4, 4, 0.1]; } }
frame bx { type prismatic; axis [1, 0, 0]; limit_position [-1e8, 1e8]; }
frame base { parent bx; type revolute; axis [0, 0, 1];
             geometry { shape box; dimension [0.4, 0.3, 0.2]; } }
frame j1 { parent base; type revolute; axis [0, 0, 1]; translation [0.3, 0, 0.2]; }
frame l1 { parent j1; translation [0.25, 0, 0];
           geometry { shape box; dimension [0.5, 0.08, 0.08]; } }
frame post { parent j1; translation [0.58, 0, 0];
             geometry { shape cylinder; radius 0.05; height 0.3; } }
frame tip { parent j1; translation [0.75, 0, 0.1]; geometry { shape sphere; radius 0.06; } }
frame hand { parent j1; translation [0.4, 0.2, 0]; geometry { shape mesh; mesh "oct.obj"; } }
"""
OCTAHEDRON = np.array([[0.07, 0, 0], [-0.07, 0, 0], [0, 0.07, 0], [0, -0.07, 0], [0, 0, 0.07],
                       [0, 0, -0.07]])
FACES = np.array([[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5],
                  [3, 1, 5], [0, 3, 5]])


def _rz(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _robot(q) -> list[tuple[object, np.ndarray, np.ndarray]]:
    """The moving solids at q = (bx, base, j1): (fcl geometry, rotation, translation)."""
    bx, yaw, j1 = q
    rb, tb = _rz(yaw), np.array([bx, 0.0, 0.0])
    rj, tj = rb @ _rz(j1), tb + rb @ [0.3, 0.0, 0.2]
    mesh = fcl.BVHModel()
    mesh.beginModel(len(OCTAHEDRON), len(FACES))
    mesh.addSubModel(OCTAHEDRON, FACES)
    mesh.endModel()
    return [(fcl.Box(0.4, 0.3, 0.2), rb, tb),
            (fcl.Box(0.5, 0.08, 0.08), rj, tj + rj @ [0.25, 0, 0]),
            (fcl.Cylinder(0.05, 0.3), rj, tj + rj @ [0.58, 0, 0.15]),
            (fcl.Sphere(0.06), rj, tj + rj @ [0.75, 0, 0.1]),
            (mesh, rj, tj + rj @ [0.4, 0.2, 0])]


def _fcl_obstacle(shape) -> list:
    """fcl objects of one obstacle, from its own numbers."""
    rot = np.eye(3) if getattr(shape, "rotation", None) is None else np.array(shape.rotation)
    if isinstance(shape, PointCloud):
        points = np.asarray(shape.points, float)
        radii = np.broadcast_to(shape.radius, len(points))
        return [fcl.CollisionObject(fcl.Sphere(r), fcl.Transform(np.eye(3), p))
                for p, r in zip(points, radii, strict=True)]
    geom = (fcl.Box(*(2 * np.array(shape.half_extents))) if isinstance(shape, Box)
            else fcl.Sphere(shape.radius) if isinstance(shape, Sphere)
            else fcl.Cylinder(shape.radius, 2 * shape.half_length)
            if isinstance(shape, Cylinder) else fcl.Capsule(shape.radius, 2 * shape.half_length))
    return [fcl.CollisionObject(geom, fcl.Transform(rot, np.array(shape.centre, float)))]


class Reference:
    """python-fcl's answer: does any moving solid (or attached part) meet an obstacle."""

    def __init__(self, obstacles, attached=()) -> None:
        self.manager = fcl.DynamicAABBTreeCollisionManager()
        self.manager.registerObjects([o for s in obstacles for o in _fcl_obstacle(s)])
        self.manager.setup()
        self.attached = attached  # (fcl geometry, offset from the tip's frame)

    def __call__(self, q) -> bool:
        objects = [fcl.CollisionObject(g, fcl.Transform(r, t)) for g, r, t in _robot(q)]
        _, rj, tj = _robot(q)[3]
        for geom, offset in self.attached:
            objects.append(fcl.CollisionObject(geom, fcl.Transform(rj, tj + rj @ offset)))
        robot = fcl.DynamicAABBTreeCollisionManager()
        robot.registerObjects(objects)
        robot.setup()
        data = fcl.CollisionData()
        self.manager.collide(robot, data, fcl.defaultCollisionCallback)
        return data.result.is_collision


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    folder = tmp_path_factory.mktemp("obstacles")
    lines = [f"v {x} {y} {z}" for x, y, z in OCTAHEDRON.tolist()]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in FACES.tolist()]
    (folder / "oct.obj").write_text("\n".join(lines) + "\n")
    (folder / "arm.robray").write_text(SCENE)
    return load_scene([str(folder / "arm.robray")])


@pytest.fixture(scope="module")
def checkers(scene):
    out = {"exact": CollisionChecker(scene)}
    if shutil.which("cc") or shutil.which("gcc"):
        out["compiled"] = CollisionChecker(scene, backend="compiled")
    return out


TURN = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])  # z -> x
TILT = np.array([[1.0, 0.0, 0.0], [0.0, 0.6, -0.8], [0.0, 0.8, 0.6]])
KINDS = {
    "box": [Box(centre=(0.9, 0.4, 0.25), half_extents=(0.1, 0.2, 0.3), rotation=TILT)],
    "sphere": [Sphere(centre=(0.2, 0.9, 0.3), radius=0.2)],
    "cylinder": [Cylinder(centre=(-0.6, -0.6, 0.2), radius=0.1, half_length=0.3)],
    "lying-cylinder": [Cylinder(centre=(0.6, -0.6, 0.25), radius=0.06, half_length=0.3,
                                rotation=TURN)],
    "capsule": [Capsule(centre=(0.7, 0.2, 0.3), radius=0.05, half_length=0.2, rotation=TURN)],
    "cloud": [PointCloud(points=np.random.default_rng(3).uniform(-1, 1, (3000, 3))
                         * [1.2, 1.2, 0.05] + [0, 0, 0.3], radius=0.01)],
    # a sphere cover (one radius a sphere), e.g. of a mesh
    "spheres": [PointCloud(points=np.random.default_rng(4).uniform(-1, 1, (300, 3))
                           * [1.2, 1.2, 0.2] + [0, 0, 0.3],
                           radius=np.random.default_rng(5).uniform(0.0, 0.05, 300))],
}


def _contacts(reference, shift: float, rng, n: int) -> np.ndarray:
    """Configurations 10 um either side of a contact: along the rail from random angles,
    bisection on the reference's answer."""
    out = []
    while len(out) < 2 * n:
        yaw, j1 = rng.uniform(-math.pi, math.pi, 2)
        lo, hi = shift - 2.0, shift + 2.0
        if reference((lo, yaw, j1)) or not any(reference((x, yaw, j1))
                                               for x in np.linspace(lo, hi, 41)):
            continue
        hi = next(x for x in np.linspace(lo, hi, 41) if reference((x, yaw, j1)))
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if reference((mid, yaw, j1)) else (mid, hi)
        out += [(hi + 1e-5, yaw, j1), (lo - 1e-5, yaw, j1)]
    return np.array(out)


def _compare(checkers, obstacles, shift: float = 0.0, attached=(), n_random=150,
             n_contacts=6, seed=5) -> None:
    reference = Reference(obstacles, attached)
    rng = np.random.default_rng(seed)
    q = rng.uniform(-math.pi, math.pi, (n_random, 3))
    q[:, 0] = shift + rng.uniform(-1.5, 1.5, n_random)
    q = np.concatenate([q, _contacts(reference, shift, rng, n_contacts)])
    expected = np.array([reference(row) for row in q])
    assert 0.03 < expected.mean() < 0.97, expected.mean()
    matrices = []
    for backend, checker in checkers.items():
        checker.set_obstacles(obstacles)
        matrices.append(checker.collision_matrix(q))
        assert (matrices[-1].any(axis=1) == expected).all(), backend
        assert (matrices[-1] == matrices[0]).all(), backend  # every column as the exact's
        got = checker.in_collision(q)
        wrong = np.flatnonzero(got != expected)
        assert not wrong.size, (backend, q[wrong[:3]], expected[wrong[:3]])
        assert [checker.check(row) for row in q[:40]] == expected[:40].tolist(), backend
        if checker._kernel is not None:
            state = checker._kernel.check_batch(q)
            assert not (expected & (state == 0)).any(), "FREE for a collision"
            assert not (~expected & (state == 1)).any(), "COLLIDES for a free configuration"


@needs_cc
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_against_fcl(checkers, kind: str) -> None:
    _compare(checkers, KINDS[kind])


def _shifted(shapes, dx: float) -> list:
    out = []
    for s in shapes:
        if isinstance(s, PointCloud):
            out.append(PointCloud(points=np.asarray(s.points) + [dx, 0, 0], radius=s.radius))
        else:
            fields = {k: getattr(s, k) for k in type(s).__match_args__}
            fields["centre"] = (s.centre[0] + dx, *s.centre[1:])
            out.append(type(s)(**fields))
    return out


@needs_cc
@pytest.mark.parametrize("far", [1e4, 1e6])
def test_far_from_the_origin(checkers, far: float) -> None:
    """The robot moved far along its rail among obstacles moved as far: the same answers."""
    shapes = [s for k in ("box", "sphere", "capsule", "lying-cylinder", "spheres")
              for s in KINDS[k]]
    _compare(checkers, _shifted(shapes, far), shift=far, n_random=80, n_contacts=4)


@needs_cc
def test_attached_part(checkers) -> None:
    """A box held at the tip: against the obstacles (and the scene's floor and base)."""
    part = Box(centre=(0.1, 0.0, 0.0), half_extents=(0.12, 0.03, 0.03))
    for checker in checkers.values():
        checker.attach("tip", [part])
    try:
        _compare(checkers, KINDS["sphere"] + KINDS["box"],
                 attached=[(fcl.Box(0.24, 0.06, 0.06), np.array([0.1, 0.0, 0.0]))])
    finally:
        for checker in checkers.values():
            checker.attach("tip", [])


@needs_cc
def test_a_new_set_replaces_the_last_and_compiles_nothing(checkers, monkeypatch) -> None:
    from robrayc.analysis.collision import c_build

    checker = checkers["compiled"]
    q = np.array([[0.0, 0.0, 0.0]])
    monkeypatch.setattr(c_build.subprocess, "run", None)  # a compile would fail
    checker.set_obstacles([Sphere(centre=(0.9, 0.0, 0.2), radius=0.1)])
    assert checker.in_collision(q)[0] and checker.check(q[0])
    assert checker.colliding_pairs(q[0]) == [("obstacle 0", "post")]
    checker.set_obstacles([Sphere(centre=(0.0, 1.5, 0.2), radius=0.1)])
    assert not checker.in_collision(q)[0] and not checker.check(q[0])
    checker.set_obstacles([])
    assert not checker.check(q[0]) and checker.colliding_pairs(q[0]) == []
    with pytest.raises(ValueError):
        checker.set_obstacles([Sphere(centre=(0, 0, float("nan")), radius=0.1)])


def test_a_big_scene_checker_takes_them_too(scene) -> None:
    """The exact checker's sparse broad phase (big scenes) answers as its dense one."""
    dense, sparse = CollisionChecker(scene), CollisionChecker(scene, broadphase="kd")
    shapes = KINDS["box"] + KINDS["capsule"] + KINDS["spheres"]
    q = np.random.default_rng(8).uniform(-2, 2, (60, 3))
    for checker in (dense, sparse):
        checker.set_obstacles(shapes)
    assert sparse.mode != "dense"
    assert sparse.colliding_pairs_batch(q) == dense.colliding_pairs_batch(q)
    assert (sparse.in_collision(q) == dense.in_collision(q)).all()
    assert 0 < dense.in_collision(q).sum() < len(q)


def test_invalid_shapes_are_refused(scene) -> None:
    checker = CollisionChecker(scene)
    for bad in ([Box(centre=(0, 0, 0), half_extents=(1, -1, 1))],
                [Box(centre=(0, 0, 0), half_extents=(1, 1, 1), rotation=np.ones((3, 3)))],
                [PointCloud(points=np.zeros((3, 2)), radius=0.1)], ["box"]):
        with pytest.raises((ValueError, TypeError)):
            checker.set_obstacles(bad)
    with pytest.raises(KeyError):
        checker.attach("no such frame", [])


C_MAIN = r"""
#include <stdio.h>
#include <string.h>
#include "arm.h"

int main(void)
{
    struct arm_obstacle o[2] = {
        { ARM_BOX, { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.7, 0.0, 0.2 }, { 0.1, 0.1, 0.1 } },
        { ARM_SPHERE, { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.3, 0.45, 0.2 }, { 0.1, 0, 0 } },
    };
    static const double points[8] = { -0.1, 0.0, 0.2, 0.05, -0.1, 0.1, 0.2, 0.05 };
    static const double q[4][3] = { { 0, 0, 0 }, { 0, 0, 1.5707963 }, { 0, 0, 3.14159 },
                                    { 0, 0, -1.5707963 } };
    int k;
    if (arm_set_obstacles(o, 2) || arm_set_points(points, 2)) return 2;
    for (k = 0; k < 4; k++) printf("%d ", arm_check(q[k]));
    o[0].pose[0] = 2.0;  /* not a rotation: refused, the set kept */
    printf("%d %d\n", arm_set_obstacles(o, 2), arm_check(q[0]));
    /* a rod held below the tip reaches the floor (fixed in the scene) unless it may touch it */
    struct arm_obstacle rod = { ARM_BOX, { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -0.3 },
                                { 0.05, 0.05, 0.3 } };
    int tip = -1, floor = -1;
    for (k = 0; k < ARM_N_FRAMES; k++) {
        if (!strcmp(arm_frame_names[k], "tip")) tip = k;
        if (!strcmp(arm_frame_names[k], "floor")) floor = k;
    }
    printf("%d ", arm_attach(tip, &rod, 1, 0, 0) ? -9 : arm_check(q[3]));
    printf("%d ", arm_attach(tip, &rod, 1, &floor, 1) ? -9 : arm_check(q[3]));
    printf("%d ", arm_attach(tip, 0, 0, 0, 0) ? -9 : arm_check(q[3]));
    printf("%d\n", arm_attach(99, 0, 0, 0, 0));
    return 0;
}
"""


@needs_cc
def test_c_api_from_a_c_program(scene, tmp_path: Path) -> None:
    from robrayc.cli.main import main

    src = Path(scene.sources[0])
    shutil.copy(src.parent / "oct.obj", tmp_path / "oct.obj")
    shutil.copy(src, tmp_path / "arm.robray")
    assert main([str(tmp_path / "arm.robray"), "--format", "c-checker", "-n", "arm",
                 "--no-cells", "-o", str(tmp_path / "arm.c")]) == 0
    (tmp_path / "main.c").write_text(C_MAIN)
    gcc = shutil.which("gcc") or shutil.which("cc")
    build = subprocess.run([gcc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-o",
                            str(tmp_path / "main"), str(tmp_path / "main.c"),
                            str(tmp_path / "arm.c"), "-lm"], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    out = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    # the arm points along +x, +y, -x, -y: into the box, the sphere, the points, nothing; then
    # a rod attached to the tip meets the floor, unless it may touch it
    assert out.stdout.split() == ["1", "1", "1", "0", "-1", "1", "1", "0", "0", "-1"]


@needs_cc
@pytest.mark.parametrize("depth", [1e-6, -1e-6])
def test_sphere_against_cylinder_and_capsule_is_decided_in_c(checkers, depth: float) -> None:
    """The tip (a sphere, radius 0.06 at (1.05, 0, 0.3) at q = 0) 1 um into and out of a
    capsule's side, a cylinder's side and a cylinder's cap: COLLIDES or FREE from C (exact
    closed forms), as both backends answer."""
    q = np.zeros(3)
    gap = 0.06 + 0.05 - depth
    cases = [Capsule(centre=(1.05 + gap, 0.0, 0.3), radius=0.05, half_length=0.2,
                     rotation=np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])),
             Cylinder(centre=(1.05, -gap, 0.3), radius=0.05, half_length=0.1),
             Cylinder(centre=(1.05, 0.0, 0.3 + 0.06 + 0.1 - depth), radius=0.08,
                      half_length=0.1)]
    for shape in cases:
        for name, checker in checkers.items():
            checker.set_obstacles([shape])
            assert checker.check(q) == (depth > 0), (name, shape)
            if checker._kernel is not None:
                assert checker._kernel.check_one(q) == (1 if depth > 0 else 0), shape
        assert Reference([shape])(q) == (depth > 0)


@needs_cc
def test_attached_part_against_the_scene_and_touch(checkers) -> None:
    """A rod held below the tip reaches the floor (fixed in the scene) at every configuration,
    unless it may touch the floor; both backends, C deciding it."""
    rod = Box(centre=(0.0, 0.0, -0.3), half_extents=(0.05, 0.05, 0.3))
    q = np.random.default_rng(2).uniform(-3, 3, (50, 3))
    q[:, 0] /= 3  # over the floor (4 m wide)
    for checker in checkers.values():
        checker.set_obstacles([])
    try:
        for touch, expected in (((), True), (("floor",), False)):
            for name, checker in checkers.items():
                checker.attach("tip", [rod], touch=touch)
                assert (checker.in_collision(q) == expected).all(), (name, touch)
                if checker._kernel is not None:
                    assert (checker._kernel.check_batch(q) == int(expected)).all(), touch
            assert ("floor", "tip attached 0") in checkers["exact"].colliding_pairs(q[0]) \
                or not expected
    finally:
        for checker in checkers.values():
            checker.attach("tip", [])


@needs_cc
def test_two_checkers_of_one_robot_keep_their_own_obstacles(scene, checkers) -> None:
    """Both load the one cached library (global obstacles in C): each query answers with its
    own checker's obstacles and attached parts."""
    first, second = checkers["compiled"], CollisionChecker(scene, backend="compiled")
    assert first._kernel.lib._name == second._kernel.lib._name
    q = np.zeros(3)
    first.set_obstacles([Sphere(centre=(0.9, 0.0, 0.2), radius=0.1)])
    second.set_obstacles([])
    second.attach("tip", [Box(centre=(0.0, 0.0, -0.3), half_extents=(0.05, 0.05, 0.3))])
    try:
        for _ in range(2):
            assert first.check(q) and second.check(q)
            assert first.colliding_pairs(q) == [("obstacle 0", "post")]
            assert second.colliding_pairs(q) == [("floor", "tip attached 0")]
        second.attach("tip", [])
        assert first.check(q) and not second.check(q)
        first.set_obstacles([])
        assert not first.check(q) and not second.check(q)
        # the second one gone (its arrays freed, the memory reused): what the library reads
        # in place (triangle trees, witness points, obstacles) is the first one's again
        del second
        gc.collect()
        junk = [np.full(1 << 16, 1e30) for _ in range(32)]
        shapes = KINDS["box"] + KINDS["spheres"]
        first.set_obstacles(shapes)
        checkers["exact"].set_obstacles(shapes)
        rows = np.random.default_rng(9).uniform(-math.pi, math.pi, (300, 3))
        truth = checkers["exact"].in_collision(rows)
        state = first._kernel.check_batch(rows)
        assert not (truth & (state == 0)).any() and not (~truth & (state == 1)).any()
        assert (first.in_collision(rows) == truth).all() and len(junk) == 32
    finally:
        first.set_obstacles([])
        checkers["exact"].set_obstacles([])


def _random_shape(rng, centre, scale: float = 1.0):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    rot = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                    [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                    [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    r, h = rng.uniform(0.01, 0.15) * scale, rng.uniform(0.0, 0.2) * scale
    return [Box(centre=centre, half_extents=tuple(rng.uniform(0.01, 0.2, 3) * scale),
                rotation=rot), Sphere(centre=centre, radius=r),
            Cylinder(centre=centre, radius=r, half_length=h, rotation=rot),
            Capsule(centre=centre, radius=r, half_length=h, rotation=rot)][rng.integers(4)]


@needs_cc
def test_random_fields_with_attached_parts_compiled_as_exact(checkers) -> None:
    """Random fields of every kind (near the origin and 1e3, 1e5 along the rail), a random
    cloud and random parts of every kind attached to random frames (touching one or not): the
    kernel is never FREE for a collision nor COLLIDES for none, and the compiled backend's
    answers and collision matrices are the exact backend's."""
    rng = np.random.default_rng(30)
    frames = ["tip", "post", "l1", "hand", "base"]
    exact, compiled = checkers["exact"], checkers["compiled"]
    for shift in (0.0, 1e3, 1e5, 0.0):
        obstacles = [_random_shape(rng, tuple(rng.uniform(-1.2, 1.2, 3) * (1, 1, 0.4)
                                              + (shift, 0, 0.3))) for _ in range(8)]
        points = rng.uniform(-1, 1, (300, 3)) * (1, 1, 0.1) + (shift, 0, rng.uniform(0, 0.6))
        obstacles.append(PointCloud(points=points, radius=rng.uniform(0, 0.03, 300)))
        frame = str(rng.choice(frames))
        parts = [_random_shape(rng, tuple(rng.uniform(-0.2, 0.2, 3)), 0.5) for _ in range(2)]
        touch = [str(rng.choice(frames))] if rng.random() < 0.5 else []
        q = rng.uniform(-math.pi, math.pi, (200, 3))
        q[:, 0] = shift + rng.uniform(-1.5, 1.5, 200)
        try:
            for checker in (exact, compiled):
                checker.set_obstacles(obstacles)
                checker.attach(frame, parts, touch=touch)
            truth = exact.in_collision(q)
            assert 0 < truth.sum() < len(q)
            state = compiled._kernel.check_batch(q)
            assert not (truth & (state == 0)).any() and not (~truth & (state == 1)).any()
            assert (compiled.in_collision(q) == truth).all()
            assert (compiled.collision_matrix(q) == exact.collision_matrix(q)).all()
        finally:
            for checker in (exact, compiled):
                checker.attach(frame, [])
                checker.set_obstacles([])


@needs_cc
def test_a_mesh_vertex_inside_an_obstacle_is_a_certain_hit(checkers) -> None:
    """The octahedron's +x vertex (at (0.77, 0.2, 0.2) at q = 0) 3 cm inside a small box: the
    kernel answers COLLIDES (a witness point), not MAYBE; 1 cm clear of it: FREE or MAYBE."""
    q = np.zeros(3)
    compiled = checkers["compiled"]
    for x, hit in ((0.77, True), (0.84, False)):
        box = Box(centre=(x + 0.0, 0.2, 0.2), half_extents=(0.03, 0.03, 0.03))
        for checker in checkers.values():
            checker.set_obstacles([box])
            assert checker.check(q) == hit
        assert Reference([box])(q) == hit
        assert compiled._kernel.check_one(q) == 1 if hit else compiled._kernel.check_one(q) != 1
    compiled.set_obstacles([])
    checkers["exact"].set_obstacles([])


def _rotation(rng) -> np.ndarray:
    r = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    return r * np.sign(np.linalg.det(r))  # a rotation, not a reflection


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["cylinder", "capsule"])
def test_free_next_to_a_round_obstacle_is_free_for_the_exact_checker(kind) -> None:
    """Run-time cylinders and capsules are decided in C (obstacles.c's solid_round): where the
    C answers FREE a hair from where its answer changes (bisected on the C's own answer), the
    exact checker (the judge) finds nothing colliding."""
    from robrayc.analysis.collision import Capsule, Cylinder
    from tests.test_collision_motions import among_boxes, configurations, next_to_free_edge

    scene = among_boxes("ur5", seed=4, boxes=0)
    rng = np.random.default_rng(7)
    make = Cylinder if kind == "cylinder" else Capsule
    shapes = [make(centre=tuple(rng.uniform([0.2, -0.6, 0.0], [0.8, 0.6, 0.9])),
                   radius=float(rng.uniform(0.03, 0.12)), half_length=float(rng.uniform(0.05, 0.3)),
                   rotation=_rotation(rng)) for _ in range(6)]
    exact, compiled = CollisionChecker(scene), CollisionChecker(scene, backend="compiled")
    for checker in (exact, compiled):
        checker.set_obstacles(shapes)
    kernel = compiled._kernel
    near = next_to_free_edge(kernel, configurations(scene, 300, 9), 15, rng)
    free = near[np.array([kernel.check_one(row) for row in near]) == 0]  # NAME_check's FREE
    assert len(free) > 30
    assert not exact.in_collision(free).any()


@pytest.mark.slow
def test_attached_round_parts_against_obstacles_are_decided_in_c() -> None:
    """A box, a cylinder and a capsule held at UR5's tool against run-time cylinders,
    capsules and boxes: decided in C (obstacles.c's shape_round; they were MAYBE wherever
    their bounding boxes met: 6.0 % of these configurations), and a hair from where the C's
    answer changes (bisected on it), its FREE is free and its COLLIDES collides for the exact
    checker."""
    from tests.test_collision_motions import among_boxes, configurations, next_to_free_edge

    scene = among_boxes("ur5", seed=4, boxes=0)
    rng = np.random.default_rng(11)
    obstacles = [kind(centre=tuple(rng.uniform([0.2, -0.6, 0.0], [0.8, 0.6, 0.9])),
                      radius=float(rng.uniform(0.03, 0.1)),
                      half_length=float(rng.uniform(0.05, 0.25)), rotation=_rotation(rng))
                 for kind in (Cylinder, Capsule) * 3]
    obstacles += [Box(centre=tuple(rng.uniform([0.2, -0.6, 0.0], [0.8, 0.6, 0.9])),
                      half_extents=tuple(rng.uniform(0.03, 0.15, 3)), rotation=_rotation(rng))
                  for _ in range(3)]
    parts = [Box(centre=(0.0, 0.0, 0.12), half_extents=(0.03, 0.05, 0.08)),
             Cylinder(centre=(0.0, 0.1, 0.2), radius=0.03, half_length=0.12,
                      rotation=_rotation(rng)),
             Capsule(centre=(0.0, -0.1, 0.2), radius=0.04, half_length=0.1,
                     rotation=_rotation(rng))]
    exact, compiled = CollisionChecker(scene), CollisionChecker(scene, backend="compiled")
    for checker in (exact, compiled):
        checker.set_obstacles(obstacles)
        checker.attach("wrist_3_link-tool0_fixed_joint", parts)  # the tool0 frame
    kernel = compiled._kernel
    q = configurations(scene, 2000, 12)
    state = np.array([kernel.check_one(row) for row in q])
    assert (state == 2).mean() < 0.005, np.bincount(state)  # 0.3 %
    near = next_to_free_edge(kernel, q, 15, rng)
    state = np.array([kernel.check_one(row) for row in near])
    assert (state == 0).sum() > 30 and (state == 1).sum() > 5
    assert not exact.in_collision(near[state == 0]).any()
    assert exact.in_collision(near[state == 1]).all()
