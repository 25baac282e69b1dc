"""Planning on VAMP's own problem sets: robrayc's checker under OMPL's RRT-Connect against
VAMP's RRT-Connect (PyPI vamp-planner), in turns, every path judged by robrayc's exact checker;
and the time from a new robot's URDF to its first plan.

    python benchmarks/planning.py --vamp /tmp/vamp [--vamp-python /work/venv-vamp/bin/python]
        [--sets box,cage,...] [--problems 10] [--rounds 3] [--timeout 10]
    python benchmarks/planning.py [--first-plan-rounds 3]   (URDF to first plan only)

--vamp: a checkout of KavrakiLab/vamp (its resources/panda/problems.tar.bz2: MoveIt scenes
and requests; its Panda URDFs and panda.srdf, whose disabled pairs robrayc allows). Per
problem: the obstacles (boxes, cylinders, spheres, as the MoveIt scene poses them) set at run
time on one compiled checker of VAMP's Panda (--model meshes: panda.urdf, its collision
meshes, the default; spheres: panda_spherized.urdf, the spheres VAMP's own Panda is made of;
built once, cached; `set_obstacles` compiles nothing), start and goal from the request, a
plan by robrayc.analysis.planning.plan (OMPL RRTConnect, resolution 32 and step (OMPL's
range) 1.0 as VAMP's rrtc for its Panda, no simplification; wall time of the call). VAMP's
side (with --vamp-python, the interpreter of a venv where vamp-planner is installed): its
rrtc planner with its default settings on the same problems, in a subprocess that times each
call (wall time), VAMP's own model (its cylinders become capsules, its own rule). The two
take turns: each round runs every set once on each side; a problem's time is the median of
its rounds.

Judged by robrayc's exact checker on every returned path: paths that collide at the planner's
samples (resolution 32) in the model planned with, and paths that collide for the real
Panda's meshes at --judge-resolution (4 x 32: between the samples too); problems whose start
or goal collide (exactly) are left out; problems one side solves and the other does not; and
start or goal configurations VAMP calls colliding. With --count, an untimed run more counts
the states and motions robrayc's checker answers a plan, beside VAMP's iterations and tree
nodes (VAMP's planner checks motions only; an iteration whose sample its dynamic domain
rejects checks none). Printed: the CPU, the VAMP commit and
version, per set the median planning times and their ratio, failures, colliding paths and
answers that differ; first, "URDF to first plan": a fresh process with an empty cache
directory loads examples/arm4.urdf, builds its compiled checker (the one C compile), sets
obstacles and plans (wall time of the whole process, interpreter start included); and the
whole `robrayc plan` command for the corpus UR5 with its meshes and its allowed pairs (made
once by `robrayc allowed-collisions`), with an empty cache (its checker's compiles and
certified cells included). Without --vamp, only these two rows (--first-plan-rounds N: the
median of N fresh processes each, in turns).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.planner import cpu, vamp_commit  # noqa: E402

RESOLUTION = 32.0  # VAMP's Panda
PANDA_RANGE = 1.0  # VAMP's RRT-Connect range for its Panda (vamp/constants.py)

# VAMP's side, run by the vamp-planner venv's interpreter: problems on stdin (one JSON a
# line), one JSON a line out (solved, seconds, path). Euler angles by VAMP's own
# transformations, as its problem_tar_to_pkl_json.py makes them.
VAMP_SCRIPT = r"""
import json, sys, time
import numpy as np
import vamp
from vamp.transformations import euler_from_matrix, quaternion_matrix
module, planner, settings, _ = vamp.configure_robot_and_planner_with_kwargs("panda", "rrtc")
sampler = module.halton()
from importlib.metadata import version
print(json.dumps({"version": version("vamp-planner")}), flush=True)
for line in sys.stdin:
    p = json.loads(line)
    for kind in ("box", "cylinder", "sphere"):
        for o in p[kind]:
            x, y, z, w = o["quaternion_xyzw"]
            o["orientation_euler_xyz"] = list(euler_from_matrix(quaternion_matrix([x, y, z, w])))
    env = vamp.problem_dict_to_vamp(p)
    sampler.reset()
    t = time.perf_counter()
    result = planner(p["start"], [p["goal"]], env, settings, sampler)
    t = time.perf_counter() - t
    path = result.path.numpy().astype(float).tolist() if result.solved else None
    print(json.dumps({"solved": bool(result.solved), "seconds": t, "path": path,
                      "iterations": int(result.iterations), "nodes": int(sum(result.size)),
                      "valid": [bool(module.validate(p["start"], env)),
                                bool(module.validate(p["goal"], env))]}), flush=True)
"""


def quaternion_matrix(xyzw) -> np.ndarray:
    from robrayc.rotations import quat_to_matrix

    return np.array(quat_to_matrix(tuple(xyzw)))  # (robrayc's quaternions are x y z w)


def pose(entry: dict) -> np.ndarray:
    """4x4 of a MoveIt pose ({position, orientation: x y z w})."""
    T = np.eye(4)
    T[:3, :3] = quaternion_matrix(entry["orientation"])
    T[:3, 3] = entry["position"]
    return T


def moveit_objects(scene: dict) -> dict:
    """A MoveIt planning scene's collision objects, by kind, each with its world position,
    quaternion (x y z w) and dimensions (the first primitive of each object, as VAMP)."""
    from robrayc.rotations import matrix_to_quat

    out: dict = {"box": [], "cylinder": [], "sphere": []}
    for co in scene["world"]["collision_objects"]:
        base = pose(co["pose"]) if "pose" in co else np.eye(4)
        T = base @ pose(co["primitive_poses"][0])
        prim = co["primitives"][0]
        obj = {"name": co["id"], "position": T[:3, 3].tolist(),
               "quaternion_xyzw": list(matrix_to_quat(T[:3, :3].tolist())),
               "rotation": T[:3, :3].tolist()}
        dims = prim["dimensions"]
        if prim["type"] == "box":
            obj["half_extents"] = [d / 2 for d in dims]
        elif prim["type"] == "cylinder":
            obj["length"], obj["radius"] = dims[0], dims[1]
        elif prim["type"] == "sphere":
            obj["radius"] = dims[0]
        else:
            raise ValueError(f"unknown primitive {prim['type']!r}")
        out[prim["type"]].append(obj)
    return out


def load_problems(vamp: Path, joints: list[str]) -> dict[str, list[dict]]:
    """set name -> its problems (index order), each {problem, index, start, goal, box,
    cylinder, sphere}, from resources/panda/problems.tar.bz2."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    scenes: dict = {}
    requests: dict = {}
    with tarfile.open(vamp / "resources" / "panda" / "problems.tar.bz2", "r:bz2") as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            _, folder, filename = member.name.split("/")
            name = folder.removesuffix("_panda")
            index = int("".join(c for c in filename if c.isdigit()))
            data = yaml.load(tar.extractfile(member).read(), Loader=loader)
            if filename.startswith("scene"):
                scenes.setdefault(name, {})[index] = moveit_objects(data)
            else:
                js = data["start_state"]["joint_state"]
                goal = {c["joint_name"]: c["position"]
                        for c in data["goal_constraints"][0]["joint_constraints"]}
                requests.setdefault(name, {})[index] = {
                    "start": [js["position"][js["name"].index(j)] for j in joints],
                    "goal": [goal[j] for j in joints]}
    return {name: [{"problem": name, "index": i, **scenes[name][i], **requests[name][i]}
                   for i in sorted(scenes[name])] for name in sorted(scenes)}


def panda_scene(vamp: Path, model: str = "meshes"):
    """VAMP's Panda URDF with its SRDF's disabled pairs allowed: panda.urdf (its collision
    meshes) or, model "spheres", panda_spherized.urdf (the spheres VAMP's own Panda is made
    of)."""
    from robrayc import ir, srdf
    from robrayc.diagnostics import DiagnosticSink
    from robrayc.frontend import LoadOptions, load_scene
    from robrayc.links import plan_links

    folder = vamp / "resources" / "panda"
    urdf = folder / ("panda_spherized.urdf" if model == "spheres" else "panda.urdf")
    scene = load_scene([str(urdf)],
                       LoadOptions(package_paths={"meshes": str(folder / "meshes")}))
    sink = DiagnosticSink(quiet=True)  # the SRDF's pairs allowed as `--srdf` allows them
    scene = srdf.allowed(scene, srdf.read_for(scene, str(folder / "panda.srdf"), sink), sink)
    frames = srdf.collision_links(scene, plan_links(scene))
    allowed = {(p.a, p.b) for p in scene.allowed}
    # one link's collision elements (a frame each: the spherized Panda's spheres) as one
    allowed |= {tuple(sorted((a, b))) for fs in frames.values() for a in fs for b in fs if a != b}
    return ir.Scene(frames=scene.frames, sources=scene.sources,
                    allowed=tuple(ir.AllowedCollision(a, b) for a, b in sorted(allowed)))


def obstacles(problem: dict) -> list:
    from robrayc.analysis.collision import Box, Cylinder, Sphere

    shapes: list = [Box(centre=o["position"], half_extents=o["half_extents"],
                        rotation=o["rotation"]) for o in problem["box"]]
    shapes += [Cylinder(centre=o["position"], radius=o["radius"], half_length=o["length"] / 2,
                        rotation=o["rotation"]) for o in problem["cylinder"]]
    shapes += [Sphere(centre=o["position"], radius=o["radius"]) for o in problem["sphere"]]
    return shapes


def robrayc_set(compiled, problems: list[dict], timeout: float, step: float | None
                ) -> list[dict]:
    """Each problem planned by robrayc (OMPL RRTConnect over the compiled checker)."""
    from robrayc.analysis.planning import plan

    out = []
    for p in problems:
        compiled.set_obstacles(obstacles(p))
        t = time.perf_counter()
        path = plan(compiled, p["start"], p["goal"], timeout=timeout, resolution=RESOLUTION,
                    simplify=False, step=step)
        out.append({"seconds": time.perf_counter() - t, "solved": path is not None,
                    "path": None if path is None else path.tolist()})
    return out


class CountingChecker:
    """A checker's check and check_motion, counted (what OMPL asks a plan), for an untimed
    run; everything else is the checker's."""

    _kernel = None  # (no path around check and check_motion: each is counted)

    def __init__(self, checker) -> None:
        self.checker, self.states, self.motions = checker, 0, 0

    def __getattr__(self, name: str):
        return getattr(self.checker, name)

    def check(self, q) -> bool:
        self.states += 1
        return self.checker.check(q)

    def check_motion(self, a, b, resolution: float) -> bool:
        self.motions += 1
        return self.checker.check_motion(a, b, resolution)


def robrayc_checks(compiled, problems: list[dict], timeout: float, step: float | None
                   ) -> list[tuple[int, int]]:
    """(states, motions) robrayc's checker answers each problem's plan (an untimed run)."""
    from robrayc.analysis.planning import plan

    out = []
    for p in problems:
        compiled.set_obstacles(obstacles(p))
        counted = CountingChecker(compiled)
        plan(counted, p["start"], p["goal"], timeout=timeout, resolution=RESOLUTION,
             simplify=False, step=step)
        out.append((counted.states, counted.motions))
    return out


def vamp_set(python: str, problems: list[dict]) -> tuple[str, list[dict]]:
    """Each problem planned by VAMP's rrtc, in the vamp-planner venv's interpreter."""
    text = "".join(json.dumps({k: v for k, v in p.items()}) + "\n" for p in problems)
    run = subprocess.run([python, "-c", VAMP_SCRIPT], input=text, capture_output=True,
                         text=True)
    if run.returncode:
        raise SystemExit(f"VAMP's side failed:\n{run.stderr}")
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    return lines[0]["version"], lines[1:]


def judge(exact, problem: dict, path, resolution: float) -> bool:
    """Whether a path collides, by the exact checker at `resolution`."""
    from robrayc.analysis.planning import path_collisions

    exact.set_obstacles(obstacles(problem))
    return bool(path_collisions(exact, np.array(path), resolution).any())


def run_set(name: str, problems: list[dict], compiled, exact, meshes, args) -> dict:
    """One problem set: both sides in turns for --rounds rounds, then the judging."""
    valid = []
    for p in problems:
        exact.set_obstacles(obstacles(p))
        if not (exact.check(p["start"]) or exact.check(p["goal"])):
            valid.append(p)
    ours: list[list[dict]] = []
    theirs: list[list[dict]] = []
    version = "not run"
    for _ in range(args.rounds):
        ours.append(robrayc_set(compiled, valid, args.timeout, args.step or None))
        if args.vamp_python:
            version, runs = vamp_set(args.vamp_python, valid)
            theirs.append(runs)
    row = {"set": name, "problems": len(problems), "valid": len(valid), "vamp_version": version}
    if args.count:
        counts = robrayc_checks(compiled, valid, args.timeout, args.step or None)
        row["checks"] = [statistics.median(c[k] for c in counts) for k in (0, 1)]
        if theirs:
            row["vamp_checks"] = [statistics.median(r[k] for r in theirs[-1])
                                  for k in ("iterations", "nodes")]
    for side, runs in (("robrayc", ours), ("vamp", theirs)):
        if not runs:
            continue
        last = runs[-1]
        solved = [k for k, r in enumerate(last) if r["solved"]]
        times = [statistics.median(run[k]["seconds"] for run in runs) for k in solved]
        row[side] = {
            "median": statistics.median(times) if times else float("nan"),
            "times": times,
            "failed": [valid[k]["index"] for k, r in enumerate(last) if not r["solved"]],
            "colliding": [valid[k]["index"] for k in solved
                          if judge(exact, valid[k], last[k]["path"], RESOLUTION)],
            "meshes": [valid[k]["index"] for k in solved
                       if judge(meshes, valid[k], last[k]["path"], args.judge_resolution)],
            "solved": {valid[k]["index"] for k in solved},
        }
        if side == "vamp":
            row["vamp_invalid"] = [valid[k]["index"] for k, r in enumerate(last)
                                   if not all(r["valid"])]
    return row


def print_set(row: dict) -> None:
    ours, theirs = row.get("robrayc"), row.get("vamp")
    cells = [f"{row['set']:18}", f"{row['valid']}/{row['problems']} valid (exact)"]
    cells.append(f"robrayc median {1e3 * ours['median']:.3g} ms")
    if theirs:
        cells.append(f"vamp median {1e3 * theirs['median']:.3g} ms")
        cells.append(f"ratio {ours['median'] / theirs['median']:.3g}x")
    for side, r in (("robrayc", ours), ("vamp", theirs)):
        if r:
            cells.append(f"{side}: failed {r['failed'] or 0}, paths colliding (exact, "
                         f"resolution {RESOLUTION:g}) {r['colliding'] or 0}, meshes "
                         f"{r['meshes'] or 0}")
    if "checks" in row:
        cells.append("robrayc checks a plan (median): {:g} states, {:g} motions".format(
            *row["checks"]))
    if "vamp_checks" in row:
        cells.append("vamp a plan (median): {:g} iterations, {:g} tree nodes".format(
            *row["vamp_checks"]))
    if theirs:
        only = sorted(ours["solved"] ^ theirs["solved"])
        cells.append(f"differ: solved by one side only {only or 0}, start/goal VAMP calls "
                     f"colliding {row['vamp_invalid'] or 0}")
    print("  ".join(cells), flush=True)


FIRST_PLAN = r"""
import sys, time
t0 = time.perf_counter()
from robrayc.frontend import load_scene
from robrayc.analysis.collision import Box, CollisionChecker, Sphere
from robrayc.analysis.planning import plan
checker = CollisionChecker(load_scene([sys.argv[1]]), backend="compiled")
checker.set_obstacles([Box(centre=(0.55, 0, 0.35), half_extents=(0.05, 0.1, 0.35)),
                       Sphere(centre=(0, 0.5, 0.5), radius=0.1)])
path = plan(checker, [-1.2, 1.2, 0.6, 0.0], [1.2, 1.2, 0.6, 0.0], timeout=10)
print(time.perf_counter() - t0, path is not None)
"""


def first_plan() -> tuple[float, float, bool]:
    """(process seconds, in-process seconds, solved) from examples/arm4.urdf to its first
    plan, in a fresh process with an empty cache (the compiled checker built: one compile)."""
    with tempfile.TemporaryDirectory() as cache:
        t = time.perf_counter()
        run = subprocess.run([sys.executable, "-c", FIRST_PLAN,
                              str(REPO / "examples" / "arm4.urdf")], env=_env(cache),
                             capture_output=True, text=True, check=True)
        wall = time.perf_counter() - t
    inner, solved = run.stdout.split()[-2:]
    return wall, float(inner), solved == "True"


# The corpus UR5 (meshes), the arm swung from one side to the other over its base
UR5 = "ros-industrial+universal_robot/ur_description"
UR5_MOTION = ["--start", "shoulder_lift_joint=-1.57", "--goal", "shoulder_pan_joint=2",
              "--goal", "shoulder_lift_joint=-1.57", "--goal", "elbow_joint=1"]


def _env(cache: str) -> dict:
    return dict(os.environ, XDG_CACHE_HOME=cache,
                PYTHONPATH=os.pathsep.join(filter(None, [str(REPO),
                                                         os.environ.get("PYTHONPATH")])))


def ur5_first_plan(folder: Path) -> tuple[float, int]:
    """(seconds, exit status) of the whole `robrayc plan` command for the corpus UR5 with its
    meshes and its allowed pairs (`robrayc allowed-collisions`, made once into folder), with
    an empty cache: its compiled checker and certified cells built, then a plan."""
    from tests.corpus import URDF_CORPUS

    root = URDF_CORPUS / UR5
    urdf = root / "urdf" / "ur5_robot.urdf"
    packages = ["--package-path", f"ur_description={root}"]
    allowed = folder / "ur5_allowed.robray"
    if not allowed.is_file():
        with tempfile.TemporaryDirectory() as cache:
            subprocess.run([sys.executable, "-m", "robrayc", "allowed-collisions", str(urdf),
                            *packages, "-o", str(allowed)], env=_env(cache), check=True,
                           capture_output=True)
    with tempfile.TemporaryDirectory() as cache:
        t = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "robrayc", "plan", str(urdf), str(allowed),
                              *packages, *UR5_MOTION], env=_env(cache), capture_output=True)
        return time.perf_counter() - t, run.returncode


def print_first_plans(rounds: int) -> None:
    """The two URDF-to-first-plan rows (arm4 and the corpus UR5), the median of `rounds`
    fresh processes each, taking turns."""
    arm4, ur5 = [], []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(rounds):
            arm4.append(first_plan())
            ur5.append(ur5_first_plan(Path(folder)))
    wall = statistics.median(x[0] for x in arm4)
    print(f"URDF to first plan (examples/arm4.urdf, empty cache, one compile): {wall:.3g} s "
          f"process (median of {rounds}; {min(x[0] for x in arm4):.3g}-"
          f"{max(x[0] for x in arm4):.3g}), solved: {all(x[2] for x in arm4)}", flush=True)
    wall = statistics.median(x[0] for x in ur5)
    print(f"URDF to first plan (corpus UR5 with meshes and its allowed pairs, `robrayc plan`, "
          f"empty cache): {wall:.3g} s whole command (median of {rounds}; "
          f"{min(x[0] for x in ur5):.3g}-{max(x[0] for x in ur5):.3g}), planned: "
          f"{all(x[1] == 0 for x in ur5)}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vamp", metavar="PATH",
                   help="a checkout of KavrakiLab/vamp (its problem sets and Panda); without, "
                   "only the URDF-to-first-plan rows")
    p.add_argument("--first-plan-rounds", type=int, default=1, metavar="N",
                   help="fresh processes for each URDF-to-first-plan row (their median)")
    p.add_argument("--vamp-python", metavar="PYTHON",
                   help="the interpreter of a venv with vamp-planner installed: time it too")
    p.add_argument("--sets", help="problem sets (comma-separated; default: all)")
    p.add_argument("--problems", type=int, default=10,
                   help="the first N problems of each set (0: all)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--timeout", type=float, default=10.0, help="seconds a plan may take")
    p.add_argument("--step", type=float, default=PANDA_RANGE,
                   help="the longest motion RRT-Connect tries at once (0: OMPL's default)")
    p.add_argument("--judge-resolution", type=float, default=4 * RESOLUTION,
                   help="samples a unit of length in the meshes judge")
    p.add_argument("--count", action="store_true",
                   help="also count robrayc's checks a plan (an untimed run) and print VAMP's "
                        "iterations and tree nodes")
    p.add_argument("--model", choices=("meshes", "spheres"), default="meshes",
                   help="robrayc's Panda: panda.urdf (its collision meshes) or "
                        "panda_spherized.urdf (VAMP's spheres)")
    args = p.parse_args()
    from robrayc.analysis.collision import CollisionChecker

    print(f"CPU: {cpu()}; VAMP checkout: "
          f"{vamp_commit(args.vamp) if args.vamp else 'none'}; vamp-planner: "
          f"{'via ' + args.vamp_python if args.vamp_python else 'not timed'}", flush=True)
    print_first_plans(args.first_plan_rounds)
    if not args.vamp:
        return
    vamp = Path(args.vamp)
    scene = panda_scene(vamp, args.model)
    t = time.perf_counter()
    compiled = CollisionChecker(scene, backend="compiled")
    print(f"VAMP's Panda ({args.model}): compiled checker ready in {time.perf_counter() - t:.3g} s "
          f"(cached after the first run); per problem set_obstacles, no compile", flush=True)
    exact = CollisionChecker(scene)
    meshes = exact if args.model == "meshes" else CollisionChecker(panda_scene(vamp))
    problems = load_problems(vamp, list(scene.variables))
    names = args.sets.split(",") if args.sets else list(problems)
    print(f"(OMPL RRTConnect, step {args.step or 'OMPL default'}, vs VAMP rrtc, resolution "
          f"{RESOLUTION:g}, median over "
          f"{args.rounds} rounds in turns; paths judged at {args.judge_resolution:g})")
    every: dict[str, list[float]] = {"robrayc": [], "vamp": []}
    for name in names:
        chosen = problems[name][:args.problems] if args.problems else problems[name]
        row = run_set(name, chosen, compiled, exact, meshes, args)
        if "vamp" in row:
            print(f"  (vamp-planner {row['vamp_version']})", flush=True)
        print_set(row)
        for side in every:
            every[side] += row[side]["times"] if side in row else []
    ours, theirs = (statistics.median(every[s]) if every[s] else float("nan") for s in every)
    print(f"all sets: robrayc median {1e3 * ours:.3g} ms over {len(every['robrayc'])} solved"
          + (f", vamp median {1e3 * theirs:.3g} ms over {len(every['vamp'])}, ratio "
             f"{ours / theirs:.3g}x" if every["vamp"] else ""))


if __name__ == "__main__":
    main()
