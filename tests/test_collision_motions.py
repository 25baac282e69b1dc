"""What a planner asks (robrayc/c/motions.c, analysis/collision/motions.py): batches that stop
at a configuration's first certain collision, one configuration or motion per call, and
straight-line motions sampled in VAMP's raked order. The generated C is built under strict gcc
and its motion answer compared with its own answers sample by sample; the Python answers are
compared with the exact checker's on corpus robots among random boxes."""

from __future__ import annotations

import ctypes
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

from robrayc import ir
from robrayc.analysis import acm
from robrayc.analysis.collision import CollisionChecker
from robrayc.kinematics import rigid_groups, sample_ranges
from tests.backends.test_c_checker import needs_cc
from tests.corpus import ros_package_path
from tests.urdf_robots import load, robot_path

STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
FREE, COLLIDES, MAYBE, INVALID = 0, 1, 2, 3


def among_boxes(key: str, seed: int, boxes: int = 12) -> ir.Scene:
    """A corpus robot among random fixed boxes, its self pairs allowed as a short
    allowed-collisions run finds them, fixed geometry against fixed geometry allowed."""
    with pytest.MonkeyPatch.context() as patch:  # the corpus packages, for the meshes
        patch.setenv("ROS_PACKAGE_PATH", ros_package_path())
        scene = load([robot_path(key)])
    allowed = tuple(ir.AllowedCollision(p.a, p.b)
                    for p in acm.generate(scene, samples=300, jobs=1).allowed)
    rng = np.random.default_rng(seed)
    frames = list(scene.frames)
    while len(frames) < len(scene.frames) + boxes:
        centre = rng.uniform(-1.0, 1.0, 3) * (1.0, 1.0, 0.7) + (0, 0, 0.5)
        if np.hypot(centre[0], centre[1]) < 0.35:  # not through the robot's base
            continue
        q = rng.normal(size=4)
        frames.append(ir.Frame(name=f"obstacle{len(frames)}", parent=None, kind="fixed",
                               translation=tuple(centre.tolist()),
                               quaternion=tuple((q / np.linalg.norm(q)).tolist()),
                               geometries=(ir.Geometry(ir.Box(tuple(
                                   rng.uniform(0.05, 0.3, 3).tolist()))),)))
    group = rigid_groups(ir.Scene(frames=tuple(frames))).group
    fixed = sorted(f.name for f, g in zip(frames, group, strict=True) if g == 0)
    allowed += tuple(ir.AllowedCollision(a, b) for i, a in enumerate(fixed)
                     for b in fixed[i + 1:])
    return ir.Scene(frames=tuple(frames), allowed=allowed, sources=scene.sources)


def raked(a: np.ndarray, b: np.ndarray, resolution: float) -> np.ndarray:
    """The samples of a -> b in the order the C takes them, written out from the definition
    (VAMP's validate_motion): n = max(1, ceil(|b - a| resolution / 8)) steps a rake; the rakes
    r = 1..8 end at t = r / 8 and step back by 1 / (8 n) together; then a."""
    n = max(1, math.ceil(math.sqrt(float(((b - a) ** 2).sum())) * resolution / 8))
    out = []
    for step in range(n):
        for r in range(1, 9):
            t = (r * n - step) / (8 * n)
            out.append((1 - t) * a + t * b)
    return np.array([*out, a])


def block_answers(each: list[int]) -> set[int]:
    """What a motion may answer, given its samples' answers in raked order: those that are not
    FREE of the first block of eight (a step of the eight rakes, checked together; the start
    a alone, last) that holds one (the C answers first the samples its lanes find colliding
    for certain), else FREE."""
    for k in range(0, len(each), 8):
        found = {int(x) for x in each[k:k + 8] if x != FREE}
        if found:
            return found
    return {FREE}


def configurations(scene: ir.Scene, n: int, seed: int) -> np.ndarray:
    lo, hi = sample_ranges(scene)
    return lo + np.random.default_rng(seed).random((n, len(lo))) * (hi - lo)


def next_to_free_edge(kernel, q: np.ndarray, count: int, rng: np.random.Generator
                      ) -> np.ndarray:
    """Configurations a hair from where NAME_check's answer leaves FREE: the first `count`
    FREE and not-FREE configurations of q paired, bisected 40 times on the C's own answer
    (so on the edge of its bands), both ends then moved by 0, 1e-7, 1e-5 and 1e-3 in random
    directions."""
    state = np.array([kernel.check_one(row) for row in q])
    near = []
    for a, b in zip(q[state == 0][:count], q[state != 0][:count], strict=False):
        for _ in range(40):
            m = (a + b) / 2
            a, b = (m, b) if kernel.check_one(m) == 0 else (a, m)
        for scale in (0.0, 1e-7, 1e-5, 1e-3):
            step = scale * rng.normal(size=len(a))
            near += [a + step, b + step]
    return np.array(near)


@pytest.fixture(scope="module")
def ur5() -> ir.Scene:
    return among_boxes("ur5", seed=3)


def strict_library(checker: CollisionChecker, tmp_path: Path) -> ctypes.CDLL:
    """The generated checker (one file) built under strict gcc as a shared library; without
    its exact mesh tests (convex.c), so that its answers hold MAYBE too."""
    from robrayc.analysis.collision.compiled import c_source

    source, _ = c_source(checker, "rb", cells=False, mesh_tests=False)
    (tmp_path / "rb.c").write_text(source)
    lib = tmp_path / "rb.so"
    run = subprocess.run(["gcc", *STRICT, "-O2", "-march=native", "-fPIC", "-shared", "-o",
                          str(lib), str(tmp_path / "rb.c"), "-lm"], capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr
    out = ctypes.CDLL(str(lib))
    p, d, n = ctypes.c_void_p, ctypes.c_double, ctypes.c_long
    for name, args, result in (("rb_check", (p,), ctypes.c_int),
                               ("rb_check_batch", (p, n, p), n),
                               ("rb_check_motion", (p, p, d), ctypes.c_int),
                               ("rb_check_motions", (p, p, n, d, p), n),
                               ("rb_motion_samples", (p, p, d), n),
                               ("rb_motion_configs", (p, p, d, p), n)):
        fn = getattr(out, name)
        fn.argtypes, fn.restype = args, result
    return out


def _at(x: np.ndarray) -> int:
    """The address of an array the C reads or writes in place (no copy made: it would be
    freed before the call)."""
    assert x.flags.c_contiguous and x.dtype in (np.float64, np.int32)
    return x.ctypes.data


@needs_cc
@pytest.mark.slow
def test_generated_motion_check_is_its_samples_checked_one_by_one(ur5: ir.Scene,
                                                                   tmp_path: Path) -> None:
    """NAME_check_motion answers as a sample that is not FREE of the first block of eight
    (its samples written out here from the definition, in raked order, as NAME_motion_configs
    lists them) that holds one, else FREE; the batches answer as one call each."""
    lib = strict_library(CollisionChecker(ur5), tmp_path)
    q = configurations(ur5, 120, seed=1)
    # long motions (most collide somewhere), short ones (most free), and very short ones
    starts = np.concatenate([q[:40], q[40:80], q[80:120]])
    ends = np.concatenate([q[40:80], q[40:80] + 0.2 * (q[:40] - q[40:80]),
                           q[80:120] + 1e-3])
    seen = set()
    for resolution in (32.0, 4.0):
        answers = []
        for a, b in zip(starts, ends, strict=True):
            samples = raked(a, b, resolution)
            assert lib.rb_motion_samples(_at(a), _at(b), resolution) == len(samples)
            got = np.empty_like(samples)
            assert lib.rb_motion_configs(_at(a), _at(b), resolution, _at(got)) == len(samples)
            assert np.allclose(got, samples, rtol=0, atol=1e-12)
            each = [lib.rb_check(_at(s)) for s in samples]
            answers.append(lib.rb_check_motion(_at(a), _at(b), resolution))
            assert answers[-1] in block_answers(each)
        seen |= set(answers)
        out = np.empty(len(starts), dtype=np.int32)
        open_ = lib.rb_check_motions(_at(starts), _at(ends), len(starts), resolution, _at(out))
        assert out.tolist() == answers and open_ == sum(x != FREE for x in answers)
    assert seen == {FREE, COLLIDES, MAYBE}, seen  # the motions tell the three apart
    out = np.empty(len(q), dtype=np.int32)
    lib.rb_check_batch(_at(q), len(q), _at(out))
    assert out.tolist() == [lib.rb_check(_at(row)) for row in q]


@needs_cc
@pytest.mark.slow
def test_generated_motion_check_refuses_what_it_cannot_sample(ur5: ir.Scene,
                                                              tmp_path: Path) -> None:
    """INVALID, never FREE: a value that is not a finite number (start, end, or a length that
    overflows), a resolution that is not positive, more than 2^30 samples."""
    lib = strict_library(CollisionChecker(ur5), tmp_path)
    a = b = configurations(ur5, 1, seed=2)[0]
    for x, y, resolution in ((a, b, 0.0), (a, b, -1.0), (a, b, math.nan), (a, b, math.inf),
                             (a + math.nan, b, 32.0), (a, b + math.inf, 32.0),
                             (a, b + 1e308, 32.0), (a, b + 1e3, 1e9)):
        assert lib.rb_check_motion(_at(x), _at(y), resolution) == INVALID
        assert lib.rb_motion_samples(_at(x), _at(y), resolution) == 0
    bad = np.array([a, a + math.nan])
    out = np.empty(2, dtype=np.int32)
    lib.rb_check_batch(_at(bad), 2, _at(out))
    assert out[1] == INVALID


@needs_cc
@pytest.mark.slow
@pytest.mark.parametrize("key", ["ur5", "fetch"])
def test_compiled_planner_queries_answer_as_the_exact_checker(key: str, ur5: ir.Scene) -> None:
    """in_collision (each configuration stopping at its first certain collision, MAYBE ones
    resolved exactly), check (one call) and check_motion(s) give the exact checker's answers
    on a corpus robot among random boxes: never free where the exact checker collides."""
    scene = ur5 if key == "ur5" else among_boxes(key, seed=5)
    exact = CollisionChecker(scene)
    compiled = CollisionChecker(scene, backend="compiled", cells=False)
    q = configurations(scene, 400, seed=7)
    truth = exact.in_collision(q)
    assert 0 < truth.sum() < len(q)
    assert (compiled.in_collision(q) == truth).all()
    assert [compiled.check(row) for row in q[:100]] == truth[:100].tolist()
    assert [compiled.check(row.tolist()) for row in q[:20]] == truth[:20].tolist()
    assert compiled.check(dict(zip(scene.variables, q[0], strict=True))) == truth[0]
    # motions of about VAMP's length (33 samples at resolution 32), some from a colliding
    # start
    a = q[:40]
    b = a + 0.1 * (q[40:80] - a) / np.linalg.norm(q[40:80] - a, axis=1)[:, None] * 8
    motions = np.array([exact.in_collision(raked(x, y, 32.0)).any()
                        for x, y in zip(a, b, strict=True)])
    assert 0 < motions.sum() < len(a)
    assert (exact.check_motions(a, b) == motions).all()
    assert (compiled.check_motions(a, b) == motions).all()
    assert [compiled.check_motion(x, y) for x, y in zip(a, b, strict=True)] == \
        motions.tolist()


# A ball 1 m out on an arm touches a post at angle 0 only.
ARM = """
frame arm { type revolute; axis [0, 0, 1]; limit_position [-pi, pi];
    frame ball { translation [1, 0, 0]; geometry { shape sphere; radius 0.1; } } }
frame post { translation [1, 0, 0.12]; geometry { shape box; dimension [0.1, 0.1, 0.1]; } }
"""


def _arm(tmp_path: Path) -> ir.Scene:
    from robrayc.frontend import load_scene

    path = tmp_path / "arm.robray"
    path.write_text(ARM)
    return load_scene([str(path)])


@pytest.mark.parametrize("backend", ["exact", pytest.param("compiled", marks=needs_cc)])
def test_a_motion_from_a_colliding_start_collides(tmp_path: Path, backend: str) -> None:
    """VAMP leaves the start to its caller; check_motion checks it: a motion whose only
    colliding configuration is its start is not free."""
    checker = CollisionChecker(_arm(tmp_path), backend=backend)
    assert checker.check([0.0]) and not checker.check([0.5])
    # resolution 1: 9 samples, t = 1/8 (0.39 rad) the nearest to the start
    assert checker.check_motion([0.0], [math.pi], resolution=1.0)
    assert not checker.check_motion([0.5], [math.pi], resolution=1.0)
    assert checker.check_motion([0.5], [-0.5], resolution=32.0)  # through the post
    assert checker.check_motions([[0.0], [0.5]], [[math.pi], [math.pi]], 1.0).tolist() == \
        [True, False]


@pytest.mark.parametrize("backend", ["exact", pytest.param("compiled", marks=needs_cc)])
def test_planner_queries_refuse_bad_input(tmp_path: Path, backend: str) -> None:
    checker = CollisionChecker(_arm(tmp_path), backend=backend)
    for bad in (math.nan, math.inf):
        with pytest.raises(ValueError, match="not a finite number"):
            checker.check([bad])
        with pytest.raises(ValueError, match="not a finite number"):
            checker.check_motion([0.5], [bad])
    for resolution in (0.0, -1.0, math.nan, "32"):
        with pytest.raises(ValueError, match="resolution must be a positive number"):
            checker.check_motion([0.5], [1.0], resolution=resolution)
    with pytest.raises(ValueError, match="samples"):
        checker.check_motion([0.5], [1e300], resolution=1.0)
    with pytest.raises(ValueError, match=r"must be \(N, 1\)"):
        checker.check([0.5, 0.5])
    with pytest.raises(ValueError, match="differ in shape"):
        checker.check_motions([[0.5]], [[0.5], [1.0]])


@needs_cc
def test_restricted_in_collision_checks_only_the_pairs_asked(tmp_path: Path) -> None:
    """A checker restricted to some frame pairs (restrict) answers for those only: the
    kernel's one-call paths, which check every pair, stand aside."""
    checker = CollisionChecker(_arm(tmp_path), backend="compiled")
    checker.restrict(np.zeros(len(checker.frame_pairs), dtype=bool))
    assert not checker.in_collision([[0.0]])[0] and not checker.check([0.0])
    assert not checker.check_motion([0.0], [0.1])
    checker.restrict(None)
    assert checker.in_collision([[0.0]])[0] and checker.check([0.0])


# The ball meets the post at angle 0 (a sphere and a box: decided in C); the rod (a cylinder)
# passes 2.4 mm from a small box at its sphere tree's corner there: MAYBE in C, apart exactly.
NEAR_MISS = ARM.replace("""frame post""", """frame wall { translation [0.542, 0.042, 0.1];
    geometry { shape box; dimension [0.01, 0.01, 0.01]; } }
frame post""").replace("""radius 0.1; } } }""", """radius 0.1; } }
    frame rod { translation [0.5, 0, 0];
        geometry { shape cone; start_radius 0.05; end_radius 0.045; height 0.3; } } }""")


@needs_cc
def test_in_collision_stops_at_a_certain_collision(tmp_path: Path) -> None:
    """A configuration the C finds colliding for certain asks no exact test of the pairs it
    left MAYBE (in_collision was collision_matrix(...).any(): every pair of every
    configuration, the MAYBE ones through python-fcl)."""
    from robrayc.frontend import load_scene

    (tmp_path / "near.robray").write_text(NEAR_MISS)
    checker = CollisionChecker(load_scene([str(tmp_path / "near.robray")]),
                               backend="compiled", cells=False)
    q = np.array([[0.0]])
    assert checker._kernel.check_batch(q).tolist() == [COLLIDES]
    assert MAYBE in checker._kernel.states(q)[0]  # the rod's pair (a cone: open in C)
    asked = []
    exact_test = checker.tester.test
    checker.tester.test = lambda *args, **kw: asked.append(args) or exact_test(*args, **kw)
    assert checker.in_collision(q).tolist() == [True] and checker.check([0.0])
    assert not asked
    assert checker.collision_matrix(q).any() and asked  # (what in_collision was)
