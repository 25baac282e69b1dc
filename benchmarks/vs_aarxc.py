"""robrayc against the ORIGINAL aarxc: process wall time of one compile to C.

    python benchmarks/vs_aarxc.py [--sizes 100,1000,10000] [--repeat 3] [--no-robot]

For generated scenes of 100, 1,000 and 10,000 frames (robot-like: 10-joint arms of revolute
and prismatic frames, each link with a class-based box or cylinder, defs, expressions, rpy) and
for the largest robot of the corpus that the original compiles, runs

    robrayc  SCENE -n bench -o out.c      (the installed command of this interpreter)
    aarxc    SCENE -n bench -o out.c      (../shared/amino/run-aarxc.sh, Lisp image primed)

as separate processes (after one untimed warm-up run each), takes the median of --repeat runs,
and prints a table with the ratio robrayc/aarxc (the goal is at most 1.0 on every row). Both
outputs are checked to exist; the original's Lisp image is built before timing (first use of
run-aarxc.sh). Last line: robrayc's module-import time, the fixed start-up cost.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO / ".." / "shared"
RUN_AARXC = SHARED / "amino" / "run-aarxc.sh"
CORPUS = SHARED / "corpus"


def scene_text(n: int) -> str:
    """An n-frame robot-like scene the original also accepts (no extensions used)."""
    out = ["// generated for benchmarks/vs_aarxc.py\n",
           "def link 0.25;\ndef r 0.04;\ndef w 0.05;\n",
           "class link_box { shape box; dimension [link, w, w]; color [.5, .5, .6]; }\n",
           "class link_cyl { shape cylinder; radius r; height link; specular [.3, .3, .3]; }\n",
           "class accent { color [.9, .2, .1]; alpha 0.75; }\n"]
    for i in range(n):
        arm, k = divmod(i, 10)
        if k == 0:  # an arm base on the floor grid
            out.append(f"frame a{arm}_0 {{\n    translation [{arm % 32} * 0.5, "
                       f"{arm // 32} * 0.5, 0];\n    rpy [0, 0, {arm % 8} * pi / 4];\n")
        else:
            kind = "prismatic" if k % 4 == 3 else "revolute"
            axis = ("[0, 0, 1]", "[0, 1, 0]", "[1, 0, 0]")[k % 3]
            out.append(f"frame a{arm}_{k} {{\n    parent a{arm}_{k - 1};\n"
                       f"    type {kind};\n    axis {axis};\n"
                       f"    translation [link, 0, {k} * 1e-3];\n"
                       f"    rpy [0, {k % 3} * pi / 2, 0];\n")
            if k % 5 == 0:
                out.append(f"    offset {k} * deg;\n")
        shape = "link_cyl" if i % 2 else "link_box"
        extra = " isa accent;" if i % 7 == 0 else ""
        out.append(f"    geometry {{ isa {shape};{extra} }}\n}}\n")
    return "".join(out)


def robrayc_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("robrayc")
    return [str(exe)] if exe.is_file() else [sys.executable, "-m", "robrayc"]


def aarxc_cmd() -> list[str]:
    return ["sh", str(RUN_AARXC)]


# Bytecode as an installed package has it: a user's robrayc runs from .pyc files (pip compiles
# them at install), so a PYTHONDONTWRITEBYTECODE in this shell must not make every timed run
# recompile robrayc from source. One untimed warm-up run per scene writes any missing .pyc.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def time_once(cmd: list[str], cwd: Path) -> float:
    t = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, env=ENV)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr[-2000:]!r}")
    return dt


def median_time(cmd: list[str], cwd: Path, repeat: int, out: Path) -> float:
    time_once(cmd, cwd)  # warm-up: page cache, .pyc files
    times = []
    for _ in range(repeat):
        out.unlink(missing_ok=True)
        times.append(time_once(cmd, cwd))
        if not out.is_file():
            raise SystemExit(f"no output from {' '.join(cmd)}")
    return statistics.median(times)


def import_time(path: Path, out: Path) -> float:
    """Seconds robrayc spends importing modules for one compile (-X importtime)."""
    cmd = [sys.executable, "-X", "importtime", "-m", "robrayc", str(path), "-n", "bench",
           "-o", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV, stdin=subprocess.DEVNULL)
    total = 0
    for line in r.stderr.splitlines():
        parts = line.split("|")
        # top-level imports only (nested ones are already in their importer's cumulative time)
        if len(parts) == 3 and parts[1].strip().isdigit() and not parts[2].startswith("  "):
            total += int(parts[1])
    return total / 1e6


def largest_robot(tmp: Path) -> Path | None:
    """The corpus input with the most joints (then frames) among those the original compiles:
    amino's scenes, the public standalone scenes and the URDFs without Blender meshes (the big
    URDF robots all have .dae/.stl meshes, which the original converts with Blender)."""
    candidates = sorted((CORPUS / "amino").rglob("*.robray"))
    manifest = CORPUS / "public-robray" / "MANIFEST.json"
    if manifest.is_file():  # standalone files only: the others need a robot's frames
        candidates += [CORPUS / "public-robray" / e["dir"] / e["path"]
                       for e in json.loads(manifest.read_text())
                       if (e.get("cls") or "").startswith("standalone")]
    candidates += [p for p in sorted((CORPUS / "urdf").rglob("*.urdf"))
                   if "<mesh" not in p.read_text(errors="replace")]
    best: tuple[tuple[int, int], Path] | None = None
    for path in candidates:
        out = tmp / "probe.c"
        out.unlink(missing_ok=True)
        try:
            r = subprocess.run([*aarxc_cmd(), str(path), "-n", "bench", "-o", str(out)],
                               capture_output=True, text=True, stdin=subprocess.DEVNULL,
                               timeout=30)
        except subprocess.TimeoutExpired:
            continue
        if r.returncode != 0 or not out.is_file():
            continue
        text = out.read_text()
        size = (len(re.findall(r"aa_rx_sg_add_frame_(?:revolute|prismatic)", text)),
                len(re.findall(r"aa_rx_sg_add_frame_", text)))
        if best is None or size > best[0]:
            best = (size, path)
    return best[1] if best else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-robot", action="store_true", help="skip the corpus robot row")
    args = ap.parse_args(argv)
    if not RUN_AARXC.is_file():
        print(f"the original aarxc is not available ({RUN_AARXC} missing)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="vs_aarxc-") as tmp_s:
        tmp = Path(tmp_s)
        # Prime the original (builds the C library and the Lisp image on first use).
        subprocess.run([*aarxc_cmd(), "--version"], check=True, stdout=subprocess.DEVNULL,
                       stdin=subprocess.DEVNULL)
        rows: list[tuple[str, Path]] = []
        for n in (int(s) for s in args.sizes.split(",") if s):
            path = tmp / f"gen{n}.robray"
            path.write_text(scene_text(n))
            rows.append((f"generated {n} frames", path))
        if not args.no_robot and CORPUS.is_dir():
            robot = largest_robot(tmp)
            if robot is not None:
                rows.append((f"corpus robot {robot.name}", robot))
        print(f"robrayc: {' '.join(robrayc_cmd())}\naarxc:   {' '.join(aarxc_cmd())}\n"
              f"median of {args.repeat} process wall times\n")
        head = f"{'scene':<36} {'robrayc s':>10} {'aarxc s':>10} {'ratio':>7}"
        print(head + "\n" + "-" * len(head))
        worst = 0.0
        for label, path in rows:
            out_r, out_a = tmp / "r" / "bench.c", tmp / "a" / "bench.c"
            out_r.parent.mkdir(exist_ok=True)
            out_a.parent.mkdir(exist_ok=True)
            t_r = median_time([*robrayc_cmd(), str(path), "-n", "bench", "-o", str(out_r)],
                              path.parent, args.repeat, out_r)
            t_a = median_time([*aarxc_cmd(), str(path), "-n", "bench", "-o", str(out_a)],
                              path.parent, args.repeat, out_a)
            ratio = t_r / t_a
            worst = max(worst, ratio)
            print(f"{label:<36} {t_r:>10.3f} {t_a:>10.3f} {ratio:>7.2f}", flush=True)
        print(f"\nworst ratio robrayc/aarxc: {worst:.2f} (goal <= 1.0)")
        imports = import_time(rows[0][1], tmp / "r" / "bench.c")
        print(f"robrayc start-up: {imports * 1e3:.0f} ms of imports on {rows[0][0]} "
              "(python -X importtime, top-level modules)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
