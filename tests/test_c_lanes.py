"""The compiled checker's eight lanes (robrayc/c/lanes.c): NAME_check8, the batches and the
motions check eight configurations a call, one in each vector lane, and each lane's answer is
NAME_check's, on the AVX2 path and on the portable one; never FREE where the exact checker
finds a collision, also at configurations a hair from contact."""

from __future__ import annotations

import ctypes
import subprocess
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from robrayc import ir
from robrayc.analysis.collision import CollisionChecker
from robrayc.kinematics import rigid_groups
from robrayc.resources import resource_dir
from tests.backends.test_c_checker import needs_cc
from tests.test_collision_motions import (
    STRICT,
    among_boxes,
    block_answers,
    configurations,
    raked,
)

FREE = 0
# the kernel's vector paths: AVX2 (without AVX-512 on a machine that has it: hulls.c's
# supports take AVX-512 then, which tests/test_c_hulls.py tests where the CPU has it) and the
# portable one
SIMD = {"avx2": ["-march=native", "-mavx2", "-mno-avx512f"],
        "scalar": ["-march=native", "-mno-avx2"]}

SINCOS = r"""
#include <stdio.h>
#include "checker_example.c"
int main(void)
{
    double worst = 0.0, x;
    long k;
    for (k = -2000000; k <= 2000000; k++) {
        double s, c, e;
        x = k * 5e-6 + (k % 7) * 1e-9;  /* -10 .. 10, off the grid */
        if (k % 1000 == 0) x = k * 0.05;  /* out to 1e5 */
        sin_cos(x, &s, &c);
        e = fabs(s - sin(x)) > fabs(c - cos(x)) ? fabs(s - sin(x)) : fabs(c - cos(x));
        if (e > worst) worst = e;
    }
    printf("%.3g\n", worst);
    return 0;
}
"""


@needs_cc
def test_lane_sine_and_cosine_are_within_their_bound_of_libm(tmp_path: Path) -> None:
    """sin_cos, the vectorisable sine and cosine of fk and fk8, stays within the 4e-15 that
    lanes.c's soundness argument counts, over joint angles and out to 1e5."""
    (tmp_path / "t.c").write_text(SINCOS)
    run = subprocess.run(["gcc", "-std=c99", "-O2", "-I", str(resource_dir("c")), "-o",
                          str(tmp_path / "t"), str(tmp_path / "t.c"), "-lm"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    worst = float(subprocess.run([str(tmp_path / "t")], capture_output=True, text=True,
                                 check=True).stdout)
    assert worst <= 4e-15


def _library(checker: CollisionChecker, tmp_path: Path, simd: str,
             flags: Sequence[str] = ()) -> ctypes.CDLL:
    """The generated checker built under strict gcc with the AVX2 path or the portable one
    (and gcc's flags, such as -DCHECKER_HULLS=0)."""
    from robrayc.analysis.collision.compiled import c_source

    source, _ = c_source(checker, "rb", cells=True)
    (tmp_path / f"rb_{simd}.c").write_text(source)
    lib = tmp_path / f"rb_{simd}.so"
    run = subprocess.run(["gcc", *STRICT, "-O2", *SIMD[simd], *flags, "-fPIC", "-shared", "-o",
                          str(lib), str(tmp_path / f"rb_{simd}.c"), "-lm"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    out = ctypes.CDLL(str(lib))
    p, d, n = ctypes.c_void_p, ctypes.c_double, ctypes.c_long
    for name, args, result in (("rb_check", (p,), ctypes.c_int),
                               ("rb_check8", (p, p), None),
                               ("rb_check_batch", (p, n, p), n),
                               ("rb_check_motion", (p, p, d), ctypes.c_int)):
        fn = getattr(out, name)
        fn.argtypes, fn.restype = args, result
    return out


def run_harness(tmp_path: Path, source: str, harness: str, q: np.ndarray) -> str:
    """What harness (C that includes "rb.c": source, a generated checker) prints, built under
    strict gcc with AVX2 and given the configurations q, one a line."""
    (tmp_path / "rb.c").write_text(source)
    (tmp_path / "harness.c").write_text(harness)
    run = subprocess.run(["gcc", *STRICT, "-Wno-unused-function", "-O2", *SIMD["avx2"], "-o",
                          str(tmp_path / "harness"), str(tmp_path / "harness.c"), "-lm"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return subprocess.run([str(tmp_path / "harness")], capture_output=True, text=True,
                          check=True,
                          input="\n".join(" ".join(map(repr, r)) for r in q.tolist())).stdout


PROVEN = r"""
#include <stdio.h>
#include "rb.c"
int main(void)
{
    double q[8][NQ_DECL];
    int l, i;
    for (;;) {  /* blocks of 8 configurations: the lanes proven FREE in the lanes alone */
        struct pass p;
        for (l = 0; l < 8; l++)
            for (i = 0; i < NQ; i++)
                if (scanf("%lf", &q[l][i]) != 1) return 0;
        pass_start(&p, q[0]);
        (void)pass_run(&p, 0u);
        for (l = 0; l < 8; l++) putchar(p.open >> l & 1u ? '1' : '0');
    }
}
"""


def lanes_proven(tmp_path: Path, q: np.ndarray) -> np.ndarray:
    """Which configurations (blocks of 8) the lanes prove FREE without check1 (rb_avx2.c, as
    _library wrote it, with a main of its own)."""
    (tmp_path / "rb.c").write_text((tmp_path / "rb_avx2.c").read_text())
    (tmp_path / "proven.c").write_text(PROVEN)
    run = subprocess.run(["gcc", "-std=c99", "-O2", *SIMD["avx2"], "-o", str(tmp_path / "proven"),
                          str(tmp_path / "proven.c"), "-lm"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    text = "\n".join(" ".join(map(repr, row)) for row in q[:len(q) // 8 * 8].tolist())
    out = subprocess.run([str(tmp_path / "proven")], input=text, capture_output=True,
                         text=True, check=True).stdout
    return np.array([c == "0" for c in out], dtype=bool)


def _ones(lib: ctypes.CDLL, q: np.ndarray) -> np.ndarray:
    return np.array([lib.rb_check(row.ctypes.data) for row in q], dtype=np.int32)


def motions_as_plain(lib: ctypes.CDLL, plain: ctypes.CDLL, starts: np.ndarray,
                     ends: np.ndarray) -> list[int]:
    """lib's answers to the motions starts[k] -> ends[k] at resolution 32, each asserted one of
    the first block of eight's answers that are not FREE, as plain's NAME_check answers the
    samples, and FREE exactly where plain's motion is (plain: the build without a shortcut
    lib has, e.g. -DCHECKER_WITNESSES=0)."""
    answers = []
    for x, y in zip(starts, ends, strict=True):
        x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
        got = lib.rb_check_motion(x.ctypes.data, y.ctypes.data, 32.0)
        assert got in block_answers(_ones(plain, np.ascontiguousarray(raked(x, y, 32.0))).tolist())
        assert (got == FREE) == (plain.rb_check_motion(x.ctypes.data, y.ctypes.data, 32.0)
                                 == FREE)
        answers.append(got)
    return answers


def _eights(lib: ctypes.CDLL, q: np.ndarray) -> np.ndarray:
    out = np.empty(len(q), dtype=np.int32)
    for k in range(0, len(q) - 7, 8):
        lib.rb_check8(q[k:k + 8].ctypes.data, out[k:].ctypes.data)
    return out[:len(q) // 8 * 8]


def near_contact(lib: ctypes.CDLL, q: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Configurations a hair from where NAME_check's answer changes: segments from a FREE
    configuration to one that is not, bisected to 1e-9, both ends, and both moved by 1e-7 to
    3e-3 in random directions (the lanes' slack is ~1e-4 of a metre-sized robot)."""
    ones = _ones(lib, q)
    free, hit = q[ones == FREE], q[ones != FREE]
    out = []
    for a, b in zip(free[:60], hit[:60], strict=False):
        a, b = a.copy(), b.copy()
        while np.abs(b - a).max() > 1e-9:
            m = 0.5 * (a + b)
            if lib.rb_check(np.ascontiguousarray(m).ctypes.data) == FREE:
                a = m
            else:
                b = m
        for scale in (0.0, 1e-7, 1e-5, 1e-4, 1e-3, 3e-3):
            step = scale * rng.normal(size=len(a))
            out += [a + step, b + step]
    return np.ascontiguousarray(out)


# a gripper of four boxes on UR5's last link (frame wrist_3_joint; "ur5-gripper"): a group of
# several solids, which the lanes test against their fixed partners through one sphere around
# them (a gate)
GRIPPER = (("palm", (0.0, 0.11, 0.0), (0.1, 0.03, 0.04)),
           ("jaw_a", (0.035, 0.17, 0.0), (0.015, 0.07, 0.03)),
           ("jaw_b", (-0.035, 0.17, 0.0), (0.015, 0.07, 0.03)),
           ("tip", (0.0, 0.24, 0.0), (0.02, 0.02, 0.02)))


def _scene(key: str) -> ir.Scene:
    """A corpus robot among boxes, and also a ball and a cylinder (fixed partners that are a
    sphere and a solid of sphere trees); "ur5-gripper": UR5 holding GRIPPER."""
    robot, _, hand = key.partition("-")
    scene = among_boxes(robot, seed=11, boxes=10)
    extra = (ir.Frame(name="ball", parent=None, kind="fixed", translation=(0.45, 0.3, 0.6),
                      geometries=(ir.Geometry(ir.Sphere(0.12)),)),
             ir.Frame(name="post", parent=None, kind="fixed", translation=(-0.4, 0.4, 0.1),
                      geometries=(ir.Geometry(ir.Cylinder(0.8, 0.07)),)))
    grip = tuple(ir.Frame(name=n, parent="wrist_3_joint", kind="fixed", translation=t,
                          geometries=(ir.Geometry(ir.Box(d)),)) for n, t, d in GRIPPER) \
        if hand else ()
    frames = scene.frames + extra + grip
    group = rigid_groups(ir.Scene(frames=frames)).group
    fixed = sorted(f.name for f, g in zip(frames, group, strict=True) if g == 0)
    allowed = set(scene.allowed) | {ir.AllowedCollision(a, b) for a in ("ball", "post")
                                    for b in fixed if a != b}
    near_hand = ("wrist_3_joint", "ee_fixed_joint", "ee_link-collision", "wrist_2_joint",
                 *(n for n, _, _ in GRIPPER))
    allowed |= {ir.AllowedCollision(*sorted((n, b))) for n, _, _ in grip and GRIPPER
                for b in near_hand if b != n}
    return ir.Scene(frames=frames, allowed=tuple(sorted(allowed, key=lambda p: (p.a, p.b))),
                    sources=scene.sources)


@needs_cc
@pytest.mark.slow
@pytest.mark.parametrize("key", ["ur5", "fetch", "ur5-gripper"])
def test_every_lane_answers_as_one_configuration(key: str, tmp_path: Path) -> None:
    """NAME_check8 and NAME_check_batch (eight lanes a call) answer every configuration as
    NAME_check does, random ones and ones a hair from contact, built with AVX2 and without;
    motions as their samples checked one by one; and a lane the lanes prove FREE near contact
    is free for the exact checker. With the gripper, through a gate."""
    scene = _scene(key)
    exact = CollisionChecker(scene)
    if key.endswith("gripper"):
        from robrayc.analysis.collision.compiled import c_source

        assert "#define NGATE 1\n" in c_source(exact, "rb", cells=False)[0]
    rng = np.random.default_rng(5)
    q = configurations(scene, 400, seed=3)
    libs = {simd: _library(exact, tmp_path, simd) for simd in SIMD}
    near = near_contact(libs["avx2"], q, rng)
    everything = np.ascontiguousarray(np.concatenate([q, near]))
    ones = _ones(libs["avx2"], everything)
    assert set(ones.tolist()) >= {FREE, 2}, set(ones.tolist())
    for simd, lib in libs.items():
        assert (_ones(lib, everything) == ones).all(), simd
        assert (_eights(lib, everything) == ones[:len(everything) // 8 * 8]).all(), simd
        out = np.empty(len(everything) - 3, dtype=np.int32)  # a last block of 5
        lib.rb_check_batch(everything.ctypes.data, len(out), out.ctypes.data)
        assert (out == ones[:len(out)]).all(), simd
    proven = lanes_proven(tmp_path, everything)  # FREE in the lanes alone: never colliding
    free = everything[:len(proven)][proven]
    assert len(free) > 50
    assert not exact.in_collision(free).any()
    # motions: a sample that is not FREE of the first block of eight that holds one
    a, b = q[:60], q[60:120]
    b = np.ascontiguousarray(a + 0.15 * (b - a))
    for simd, lib in libs.items():
        for x, y in zip(a, b, strict=True):
            samples = np.ascontiguousarray(raked(x, y, 32.0))
            expected = block_answers(_ones(lib, samples).tolist())
            assert lib.rb_check_motion(x.ctypes.data, y.ctypes.data, 32.0) in expected, simd


def _obstacles(rng: np.random.Generator) -> list:
    """Run-time obstacles of every kind around a metre-sized robot, randomly turned."""
    from robrayc.analysis.collision import Box, Capsule, Cylinder, Sphere
    from robrayc.rotations import quat_to_matrix

    def turn():
        q = rng.normal(size=4)
        return quat_to_matrix(q / np.linalg.norm(q))

    def centre():
        while True:
            c = rng.uniform(-0.8, 0.8, 3) + (0, 0, 0.5)
            if np.hypot(c[0], c[1]) > 0.35:
                return tuple(c.tolist())

    return [Box(centre(), (0.1, 0.2, 0.05), turn()), Box(centre(), (0.15, 0.1, 0.1)),
            Sphere(centre(), 0.1), Cylinder(centre(), 0.06, 0.2, turn()),
            Capsule(centre(), 0.05, 0.15, turn()), Box(centre(), (0.05, 0.05, 0.3), turn())]


@needs_cc
@pytest.mark.slow
def test_lanes_test_the_obstacles_set_at_run_time(tmp_path: Path) -> None:
    """With obstacles set at run time (NAME_set_obstacles), every lane still answers as
    NAME_check, which tests them, also a hair from contact; FREE is free for the exact checker
    given the same obstacles."""
    from robrayc.analysis.collision.c_environment import c_records
    from robrayc.analysis.collision.obstacles import pack

    scene = among_boxes("ur5", seed=13, boxes=3)
    exact = CollisionChecker(scene)
    rng = np.random.default_rng(9)
    shapes = _obstacles(rng)
    exact.set_obstacles(shapes)
    table = c_records(pack(shapes))
    q = configurations(scene, 400, seed=4)
    for simd in SIMD:
        lib = _library(CollisionChecker(scene), tmp_path, simd)
        lib.rb_set_obstacles.argtypes = (ctypes.c_void_p, ctypes.c_int)
        assert lib.rb_set_obstacles(table.ctypes.data, len(table)) == 0
        near = near_contact(lib, q, np.random.default_rng(1))
        everything = np.ascontiguousarray(np.concatenate([q, near]))
        ones = _ones(lib, everything)
        assert (_eights(lib, everything) == ones[:len(everything) // 8 * 8]).all(), simd
        free = q[ones[:len(q)] == FREE]
        assert len(free) > 50
        assert not exact.in_collision(free).any()


@needs_cc
@pytest.mark.slow
def test_compiled_batches_and_motions_with_attached_shapes(ur5_boxes: ir.Scene) -> None:
    """With obstacles set and a part attached to the wrist, the compiled backend's batches and
    motions (eight lanes a call, then NAME_check and the exact tests for what is left open)
    answer as the exact checker."""
    from robrayc.analysis.collision import Box

    exact = CollisionChecker(ur5_boxes)
    compiled = CollisionChecker(ur5_boxes, backend="compiled")
    shapes = _obstacles(np.random.default_rng(9))
    part = [Box((0.0, 0.25, 0.0), (0.05, 0.12, 0.05))]
    for checker in (exact, compiled):
        checker.set_obstacles(shapes)
    q = configurations(ur5_boxes, 400, seed=8)
    without = exact.in_collision(q)
    for checker in (exact, compiled):
        checker.attach("wrist_3_joint", part)
    truth = exact.in_collision(q)
    assert (truth & ~without).sum() > 10 and not truth.all()  # the part alone collides
    assert (compiled.in_collision(q) == truth).all()
    a, b = q[:40], q[:40] + 0.1 * (q[40:80] - q[:40])
    assert (compiled.check_motions(a, b) == exact.check_motions(a, b)).all()


@pytest.fixture(scope="module")
def ur5_boxes() -> ir.Scene:
    return among_boxes("ur5", seed=13, boxes=3)


def test_a_gate_holds_every_sphere_of_its_group() -> None:
    """c_pairs.gate_sphere: every member sphere inside the gate's (in float64, from the
    float32 values the C reads), for clusters of random spheres far and near the origin."""
    from robrayc.analysis.collision.c_pairs import gate_sphere

    rng = np.random.default_rng(2)
    for trial in range(300):
        n = int(rng.integers(2, 9))
        centre = rng.normal(size=3) * (10.0 if trial % 3 == 0 else 0.3)
        spheres = np.column_stack([centre + rng.normal(size=(n, 3)) * 0.1,
                                   rng.uniform(0.001, 0.2, n)])
        spheres = spheres.astype(np.float32).astype(float)
        x, y, z, r = gate_sphere(spheres)
        assert np.float32(r) == r and all(np.float32(v) == v for v in (x, y, z))
        reach = np.linalg.norm(spheres[:, :3] - (x, y, z), axis=1) + spheres[:, 3]
        assert (reach <= r).all()
