"""What a motion planner asks (issue 30's table, the rows robrayc can time so far): the compiled
checker from C and from Python, next to VAMP's kernels on the same boxes, configurations and
motions.

    python benchmarks/planner.py [--robots panda,ur5,fetch] [--configs 10000] [--vamp PATH]

Per robot among 20 random fixed boxes (benchmarks/checker.py's robot_scene: its self pairs
allowed as `robrayc allowed-collisions` finds them), the same random configurations for every
row, and the motions configuration 2k -> 2k + 1 (random pairs over the joint ranges). Rows
(microseconds):
- C one: NAME_check per configuration, over all of them (gcc -O3 -march=native, VAMP's two
  math flags; best of 5 passes of process time, as the Python rows: on a loaded machine the
  waits for a core are not counted in either);
- C 8: NAME_check8 (eight configurations in the vector lanes) per configuration, over blocks
  of 8 of the configurations NAME_check answers FREE (as VAMP's fkcc row: its blocks of 8
  collision-free ones);
- C batch: NAME_check_batch over all the configurations, per configuration (eight a call);
- C motion: NAME_check_motion at resolution 32 per motion (raked samples, the first certain
  collision exits; best of 5 passes);
- py one: CollisionChecker.check(q) per call, a Python loop over the configurations (MAYBE
  ones resolved exactly; best of --passes passes of process time); py one decided: the same
  over the configurations the C decides alone (FREE or COLLIDES: one foreign call each);
- py batch: CollisionChecker.in_collision(Q) per configuration, and its ratio to C one;
- py motion / py motions: check_motion per call and check_motions per motion over the first
  --py-motions motions; py motion r1: check_motion at resolution 1 (as vamp.validate_motion
  from Python samples);
- C answers: the shares of FREE, COLLIDES and MAYBE configurations.
With --vamp PATH (a checkout of KavrakiLab/vamp; Panda, UR5, Fetch, Baxter): VAMP's own
kernels by benchmarks/vamp_harness.cc (see benchmarks/checker.py): validate per configuration
(vamp.validate's kernel, from C++), fkcc per
configuration on blocks of 8 collision-free configurations (vamp_8), and validate_motion at
the robot's resolution (32 for Panda, UR5, Fetch) per motion; the harnesses take turns
(--rounds, each figure the median of its rounds); and how many answers differ from robrayc's
(exact) ones, configurations and motions (VAMP's own models and spheres: a sanity check).
Each harness's 8-wide row takes the configurations it calls free, and a motion stops where
its own answer does: near contact, where VAMP's fitted spheres meet, VAMP answers colliding
at once while robrayc decides on the meshes. So the same rows are also timed on the same
inputs for both (the rows named _both): one configuration and 8-wide over the
configurations both call collision-free, and the motions both call free (every sample
checked by both).
With --vamp-python PATH (a Python with PyPI vamp-planner's module): vamp.validate per call
from Python (float32 arrays) and vamp.validate_motion per motion (its Python binding samples
at resolution 1: vamp_py_motion_r1, next to robrayc's py_motion_r1), by
benchmarks/vamp_validate.py in that Python, on the same boxes and configurations (taking turns
with the others). The VAMP commit, vamp-planner's version and the CPU are printed first, and
per robot the path robrayc's Python calls take (py_path: Caller, the pycall extension;
CtypesCaller where it is not built).
"""

from __future__ import annotations

import argparse
import platform
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
    VAMP_ROBOTS,
    alternating,
    build_compiled,
    build_vamp,
    each_robot,
    robot_scene,
    uniform_configs,
    vamp_boxes,
)

RESOLUTION = 32.0

HARNESS = PROCESS_CLOCK_HARNESS + r"""
int main(int argc, char **argv)
{
    long n = atol(argv[1]), k, sink = 0, nf = 0;
    double *q = malloc(sizeof(double) * n * RB_N_CONFIG), *fq, t, one = 1e30, motion = 1e30;
    double eight = 1e30, batch = 1e30;
    int r, count[4] = { 0, 0, 0, 0 }, out[8], *all = malloc(sizeof(int) * n);
    for (k = 0; k < n * RB_N_CONFIG; k++) if (scanf("%lf", &q[k]) != 1) return 1;
    fq = malloc(sizeof(double) * n * RB_N_CONFIG);
    for (k = 0; k < n; k++) {
        int a = rb_check(q + k * RB_N_CONFIG);
        count[a]++;
        if (a == RB_FREE)
            for (r = 0; r < RB_N_CONFIG; r++) fq[nf * RB_N_CONFIG + r] = q[k * RB_N_CONFIG + r];
        nf += a == RB_FREE;
    }
    for (k = 0; k + 1 < n; k += 2)
        putchar('0' + rb_check_motion(q + k * RB_N_CONFIG, q + (k + 1) * RB_N_CONFIG, 32.0));
    putchar('\n');
    for (r = 0; r < 5; r++) {
        t = now();
        for (k = 0; k < n; k++) sink += rb_check(q + k * RB_N_CONFIG);
        t = now() - t; if (t < one) one = t;
        t = now();
        for (k = 0; k + 8 <= nf; k += 8) { rb_check8(fq + k * RB_N_CONFIG, out); sink += out[0]; }
        t = now() - t; if (t < eight) eight = t;
        t = now();
        sink += rb_check_batch(q, n, all);
        t = now() - t; if (t < batch) batch = t;
        t = now();
        for (k = 0; k + 1 < n; k += 2)
            sink += rb_check_motion(q + k * RB_N_CONFIG, q + (k + 1) * RB_N_CONFIG, 32.0);
        t = now() - t; if (t < motion) motion = t;
    }
    printf("%.6g %.6g %d %d %d %ld %.6g %.6g\n", 1e6 * one / n, 1e6 * motion / (n / 2), count[0],
           count[1], count[2], sink < 0 ? sink : 0L, nf >= 8 ? 1e6 * eight / (nf / 8 * 8) : 0.0,
           1e6 * batch / n);
    return 0;
}
"""


def c_times(exe: Path, configs: np.ndarray) -> dict:
    text = "\n".join(" ".join(map(repr, row)) for row in configs.tolist())
    lines = subprocess.run([str(exe), str(len(configs))], input=text, capture_output=True,
                           text=True, check=True).stdout.split("\n")
    out = lines[1].split()
    n = len(configs)
    return {"c_one": float(out[0]), "c_motion": float(out[1]),
            "free": int(out[2]) / n, "collides": int(out[3]) / n, "maybe": int(out[4]) / n,
            "c_8": float(out[6]), "c_batch": float(out[7])}


def vamp_times(exe: Path, stdin: str) -> dict:
    out = subprocess.run([str(exe)], input=stdin, capture_output=True, text=True,
                         check=True).stdout.split("\n")[1].split()
    return {"vamp_one": float(out[0]), "vamp_8": float(out[3]), "vamp_motion": float(out[5])}


def vamp_python_times(python: str, key: str, checker, configs: np.ndarray) -> dict:
    """vamp.validate and validate_motion called from Python (benchmarks/vamp_validate.py run
    by `python`), on the robot scene's boxes and the configurations."""
    text = "\n".join([key, " ".join(checker.variables), *vamp_boxes(key, checker),
                      str(len(configs)), *(" ".join(map(repr, row)) for row in configs.tolist())])
    out = subprocess.run([python, str(REPO / "benchmarks" / "vamp_validate.py")], input=text,
                         capture_output=True, text=True, check=True).stdout.split()
    return {"vamp_py_one": float(out[0]), "vamp_py_motion_r1": float(out[1])}


def vamp_differ(exe: Path, stdin: str, exact, compiled, configs: np.ndarray
                ) -> tuple[dict, np.ndarray, np.ndarray]:
    """How many of VAMP's answers differ from robrayc's (exact) ones; and the configurations
    both call collision-free, and the motions both do (their configurations a -> b as rows
    2k, 2k + 1)."""
    lines = subprocess.run([str(exe)], input=stdin, capture_output=True, text=True,
                           check=True).stdout.split("\n")
    valid = np.array([c == "1" for c in lines[0]])
    motion_valid = np.array([c == "1" for c in lines[2]])
    hits = exact.in_collision(configs)
    motions = compiled.check_motions(configs[0:-1:2], configs[1::2], RESOLUTION)
    both = np.flatnonzero(motion_valid & ~motions)
    moves = np.stack([2 * both, 2 * both + 1], axis=1).ravel()
    return ({"vamp_differ": int((valid == hits).sum()),
             "vamp_motion_differ": int((motion_valid == motions).sum()),
             "motions": len(motions), "both_free": int((valid & ~hits).sum()),
             "both_free_motions": len(both)},
            np.flatnonzero(valid & ~hits), moves)


def vamp_subset(stdin: str, rows: np.ndarray) -> str:
    """VAMP's harness input (build_vamp's: the box count, the boxes, the configuration count,
    the configurations) with only the configurations `rows`."""
    lines = stdin.split("\n")
    boxes = int(lines[0])
    configs = lines[boxes + 2:boxes + 2 + int(lines[boxes + 1])]
    return "\n".join([*lines[:boxes + 1], str(len(rows)), *(configs[k] for k in rows)]) + "\n"


def renamed(times: dict, keys: dict) -> dict:
    """The figures of `times` named in `keys` (old: new), renamed."""
    return {new: times[old] for old, new in keys.items()}


def best_us(fn, count: int, passes: int) -> float:
    """The least process time of `passes` runs of fn, in microseconds per one of its items."""
    best = float("inf")
    for _ in range(passes):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return 1e6 * best / count


def python_times(compiled, configs: np.ndarray, n_motions: int, passes: int) -> dict:
    rows = list(configs)
    decided = [q for q, s in zip(rows, compiled._kernel.check_batch(configs), strict=True)
               if s < 2]
    a, b = configs[0:2 * n_motions:2], configs[1:2 * n_motions:2]
    check, check_motion = compiled.check, compiled.check_motion
    return {
        "py_one": best_us(lambda: [check(q) for q in rows], len(rows), passes),
        "py_one_decided": best_us(lambda: [check(q) for q in decided], len(decided), passes),
        "py_batch": best_us(lambda: compiled.in_collision(configs), len(configs), passes),
        "py_motion": best_us(lambda: [check_motion(x, y, RESOLUTION)
                                      for x, y in zip(a, b, strict=True)], len(a), passes),
        "py_motion_r1": best_us(lambda: [check_motion(x, y, 1.0)
                                         for x, y in zip(a, b, strict=True)], len(a), passes),
        "py_motions": best_us(lambda: compiled.check_motions(a, b, RESOLUTION), len(a), passes),
    }


def run_robot(key: str, args: argparse.Namespace) -> dict:
    from robrayc.analysis.collision import CollisionChecker

    scene, _ = robot_scene(key)
    exact = CollisionChecker(scene)
    compiled = CollisionChecker(scene, backend="compiled")
    configs = uniform_configs(scene, args.configs)
    row: dict = {"robot": key, "py_path": type(compiled._kernel.caller).__name__}
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_compiled(CollisionChecker(scene, broadphase="dense"), Path(tmp), HARNESS)
        runs = [lambda: c_times(exe, configs),
                lambda: python_times(compiled, configs, args.py_motions, args.passes)]
        if args.vamp_python and key in VAMP_ROBOTS:
            runs.append(lambda: vamp_python_times(args.vamp_python, key, exact, configs))
        if args.vamp and key in VAMP_ROBOTS:
            vexe, stdin = build_vamp(Path(args.vamp), key, exact, configs, Path(tmp))
            runs.append(lambda: vamp_times(vexe, stdin))
            differ, free, moves = vamp_differ(vexe, stdin, exact, compiled, configs)
            row.update(differ)
            # the same inputs for both: the configurations both call free (the 8-wide and
            # one-configuration rows), the motions both call free (every sample checked)
            shared = (free, {"c_one": "c_one_both", "c_8": "c_8_both"},
                      {"vamp_one": "vamp_one_both", "vamp_8": "vamp_8_both"})
            motions = (moves, {"c_motion": "c_motion_both"}, {"vamp_motion": "vamp_motion_both"})
            for rows, ckeys, vkeys in (shared, motions):
                if len(rows) >= 16:
                    sub, vin = configs[rows], vamp_subset(stdin, rows)
                    runs.append(lambda sub=sub, k=ckeys: renamed(c_times(exe, sub), k))
                    runs.append(lambda vin=vin, k=vkeys: renamed(vamp_times(vexe, vin), k))
        row.update(alternating(runs, args.rounds))
    return row


def print_row(row: dict) -> None:
    cells = [f"{row['robot']:6}", f"py_path={row['py_path']}",
             f"C free/collides/maybe {row['free']:.0%}/{row['collides']:.0%}/{row['maybe']:.0%}"]
    for col in ("c_one", "vamp_one", "c_8", "vamp_8", "c_batch", "py_one", "py_one_decided",
                "vamp_py_one", "py_batch", "c_motion", "vamp_motion", "py_motion", "py_motions",
                "py_motion_r1", "vamp_py_motion_r1", "c_one_both", "vamp_one_both", "c_8_both",
                "vamp_8_both", "c_motion_both", "vamp_motion_both"):
        if col in row:
            cells.append(f"{col}={row[col]:.3g}")
    cells.append(f"py_batch/c_one={row['py_batch'] / row['c_one']:.1f}x")
    if "vamp_one" in row:
        cells.append(f"c_one/vamp_one={row['c_one'] / row['vamp_one']:.2f}x "
                     f"c_8/vamp_8={row['c_8'] / row['vamp_8']:.2f}x "
                     f"c_motion/vamp_motion={row['c_motion'] / row['vamp_motion']:.2f}x "
                     f"py_one/vamp_one={row['py_one'] / row['vamp_one']:.1f}x "
                     f"differ: {row['vamp_differ']} configurations, "
                     f"{row['vamp_motion_differ']} of {row['motions']} motions; "
                     f"both free: {row['both_free']} configurations, "
                     f"{row['both_free_motions']} motions")
        for col in ("one", "8", "motion"):
            if f"c_{col}_both" in row:
                cells.append(f"c_{col}_both/vamp_{col}_both="
                             f"{row[f'c_{col}_both'] / row[f'vamp_{col}_both']:.2f}x")
    print("  ".join(cells), flush=True)


def vamp_commit(path: str) -> str:
    run = subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], capture_output=True,
                         text=True)
    return run.stdout.strip() or "(not a git checkout: commit unknown)"


def vamp_version(python: str) -> str:
    run = subprocess.run([python, "-c", "from importlib.metadata import version; "
                          "print(version('vamp-planner'))"], capture_output=True, text=True)
    return run.stdout.strip() or "(version unknown)"


def cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--robots", default="panda,ur5,fetch")
    p.add_argument("--configs", type=int, default=10000)
    p.add_argument("--py-motions", type=int, default=500,
                   help="motions timed from Python (each can take the exact checker)")
    p.add_argument("--vamp", metavar="PATH", help="a checkout of KavrakiLab/vamp: time it too")
    p.add_argument("--vamp-commit", help="the commit of --vamp when it is not a git checkout")
    p.add_argument("--vamp-python", metavar="PYTHON",
                   help="a Python with vamp-planner's module: time vamp.validate from Python")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--passes", type=int, default=3, help="Python passes a round (best)")
    args = p.parse_args()
    print(f"CPU: {cpu()}; VAMP: "
          f"{(args.vamp_commit or vamp_commit(args.vamp)) if args.vamp else 'not timed'}; "
          f"vamp-planner: {vamp_version(args.vamp_python) if args.vamp_python else 'not timed'}")
    print("(us; one: per configuration; motion: per motion, resolution 32, configuration "
          "2k -> 2k + 1)")
    each_robot(args, run_robot, print_row)


if __name__ == "__main__":
    main()
