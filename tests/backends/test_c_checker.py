"""`--format c-checker` and the compiled checker: the generated C builds cleanly under strict gcc
and the sanitizers, its answers agree with the exact checker (random scenes of every shape
kind, corpus robots in random obstacle fields), and the AVX2 and scalar paths agree."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from robrayc import ir
from robrayc.analysis.collision import CollisionChecker
from robrayc.frontend import load_scene
from tests.corpus import CORPUS, require_corpus
from tests.run import Run, robrayc
from tests.test_collision import random_scene
from tests.urdf_robots import load, robot_path

DEMO_7DOF = CORPUS / "amino" / "demo" / "tutorial" / "plugin" / "7dof" / "7dof.robray"
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
needs_cc = pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")

HARNESS = r"""
#include <stdio.h>
#include "arm.h"
int main(void)
{
    double q[8 * (ARM_N_CONFIG + 1)];
    int out[ARM_N_PAIRS + 1], eight[8], n = 0, k, p;
    for (;;) {
        for (k = 0; k < ARM_N_CONFIG; k++)
            if (scanf("%lf", &q[(n % 8) * ARM_N_CONFIG + k]) != 1) return 0;
        printf("%d", arm_check(q + (n % 8) * ARM_N_CONFIG));
        arm_colliding_pairs(q + (n % 8) * ARM_N_CONFIG, out);
        for (p = 0; p < ARM_N_PAIRS; p++) printf(" %d", out[p]);
        printf("\n");
        if (++n % 8 == 0) {
            arm_check8(q, eight);
            printf("eight");
            for (k = 0; k < 8; k++) printf(" %d", eight[k]);
            printf("\n");
        }
    }
}
"""


def obstacle_field(scene: ir.Scene, rng: np.random.Generator, n: int = 20,
                   spread: float = 1.0) -> ir.Scene:
    """The scene plus n fixed random boxes, spheres and cylinders around the origin."""
    extra = []
    for k in range(n):
        kind = rng.integers(3)
        shape = (ir.Box(tuple(rng.uniform(0.02, 0.3, 3))) if kind == 0 else
                 ir.Sphere(float(rng.uniform(0.02, 0.15))) if kind == 1 else
                 ir.Cylinder(float(rng.uniform(0.05, 0.4)), float(rng.uniform(0.02, 0.1))))
        q = rng.normal(size=4)
        extra.append(ir.Frame(name=f"obstacle{k}", parent=None, kind="fixed",
                              translation=tuple(rng.uniform(-spread, spread, 3)),
                              quaternion=tuple(q / np.linalg.norm(q)),
                              geometries=(ir.Geometry(shape),)))
    return ir.Scene(frames=scene.frames + tuple(extra), allowed=scene.allowed,
                    sources=scene.sources)


def configs_for(checker: CollisionChecker, rng: np.random.Generator, n: int) -> np.ndarray:
    from robrayc.kinematics import sample_ranges

    lo, hi = sample_ranges(checker.scene)
    return lo + rng.random((n, len(lo))) * (hi - lo)


def assert_same(scene: ir.Scene, configs: np.ndarray) -> None:
    exact = CollisionChecker(scene)
    compiled = CollisionChecker(scene, backend="compiled")
    assert compiled.backend == "compiled"
    a, b = exact.collision_matrix(configs), compiled.collision_matrix(configs)
    bad = np.flatnonzero((a != b).any(axis=1))
    assert not len(bad), (f"{len(bad)} of {len(configs)} configurations disagree, e.g. "
                          f"{configs[bad[0]].tolist()}")


@needs_cc
@pytest.mark.parametrize("seed", range(10))
def test_random_scenes_compiled_equals_exact(seed: int) -> None:
    """Every shape kind (sphere, box, cylinder, cone, frustum, mesh), moving and fixed."""
    rng = np.random.default_rng(seed)
    scene = random_scene(rng, frusta=True)
    assert_same(scene, rng.uniform(-np.pi, np.pi, (2000, len(scene.variables))))


@needs_cc
@pytest.mark.parametrize("seed", range(3))
def test_generated_group_poses_are_the_kinematics(seed: int) -> None:
    """The kernel's group poses (NAME_group_poses, which resolving a MAYBE uses) are the
    kinematics module's, to rounding, for every joint kind of random scenes."""
    rng = np.random.default_rng(seed)
    scene = random_scene(rng, frusta=True)
    checker = CollisionChecker(scene, backend="compiled")
    q = rng.uniform(-np.pi, np.pi, (50, len(scene.variables)))
    assert np.abs(checker._kernel.group_poses(q) - checker.group_poses(q)).max() < 1e-12


# configurations per robot in the default run (the exact checker sets the pace: PR2's is slow)
ROBOTS = {"ur5": 1500, "lwa4d": 1500, "baxter": 800, "pr2": 150}


def robot_in_field(key: str, seed: int, monkeypatch) -> ir.Scene:
    from tests.corpus import ros_package_path

    monkeypatch.setenv("ROS_PACKAGE_PATH", ros_package_path())
    return obstacle_field(load([str(robot_path(key))]), np.random.default_rng(seed))


@needs_cc
@pytest.mark.parametrize("key", ROBOTS)
def test_corpus_robot_in_obstacle_field(key: str, monkeypatch) -> None:
    scene = robot_in_field(key, 1, monkeypatch)
    checker = CollisionChecker(scene)
    assert_same(scene, configs_for(checker, np.random.default_rng(2), ROBOTS[key]))


@needs_cc
@pytest.mark.parametrize("key", ["ur5", "pr2"])
def test_samplers_path_counts_as_the_exact_checker(key: str, monkeypatch) -> None:
    """The path samplers take (a random half of the frame pairs active: their bounding
    spheres tested 8 at a time, a pair of meshes first sphere against box) writes the full
    path's states for the active solid pairs and none for the others, and its counts are
    the exact checker's."""
    scene = robot_in_field(key, 3, monkeypatch)
    rng = np.random.default_rng(4)
    exact = CollisionChecker(scene, use_allowed=False)
    compiled = CollisionChecker(scene, use_allowed=False, backend="compiled", cells=False)
    assert compiled.frame_pairs == exact.frame_pairs
    q = configs_for(exact, rng, ROBOTS[key])
    columns = rng.random(len(exact.frame_pairs)) < 0.5
    active = columns[compiled._pfp]
    kernel = compiled._kernel
    assert np.array_equal(kernel.states(q, active), np.where(active, kernel.states(q), 0))
    compiled.restrict(columns)
    expected = exact.collision_matrix(q).sum(axis=0) * columns
    assert expected.any()
    assert np.array_equal(compiled.collision_counts(q), expected)


@needs_cc
@pytest.mark.slow
@pytest.mark.parametrize("key", ROBOTS)
def test_corpus_robot_many_configurations(key: str, monkeypatch) -> None:
    """Bounded: 4x the default count in each of 3 fields (the benchmark runs 100,000)."""
    for seed in range(3):
        scene = robot_in_field(key, 10 + seed, monkeypatch)
        checker = CollisionChecker(scene)
        assert_same(scene, configs_for(checker, np.random.default_rng(seed), 4 * ROBOTS[key]))


def test_cli_writes_source_and_header(tmp_path: Path) -> None:
    require_corpus()
    out = tmp_path / "arm.c"
    run = robrayc(DEMO_7DOF, "--format", "c-checker", "-n", "arm", "-o", out, process=True)
    assert run.status == 0, run.err
    assert '#include "arm.h"' in out.read_text()
    header = (tmp_path / "arm.h").read_text()
    for symbol in ("int arm_check(const double *q);", "void arm_check8(", "arm_colliding_pairs("):
        assert symbol in header


@needs_cc
def test_scene_without_collision_geometry(tmp_path: Path) -> None:
    """No solids, no pairs: the checker still builds strictly and answers FREE."""
    scene = tmp_path / "bare.robray"
    scene.write_text("frame a { }\nframe b { parent a; type revolute; axis [0, 0, 1]; }\n")
    out = tmp_path / "bare.c"
    run = robrayc(scene, "--format", "c-checker", "-n", "bare", "-o", out, process=True)
    assert run.status == 0, run.err
    (tmp_path / "main.c").write_text('#include "bare.h"\nint main(void) { double q[1] = { 0.5 };'
                                     ' return bare_check(q); }\n')
    exe = tmp_path / "bare"
    build = subprocess.run(["gcc", *STRICT, "-o", str(exe), str(out), str(tmp_path / "main.c"),
                            "-lm"], capture_output=True, text=True)
    assert build.returncode == 0 and not build.stderr, build.stderr
    assert subprocess.run([str(exe)]).returncode == 0


def _build(tmp_path: Path, name: str, flags: list[str]) -> Path:
    exe = tmp_path / name
    cmd = ["gcc", *STRICT, *flags, "-o", str(exe), str(tmp_path / "arm.c"),
           str(tmp_path / "main.c"), "-lm"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return exe


@needs_cc
def test_generated_c_strict_sanitized_and_both_paths_agree(tmp_path: Path) -> None:
    """gcc -std=c99 -Wall -Wextra -Werror -pedantic, AVX2 and scalar builds, ASan + UBSan;
    every answer consistent with the exact checker (COLLIDES only where it collides, FREE only
    where it does not), check8 equal to check, AVX2 equal to scalar."""
    require_corpus()
    scene = obstacle_field(load_scene([str(DEMO_7DOF)]), np.random.default_rng(5), 8)
    from robrayc.analysis.collision.compiled import c_source

    source, header = c_source(CollisionChecker(scene, broadphase="dense"), "arm", None, "arm.h")
    (tmp_path / "arm.c").write_text(source)
    (tmp_path / "arm.h").write_text(header)
    (tmp_path / "main.c").write_text(HARNESS)
    rng = np.random.default_rng(3)
    configs = rng.uniform(-np.pi, np.pi, (64, len(scene.variables)))
    stdin = "\n".join(" ".join(map(repr, row)) for row in configs.tolist())
    outputs = []
    for name, flags in (("scalar", ["-O2", "-mno-avx2"]), ("avx2", ["-O2", "-mavx2"]),
                        ("sanitized", ["-O1", "-g", "-fsanitize=address,undefined",
                                       "-fno-sanitize-recover=all"])):
        exe = _build(tmp_path, name, flags)
        run = subprocess.run([str(exe)], input=stdin, capture_output=True, text=True)
        assert run.returncode == 0 and not run.stderr, run.stderr
        outputs.append(run.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    exact = CollisionChecker(scene)
    truth = exact.collision_matrix(configs)
    rows = [line.split() for line in outputs[0].splitlines()]
    singles = [r for r in rows if r[0] != "eight"]
    assert len(singles) == len(configs)
    for k, row in enumerate(singles):
        pairs = np.array([int(x) for x in row[1:]])
        assert not (truth[k] & (pairs == 0)).any() and not (~truth[k] & (pairs == 1)).any()
        check = int(row[0])
        assert check == (1 if (pairs == 1).any() else 2 if (pairs == 2).any() else 0)
    eights = [r[1:] for r in rows if r[0] == "eight"]
    assert [x for r in eights for x in r] == [r[0] for r in singles]


@needs_cc
@pytest.mark.parametrize("seed", range(3))
def test_generated_kinematics_strict_for_any_joint(tmp_path: Path, seed: int) -> None:
    """Random scenes (revolute joints about any axis, prismatic joints, offsets) build under
    gcc -std=c99 -Wall -Wextra -Werror -pedantic; their generated kinematics take every path
    (frame axes, other axes through turn(), slides)."""
    from robrayc.analysis.collision.compiled import c_source

    scene = random_scene(np.random.default_rng(seed), frusta=True)
    assert {"revolute", "prismatic"} <= {f.kind for f in scene.frames}
    source, header = c_source(CollisionChecker(scene, broadphase="dense"), "arm", None, "arm.h")
    assert "turn(base, axis, v, g[" in source
    (tmp_path / "arm.c").write_text(source)
    (tmp_path / "arm.h").write_text(header)
    run = subprocess.run(["gcc", *STRICT, "-O2", "-c", str(tmp_path / "arm.c"), "-o",
                          str(tmp_path / "arm.o")], capture_output=True, text=True)
    assert run.returncode == 0 and not run.stderr, run.stderr


@needs_cc
def test_collide_backends_agree_and_fallback(tmp_path: Path) -> None:
    require_corpus()

    def collide(backend: str, **env) -> Run:
        return robrayc("collide", DEMO_7DOF, "--var", "s0", "--val", "1", "--var", "e", "--val",
                       "2", "--backend", backend, env=env, process=True)

    exact, compiled = collide("exact"), collide("compiled")
    assert exact.status == compiled.status == 1
    assert exact.out == compiled.out and exact.out
    missing = str(tmp_path / "no-such-cc")
    auto = collide("auto", CC=missing)
    assert auto.status == 1 and auto.out == exact.out
    assert "exact checker used" in auto.err
    refused = collide("compiled", CC=missing)
    assert refused.status == 2 and "compiled checker is not available" in refused.err
