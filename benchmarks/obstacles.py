"""Obstacles at run time: what a new obstacle set costs, and what a check costs with the
obstacles given at run time rather than compiled in.

    python benchmarks/obstacles.py [--robots panda,ur5] [--configs 10000] [--rounds 5]
                                   [--builds 2] [--points 10000,100000]
                                   [--shapes boxes|cylinders|capsules|spheres] [--judge 1500]

Per robot among 20 random boxes (benchmarks/checker.py's robot_scene; its self pairs allowed as
`robrayc allowed-collisions` finds them): the robot compiled once without the boxes, the boxes
given at run time; against the old way, the boxes fixed in the scene and compiled in. Rows:
- build: seconds to a ready compiled checker for the scene with the boxes fixed
  (CollisionChecker(backend="compiled") with an empty cache: C generation, certified cells,
  gcc; median of --builds), what a new obstacle set cost before;
- set py: CollisionChecker.set_obstacles(20 boxes) per call (us; median of 200 calls), which
  hands them to C; set C: NAME_set_obstacles alone, from C (us; best of 5 passes of 1000);
- check C fixed / check C run-time: NAME_check per configuration over all of them (us; C
  harnesses built with gcc -O3 -march=native, best of 5 passes; the two take turns --rounds
  times, each figure the median: this machine's speed drifts), and the shares of FREE,
  COLLIDES, MAYBE;
- check py fixed / run-time: CollisionChecker.check(q) per call over the first 2,000
  configurations (MAYBE resolved exactly), and in_collision(Q) per configuration over all of
  them (process time), same turns;
- differ: configurations where the two checkers' final answers (in_collision) differ (0 is
  the goal: both are exact);
- per --points size: NAME_set_points of a cloud (random points on a table top and a wall
  around the robot, radius 1 cm; ms, best of 5) and NAME_check per configuration among it
  (us, best of 5) with the answers' shares.

--shapes turns the 20 boxes (half extents a, b, c along their axes) into other run-time
shapes in the same places: cylinders of radius min(a, b) and half length c along the box's z,
capsules of that radius and half length max(c - r, 0), or spheres of radius min(a, b). They
cannot be compiled in, so their rows are the run-time checker's alone: NAME_check (time and
answers' shares), check(q), in_collision(Q) (the same turns), and differ: configurations of
the first --judge where in_collision differs from the exact checker's among the same shapes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.checker import (  # noqa: E402
    PROCESS_CLOCK_HARNESS,
    alternating,
    build_compiled,
    each_robot,
    robot_scene,
)

# the C harnesses' reader of what obstacle_lines writes (this one's and instructions.py's)
READ_OBSTACLES = r"""
/* m obstacles from stdin, a line each (kind, 12 pose, 3 size): 0, or 1 on bad input */
static int read_obstacles(struct rb_obstacle *o, long m)
{
    long k;
    int j;
    for (k = 0; k < m; k++) {
        if (scanf("%d", &o[k].kind) != 1) return 1;
        for (j = 0; j < 12; j++) if (scanf("%lf", &o[k].pose[j]) != 1) return 1;
        for (j = 0; j < 3; j++) if (scanf("%lf", &o[k].size[j]) != 1) return 1;
    }
    return 0;
}
"""

HARNESS = PROCESS_CLOCK_HARNESS + READ_OBSTACLES + r"""
/* argv: configurations, obstacles (0: none), points (0: none); stdin: configurations,
 * obstacles (kind, 12 pose, 3 size), points (x y z r) */
int main(int argc, char **argv)
{
    long n = atol(argv[1]), m = atol(argv[2]), np = atol(argv[3]), k, c[4] = { 0, 0, 0, 0 };
    double *q = malloc(sizeof(double) * n * RB_N_CONFIG);
    double *pts = malloc(sizeof(double) * (4 * np + 1));
    struct rb_obstacle *o = malloc(sizeof *o * (m + 1));
    double t, best = 1e30, set = 1e30, setp = 1e30;
    int r;
    (void)argc;
    for (k = 0; k < n * RB_N_CONFIG; k++) if (scanf("%lf", &q[k]) != 1) return 1;
    if (read_obstacles(o, m)) return 1;
    for (k = 0; k < 4 * np; k++) if (scanf("%lf", &pts[k]) != 1) return 1;
    for (r = 0; r < 5; r++) {
        t = now();
        for (k = 0; k < 1000; k++) if (rb_set_obstacles(o, (int)m)) return 2;
        t = (now() - t) / 1000; if (t < set) set = t;
        t = now();
        if (rb_set_points(pts, np)) return 2;
        t = now() - t; if (t < setp) setp = t;
    }
    for (k = 0; k < n; k++) c[rb_check(q + k * RB_N_CONFIG)]++;
    for (r = 0; r < 5; r++) {
        long hits = 0;
        t = now();
        for (k = 0; k < n; k++) hits += rb_check(q + k * RB_N_CONFIG);
        t = now() - t; if (t < best) best = t;
        if (hits < 0) return 2;
    }
    printf("%.6g %.6g %.6g %ld %ld %ld\n", 1e6 * best / n, 1e6 * set, 1e3 * setp, c[0], c[1],
           c[2] + c[3]);
    return 0;
}
"""


def split_scene(scene):
    """The robot alone (the boxes and their allowed pairs left out) and the boxes as run-time
    obstacles."""
    from robrayc import ir
    from robrayc.analysis.collision import Box
    from robrayc.rotations import quat_to_matrix

    boxes = [f for f in scene.frames if f.name.startswith("obstacle")]
    names = {f.name for f in boxes}
    robot = ir.Scene(frames=tuple(f for f in scene.frames if f.name not in names),
                     allowed=tuple(p for p in scene.allowed
                                   if p.a not in names and p.b not in names),
                     sources=scene.sources)
    shapes = [Box(centre=f.translation,
                  half_extents=tuple(d / 2 for d in f.geometries[0].shape.dimension),
                  rotation=np.array(quat_to_matrix(f.quaternion))) for f in boxes]
    return robot, shapes


def obstacle_lines(shapes) -> list[str]:
    """The shapes as the C harnesses read them: a line an obstacle (kind, 12 pose, 3 size)."""
    from robrayc.analysis.collision.c_environment import c_records
    from robrayc.analysis.collision.obstacles import pack

    return [" ".join(map(repr, [int(r["kind"]), *r["pose"].tolist(), *r["size"].tolist()]))
            for r in c_records(pack(shapes))]


def run_harness(exe: Path, configs: np.ndarray, shapes=(), points=None) -> dict:
    lines = [" ".join(map(repr, row)) for row in configs.tolist()]
    lines += obstacle_lines(shapes)
    pts = np.zeros((0, 4)) if points is None else points
    lines += [" ".join(map(repr, row)) for row in pts.tolist()]
    out = subprocess.run([str(exe), str(len(configs)), str(len(shapes)), str(len(pts))],
                         input="\n".join(lines), capture_output=True, text=True,
                         check=True).stdout.split()
    n = len(configs)
    return {"check": float(out[0]), "set": float(out[1]), "set_points": float(out[2]),
            "free": int(out[3]) / n, "collides": int(out[4]) / n, "maybe": int(out[5]) / n}


def build_seconds(scene, builds: int) -> float:
    """Seconds to a ready compiled checker of the scene, from an empty cache (the median of
    builds; NaN for none)."""
    from robrayc.analysis.collision import CollisionChecker

    times = []
    old = os.environ.get("XDG_CACHE_HOME")
    try:
        for _ in range(builds):
            with tempfile.TemporaryDirectory() as cache:
                os.environ["XDG_CACHE_HOME"] = cache
                t = time.perf_counter()
                CollisionChecker(scene, backend="compiled")
                times.append(time.perf_counter() - t)
    finally:
        if old is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = old
    return statistics.median(times) if times else float("nan")


def cloud(n: int, seed: int = 3) -> np.ndarray:
    """n points, radius 1 cm: a table top (z 0.3, 0.4..1.0 m in front) and a wall (x 0.9)."""
    rng = np.random.default_rng(seed)
    top = n // 2
    table = np.column_stack([rng.uniform(0.4, 1.0, top), rng.uniform(-0.6, 0.6, top),
                             np.full(top, 0.3)])
    wall = np.column_stack([np.full(n - top, 0.9), rng.uniform(-0.8, 0.8, n - top),
                            rng.uniform(0.0, 1.2, n - top)])
    return np.column_stack([np.concatenate([table, wall]), np.full(n, 0.01)])


def py_check(checker, configs: np.ndarray) -> float:
    """us per CollisionChecker.check call over the configurations."""
    t = time.process_time()
    for row in configs:
        checker.check(row)
    return 1e6 * (time.process_time() - t) / len(configs)


def py_batch(checker, configs: np.ndarray) -> float:
    """us per configuration of CollisionChecker.in_collision over all of them."""
    t = time.process_time()
    checker.in_collision(configs)
    return 1e6 * (time.process_time() - t) / len(configs)


def turned(boxes: list, kind: str) -> list:
    """The boxes as other run-time shapes in their places (see the module docstring)."""
    from robrayc.analysis.collision import Capsule, Cylinder, Sphere

    out = []
    for b in boxes:
        a, bb, c = b.half_extents
        r = min(a, bb)
        out.append(b if kind == "boxes" else
                   Sphere(centre=b.centre, radius=r) if kind == "spheres" else
                   Cylinder(centre=b.centre, radius=r, half_length=c, rotation=b.rotation)
                   if kind == "cylinders" else
                   Capsule(centre=b.centre, radius=r, half_length=max(c - r, 0.0),
                           rotation=b.rotation))
    return out


def run_shapes(key: str, robot, shapes: list, configs: np.ndarray, args: argparse.Namespace
               ) -> dict:
    """--shapes other than boxes: the run-time checker alone, judged by the exact one."""
    from robrayc.analysis.collision import CollisionChecker

    runtime = CollisionChecker(robot, backend="compiled")
    runtime.set_obstacles(shapes)
    exact = CollisionChecker(robot)
    exact.set_obstacles(shapes)
    judged = configs[:args.judge]
    row = {"robot": key, "shapes": args.shapes,
           "differ": int((exact.in_collision(judged) != runtime.in_collision(judged)).sum())}
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_compiled(runtime, Path(tmp), HARNESS)
        few = configs[:2000]
        row.update(alternating([
            lambda: {f"run_{k}": v for k, v in run_harness(exe, configs, shapes).items()},
            lambda: {"py_run": py_check(runtime, few), "batch_run": py_batch(runtime, configs)}],
            args.rounds))
    return row


def run(key: str, args: argparse.Namespace) -> dict:
    from robrayc.analysis.collision import CollisionChecker
    from robrayc.kinematics import sample_ranges

    scene, _ = robot_scene(key)
    robot, shapes = split_scene(scene)
    lo, hi = sample_ranges(scene)
    configs = lo + np.random.default_rng(0).random((args.configs, len(lo))) * (hi - lo)
    if args.shapes != "boxes":
        return run_shapes(key, robot, turned(shapes, args.shapes), configs, args)
    fixed = CollisionChecker(scene, backend="compiled")
    runtime = CollisionChecker(robot, backend="compiled")
    runtime.set_obstacles(shapes)
    row = {"robot": key, "build": build_seconds(scene, args.builds)}
    t = []
    for _ in range(200):
        start = time.perf_counter()
        runtime.set_obstacles(shapes)
        t.append(time.perf_counter() - start)
    row["set_py"] = 1e6 * statistics.median(t)
    row["differ"] = int((fixed.in_collision(configs) != runtime.in_collision(configs)).sum())
    with tempfile.TemporaryDirectory() as tmp_fixed, tempfile.TemporaryDirectory() as tmp_run:
        exe_fixed = build_compiled(fixed, Path(tmp_fixed), HARNESS)
        exe_run = build_compiled(runtime, Path(tmp_run), HARNESS)
        few = configs[:2000]
        got = alternating([
            lambda: {f"fixed_{k}": v for k, v in run_harness(exe_fixed, configs).items()},
            lambda: {f"run_{k}": v for k, v in run_harness(exe_run, configs, shapes).items()},
            lambda: {"py_fixed": py_check(fixed, few), "batch_fixed": py_batch(fixed, configs)},
            lambda: {"py_run": py_check(runtime, few), "batch_run": py_batch(runtime, configs)}],
            args.rounds)
        row.update(got)
        for n in (int(x) for x in args.points.split(",") if x):
            row[f"cloud_{n}"] = run_harness(exe_run, configs, points=cloud(n))
    return row


def show(row: dict) -> None:
    if "shapes" in row:
        print(f"{row['robot']} among 20 run-time {row['shapes']}: check C "
              f"{row['run_check']:.3f} us/config (FREE {row['run_free']:.1%}, COLLIDES "
              f"{row['run_collides']:.1%}, MAYBE {row['run_maybe']:.1%}); check py "
              f"{row['py_run']:.2f} us/call, in_collision {row['batch_run']:.2f} us/config; "
              f"judged otherwise than the exact checker: {row['differ']}")
        return
    print(f"{row['robot']}: build with the boxes fixed {row['build']:.2f} s; "
          f"set_obstacles(20 boxes) {row['set_py']:.1f} us from Python, "
          f"NAME_set_obstacles {row['run_set']:.2f} us from C")
    for name in ("fixed", "run"):
        print(f"  check C {name:5}: {row[f'{name}_check']:.3f} us/config "
              f"(FREE {row[f'{name}_free']:.1%}, COLLIDES {row[f'{name}_collides']:.1%}, "
              f"MAYBE {row[f'{name}_maybe']:.1%}); check py {row[f'py_{name}']:.2f} us/call, "
              f"in_collision {row[f'batch_{name}']:.2f} us/config")
    print(f"  ratio run-time / fixed: C {row['run_check'] / row['fixed_check']:.2f}, "
          f"py {row['py_run'] / row['py_fixed']:.2f}; answers that differ: {row['differ']}")
    for key, c in row.items():
        if key.startswith("cloud_"):
            print(f"  cloud of {key[6:]} points: NAME_set_points {c['set_points']:.2f} ms, "
                  f"check {c['check']:.3f} us/config (FREE {c['free']:.1%}, COLLIDES "
                  f"{c['collides']:.1%}, MAYBE {c['maybe']:.1%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--robots", default="panda", help="comma-separated robot keys")
    parser.add_argument("--configs", type=int, default=10000, help="random configurations")
    parser.add_argument("--rounds", type=int, default=5, help="turns of the timed runs")
    parser.add_argument("--builds", type=int, default=2,
                        help="timed builds of the old way (0: none, the build shows nan)")
    parser.add_argument("--points", default="10000,100000", help="point-cloud sizes")
    parser.add_argument("--shapes", choices=("boxes", "cylinders", "capsules", "spheres"),
                        default="boxes", help="the 20 obstacles as these shapes")
    parser.add_argument("--judge", type=int, default=1500,
                        help="configurations judged by the exact checker (--shapes)")
    args = parser.parse_args()
    each_robot(args, run, show)


if __name__ == "__main__":
    main()
