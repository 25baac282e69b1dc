"""The compiled checker decides pairs with meshes and cylinders in C (robrayc/c/convex.c:
triangles against boxes, spheres and triangles, cylinders against spheres, boxes and cylinders,
in double, with certificates): against the exact checker and
against python-fcl built here from the shapes themselves (poses written here from the scene
text, not by robrayc's kinematics), on random configurations and next to contact (bisected
on python-fcl's answer between a colliding and a free configuration). The kernel never answers
FREE where python-fcl finds a collision, nor COLLIDES where python-fcl finds the solids apart;
MAYBE is rare."""

from __future__ import annotations

import math
import shutil
import subprocess

import numpy as np
import pytest

from robrayc.analysis.collision import CollisionChecker
from robrayc.frontend import load_scene
from robrayc.stl import obj_text

fcl = pytest.importorskip("fcl")
trimesh = pytest.importorskip("trimesh")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                 reason="no C compiler")]

FREE, COLLIDES, MAYBE = 0, 1, 2
# an arm turning about z (a) with a post on it (a mesh) and, past an elbow turning about y
# (b), a hand (a ring: not convex); around it a box, a sphere and a mesh fixed in the world
SCENE = """
frame wall {{ translation [0, 0.45, 0.3]; geometry {{ shape box; dimension [0.1, 0.1, 0.3]; }} }}
frame ball {{ translation [-0.45, 0, 0.3]; geometry {{ shape sphere; radius 0.08; }} }}
frame rock {{ translation [0, -0.45, 0.2]; geometry {{ shape mesh; mesh "{d}/rock.obj"; }} }}
frame shoulder {{ type revolute; axis [0, 0, 1]; variable a; }}
frame post {{ parent shoulder; translation [0.32, 0, 0.62];
             geometry {{ shape mesh; mesh "{d}/post.obj"; }} }}
frame elbow {{ parent shoulder; translation [0, 0, 0.3]; type revolute; axis [0, 1, 0];
              variable b; limit_position [-3, 3]; }}
frame hand {{ parent elbow; translation [0.45, 0, 0];
             geometry {{ shape mesh; mesh "{d}/hand.obj"; }} }}
frame finger {{ parent elbow; translation [0.45, 0, 0.2];
               geometry {{ shape cylinder; radius 0.03; height 0.1; }} }}
frame can {{ translation [0.32, -0.32, 0.1];
            geometry {{ shape cylinder; radius 0.04; height 0.4; }} }}
"""
MESHES = {"rock": lambda: trimesh.creation.icosphere(subdivisions=2, radius=0.1),
          "post": lambda: trimesh.creation.cylinder(radius=0.04, height=0.2, sections=16),
          "hand": lambda: trimesh.creation.annulus(r_min=0.03, r_max=0.08, height=0.1,
                                                   sections=24)}
# where each solid sits: its frame's parent joint chain ("world", "shoulder" or "elbow") and
# its translation there
# its translation there (a robray cylinder stands on its frame's origin: its centre is half
# its height up)
PLACES = {"wall": ("world", (0, 0.45, 0.3)), "ball": ("world", (-0.45, 0, 0.3)),
          "rock": ("world", (0, -0.45, 0.2)), "post": ("shoulder", (0.32, 0, 0.62)),
          "hand": ("elbow", (0.45, 0, 0)), "finger": ("elbow", (0.45, 0, 0.25)),
          "can": ("world", (0.32, -0.32, 0.3))}
SHAPE = {"wall": "box", "ball": "sphere", "rock": "mesh", "post": "mesh", "hand": "mesh",
         "finger": "cylinder", "can": "cylinder"}
# every pair of solids in different rigid groups, one of them moving, and its kinds
KINDS = {(a, b): "-".join(sorted((SHAPE[a], SHAPE[b])))
         for a in ("post", "hand", "finger")
         for b in ("wall", "ball", "rock", "can", "post")
         if a != b and (PLACES[a][0], PLACES[b][0]) != ("elbow", "elbow")}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    d = tmp_path_factory.mktemp("decided")
    geometry = {}
    for name, make in MESHES.items():
        mesh = make()
        (d / f"{name}.obj").write_bytes(obj_text(mesh.vertices, mesh.faces))
        model = fcl.BVHModel()
        model.beginModel(len(mesh.vertices), len(mesh.faces))
        model.addSubModel(np.asarray(mesh.vertices, float), np.asarray(mesh.faces, np.int64))
        model.endModel()
        geometry[name] = model
    geometry["wall"] = fcl.Box(0.1, 0.1, 0.3)
    geometry["ball"] = fcl.Sphere(0.08)
    geometry["finger"] = fcl.Cylinder(0.03, 0.1)
    geometry["can"] = fcl.Cylinder(0.04, 0.4)
    (d / "arm.robray").write_text(SCENE.format(d=d))
    scene = load_scene([str(d / "arm.robray")])
    compiled = CollisionChecker(scene, backend="compiled")
    return compiled, CollisionChecker(scene), geometry


def _rot(axis: str, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return (np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]) if axis == "z"
            else np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]))


def _poses(a: float, b: float) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each solid's world pose at configuration (a, b), from the scene text."""
    chains = {"world": (np.eye(3), np.zeros(3)), "shoulder": (_rot("z", a), np.zeros(3))}
    chains["elbow"] = (_rot("z", a) @ _rot("y", b), _rot("z", a) @ np.array([0, 0, 0.3]))
    return {name: (chains[chain][0], chains[chain][0] @ np.array(at) + chains[chain][1])
            for name, (chain, at) in PLACES.items()}


def _objects(geometry, a: float, b: float) -> dict:
    return {name: fcl.CollisionObject(geometry[name], fcl.Transform(*pose))
            for name, pose in _poses(a, b).items()}


def _reference(geometry, q: np.ndarray) -> tuple[set, float]:
    """The pairs python-fcl finds colliding at q = (a, b), and the least distance of the
    others."""
    objects = _objects(geometry, *q)
    hits, least = set(), math.inf
    for pair in KINDS:
        oa, ob = objects[pair[0]], objects[pair[1]]
        if fcl.collide(oa, ob, fcl.CollisionRequest(), fcl.CollisionResult()):
            hits.add(pair)
        else:
            least = min(least, fcl.distance(oa, ob, fcl.DistanceRequest(),
                                            fcl.DistanceResult()))
    return hits, least


def _configs(checker, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    q = np.column_stack([rng.uniform(-math.pi, math.pi, n), rng.uniform(-3, 3, n)])
    return q[:, [checker.variables.index("a"), checker.variables.index("b")]]


def _ab(checker, row: np.ndarray) -> np.ndarray:
    return row[[checker.variables.index("a"), checker.variables.index("b")]]


def test_random_configurations_match_fcl_and_the_exact_checker(world) -> None:
    compiled, exact, geometry = world
    q = _configs(compiled, 600, 30)
    answers = compiled._kernel.check_batch(q)
    truth = exact.in_collision(q)
    kinds = set()
    for row, answer, expected in zip(q, answers, truth, strict=True):
        hits, least = _reference(geometry, _ab(compiled, row))
        kinds |= {KINDS[p] for p in hits}
        assert answer != FREE or not hits, (row, hits)
        assert answer != COLLIDES or hits or least < 1e-6, (row, least)
        if answer != MAYBE:
            assert bool(answer) == bool(expected), row
    assert (answers == MAYBE).mean() <= 0.05  # (a cylinder against a mesh: trees only)
    assert kinds == set(KINDS.values())  # every kind of pair met colliding
    assert 0.1 < truth.mean() < 0.9


def test_near_contact_never_free_when_colliding(world) -> None:
    """Contact bisected to 1e-12 on python-fcl's answer between a colliding and a free
    configuration; then configurations 1e-7..1e-3 (in the joint values) to either side."""
    compiled, _, geometry = world
    q = _configs(compiled, 300, 31)
    hit = [bool(_reference(geometry, _ab(compiled, r))[0]) for r in q]
    kernel, kinds, checked = compiled._kernel, set(), 0
    for k in range(0, len(q) - 1):
        if hit[k] == hit[k + 1]:
            continue
        inside, outside = (q[k], q[k + 1]) if hit[k] else (q[k + 1], q[k])
        for _ in range(42):
            mid = (inside + outside) / 2
            inside, outside = (mid, outside) if _reference(geometry, _ab(compiled, mid))[0] \
                else (inside, mid)
        step = (outside - inside) / np.linalg.norm(outside - inside)
        for delta in (1e-3, 1e-5, 1e-7, -1e-7, -1e-5, -1e-3):  # > 0: towards the free side
            row = (outside if delta > 0 else inside) + delta * step
            hits, least = _reference(geometry, _ab(compiled, row))
            kinds |= {KINDS[p] for p in hits}
            answer = kernel.check(row)
            assert answer != FREE or not hits, (row, hits)
            assert answer != COLLIDES or hits or least < 1e-6, (row, least)
            checked += 1
    assert checked >= 60
    assert {"box-mesh", "mesh-sphere", "mesh-mesh", "box-cylinder", "cylinder-sphere",
            "cylinder-cylinder"} <= kinds


def test_generated_checker_holds_the_triangles_unless_told_not_to(world, tmp_path) -> None:
    """`--format c-checker` writes the meshes' triangles as tables for convex.c (CHECKER_TRIANGLES
    1); `--no-mesh-tests` leaves them out (0), and the file is smaller; both compile under
    strict gcc."""
    from tests.run import robrayc

    compiled, _, _ = world
    scene = compiled.scene.sources[0]
    sizes = {}
    for flags, mode in (((), 1), (("--no-mesh-tests",), 0)):
        out = tmp_path / f"arm{mode}.c"
        run = robrayc(scene, "--format", "c-checker", "--no-cells", *flags, "-n", "arm",
                      "-o", out)
        assert run.status == 0, run.stderr
        text = out.read_text()
        assert f"#define CHECKER_TRIANGLES {mode}\n" in text
        assert ("static const double TRI[" in text) == (mode == 1)
        sizes[mode] = len(text)
        built = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
                                "-c", str(out), "-o", str(tmp_path / "arm.o")],
                               capture_output=True, text=True)
        assert built.returncode == 0, built.stderr
    assert sizes[0] < sizes[1]


def test_free_next_to_contact_is_free_for_the_exact_checker() -> None:
    """The exact checker is the judge: where the C answers FREE a hair from where its answer
    changes (bisected on the C's own answer, so on DECIDE_GAP's edge), the exact checker finds
    nothing colliding. Fetch among boxes: with a gap of CONTACT_TOL + 1e-13 X, meshes
    1.0009e-9 from a box were FREE for the C and touching, so colliding, for the exact
    checker's GJK (convex.c's DECIDE_GAP says why it is wider now)."""
    from tests.test_collision_motions import among_boxes, configurations, next_to_free_edge

    scene = among_boxes("fetch", seed=11, boxes=10)
    exact, compiled = CollisionChecker(scene), CollisionChecker(scene, backend="compiled")
    kernel = compiled._kernel
    near = next_to_free_edge(kernel, configurations(scene, 400, 5), 20,
                             np.random.default_rng(5))
    free = near[np.array([kernel.check_one(row) for row in near]) == FREE]
    assert len(free) > 40
    assert not exact.in_collision(free).any()


def test_free_on_the_edge_of_the_c_answer_is_free_for_the_exact_checker(world) -> None:
    """Every kind of pair here (cylinders against boxes, spheres, cylinders and meshes among
    them), bisected to 1e-12 on the C's OWN answer, so on its bands' edges (DECIDE_GAP, the
    cylinder tests' slack, the closed forms' CONTACT_TOL), then 1e-9..1e-5 to either side: a
    FREE there is free for the exact checker, the judge."""
    compiled, exact, _ = world
    kernel = compiled._kernel
    q = _configs(compiled, 300, 32)
    free = kernel.check_batch(q) == FREE
    edge = []
    for k in range(len(q) - 1):
        if free[k] == free[k + 1]:
            continue
        a, b = (q[k], q[k + 1]) if free[k] else (q[k + 1], q[k])
        for _ in range(42):
            mid = (a + b) / 2
            a, b = (mid, b) if kernel.check(mid) == FREE else (a, mid)
        step = (b - a) / np.linalg.norm(b - a)
        edge += [a + delta * step for delta in (0.0, 1e-9, 1e-7, 1e-5, -1e-9, -1e-7, -1e-5)]
    edge = np.array(edge)
    answers = kernel.check_batch(edge)
    assert (answers == FREE).sum() >= 60
    assert not exact.in_collision(edge[answers == FREE]).any()
