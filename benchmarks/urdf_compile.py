"""URDF robots with meshes to amino C: robrayc's wall time against the original and yourdfpy.

    python benchmarks/urdf_compile.py [--repeat 5] [--robots fetch,baxter,pr2,ur5] [--chain N]

For each corpus robot (../shared/corpus/urdf), the wall time of a fresh process running
`robrayc ROBOT.urdf -n robot -o robot.c --missing-mesh=drop` (meshes read, converted and
embedded as C arrays; the corpus lacks one or two of the largest upstream visual meshes, which
are dropped), against:

- the original aarxc's published 14.0 s for Baxter (amino's documentation), target 10x faster
  (<= 1.4 s) for the largest corpus robot with meshes; Fetch is the largest here (36 mesh files,
  14 MB), Baxter the published one;
- loading the same URDF with yourdfpy, the URDF library robrayc is checked against, in a
  fresh process: with its meshes (trimesh), and kinematics only.

Times are the medians of --repeat runs of each; ratios come from the same run. The table also
gives the mesh count, vertices embedded, and the C file's size. CPU time (user + sys) of the
robrayc process is shown beside the wall time: on a shared, loaded machine wall time
overstates, CPU time does not.

First, a generated chain of --chain links (default 100,000; each a box visual and a revolute
joint with limits, as tests/test_pathological.py builds it) compiled the same way: its median
wall and CPU time and the process's peak memory (goal: <= 5 s and <= 1 GiB).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / ".." / "shared" / "corpus" / "urdf"
ROOTS = ("RethinkRobotics+baxter_common", "ros-industrial+universal_robot",
         "fetchrobotics+fetch_ros", "ipa320+schunk_robots", "ipa320+schunk_modular_robotics",
         "ros+urdf_tutorial", "ros-planning+moveit_resources")
ROBOTS = {
    "fetch": "fetchrobotics+fetch_ros/fetch_description/robots/fetch.urdf",
    "baxter": "RethinkRobotics+baxter_common/baxter_description/urdf/baxter.urdf",
    "pr2": "ros-planning+moveit_resources/moveit_resources_pr2_description/urdf/robot.xml",
    "ur5": "ros-industrial+universal_robot/ur_description/urdf/ur5_robot.urdf",
}
ORIGINAL_BAXTER_S = 14.0

YOURDFPY = """
import sys, yourdfpy
yourdfpy.URDF.load(sys.argv[1], load_meshes=sys.argv[2] == "1", build_scene_graph=True,
                   build_collision_scene_graph=sys.argv[2] == "1",
                   load_collision_meshes=sys.argv[2] == "1")
"""


def timed(cmd: list[str], env: dict) -> tuple[float, float]:
    """(wall, cpu) seconds of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def medians(cmd: list[str], env: dict, repeat: int) -> tuple[float, float]:
    """Median wall and CPU seconds of `repeat` runs."""
    runs = [timed(cmd, env) for _ in range(repeat)]
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def chain(n: int, env: dict, repeat: int, tmp: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.test_pathological import chain_urdf

    urdf = tmp / f"chain{n}.urdf"
    urdf.write_text(chain_urdf(n))
    cmd = [sys.executable, "-m", "robrayc", str(urdf), "-o", str(tmp / "chain.c")]
    wall, cpu = medians(cmd, env, repeat)  # the first children: their peak is this command's
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    print(f"{n:,}-link chain URDF ({urdf.stat().st_size / 1e6:.0f} MB): {wall:.2f} s wall "
          f"(median of {repeat}), {cpu:.2f} s CPU, peak {peak:.2f} GiB (goal <= 5 s, "
          "<= 1 GiB)\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--robots", default="fetch,baxter,pr2,ur5")
    ap.add_argument("--chain", type=int, default=100_000, metavar="N",
                    help="links of the generated chain URDF (0: skip it)")
    args = ap.parse_args()
    if not CORPUS.is_dir():
        raise SystemExit(f"corpus not found at {CORPUS}")
    env = dict(os.environ, ROS_PACKAGE_PATH=os.pathsep.join(str(CORPUS / r) for r in ROOTS))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.chain:
            chain(args.chain, env, max(1, args.repeat // 2), Path(tmp))
        for key in args.robots.split(","):
            urdf = CORPUS / ROBOTS[key]
            out = Path(tmp) / f"{key}.c"
            cmd = [sys.executable, "-m", "robrayc", str(urdf), "-n", "robot", "-o", str(out),
                   "--missing-mesh=drop", "-q"]
            wall, cpu = medians(cmd, env, args.repeat)
            text = out.read_text()
            n_mesh = len(re.findall(r"aa_rx_mesh_set_vertices\(mesh, (\d+)", text))
            n_vert = sum(map(int, re.findall(r"aa_rx_mesh_set_vertices\(mesh, (\d+)", text)))
            y_mesh, _ = medians([sys.executable, "-c", YOURDFPY, str(urdf), "1"], env,
                             max(1, args.repeat // 2))
            y_kin, _ = medians([sys.executable, "-c", YOURDFPY, str(urdf), "0"], env,
                            max(1, args.repeat // 2))
            rows.append((key, n_mesh, n_vert, out.stat().st_size, wall, cpu, y_mesh, y_kin))
    head = (f"{'robot':8} {'meshes':>6} {'vertices':>9} {'C MB':>6} {'robrayc s':>10} "
            f"{'cpu s':>6} {'vs 14.0 s':>9} {'yourdfpy+meshes s':>17} {'ratio':>6} "
            f"{'yourdfpy kin s':>14} {'ratio':>6}")
    print(head)
    print("-" * len(head))
    for key, n_mesh, n_vert, size, wall, cpu, y_mesh, y_kin in rows:
        print(f"{key:8} {n_mesh:6d} {n_vert:9d} {size / 1e6:6.1f} {wall:10.3f} {cpu:6.2f} "
              f"{ORIGINAL_BAXTER_S / wall:8.1f}x {y_mesh:17.3f} {y_mesh / wall:5.2f}x "
              f"{y_kin:14.3f} {y_kin / wall:5.2f}x")
    largest = rows[0]
    verdict = "meets" if largest[4] <= ORIGINAL_BAXTER_S / 10 else "MISSES"
    print(f"\n{largest[0]}: {largest[4]:.3f} s wall = {ORIGINAL_BAXTER_S / largest[4]:.1f}x "
          f"faster than the original's published {ORIGINAL_BAXTER_S} s; {verdict} the 10x "
          f"target (<= {ORIGINAL_BAXTER_S / 10:.1f} s). Ratios > 1x: robrayc is faster.")


if __name__ == "__main__":
    main()
