"""Forward kinematics speed: generated standalone C against numpy and yourdfpy.

    python benchmarks/fk.py [--robots ur5,baxter] [--c-configs 1000000]
                            [--numpy-configs 20000] [--yourdfpy-configs 300] [--seed 1]

For each corpus robot (URDF from ../shared/corpus/urdf, packages through ROS_PACKAGE_PATH):

- generated C: `robrayc URDF --format c-standalone`, compiled with `cc -O2`, plus a small
  driver that calls NAME_fk once per configuration in a loop over a batch (output rows
  reused, a checksum read so no call can be skipped); called once through ctypes, timed
  around that call;
- numpy: robrayc.kinematics.fk_batch on the whole batch (4x4 matrices, vectorised over
  configurations);
- yourdfpy: URDF.update_cfg(q) then get_transform(link) for every link, per configuration
  (the same result: every frame's absolute pose).

Each figure is the best of --repeat runs, in configurations per second; the table's ratios
are computed in this run. Before timing, the C result is checked against numpy (1e-12) and
yourdfpy's link poses against the frames named after their joints (1e-9). Goal (issue 9):
generated C >= 100x yourdfpy per configuration.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
URDF_CORPUS = (REPO / ".." / "shared" / "corpus" / "urdf").resolve()
ROBOTS = {
    "ur5": "ros-industrial+universal_robot/ur_description/urdf/ur5_robot.urdf",
    "baxter": "RethinkRobotics+baxter_common/baxter_description/urdf/baxter.urdf",
    "fetch": "fetchrobotics+fetch_ros/fetch_description/robots/fetch.urdf",
    "lwa4d": "ipa320+schunk_robots/schunk_lwa4d/urdf/robot_lwa4d.urdf",
    "pr2": "ros-planning+moveit_resources/moveit_resources_pr2_description/urdf/robot.xml",
}
PACKAGE_ROOTS = ("RethinkRobotics+baxter_common", "ros-industrial+universal_robot",
                 "fetchrobotics+fetch_ros", "ipa320+schunk_robots",
                 "ipa320+schunk_modular_robotics", "ros+urdf_tutorial",
                 "ros-planning+moveit_resources")

DRIVER = r"""
#include <stddef.h>
#include "NAME.h"

/* Call NAME_fk once per configuration; returns a checksum so no call can be dropped. */
double bench_fk(size_t n, const double *q)
{
    static double tf[NAME_N_FRAMES][7];
    double sum = 0.0;
    size_t k;
    for (k = 0; k < n; k++) {
        NAME_fk(q + k * NAME_N_CONFIG, tf);
        sum += tf[NAME_N_FRAMES - 1][4];
    }
    return sum;
}
"""


def best_time(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def build_c(urdf: Path, name: str, tmp: Path) -> ctypes.CDLL:
    subprocess.run([sys.executable, "-m", "robrayc", str(urdf), "-q", "--missing-mesh", "drop",
                    "--format", "c-standalone", "-n", name, "-o", f"{name}.c"],
                   cwd=tmp, check=True)
    (tmp / "driver.c").write_text(DRIVER.replace("NAME", name))
    cc = shutil.which("cc") or "gcc"
    lib = tmp / f"lib{name}.so"
    subprocess.run([cc, "-std=c99", "-O2", "-shared", "-fPIC", f"{name}.c", "driver.c",
                    "-o", str(lib), "-lm"], cwd=tmp, check=True)
    dll = ctypes.CDLL(str(lib))
    dll.bench_fk.restype = ctypes.c_double
    dll.bench_fk.argtypes = [ctypes.c_size_t, ctypes.c_void_p]
    fk = getattr(dll, f"{name}_fk")
    fk.restype = None
    fk.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    return dll


def quat_matrices(tf: np.ndarray) -> np.ndarray:
    x, y, z, w = tf[..., 0], tf[..., 1], tf[..., 2], tf[..., 3]
    m = np.zeros(tf.shape[:-1] + (4, 4))
    m[..., 0, :3] = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w),
                              2 * (x * z + y * w)], -1)
    m[..., 1, :3] = np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z),
                              2 * (y * z - x * w)], -1)
    m[..., 2, :3] = np.stack([2 * (x * z - y * w), 2 * (y * z + x * w),
                              1 - 2 * (x * x + y * y)], -1)
    m[..., :3, 3] = tf[..., 4:]
    m[..., 3, 3] = 1
    return m


def bench_robot(robot: str, args: argparse.Namespace, tmp: Path) -> dict:
    import yourdfpy

    from robrayc.frontend import LoadOptions, load_scene
    from robrayc.kinematics import fk_batch, sample_configs

    urdf = URDF_CORPUS / ROBOTS[robot]
    scene = load_scene([str(urdf)], LoadOptions(missing_mesh="drop"))
    nvar, nframes = len(scene.variables), len(scene.frames)

    dll = build_c(urdf, robot, tmp)
    # correctness first: C against numpy on a few configurations
    check = sample_configs(scene, 50, args.seed)
    out = np.empty((nframes, 7))
    ours = np.empty((len(check), nframes, 4, 4))
    for k, q in enumerate(check):
        qk = np.ascontiguousarray(q)
        getattr(dll, f"{robot}_fk")(qk.ctypes.data, out.ctypes.data)
        ours[k] = quat_matrices(out)
    err_c = float(np.abs(ours - fk_batch(scene, check)).max())

    qc = np.ascontiguousarray(sample_configs(scene, args.c_configs, args.seed + 1))
    t_c = best_time(lambda: dll.bench_fk(len(qc), qc.ctypes.data), args.repeat)

    qn = sample_configs(scene, args.numpy_configs, args.seed + 2)
    t_np = best_time(lambda: fk_batch(scene, qn), args.repeat)

    model = yourdfpy.URDF.load(str(urdf), build_scene_graph=True, load_meshes=False,
                               build_collision_scene_graph=False,
                               load_collision_meshes=False)
    names = model.actuated_joint_names
    column = {v: i for i, v in enumerate(scene.variables)}
    missing = [n for n in names if n not in column]
    if missing:
        raise SystemExit(f"{robot}: yourdfpy joints {missing} are not robrayc variables")
    order = [column[n] for n in names]
    links = list(model.link_map)
    qy = sample_configs(scene, args.yourdfpy_configs, args.seed + 3)

    def run_yourdfpy() -> None:
        for q in qy:
            model.update_cfg(q[order])
            for link in links:
                model.get_transform(link)

    t_y = best_time(run_yourdfpy, args.repeat)

    # yourdfpy agrees with robrayc: a joint's child link sits at the frame of that joint
    model.update_cfg(check[0][order])
    ref = fk_batch(scene, check[:1])[0]
    base = model.get_transform(model.base_link)
    err_y = 0.0
    for joint in model.joint_map.values():
        if scene.has_frame(joint.name):
            theirs = np.linalg.inv(base) @ model.get_transform(joint.child)
            err_y = max(err_y, float(np.abs(theirs - ref[scene.index(joint.name)]).max()))
    return {"robot": robot, "frames": nframes, "vars": nvar,
            "c": len(qc) / t_c, "numpy": len(qn) / t_np, "yourdfpy": len(qy) / t_y,
            "err_c": err_c, "err_y": err_y}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--robots", default="ur5,baxter")
    p.add_argument("--c-configs", type=int, default=1_000_000)
    p.add_argument("--numpy-configs", type=int, default=20_000)
    p.add_argument("--yourdfpy-configs", type=int, default=300)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    if not URDF_CORPUS.is_dir():
        print(f"URDF corpus not found at {URDF_CORPUS}", file=sys.stderr)
        return 1
    os.environ["ROS_PACKAGE_PATH"] = os.pathsep.join(str(URDF_CORPUS / r) for r in PACKAGE_ROOTS)
    rows = []
    with tempfile.TemporaryDirectory(prefix="robrayc-fk-") as tmp:
        for robot in args.robots.split(","):
            work = Path(tmp) / robot
            work.mkdir()
            rows.append(bench_robot(robot, args, work))
    print(f"{'robot':8} {'frames':>6} {'vars':>4} {'C configs/s':>13} {'numpy configs/s':>16} "
          f"{'yourdfpy configs/s':>19} {'C/numpy':>8} {'C/yourdfpy':>11} "
          f"{'|C-numpy|':>10} {'|yourdfpy-IR|':>14}")
    for r in rows:
        print(f"{r['robot']:8} {r['frames']:6d} {r['vars']:4d} {r['c']:13,.0f} "
              f"{r['numpy']:16,.0f} {r['yourdfpy']:19,.0f} {r['c'] / r['numpy']:7.1f}x "
              f"{r['c'] / r['yourdfpy']:10.0f}x {r['err_c']:10.1e} {r['err_y']:14.1e}")
    ok = all(r["c"] >= 100 * r["yourdfpy"] and r["err_c"] <= 1e-12 for r in rows)
    print("goal (C >= 100x yourdfpy, C = IR within 1e-12):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
