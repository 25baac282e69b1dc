"""Instructions the compiled checker spends, counted by callgrind, and a hash of its answers:
the figures behind docs/performance.md's comparisons of one change to the C against the one
before (a count is the same from run to run on a shared machine; a time is not).

    python benchmarks/instructions.py [--robots panda,ur5,fetch] [--configs 4000] [--vamp PATH]
                                      [--against CHECKOUT] [--time N] [--run-time]

Per robot among benchmarks/checker.py's 20 random fixed boxes (robot_scene, as planner.py),
the configurations of planner.py's C rows (uniform over the joint ranges, seed 0), the
generated checker built with gcc -O3 -march=haswell (AVX2: valgrind knows no AVX-512) and, in
millions of instructions inside the named function:
- check8: NAME_check8 over the blocks of 8 configurations NAME_check answers FREE, 20 times;
- check: NAME_check over every configuration, twice;
- check-free, check-colliding: NAME_check over the configurations it answers FREE, COLLIDES,
  twice (their cell adds thousands of instructions an item: where the check row's go);
- motions: NAME_check_motion at resolution 32 over the motions 2k -> 2k + 1 (2,000 at most);
and a hash of each row's answers (two builds give the same answers when their hashes agree).
With --vamp PATH (a checkout of KavrakiLab/vamp with its resources), also panda-spheres: VAMP's
own spherized Panda (panda_spherized.urdf, its SRDF's pairs allowed: planning.py's scene)
among the same boxes. With --against CHECKOUT (another robrayc checkout, e.g. a git worktree
of the commit before a change), the same rows for the checker that checkout's code generates
for the same scene. With --run-time, the robot is compiled alone and the boxes are set at
run time (NAME_set_obstacles, obstacles.py's split: the path of planning.py's planner). With
--time N, also each build's time an item of each row (gcc -O3 -march=native, process time of
the row's loop, N runs of the builds in turns, medians, µs).
Needs valgrind.
"""

from __future__ import annotations

import argparse
import os
import pickle
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.checker import (  # noqa: E402
    PROCESS_CLOCK_HARNESS,
    fixed_pairs,
    robot_scene,
    uniform_configs,
)
from benchmarks.obstacles import READ_OBSTACLES, obstacle_lines, split_scene  # noqa: E402

HARNESS = PROCESS_CLOCK_HARNESS + READ_OBSTACLES + r"""
/* main MODE N [M] < configurations [obstacles]: MODE 8 (check8), 1 (check), f or c (check of
 * the configurations it answers FREE, COLLIDES) or m (motions); M obstacles set at run time
 * (kind, 12 pose, 3 size each); prints the answers' hash, the row's time an item (us) and its
 * items */
int main(int argc, char **argv)
{
    const char mode = argc > 2 ? argv[1][0] : '1';
    const long n = argc > 2 ? atol(argv[2]) : 0, m = argc > 3 ? atol(argv[3]) : 0;
    long k, nf = 0, nc = 0, h = 0, items = 0;
    int r, l, out[8];
    double *q = malloc(sizeof(double) * (n + 1) * RB_N_CONFIG);
    double *fq = malloc(sizeof(double) * (n + 1) * RB_N_CONFIG), t;
    double *cq = malloc(sizeof(double) * (n + 1) * RB_N_CONFIG), *by;
    int *answer = malloc(sizeof(int) * (n + 1));
    struct rb_obstacle *o = malloc(sizeof *o * (m + 1));
    for (k = 0; k < n * RB_N_CONFIG; k++) if (scanf("%lf", &q[k]) != 1) return 1;
    if (read_obstacles(o, m)) return 1;
    if (m && rb_set_obstacles(o, (int)m)) return 2;
    /* the configurations sorted by their answers (NAME_check's), by a function the row does not
     * time: callgrind counts only the row's own calls */
    if (mode == '8')
        for (k = 0; k < n; k++) answer[k] = rb_check(q + k * RB_N_CONFIG);
    else
        rb_check_batch(q, n, answer);
    for (k = 0; k < n; k++) {
        const int a = answer[k];
        if (a == RB_FREE) {
            for (r = 0; r < RB_N_CONFIG; r++) fq[nf * RB_N_CONFIG + r] = q[k * RB_N_CONFIG + r];
            nf++;
        } else if (a == RB_COLLIDES) {
            for (r = 0; r < RB_N_CONFIG; r++) cq[nc * RB_N_CONFIG + r] = q[k * RB_N_CONFIG + r];
            nc++;
        }
    }
    t = now();
    if (mode == '8') {
        for (r = 0; r < 20; r++)
            for (k = 0; k + 8 <= nf; k += 8, items += 8) {
                rb_check8(fq + k * RB_N_CONFIG, out);
                for (l = 0; l < 8; l++) h = h * 31 + out[l];
            }
    } else if (mode == '1') {
        for (r = 0; r < 2; r++)
            for (k = 0; k < n; k++, items++) h = h * 31 + rb_check(q + k * RB_N_CONFIG);
    } else if (mode == 'f' || mode == 'c') {
        by = mode == 'f' ? fq : cq;
        for (r = 0; r < 2; r++)
            for (k = 0; k < (mode == 'f' ? nf : nc); k++, items++)
                h = h * 31 + rb_check(by + k * RB_N_CONFIG);
    } else {
        for (k = 0; k + 1 < n && items < 2000; k += 2, items++)
            h = h * 31 + rb_check_motion(q + k * RB_N_CONFIG, q + (k + 1) * RB_N_CONFIG, 32.0);
    }
    t = now() - t;
    printf("%ld %.6g %ld\n", h, items ? 1e6 * t / items : 0.0, items);
    return 0;
}
"""

# the rows: harness mode, the function callgrind counts
ROWS = {"check8": ("8", "rb_check8"), "check": ("1", "rb_check"),
        "check-free": ("f", "rb_check"), "check-colliding": ("c", "rb_check"),
        "motions": ("m", "rb_check_motion")}
# rows whose cell also says thousands of instructions an item (the item counts differ by robot)
PER_ITEM = ("check-free", "check-colliding")

# run by a checkout's Python (PYTHONPATH: that checkout): its generated checker of the scene
GENERATE = """
import pickle, sys
from robrayc.analysis.collision import CollisionChecker
from robrayc.analysis.collision.compiled import c_source
with open(sys.argv[1], "rb") as f:
    scene = pickle.load(f)
source, header = c_source(CollisionChecker(scene, broadphase="dense"), "rb", None, "rb.h")
open(sys.argv[2] + "/rb.c", "w").write(source)
open(sys.argv[2] + "/rb.h", "w").write(header)
"""


def spheres_scene(vamp: Path):
    """VAMP's spherized Panda (planning.py's scene) among robot_scene's 20 boxes."""
    from benchmarks.planning import panda_scene
    from robrayc import ir

    boxes = tuple(f for f in robot_scene("panda")[0].frames if f.name.startswith("obstacle"))
    panda = panda_scene(vamp, "spheres")
    frames = panda.frames + boxes
    allowed = set(panda.allowed) | set(fixed_pairs(frames))
    return ir.Scene(frames=frames, sources=panda.sources,
                    allowed=tuple(sorted(allowed, key=lambda p: (p.a, p.b))))


def scene_and_input(key: str, args: argparse.Namespace):
    """The robot's scene among the boxes (--run-time: the robot alone), the harness's input
    (its configurations, then the boxes as run-time obstacles) and how many obstacles."""
    scene = spheres_scene(args.vamp) if key == "panda-spheres" else robot_scene(key)[0]
    configs = uniform_configs(scene, args.configs)
    lines = [" ".join(map(repr, row)) for row in configs.tolist()]
    shapes: list = []
    if args.run_time:
        scene, shapes = split_scene(scene)
        lines += obstacle_lines(shapes)
    return scene, "\n".join(lines), len(shapes)


def build(scene_file: Path, checkout: Path, tmp: Path) -> dict[str, Path]:
    """The checker that checkout's code generates for the pickled scene, with the harness:
    built for callgrind (AVX2) and for timing (this CPU)."""
    tmp.mkdir()
    subprocess.run([sys.executable, "-c", GENERATE, str(scene_file), str(tmp)], check=True,
                   cwd=checkout, env={**os.environ, "PYTHONPATH": str(checkout)})
    (tmp / "main.c").write_text(HARNESS)
    exes = {}
    for name, arch in (("count", "haswell"), ("time", "native")):
        exes[name] = tmp / name
        subprocess.run(["gcc", "-O3", f"-march={arch}", "-fno-math-errno", "-fno-trapping-math",
                        "-o", str(exes[name]), str(tmp / "rb.c"), str(tmp / "main.c"), "-lm"],
                       check=True)
    return exes


def count(exe: Path, mode: str, function: str, n: list[str],
          text: str) -> tuple[float, str, int]:
    """Millions of instructions inside function, the answers' hash and the row's items."""
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.run(["valgrind", "--tool=callgrind", f"--toggle-collect={function}",
                              f"--callgrind-out-file={out}/cg", str(exe), mode, *n],
                             input=text, capture_output=True, text=True, check=True)
    collected = re.search(r"Collected : (\d+)", run.stderr)
    hash_, _, items = run.stdout.split()
    return int(collected.group(1)) / 1e6, hash_, int(items)


def timed(exe: Path, mode: str, n: list[str], text: str) -> float:
    """µs an item of the row (the harness's own clock)."""
    run = subprocess.run([str(exe), mode, *n], input=text, capture_output=True, text=True,
                         check=True)
    return float(run.stdout.split()[1])


def robot_rows(key: str, args: argparse.Namespace) -> list[str]:
    """One line a build (this checkout, then --against's) of the robot's rows."""
    checkouts = {"this": REPO, **({"against": args.against} if args.against else {})}
    scene, text, obstacles = scene_and_input(key, args)
    sizes = [str(args.configs), str(obstacles)]
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "scene.pickle").write_bytes(pickle.dumps(scene))
        exes = {name: build(Path(tmp) / "scene.pickle", path, Path(tmp) / name)
                for name, path in checkouts.items()}
        cells = {name: [key, name] for name in checkouts}
        for row, (mode, function) in ROWS.items():
            times: dict[str, list[float]] = {name: [] for name in checkouts}
            for _ in range(args.time):  # the builds in turns
                for name in checkouts:
                    times[name].append(timed(exes[name]["time"], mode, sizes, text))
            for name in checkouts:
                millions, answers, items = count(exes[name]["count"], mode, function, sizes,
                                                 text)
                cell = f"{row}={millions:.1f}M ({answers})"
                if row in PER_ITEM:
                    cell += f" {1000 * millions / max(items, 1):.1f}k an item of {items}"
                if times[name]:
                    cell += f" {statistics.median(times[name]):.4g}us"
                cells[name].append(cell)
    return ["  ".join(c) for c in cells.values()]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--robots", default="panda,ur5,fetch")
    p.add_argument("--configs", type=int, default=4000)
    p.add_argument("--vamp", type=Path, metavar="PATH",
                   help="a checkout of KavrakiLab/vamp: its spherized Panda too")
    p.add_argument("--against", type=Path, metavar="CHECKOUT",
                   help="another robrayc checkout: its checker's rows too")
    p.add_argument("--run-time", action="store_true",
                   help="the boxes set at run time (NAME_set_obstacles), not compiled in")
    p.add_argument("--time", type=int, default=0, metavar="N",
                   help="also time each row, N runs of the builds in turns")
    args = p.parse_args()
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    print(f"robrayc {commit}; millions of instructions (callgrind), the answers' hash"
          + (", µs an item (medians)" if args.time else ""), flush=True)
    for key in args.robots.split(",") + (["panda-spheres"] if args.vamp else []):
        print("\n".join(robot_rows(key, args)), flush=True)


if __name__ == "__main__":
    main()
