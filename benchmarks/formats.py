"""Robot formats: whole-command times of robrayc's URDF -> MJCF and URDF -> SDF conversions and
its xacro input, against the tools the conversions replace.

    python benchmarks/formats.py [--repeat 5] [--robots ur5,lwa4d,pr2,fetch,baxter]

Each figure is the median wall time of --repeat fresh processes (CPU time beside it):

- `robrayc ROBOT.urdf -o robot.mjcf` (meshes MuJoCo cannot read are converted to STL) against
  MuJoCo's own URDF import (`mujoco.MjModel.from_xml_path(urdf)` + `mj_saveLastXML`, which
  fails on COLLADA meshes and drops fixed links);
- `robrayc ROBOT.urdf -o robot.sdf` against sdformat's URDF -> SDF conversion (a C++ program
  loading the URDF with sdf::Root, compiled here against libsdformat-dev);
  MuJoCo's import resolves no package:// mesh, so only the mesh-free tutorial robot (04)
  loads;
- `robrayc ROBOT.urdf.xacro -o robot.urdf` (expansion, import and export) against the `xacro`
  command expanding the same file; `$(find PKG)` is given to the xacro command through a
  ROS-less stand-in for `ament_index_python` that maps package names to the corpus folders.

The goal (issue 18): converting a corpus robot takes <= 1 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import urdf_compile  # noqa: E402  (its timer)
from urdf_compile import CORPUS, REPO, ROOTS  # noqa: E402  (the same corpus)

ROBOTS = {
    "ur5": "ros-industrial+universal_robot/ur_description/urdf/ur5_robot.urdf",
    "lwa4d": "ipa320+schunk_robots/schunk_lwa4d/urdf/robot_lwa4d.urdf",
    "pr2": "ros-planning+moveit_resources/moveit_resources_pr2_description/urdf/robot.xml",
    "fetch": "fetchrobotics+fetch_ros/fetch_description/robots/fetch.urdf",
    "baxter": "RethinkRobotics+baxter_common/baxter_description/urdf/baxter.urdf",
    "tutorial04": "ros+urdf_tutorial/urdf_tutorial/urdf/04-materials.urdf",  # no meshes
}
XACROS = {
    "ur5": "ros-industrial+universal_robot/ur_description/urdf/ur5_robot.urdf.xacro",
    "lwa4d": "ipa320+schunk_robots/schunk_lwa4d/urdf/robot_lwa4d.urdf.xacro",
    "tutorial08": "ros+urdf_tutorial/urdf_tutorial/urdf/08-macroed.urdf.xacro",
}
MUJOCO = """
import sys, mujoco
m = mujoco.MjModel.from_xml_path(sys.argv[1])
mujoco.mj_saveLastXML(sys.argv[2], m)
"""
AMENT_SHIM = '''"""Stand-in for ROS 2's package index: packages are corpus folders of that name."""
import os


def get_package_share_directory(name):
    for root in os.environ["ROS_PACKAGE_PATH"].split(os.pathsep):
        for folder, dirs, _ in os.walk(root):
            if os.path.basename(folder) == name:
                return folder
    raise LookupError(name)
'''


def timed(cmd: list[str], env: dict) -> tuple[float, float] | None:
    """(wall, cpu) seconds of one fresh process (urdf_compile's timer); None when it fails."""
    try:
        return urdf_compile.timed(cmd, env)
    except SystemExit:
        return None


def median(cmd: list[str], env: dict, repeat: int) -> tuple[float, float] | None:
    runs = [timed(cmd, env) for _ in range(repeat)]
    if any(r is None for r in runs):
        return None
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def sdf_converter(tmp: Path) -> Path | None:
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "sdformat12"],
                           capture_output=True, text=True)
    if flags.returncode != 0 or shutil.which("g++") is None:
        return None
    exe = tmp / "sdf_check"
    source = REPO / "tests" / "backends" / "sdf" / "sdf_check.cc"
    subprocess.run(["g++", "-O2", "-o", str(exe), str(source), *flags.stdout.split()],
                   check=True)
    return exe


def show(label: str, ours, theirs, what: str) -> None:
    def cell(t):
        return "fails" if t is None else f"{t[0]:7.3f} s ({t[1]:5.2f} cpu)"

    ratio = f"{theirs[0] / ours[0]:5.2f}x" if ours and theirs else "  -  "
    goal = "" if ours is None else ("  <= 1 s" if ours[0] <= 1.0 else "  > 1 s")
    print(f"{label:10} robrayc {cell(ours):24} {what:18} {cell(theirs):24} {ratio}{goal}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--robots", default=",".join(ROBOTS))
    args = ap.parse_args()
    if not CORPUS.is_dir():
        raise SystemExit(f"corpus not found at {CORPUS}")
    package_path = os.pathsep.join(str(CORPUS / r) for r in ROOTS)
    env = dict(os.environ, ROS_PACKAGE_PATH=package_path)
    robrayc = [sys.executable, "-m", "robrayc"]
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        converter = sdf_converter(tmp)
        (tmp / "ament_index_python").mkdir()
        (tmp / "ament_index_python" / "packages.py").write_text(AMENT_SHIM)
        (tmp / "ament_index_python" / "__init__.py").write_text("")
        xacro_env = dict(env, PYTHONPATH=str(tmp))
        for key in args.robots.split(","):
            urdf = str(CORPUS / ROBOTS[key])
            drop = ["--missing-mesh=drop", "-q"]
            show(key, median([*robrayc, urdf, "-o", str(tmp / "r.mjcf"), *drop], env,
                             args.repeat),
                 median([sys.executable, "-c", MUJOCO, urdf, str(tmp / "m.xml")], env,
                        args.repeat), "MuJoCo's import")
            show(key, median([*robrayc, urdf, "-o", str(tmp / "r.sdf"), *drop], env,
                             args.repeat),
                 median([str(converter), urdf], env, args.repeat) if converter else None,
                 "sdformat's")
        xacro = shutil.which("xacro")
        for key, rel in XACROS.items():
            path = str(CORPUS / rel)
            show(key, median([*robrayc, path, "-o", str(tmp / "x.urdf"), "-q",
                              "--missing-mesh=drop"], env, args.repeat),
                 median([xacro, path, "-o", str(tmp / "x2.urdf")], xacro_env, args.repeat)
                 if xacro else None, "xacro command")
    print("\nRatios > 1x: robrayc is faster. robrayc's xacro row includes URDF import and "
          "export; the xacro command only expands.")


if __name__ == "__main__":
    main()
