"""The collision checker (robrayc.analysis.collision): exact answers on hand-built scenes,
random scenes against a brute-force all-pairs FCL check, allow_collision / `collision 0`,
broad phases, distances, and the real amino checker as an oracle."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from robrayc import ir
from robrayc.analysis.collision import (
    CollisionChecker,
    PoseChecker,
    solid_from_shape,
)
from robrayc.frontend import load_scene
from robrayc.kinematics import fk
from tests.corpus import CORPUS, require_corpus

REPO = Path(__file__).resolve().parents[1]
TET = REPO / "tests" / "conformance" / "tet.obj"
DEMO_7DOF = CORPUS / "amino" / "demo" / "tutorial" / "plugin" / "7dof" / "7dof.robray"

GAP = 1e-6


def scene_from(tmp_path: Path, text: str, name: str = "scene.robray") -> ir.Scene:
    path = tmp_path / name
    path.write_text(text)
    return load_scene([str(path)])


# --- exact answers: every shape pair type, touching / 1e-6 apart / 1e-6 overlapping ---------
#
# Each variant: (geometry, placement inside its rotation frame, max x, -min x). Both extreme
# points in x lie on the x axis, with the solid's interior next to them, so two solids on the
# x axis first touch when the slide between them equals A's max x plus B's -min x; rotating
# either about the x axis keeps that true. Cylinders and cones are placed the amino way (from
# the frame origin along +Z), which trimesh's centred primitives would get wrong.
VARIANTS: dict[str, tuple[str, str, float, float]] = {
    "box": ("shape box; dimension [0.4, 0.6, 0.8];", "", 0.2, 0.2),
    "sphere": ("shape sphere; radius 0.3;", "", 0.3, 0.3),
    "cylinder": ("shape cylinder; radius 0.25; height 0.7;", "translation [0, 0, -0.35];",
                 0.25, 0.25),
    "cylinder-axial": ("shape cylinder; radius 0.25; height 0.7;", "rpy [0, pi/2, 0];",
                       0.7, 0.0),
    "cylinder-neg": ("shape cylinder; radius 0.25; height -0.7;", "rpy [0, pi/2, 0];",
                     0.0, 0.7),
    "cone": ("shape cone; start_radius 0.3; end_radius 0; height 0.5;", "", 0.3, 0.3),
    "cone-neg": ("shape cone; start_radius 0.3; end_radius 0; height -0.5;", "", 0.3, 0.3),
    "cone-apex": ("shape cone; start_radius 0.3; end_radius 0; height 0.5;",
                  "rpy [0, pi/2, 0];", 0.5, 0.0),
    "cone-apex-back": ("shape cone; start_radius 0; end_radius 0.3; height 0.5;",
                       "rpy [0, pi/2, 0];", 0.5, 0.0),
    "frustum": ("shape cone; start_radius 0.3; end_radius 0.15; height 0.4;", "", 0.3, 0.3),
    "frustum-wide-end": ("shape cone; start_radius 0.1; end_radius 0.3; height 0.4;",
                         "translation [0, 0, -0.4];", 0.3, 0.3),
    "frustum-axial": ("shape cone; start_radius 0.3; end_radius 0.15; height -0.4;",
                      "rpy [0, pi/2, 0];", 0.0, 0.4),
    "scaled-cylinder": ("shape cylinder; radius 0.125; height 0.35; scale 2;",
                        "translation [0, 0, -0.35];", 0.25, 0.25),
    "mesh": ('mesh "box.obj";', "", 0.2, 0.2),
}


def _pair_scene(tmp_path: Path, a: str, b: str, rot_a: float, rot_b: float) -> ir.Scene:
    import trimesh

    if "mesh" in (a, b) and not (tmp_path / "box.obj").exists():
        trimesh.creation.box((0.4, 0.6, 0.8)).export(tmp_path / "box.obj")
    ga, pa = VARIANTS[a][:2]
    gb, pb = VARIANTS[b][:2]
    return scene_from(tmp_path, f"""
frame a_rot {{ rpy [{rot_a}, 0, 0]; frame a {{ {pa} geometry {{ {ga} }} }} }}
frame slide {{
    type prismatic; axis [1, 0, 0];
    frame b_rot {{ rpy [{rot_b}, 0, 0]; frame b {{ {pb} geometry {{ {gb} }} }} }}
}}
""")


# Solids that lie wholly on one side of the plane z = 0 of their rotation frame, which holds
# the x axis: "up" and "down" ones meet in that plane only (no overlap) unless rotated apart.
SIDE = {"cone": 1, "frustum": 1, "cone-neg": -1, "frustum-wide-end": -1}
PAIRS = [(a, b) for i, a in enumerate(VARIANTS) for b in list(VARIANTS)[i:]]


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_exact_contact_along_a_joint(tmp_path: Path, a: str, b: str, vector_paths) -> None:
    contact = VARIANTS[a][2] + VARIANTS[b][3]
    for rot_a, rot_b in ((0.0, 0.0), (0.3, -1.1)):
        if rot_a == rot_b and SIDE.get(a, 0) * SIDE.get(b, 0) < 0:
            continue
        checker = CollisionChecker(_pair_scene(tmp_path, a, b, rot_a, rot_b))
        assert checker.colliding_pairs({"slide": contact + GAP}) == [], (rot_a, rot_b)
        assert checker.colliding_pairs({"slide": contact - GAP}) == [("a", "b")], (rot_a, rot_b)
        assert checker.colliding_pairs({"slide": contact + 0.05}) == []
        assert checker.colliding_pairs({"slide": contact - 0.05}) == [("a", "b")]
        if "mesh" not in (a, b):  # touching is not colliding (FCL's triangles may differ)
            assert checker.colliding_pairs({"slide": contact}) == []
        (touching,) = checker.distance({"slide": contact})
        assert abs(touching.distance) < 1e-5, touching
        (apart,) = checker.distance({"slide": contact + 0.05})
        assert apart.distance == pytest.approx(0.05, abs=2e-3)
        # the batch answers the same
        rows = checker.colliding_pairs_batch(np.array([[contact + GAP], [contact - GAP]]))
        assert rows == [[], [("a", "b")]]


def test_exact_contact_through_a_revolute_joint(tmp_path: Path) -> None:
    """A sphere on a 1 m arm swings into a box face at y = 0.6: contact at asin(0.5 / 1)."""
    scene = scene_from(tmp_path, """
frame arm { type revolute; axis [0, 0, 1];
    frame ball { translation [1, 0, 0]; geometry { shape sphere; radius 0.1; } } }
frame wall { translation [0, 0.8, 0]; geometry { shape box; dimension [4, 0.4, 1]; } }
""")
    checker = CollisionChecker(scene)
    theta = math.asin(0.5)
    assert checker.colliding_pairs({"arm": theta - GAP}) == []
    assert checker.colliding_pairs({"arm": theta + GAP}) == [("ball", "wall")]
    assert checker.colliding_pairs({"arm": math.pi - theta - GAP}) == [("ball", "wall")]
    assert checker.colliding_pairs({"arm": math.pi - theta + GAP}) == []
    (d,) = checker.distance({"arm": 0.0})
    assert d.distance == pytest.approx(0.6 - 0.1, abs=1e-12)


def test_cone_placement_differs_from_centred_primitives(tmp_path: Path) -> None:
    """A cone of height 1 from the origin along +Z occupies z in [0, 1]: a ball at z = -0.3
    misses it (a centred cone would reach z = -0.5), one at z = 0.95 near the axis hits only
    if the apex is at +Z, and the frustum's wide end is where start_radius says."""
    scene = scene_from(tmp_path, """
frame cone { geometry { shape cone; start_radius 0.5; end_radius 0; height 1; } }
frame probe { type prismatic; axis [0, 0, 1];
    geometry { shape sphere; radius 0.02; } }
frame frustum { translation [5, 0, 0];
    geometry { shape cone; start_radius 0.5; end_radius 0.1; height -1; } }
frame probe2 { type prismatic; axis [0, 0, 1]; translation [5.4, 0, 0];
    geometry { shape sphere; radius 0.02; } }
""")
    checker = CollisionChecker(scene)
    away = {"probe2": 0.5}
    assert checker.colliding_pairs({"probe": -0.3, **away}) == []
    assert checker.colliding_pairs({"probe": 0.95, **away}) == [("cone", "probe")]
    assert checker.colliding_pairs({"probe": 1.03, **away}) == []
    # frustum: radius 0.5 at z = 0, 0.1 at z = -1; a ball at x = 0.4 is inside near z = 0 only
    away = {"probe": 3.0}
    assert checker.colliding_pairs({"probe2": -0.1, **away}) == [("frustum", "probe2")]
    assert checker.colliding_pairs({"probe2": -0.9, **away}) == []
    assert checker.colliding_pairs({"probe2": 0.1, **away}) == []


def test_solid_placement_matches_amino_convention() -> None:
    cyl = solid_from_shape(ir.Cylinder(height=-2.0, radius=0.5), 1.5)
    assert cyl.params == (0.75, 0.75, 1.5)
    assert cyl.placement[2, 3] == -1.5  # centre at scale * height / 2
    cone = solid_from_shape(ir.Cone(height=2.0, start_radius=0.0, end_radius=1.0))
    assert cone.params == (1.0, 0.0, 1.0)
    assert cone.placement[:3, :3] @ np.array([0, 0, 1.0]) == pytest.approx([0, 0, -1])
    assert solid_from_shape(ir.Grid((1, 1), (0.1, 0.1), 0.01)) is None


# --- skipping rules -------------------------------------------------------------------------


def test_allow_collision_collision_0_and_same_frame_are_skipped(tmp_path: Path) -> None:
    body = """
frame a { geometry { shape box; dimension [1, 1, 1]; }
          geometry { shape sphere; radius 0.6; } }
frame b { translation [0.5, 0, 0]; geometry { shape sphere; radius 0.3; } }
frame c { translation [0.5, 0.4, 0]; geometry { shape sphere; radius 0.3; } }
frame d { translation [0, 0, 0.5]; geometry { shape sphere; radius 0.3; collision 0; } }
frame e { translation [0, 0, -0.5]; geometry { shape grid; dimension [1, 1]; delta [0.1, 0.1];
          thickness 0.1; } }
"""
    plain = CollisionChecker(scene_from(tmp_path, body, "plain.robray"))
    assert plain.colliding_pairs() == [("a", "b"), ("a", "c"), ("b", "c")]
    allowed = CollisionChecker(scene_from(tmp_path, body + "allow_collision b a;\n",
                                          "allowed.robray"))
    assert allowed.colliding_pairs() == [("a", "c"), ("b", "c")]
    ignoring = CollisionChecker(scene_from(tmp_path, body + "allow_collision b a;\n",
                                           "allowed2.robray"), use_allowed=False)
    assert ignoring.colliding_pairs() == [("a", "b"), ("a", "c"), ("b", "c")]
    assert "d" not in plain.collision_frames and "e" not in plain.collision_frames
    only = CollisionChecker(scene_from(tmp_path, body, "only.robray"),
                            frame_pairs=[("c", "b")])
    assert only.colliding_pairs() == [("b", "c")]
    assert only.frame_pairs == [("b", "c")]


# --- random scenes against a brute-force all-pairs FCL check --------------------------------


def _random_unit(rng: np.random.Generator) -> np.ndarray:
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


def _random_shape(rng: np.random.Generator, frusta: bool) -> ir.Shape:
    kind = rng.choice(["box", "sphere", "cylinder", "cone", "mesh"] + (["frustum"] * 2
                                                                        if frusta else []))
    if kind == "box":
        return ir.Box(tuple(rng.uniform(0.05, 0.5, 3)))
    if kind == "sphere":
        return ir.Sphere(float(rng.uniform(0.03, 0.3)))
    height = float(rng.uniform(0.1, 0.6)) * rng.choice([-1.0, 1.0])
    r = float(rng.uniform(0.03, 0.3))
    if kind == "cylinder":
        return ir.Cylinder(height, r)
    if kind == "cone":
        return ir.Cone(height, r, 0.0) if rng.random() < 0.5 else ir.Cone(height, 0.0, r)
    if kind == "frustum":
        return ir.Cone(height, r, float(rng.uniform(0.02, 0.3)))
    return ir.Mesh(str(TET), "tet.obj", tuple(rng.uniform(0.1, 0.3, 3)))


def random_scene(rng: np.random.Generator, n_frames: int = 9, frusta: bool = False) -> ir.Scene:
    frames = []
    for i in range(n_frames):
        parent = None if i == 0 or rng.random() < 0.25 else f"f{rng.integers(i)}"
        kind = str(rng.choice(["fixed", "revolute", "prismatic"]))
        q = rng.normal(size=4)
        geoms = tuple(
            ir.Geometry(_random_shape(rng, frusta), collision=bool(rng.random() < 0.9),
                        scale=float(rng.choice([1.0, 1.0, 1.5])))
            for _ in range(int(rng.integers(0, 3))))
        frames.append(ir.Frame(
            name=f"f{i}", parent=parent, kind=kind,  # type: ignore[arg-type]
            translation=tuple(rng.uniform(-0.5, 0.5, 3)),
            quaternion=tuple(q / np.linalg.norm(q)),
            axis=tuple(_random_unit(rng)) if kind != "fixed" else None,
            variable=f"f{i}" if kind != "fixed" else None,
            offset=float(rng.uniform(-0.5, 0.5)) if kind != "fixed" else 0.0,
            geometries=geoms))
    allowed = set()
    for _ in range(2):
        a, b = sorted(rng.choice(n_frames, 2, replace=False).tolist())
        allowed.add(ir.AllowedCollision(f"f{a}", f"f{b}"))
    return ir.Scene(frames=tuple(frames), allowed=tuple(sorted(allowed, key=lambda p: (p.a,
                                                                                       p.b))))


def _fcl_objects(scene: ir.Scene, config: dict[str, float]):
    """FCL objects of every collision geometry, placed from fk() (the reference kinematics)
    and amino's convention written out independently: (frame, object, frustum hulls | None)."""
    import fcl
    import trimesh

    poses = fk(scene, config)
    out = []
    for f in scene.frames:
        for g in f.geometries:
            if not g.collision or isinstance(g.shape, ir.Grid):
                continue
            s, sh = g.scale, g.shape
            local = np.eye(4)
            hulls = None
            if isinstance(sh, ir.Box):
                geom = fcl.Box(*(d * s for d in sh.dimension))
            elif isinstance(sh, ir.Sphere):
                geom = fcl.Sphere(sh.radius * s)
            elif isinstance(sh, ir.Cylinder):
                geom = fcl.Cylinder(sh.radius * s, abs(sh.height) * s)
                local[2, 3] = sh.height * s / 2
            elif isinstance(sh, ir.Cone):
                h, r0, r1 = sh.height * s, sh.start_radius * s, sh.end_radius * s
                local[2, 3] = h / 2
                apex_up = (h > 0) == (r1 == 0)  # FCL's apex is at +z
                if not apex_up:
                    local[:3, :3] = np.diag([1.0, -1.0, -1.0])
                if r0 and r1:  # frustum: FCL has none; bracket it between polygon hulls
                    ang = np.linspace(0, 2 * np.pi, 48, endpoint=False)
                    ring = np.stack([np.cos(ang), np.sin(ang), np.zeros_like(ang)], 1)
                    hulls = []
                    for grow in (1.0, 1 / np.cos(np.pi / 48)):
                        pts = np.concatenate([ring * r0 * grow + [0, 0, 0],
                                              ring * r1 * grow + [0, 0, h]])
                        hull = trimesh.convex.convex_hull(pts)
                        faces = np.hstack([np.full((len(hull.faces), 1), 3), hull.faces])
                        hulls.append(fcl.Convex(hull.vertices, len(hull.faces), faces.ravel()))
                    local = np.eye(4)
                    geom = None
                else:
                    geom = fcl.Cone(max(r0, r1), abs(h))
            else:
                mesh = trimesh.load(sh.path, force="mesh", process=False)
                bvh = fcl.BVHModel()
                v = np.asarray(mesh.vertices) * np.asarray(sh.scale3) * s
                bvh.beginModel(len(v), len(mesh.faces))
                bvh.addSubModel(v, np.asarray(mesh.faces))
                bvh.endModel()
                geom = bvh
            T = poses[f.name] @ local
            tf = fcl.Transform(T[:3, :3], T[:3, 3])
            if hulls is not None:
                out.append((f.name, None, [fcl.CollisionObject(h, tf) for h in hulls]))
            else:
                out.append((f.name, fcl.CollisionObject(geom, tf), None))
    return out


def brute_force(scene: ir.Scene, config: dict[str, float]) -> tuple[set, set]:
    """(certainly colliding, possibly colliding) frame pairs by all-pairs FCL; the two differ
    only through frusta (inner vs outer polygon hull)."""
    import fcl

    objs = _fcl_objects(scene, config)
    allowed = {(p.a, p.b) for p in scene.allowed}
    sure, maybe = set(), set()

    def hit(o1, o2) -> bool:
        return fcl.collide(o1, o2, fcl.CollisionRequest(), fcl.CollisionResult()) > 0

    for i in range(len(objs)):
        for j in range(i + 1, len(objs)):
            (fa, oa, ha), (fb, ob, hb) = objs[i], objs[j]
            pair = (min(fa, fb), max(fa, fb))
            if fa == fb or pair in allowed:
                continue
            inner_a, outer_a = (ha if ha else (oa, oa))
            inner_b, outer_b = (hb if hb else (ob, ob))
            if hit(inner_a, inner_b):
                sure.add(pair)
            if hit(outer_a, outer_b):
                maybe.add(pair)
    return sure, maybe


def _near_contact(scene: ir.Scene, config: dict[str, float], pairs: set) -> set:
    """Pairs within 1e-7 of touching, where FCL's GJK tolerance may flip the answer."""
    checker = CollisionChecker(scene)
    return {(p.a, p.b) for p in checker.distance(config, pairs) if abs(p.distance) < 1e-7}


@pytest.fixture(params=["scalar-first", "vectorised"])
def vector_paths(request, monkeypatch) -> None:
    """Run a test as shipped (few undecided pairs go straight to FCL/GJK) and with every
    vectorised certificate forced on, so both paths are checked against the brute force."""
    if request.param == "vectorised":
        from robrayc.analysis.collision import narrow

        monkeypatch.setattr(narrow, "_VECTOR_MIN", 0)
        monkeypatch.setattr(narrow, "_AXIS_MIN", 0)
        monkeypatch.setattr(narrow, "_SAT_MIN", 0)


@pytest.mark.parametrize("seed", range(12))
def test_random_scenes_match_brute_force_fcl(seed: int, vector_paths) -> None:
    rng = np.random.default_rng(seed)
    scene = random_scene(rng)
    dense = CollisionChecker(scene)
    spheres = CollisionChecker(scene, broadphase="kd")  # the broad phase of big scenes
    configs = rng.uniform(-np.pi, np.pi, (12, len(scene.variables)))
    batch = dense.colliding_pairs_batch(configs)
    for row, q in zip(batch, configs, strict=True):
        config = dict(zip(scene.variables, q.tolist(), strict=True))
        sure, maybe = brute_force(scene, config)
        assert sure == maybe  # no frusta here
        ours = set(dense.colliding_pairs(config))
        odd = ours ^ sure
        assert not odd or odd <= _near_contact(scene, config, odd), (seed, config, odd)
        assert set(row) == ours
        assert set(spheres.colliding_pairs(q)) == ours


@pytest.mark.parametrize("seed", range(6))
def test_random_scenes_with_frusta_within_polygon_hulls(seed: int, vector_paths) -> None:
    rng = np.random.default_rng(100 + seed)
    scene = random_scene(rng, n_frames=7, frusta=True)
    checker = CollisionChecker(scene)
    for q in rng.uniform(-np.pi, np.pi, (10, len(scene.variables))):
        config = dict(zip(scene.variables, q.tolist(), strict=True))
        sure, maybe = brute_force(scene, config)
        ours = set(checker.colliding_pairs(config))
        assert sure <= ours <= maybe, (seed, config, sure - ours, ours - maybe)


def test_frustum_exact_against_a_fine_inner_hull() -> None:
    """Between a 48-gon's inner and outer hulls the exact frustum decides: a ball just inside
    the true rim (outside the inscribed polygon) collides; one just outside it does not."""
    scene = ir.Scene(frames=(
        ir.Frame("fr", geometries=(ir.Geometry(ir.Cone(1.0, 1.0, 0.5)),)),
        ir.Frame("ball", kind="prismatic", axis=(1.0, 0.0, 0.0), variable="x",
                 translation=(0.0, 0.0, 0.5),
                 quaternion=(0.0, 0.0, math.sin(np.pi / 96), math.cos(np.pi / 96)),
                 geometries=(ir.Geometry(ir.Sphere(0.01)),)),
    ))
    checker = CollisionChecker(scene)
    # The frustum's radius is 0.75 at z = 0.5 and its side leans by atan(0.5): the ball touches
    # it with its centre 0.01 * sqrt(1.25) further out. Its x axis points at the middle of an
    # edge of the 48-gons, 1.6 mm inside the true rim.
    touch = 0.75 + 0.01 * math.sqrt(1.25)
    assert checker.colliding_pairs({"x": touch - 1e-6}) == [("ball", "fr")]
    assert checker.colliding_pairs({"x": touch + 1e-6}) == []
    (d,) = checker.distance({"x": touch + 0.001})
    assert d.distance == pytest.approx(0.001 / math.sqrt(1.25), abs=1e-9)


def test_big_scene_sparse_mode_matches_dense() -> None:
    """500 static solids (a 'room') and a moving 3-joint arm: too many pairs for the dense
    mode, so the kd-tree mode runs per configuration; it must agree with a forced dense build,
    constant (static-static) pairs included, and honour allow_collision."""
    rng = np.random.default_rng(11)
    frames = []
    for i in range(500):
        shape = (ir.Box(tuple(rng.uniform(0.1, 0.4, 3))) if i % 3 == 0 else
                 ir.Sphere(float(rng.uniform(0.05, 0.2))) if i % 3 == 1 else
                 ir.Cylinder(float(rng.uniform(0.1, 0.5)), float(rng.uniform(0.05, 0.2))))
        q = rng.normal(size=4)
        frames.append(ir.Frame(f"s{i}", translation=tuple(rng.uniform(-2.5, 2.5, 3)),
                               quaternion=tuple(q / np.linalg.norm(q)),
                               geometries=(ir.Geometry(shape),)))
    parent = None
    for k in range(3):
        frames.append(ir.Frame(f"j{k}", parent=parent, kind="revolute", axis=(0.0, 0.0, 1.0)
                               if k != 1 else (0.0, 1.0, 0.0), variable=f"j{k}",
                               translation=(0.0, 0.0, 0.0) if k == 0 else (1.0, 0.0, 0.0),
                               geometries=(ir.Geometry(ir.Cylinder(1.0, 0.1)),)))
        parent = f"j{k}"
    allowed = (ir.AllowedCollision("s0", "s3"), ir.AllowedCollision("j2", "s7"))
    scene = ir.Scene(frames=tuple(frames), allowed=allowed)
    sparse = CollisionChecker(scene)
    assert sparse.mode == "kd"
    dense = CollisionChecker(scene, broadphase="dense")
    configs = rng.uniform(-np.pi, np.pi, (8, 3))
    got = sparse.colliding_pairs_batch(configs)
    assert got == dense.colliding_pairs_batch(configs)
    assert all(("s0", "s3") not in row for row in got)
    assert any(p[0].startswith("j") or p[1].startswith("j") for row in got for p in row)
    assert len(got[0]) > 50  # plenty of static contacts


# --- broad phases ---------------------------------------------------------------------------


def test_pose_checker_matches_all_pairs_fcl() -> None:
    import fcl

    rng = np.random.default_rng(5)
    shapes = [ir.Box(tuple(rng.uniform(0.2, 1, 3))) if k == 0 else
              ir.Sphere(float(rng.uniform(0.1, 0.5))) if k == 1 else
              ir.Cylinder(float(rng.uniform(0.2, 1)), float(rng.uniform(0.1, 0.5)))
              for k in rng.integers(0, 3, 300)]
    solids = [solid_from_shape(s) for s in shapes]
    poses = np.tile(np.eye(4), (len(shapes), 1, 1))
    for T in poses:
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        T[:3, :3] = _quat_matrix(q)
        T[:3, 3] = rng.uniform(0, 6, 3)
    checker = PoseChecker(solids)
    i, j = checker.colliding(poses)
    objs = []
    for s, sh, T in zip(solids, shapes, poses, strict=True):
        W = T @ s.placement
        geom = (fcl.Box(*sh.dimension) if isinstance(sh, ir.Box) else
                fcl.Sphere(sh.radius) if isinstance(sh, ir.Sphere) else
                fcl.Cylinder(sh.radius, sh.height))
        objs.append(fcl.CollisionObject(geom, fcl.Transform(W[:3, :3], W[:3, 3])))
    want = {(a, b) for a in range(len(objs)) for b in range(a + 1, len(objs))
            if fcl.collide(objs[a], objs[b], fcl.CollisionRequest(), fcl.CollisionResult())}
    assert set(zip(i.tolist(), j.tolist(), strict=True)) == want
    assert len(want) > 20


def _quat_matrix(q: np.ndarray) -> np.ndarray:
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


# --- the 7dof demo --------------------------------------------------------------------------


def test_7dof_demo_pairs_and_batch() -> None:
    require_corpus()
    scene = load_scene([str(DEMO_7DOF)])
    checker = CollisionChecker(scene)
    assert "grid" not in checker.collision_frames and "hand" in checker.collision_frames
    zero = checker.colliding_pairs()
    assert ("s0", "upper-link") in zero and ("f0", "f0tip") in zero
    # the finger base rests on the palm: touching, not colliding
    assert ("f0", "hand") not in zero
    assert abs(checker.distance({}, [("f0", "hand")])[0].distance) < 1e-12
    bent = checker.colliding_pairs({"e": 2.6})  # the forearm folds back onto the upper arm
    assert ("lower-link", "upper-link") in bent
    rng = np.random.default_rng(3)
    configs = rng.uniform(-np.pi, np.pi, (300, len(scene.variables)))
    batch = checker.colliding_pairs_batch(configs)
    assert batch == [checker.colliding_pairs(q) for q in configs]
    matrix = checker.collision_matrix(configs)
    names = checker.frame_pairs
    assert [sorted(tuple(sorted(names[k])) for k in np.flatnonzero(r)) for r in matrix] == batch
    assert checker.in_collision(configs).all()  # adjacent links always touch
    closest = checker.closest({"e": 2.6}, k=2)
    assert closest[0].distance <= closest[1].distance < 0


def test_config_errors() -> None:
    require_corpus()
    checker = CollisionChecker(load_scene([str(DEMO_7DOF)]))
    with pytest.raises(KeyError, match="unknown configuration variable 'nope'"):
        checker.colliding_pairs({"nope": 1.0})
    with pytest.raises(ValueError, match=r"\(N, 10\)"):
        checker.collision_matrix(np.zeros((3, 4)))


# --- the real amino checker as an oracle ----------------------------------------------------


@pytest.mark.parametrize("backend", ["exact", "compiled"])
def test_against_amino_fcl_checker(tmp_path: Path, backend: str) -> None:
    """amino's own FCL checker (check_scene --collide) on the 7dof demo at seeded random
    configurations: the same pairs, except those with the cone (amino skips cones); the
    compiled checker (generated C, certified spheres) too."""
    require_corpus()
    from tests import amino_real

    amino_real.require_library()
    out_c = tmp_path / "sevendof.c"
    compiled = amino_real.run_robrayc([DEMO_7DOF], "sevendof", out_c)
    assert compiled.ok, compiled.output
    binary = amino_real.check_binary(out_c, "sevendof")
    scene = load_scene([str(DEMO_7DOF)])
    checker = CollisionChecker(scene, backend=backend)
    configs = [{}] + amino_real.random_configs(scene.variables, range(25))
    for config in configs:
        theirs = amino_real.run_check(binary, config, collide=True)
        ours = [p for p in checker.colliding_pairs(config) if "hand" not in p]
        assert ours == sorted(tuple(p) for p in theirs["collisions"]), config
        for a, b, d in theirs["distances"]:
            if "hand" in (a, b) or d < 0:
                continue  # amino has no cone; its penetration depths are estimates
            (mine,) = checker.distance(config, [(a, b)])
            assert mine.distance == pytest.approx(d, rel=0.02, abs=1e-6), (a, b, config)


@pytest.mark.parametrize("seed", range(6))
def test_dense_broad_phase_matches_full_poses(seed: int, monkeypatch) -> None:
    """The dense broad phase computes only moving solids' centres per configuration (fixed
    ones once): its candidates must be the bounding-sphere test on every solid's full pose.
    Its enclosing-capsule rejection must not change any answer."""
    rng = np.random.default_rng(100 + seed)
    checker = CollisionChecker(random_scene(rng, n_frames=12, frusta=bool(seed % 2)))
    if not len(checker._pi):
        pytest.skip("no moving pair in this scene")
    configs = rng.uniform(-np.pi, np.pi, (40, len(checker.variables)))
    centres = checker._solid_poses(configs)[:, :, :3, 3]
    d = centres[:, checker._pi] - centres[:, checker._pj]
    reach = checker.solids.brad[checker._pi] + checker.solids.brad[checker._pj]
    d2 = (d * d).sum(axis=2)
    cn, cp, CE = checker._near(checker.group_poses(configs))
    near = np.zeros_like(d2, dtype=bool)
    near[cn, cp] = True
    assert len(cn) == near.sum()  # each candidate once
    assert not (d2 <= reach ** 2)[~near].any()  # no pair whose spheres meet is missed
    c2 = float((centres * centres).sum(axis=2).max())
    assert (d2 <= reach ** 2 * (1 + 1e-6) + 1e-5 * (4 * c2 + 1))[near].all()  # only rounding
    used = np.flatnonzero(checker._slot >= 0)
    rows = np.repeat(np.arange(len(configs)), len(used))
    ((world, _),) = checker.world_centres(CE, rows, np.tile(used, len(configs)))
    assert np.allclose(world, centres[:, used].reshape(-1, 3), rtol=0, atol=1e-12)
    fast = checker.collision_matrix(configs)
    monkeypatch.setattr(CollisionChecker, "_capsules_apart",
                        lambda self, CE, cn, a, b: np.zeros(len(cn), dtype=bool))
    assert (checker.collision_matrix(configs) == fast).all()
    assert checker.frame_pairs == checker.frame_pairs and checker.frame_pairs is not \
        checker.frame_pairs  # cached names, handed out as a fresh list each time


def test_pairs_out_of_reach_are_never_near() -> None:
    """The dense checker drops (fixed, moving) solid pairs that the moving solid's revolute
    chain can never bring together: at any angles (far outside the limits too) their bounding
    spheres stay apart, and the answers equal a check over every pair."""
    require_corpus()
    demo = load_scene([str(DEMO_7DOF)])
    rng = np.random.default_rng(21)
    boxes = tuple(ir.Frame(f"box{k}", translation=tuple(rng.uniform(-2.0, 2.0, 3).tolist()),
                           geometries=(ir.Geometry(ir.Box((0.2, 0.3, 0.4))),))
                  for k in range(30))
    scene = ir.Scene(frames=demo.frames + boxes, allowed=demo.allowed)
    checker = CollisionChecker(scene)
    every = set(zip(*(p.tolist() for p in checker.loop_pairs), strict=True))
    kept = set(zip(checker._pi.tolist(), checker._pj.tolist(), strict=True))
    dropped = np.array(sorted(every - kept)).reshape(-1, 2)
    assert kept <= every and 20 < len(dropped) < len(every)
    configs = rng.uniform(-4 * np.pi, 4 * np.pi, (4000, len(scene.variables)))
    centres = checker._solid_poses(configs)[:, :, :3, 3]
    d = centres[:, dropped[:, 0]] - centres[:, dropped[:, 1]]
    reach = checker.solids.brad[dropped[:, 0]] + checker.solids.brad[dropped[:, 1]]
    assert ((d * d).sum(axis=2) > reach ** 2).all()
    pairs = [tuple(p) for p in checker.frame_pairs]
    assert (checker.collision_matrix(configs[:500]) ==
            CollisionChecker(scene, frame_pairs=pairs, broadphase="kd")
            .collision_matrix(configs[:500])).all()
