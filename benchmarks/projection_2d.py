"""A UR5-sized robot (the corpus UR5: 7 links, visual COLLADA meshes of up to 29k triangles and
STL collision meshes) projected to every 2D format: whole-command medians of the installed
`robrayc`, against the goal of 1 s (issue 15.3), and the in-process projection time with the
mesh shadow algorithm against shapely's union of every triangle (the previous method).

    python benchmarks/projection_2d.py [--repeat 5] [--robrayc PATH]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.corpus import URDF_CORPUS, ros_package_path  # noqa: E402

UR5 = URDF_CORPUS / "ros-industrial+universal_robot" / "ur_description" / "urdf" / "ur5_robot.urdf"
# format -> extra options (pySimiam needs a robot: the whole arm stands in for one)
FORMATS = {"svg": [], "cs2": [], "cajunbot": [], "simmer": [],
           "pysimiam": ["--robot-frame", "world_joint"]}
GOAL = 1.0


def whole_command(args: list[str], repeat: int) -> tuple[float, float]:
    """Medians of the process's wall time and CPU time (user + system; steadier than wall
    on a loaded machine)."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def in_process(repeat: int) -> tuple[float, float]:
    """Median projection time (meshes already read, shadows not) with the shadow algorithm,
    then with a union of every triangle (of the same triangles: one facing half of a closed
    mesh)."""
    import shapely

    from robrayc.analysis import footprints, projection, shadow
    from robrayc.diagnostics import DiagnosticSink
    from robrayc.frontend import load_scene

    scene = load_scene([str(UR5)])
    opts = projection.ProjectionOptions()
    projection.project_scene(scene, opts, DiagnosticSink())  # read and cache the meshes

    def timed() -> float:
        footprints._SHADOWS.clear()  # each mesh's shadow again, not moved from the last call
        t = time.perf_counter()
        projection.project_scene(scene, opts, DiagnosticSink())
        return time.perf_counter() - t

    new = statistics.median(timed() for _ in range(repeat))
    saved = shadow.triangles_union
    shadow.triangles_union = lambda tris: shapely.union_all(shapely.polygons(tris))
    try:
        old = statistics.median(timed() for _ in range(max(1, repeat // 2)))
    finally:
        shadow.triangles_union = saved
    return new, old


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--robrayc", default=shutil.which("robrayc") or "robrayc")
    args = p.parse_args()
    os.environ.setdefault("ROS_PACKAGE_PATH", ros_package_path())
    with tempfile.TemporaryDirectory() as tmp:
        print(f"UR5 to each 2D format, whole command, median of {args.repeat} "
              f"(goal {GOAL} s wall on an idle machine), beside bare Python and the C compile:")
        runs = {"python -c pass": [sys.executable, "-c", "pass"],
                "c (no projection)": [args.robrayc, str(UR5), "-o", f"{tmp}/ur5.c", "-q"]}
        for fmt, extra in FORMATS.items():
            runs[fmt] = [args.robrayc, str(UR5), "--format", fmt, "-o", f"{tmp}/ur5.{fmt}",
                         "-q", *extra]
        for name, command in runs.items():
            wall, cpu = whole_command(command, args.repeat)
            verdict = ("ok" if wall <= GOAL else "over") if name in FORMATS else ""
            print(f"  {name:18} wall {wall:6.3f} s  cpu {cpu:6.3f} s  {verdict}")
    new, old = in_process(args.repeat)
    print(f"projection in process: shadow {new:.3f} s, union of every triangle {old:.3f} s, "
          f"ratio {new / old:.2f}")


if __name__ == "__main__":
    main()
