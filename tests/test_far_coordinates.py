"""The compiled checker far from the origin and at the contact tolerance, against references
of its own: two mobile bases (x, y, yaw joints, limits +-1e8) carrying spheres, boxes and
cylinders, placed 1e3..1e7 from the origin 3 mm into and out of contact (the contact found
with python-fcl at the origin, the answer asked of python-fcl at the far place, poses written
here from the scene text, not by robrayc's kinematics); and overlaps of 1e-8..1e-6 placed in
closed form. The kernel never answers FREE for a colliding configuration, and the compiled
backend's answers are python-fcl's."""

from __future__ import annotations

import math
import shutil

import numpy as np
import pytest

from robrayc.analysis.collision import CollisionChecker
from robrayc.frontend import load_scene

fcl = pytest.importorskip("fcl")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                 reason="no C compiler")]

# per base: its frame, and its solids as (frame, kind, size, offset from the base's origin)
SOLIDS = {
    "a": [("a_body", "box", (0.6, 0.4, 0.3), (0.0, 0.0, 0.0)),
          ("a_arm", "cylinder", (0.05, 0.4), (0.2, 0.0, 0.2))],
    "b": [("b_body", "sphere", (0.25,), (0.0, 0.0, 0.0)),
          ("b_arm", "box", (0.1, 0.1, 0.4), (0.0, 0.1, 0.5))],
}
GEOMETRY = {"box": "shape box; dimension [{}, {}, {}];", "sphere": "shape sphere; radius {};",
            "cylinder": "shape cylinder; radius {}; height {};"}


def _scene_text(bases: tuple[str, ...] = ("a", "b")) -> str:
    out = []
    for base in bases:
        solids = SOLIDS[base]
        out.append(f"frame {base}_x {{ type prismatic; axis [1, 0, 0]; variable {base}x; "
                   f"limit_position [-1e8, 1e8]; }}\n"
                   f"frame {base}_y {{ parent {base}_x; type prismatic; axis [0, 1, 0]; "
                   f"variable {base}y; limit_position [-1e8, 1e8]; }}\n"
                   f"frame {base} {{ parent {base}_y; type revolute; axis [0, 0, 1]; "
                   f"variable {base}yaw; }}\n")
        for name, kind, size, offset in solids:
            at = ", ".join(map(str, offset))
            out.append(f"frame {name} {{ parent {base}; translation [{at}]; "
                       f"geometry {{ {GEOMETRY[kind].format(*size)} }} }}\n")
    return "".join(out)


def _fcl_object(kind: str, size: tuple, offset: tuple, x: float, y: float, yaw: float):
    """The solid at base pose (x, y, yaw): robray's cylinder stands on its frame's origin."""
    geom = (fcl.Box(*size) if kind == "box" else fcl.Sphere(size[0]) if kind == "sphere"
            else fcl.Cylinder(size[0], size[1]))
    lift = size[1] / 2 if kind == "cylinder" else 0.0
    c, s = math.cos(yaw), math.sin(yaw)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    local = np.array([offset[0], offset[1], offset[2] + lift])
    return fcl.CollisionObject(geom, fcl.Transform(rot, rot @ local + [x, y, 0.0]))


def _reference(q: dict) -> set[tuple[str, str]]:
    """The colliding pairs of solids at configuration q, by python-fcl."""
    objects = {base: [(name, _fcl_object(kind, size, off, q[f"{base}x"], q[f"{base}y"],
                                         q[f"{base}yaw"])) for name, kind, size, off in solids]
               for base, solids in SOLIDS.items()}
    hits = set()
    for na, oa in objects["a"]:
        for nb, ob in objects["b"]:
            if fcl.collide(oa, ob, fcl.CollisionRequest(), fcl.CollisionResult()) > 0:
                hits.add(tuple(sorted((na, nb))))
    return hits


def _contact(direction: float, yaw_a: float, yaw_b: float) -> float:
    """How far from base a base b may come along the direction at the origin before a solid
    of it touches one of a's (bisection on python-fcl's answer)."""
    near, far = 0.0, 3.0
    for _ in range(60):
        mid = (near + far) / 2
        q = {"ax": 0.0, "ay": 0.0, "ayaw": yaw_a, "bx": mid * math.cos(direction),
             "by": mid * math.sin(direction), "byaw": yaw_b}
        near, far = (mid, far) if _reference(q) else (near, mid)
    return far


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    path = tmp_path_factory.mktemp("far") / "bases.robray"
    path.write_text(_scene_text())
    scene = load_scene([str(path)])
    return CollisionChecker(scene, backend="compiled")


def _row(checker, q: dict) -> np.ndarray:
    return np.array([[q[v] for v in checker.variables]])


def test_far_bases_against_fcl(bases) -> None:
    rng = np.random.default_rng(28)
    kernel = bases._kernel
    cases = 0
    for trial in range(40):
        direction, yaw_a, yaw_b = rng.uniform(-math.pi, math.pi, 3)
        reach = _contact(direction, yaw_a, yaw_b)
        far = 10 ** rng.uniform(3, 7)
        heading = rng.uniform(-math.pi, math.pi)
        ax, ay = far * math.cos(heading), far * math.sin(heading)
        for depth in (3e-3, -3e-3):  # into contact, and out of it
            d = reach - depth
            q = {"ax": ax, "ay": ay, "ayaw": yaw_a, "bx": ax + d * math.cos(direction),
                 "by": ay + d * math.sin(direction), "byaw": yaw_b}
            expected = _reference(q)
            assert bool(expected) == (depth > 0), (trial, q)
            row = _row(bases, q)
            state = kernel.check(row[0])
            assert state != 0 or not expected, (trial, far, q, expected)
            assert set(bases.colliding_pairs(row[0])) == expected, (trial, far, q)
            cases += 1
    assert cases == 80


# overlaps placed in closed form at yaw 0: (frame pair, base b's x, y for an overlap depth)
TINY = [
    # b_body (sphere r 0.25) into a_body's +x face (box half 0.3): exact forms in double
    (("a_body", "b_body"), lambda depth: (0.55 - depth, 0.0)),
    # b_arm's -x face (box half 0.05, centred 0.1 along y from b) into a_arm's side
    # (cylinder r 0.05 about x 0.2): a sphere tree against a box
    (("a_arm", "b_arm"), lambda depth: (0.3 - depth, -0.1)),
]


@pytest.mark.parametrize("depth", [1e-8, 1e-7, 1e-6])
def test_tiny_overlaps_are_never_free(bases, depth: float) -> None:
    """Overlaps of 1e-8..1e-6 (past the contact tolerance, 1e-9) are not FREE in C: the
    exact forms in double call them COLLIDES, the sphere trees' float32 margins at least
    MAYBE."""
    for pair, offset in TINY:
        x, y = offset(depth)
        q = {"ax": 0.0, "ay": 0.0, "ayaw": 0.0, "bx": x, "by": y, "byaw": 0.0}
        states = bases._kernel.states(_row(bases, q))[0]
        column = bases.frame_pairs.index(tuple(sorted(pair)))
        mine = states[bases._pfp == column]
        assert len(mine) and (mine != 0).all(), (pair, depth, mine)


def test_nan_and_inf_are_never_free(bases) -> None:
    """A NaN or infinite configuration value is INVALID (3) from NAME_check, never FREE."""
    q = _row(bases, {"ax": 0.0, "ay": 0.0, "ayaw": 0.0, "bx": 5.0, "by": 0.0, "byaw": 0.0})[0]
    assert bases._kernel.check(q) == 0
    for bad in (math.nan, math.inf, -math.inf, 1e300):
        for k in range(len(q)):
            broken = q.copy()
            broken[k] = bad
            if bad == 1e300 and bases.variables[k].endswith("yaw"):
                continue  # a finite angle: any value is a pose
            assert bases._kernel.check(broken) == 3, (bases.variables[k], bad)
            states = bases._kernel.states(broken[None])
            assert (states == 2).all(), (bases.variables[k], bad)


FIXED_AT = (2.0e5, -1.0e5)  # fixed solids far out, as a map's obstacles would be
OBSTACLES = [("o_ball", "sphere", (0.3,), (0.0, 0.0, 0.0)),
             ("o_block", "box", (0.4, 0.4, 1.0), (0.0, 1.5, 0.3))]


def test_far_base_against_far_fixed_solids(tmp_path) -> None:
    """Base a alone among fixed solids 2e5 from the origin: the world's solids are moved into
    the base's frame in double (and their float32 rounding there is the margin's)."""
    x0, y0 = FIXED_AT
    text = _scene_text(("a",)) + "".join(
        f"frame {name} {{ translation [{x0 + off[0]}, {y0 + off[1]}, {off[2]}]; "
        f"geometry {{ {GEOMETRY[kind].format(*size)} }} }}\n"
        for name, kind, size, off in OBSTACLES)
    path = tmp_path / "field.robray"
    path.write_text(text)
    checker = CollisionChecker(load_scene([str(path)]), backend="compiled")
    fixed = [(name, _fcl_object(kind, size, off, x0, y0, 0.0))
             for name, kind, size, off in OBSTACLES]

    def hits(q: dict) -> set[tuple[str, str]]:
        mine = [(name, _fcl_object(kind, size, off, q["ax"], q["ay"], q["ayaw"]))
                for name, kind, size, off in SOLIDS["a"]]
        return {tuple(sorted((na, nb))) for na, oa in mine for nb, ob in fixed
                if fcl.collide(oa, ob, fcl.CollisionRequest(), fcl.CollisionResult()) > 0}

    rng = np.random.default_rng(6)
    for trial in range(20):
        direction, yaw = rng.uniform(-math.pi, math.pi, 2)
        target = (x0, y0 + 1.5 * rng.integers(2))
        near, far = 0.0, 3.0  # from the target along the direction, to the first contact
        for _ in range(50):
            mid = (near + far) / 2
            q = {"ax": target[0] + mid * math.cos(direction),
                 "ay": target[1] + mid * math.sin(direction), "ayaw": yaw}
            near, far = (mid, far) if hits(q) else (near, mid)
        for depth in (3e-3, -3e-3):
            d = far - depth
            q = {"ax": target[0] + d * math.cos(direction),
                 "ay": target[1] + d * math.sin(direction), "ayaw": yaw}
            expected = hits(q)
            assert bool(expected) == (depth > 0), (trial, q)
            row = _row(checker, q)[0]
            assert checker._kernel.check(row) != 0 or not expected, (trial, q, expected)
            assert set(checker.colliding_pairs(row)) == expected, (trial, q)
