"""robrayc against the ORIGINAL aarxc: whole-process wall time of one compile to C.

    python benchmarks/vs_aarxc.py [--sizes 1,100,1000,10000,20000] [--repeat 5] [--json F]

Inputs: the amino demo scenes of the corpus (../shared/corpus/amino/demo) and generated
scenes of 1 to 20,000 frames (robot-like: 10-joint arms of revolute and prismatic frames,
class-based boxes and cylinders, defs, expressions, rpy, and an allow_collision statement per
ten arms). For each input both commands run as separate processes:

    robrayc  SCENE -n bench -o out.c   (the installed command beside this interpreter)
    aarxc    SCENE -n bench -o out.c   (../shared/amino/run-aarxc.sh, its Lisp image primed)

one untimed warm-up each, then --repeat rounds, the two commands alternating within each
round (interleaved, so a load change hits both); the table shows medians and the ratio
robrayc/aarxc. Goals (issue 15): <= 1.0 on every demo scene and at 100 and 1,000 frames,
<= 0.7 at 10,000, robrayc's 20k/10k <= 2.05.

The original exhausts its control stack at about 10,400 statements, and its launcher has no
option for a larger stack: where it fails, the row says so, and the largest generated size it
does compile (found by bisection) gets its own row. Last lines: start-up figures, `robrayc
--version` and a one-frame compile against `python -c pass` (goals <= 2x and <= 4x).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO / ".." / "shared"
RUN_AARXC = SHARED / "amino" / "run-aarxc.sh"
DEMOS = SHARED / "corpus" / "amino" / "demo"

# Bytecode as an installed package has it: pip compiles .pyc files at install, so a
# PYTHONDONTWRITEBYTECODE in this shell must not make every timed run recompile robrayc.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def scene_text(n: int) -> str:
    """An n-frame robot-like scene the original also accepts (no robrayc extensions)."""
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
        if k == 1 and arm % 10 == 0:  # the first two links of every tenth arm touch
            out.append(f"allow_collision a{arm}_0 a{arm}_1;\n")
    return "".join(out)


def robrayc_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("robrayc")
    return [str(exe)] if exe.is_file() else [sys.executable, "-m", "robrayc"]


def aarxc_cmd() -> list[str]:
    return ["sh", str(RUN_AARXC)]


def compile_cmd(tool: list[str], scene: Path, out: Path) -> list[str]:
    return [*tool, str(scene), "-n", "bench", "-o", str(out)]


def run_once(cmd: list[str], out: Path | None = None) -> float | None:
    """Wall seconds of one process; None if it failed (or wrote no output)."""
    if out is not None:
        out.unlink(missing_ok=True)
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       stdin=subprocess.DEVNULL, env=ENV)
    dt = time.perf_counter() - t
    if r.returncode != 0 or (out is not None and not out.is_file()):
        return None
    return dt


def interleaved(cmds: dict[str, list[str]], outs: dict[str, Path | None],
                repeat: int) -> dict[str, float | None]:
    """Median wall time of each command, the commands alternating within every round (after
    one untimed warm-up each: page cache, .pyc files); None for a command that failed."""
    alive = {name for name, cmd in cmds.items() if run_once(cmd, outs[name]) is not None}
    times: dict[str, list[float]] = {name: [] for name in alive}
    for _ in range(repeat):
        for name in sorted(alive):
            dt = run_once(cmds[name], outs[name])
            if dt is None:
                raise SystemExit(f"{name} failed on a timed run: {' '.join(cmds[name])}")
            times[name].append(dt)
    return {name: statistics.median(times[name]) if name in alive else None for name in cmds}


def largest_surviving(lo: int, hi: int, tmp: Path) -> int:
    """The largest generated size in [lo, hi) the original compiles (bisection to 1%)."""
    while hi - lo > max(1, lo // 100):
        mid = (lo + hi) // 2
        scene = tmp / f"probe{mid}.robray"
        scene.write_text(scene_text(mid))
        out = tmp / "probe.c"
        if run_once(compile_cmd(aarxc_cmd(), scene, out), out) is None:
            hi = mid
        else:
            lo = mid
    return lo


def inputs(sizes: list[int], tmp: Path) -> list[tuple[str, Path]]:
    rows = [(f"demo {p.relative_to(DEMOS)}", p) for p in sorted(DEMOS.rglob("*.robray"))]
    for n in sizes:
        path = tmp / f"gen{n}.robray"
        path.write_text(scene_text(n))
        rows.append((f"generated {n} frames", path))
    return rows


def compare(label: str, scene: Path, tmp: Path, repeat: int) -> dict:
    outs = {"robrayc": tmp / "r" / "bench.c", "aarxc": tmp / "a" / "bench.c"}
    for out in outs.values():
        out.parent.mkdir(exist_ok=True)
    cmds = {"robrayc": compile_cmd(robrayc_cmd(), scene, outs["robrayc"]),
            "aarxc": compile_cmd(aarxc_cmd(), scene, outs["aarxc"])}
    t = interleaved(cmds, dict(outs), repeat)
    if t["robrayc"] is None:
        raise SystemExit(f"robrayc failed on {scene}")
    ratio = t["robrayc"] / t["aarxc"] if t["aarxc"] else None
    shown = "   fails" if t["aarxc"] is None else f"{t['aarxc']:>8.3f}"
    print(f"{label:<48} {t['robrayc']:>8.3f} {shown} "
          f"{'-' if ratio is None else f'{ratio:.2f}':>6}", flush=True)
    return {"input": label, "robrayc_s": t["robrayc"], "aarxc_s": t["aarxc"], "ratio": ratio}


def startup(tmp: Path, repeat: int) -> dict:
    """--version and a one-frame compile against bare Python, interleaved."""
    scene = tmp / "one.robray"
    scene.write_text(scene_text(1))
    out = tmp / "one.c"
    cmds = {"python -c pass": [sys.executable, "-c", "pass"],
            "robrayc --version": [*robrayc_cmd(), "--version"],
            "robrayc one frame": compile_cmd(robrayc_cmd(), scene, out)}
    # A few tens of milliseconds each: many more rounds than the compiles, for a stable median
    t = interleaved(cmds, {"python -c pass": None, "robrayc --version": None,
                           "robrayc one frame": out}, max(4 * repeat, 21))
    base = t["python -c pass"]
    print(f"\nstart-up: python -c pass {base * 1e3:.1f} ms; robrayc --version "
          f"{t['robrayc --version'] * 1e3:.1f} ms ({t['robrayc --version'] / base:.2f}x, "
          f"goal <= 2); one-frame compile {t['robrayc one frame'] * 1e3:.1f} ms "
          f"({t['robrayc one frame'] / base:.2f}x, goal <= 4)")
    return {name: value for name, value in t.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1,100,1000,10000,20000")
    ap.add_argument("--repeat", type=int, default=5, help="timed rounds (median; >= 5)")
    ap.add_argument("--no-demos", action="store_true", help="skip the amino demo scenes")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args(argv)
    if not RUN_AARXC.is_file():
        print(f"the original aarxc is not available ({RUN_AARXC} missing)", file=sys.stderr)
        return 1
    sizes = [int(s) for s in args.sizes.split(",") if s]
    with tempfile.TemporaryDirectory(prefix="vs_aarxc-") as tmp_s:
        tmp = Path(tmp_s)
        # Prime the original (builds the C library and the Lisp image on first use).
        subprocess.run([*aarxc_cmd(), "--version"], check=True, stdout=subprocess.DEVNULL,
                       stdin=subprocess.DEVNULL)
        print(f"robrayc: {' '.join(robrayc_cmd())}\naarxc:   {' '.join(aarxc_cmd())}\n"
              f"median of {args.repeat} interleaved process wall times (seconds)\n")
        head = f"{'input':<48} {'robrayc':>8} {'aarxc':>8} {'ratio':>6}"
        print(head + "\n" + "-" * len(head))
        rows = [compare(label, path, tmp, args.repeat)
                for label, path in inputs(sizes, tmp)
                if not (args.no_demos and label.startswith("demo"))]
        survived = [int(r["input"].split()[1]) for r in rows
                    if r["input"].startswith("generated") and r["aarxc_s"] is not None]
        failed = [int(r["input"].split()[1]) for r in rows
                  if r["input"].startswith("generated") and r["aarxc_s"] is None]
        if failed and survived:
            n = largest_surviving(max(survived), min(failed), tmp)
            path = tmp / f"gen{n}.robray"
            path.write_text(scene_text(n))
            print(f"(the original fails from {min(failed)} frames on: control stack exhausted; "
                  f"its launcher has no larger-stack option)")
            rows.append(compare(f"generated {n} frames (largest the original survives)",
                                path, tmp, args.repeat))
        report = {"rows": rows, "startup": startup(tmp, args.repeat)}
        by_size = {int(r["input"].split()[1]): r["robrayc_s"] for r in rows
                   if r["input"].startswith("generated")}
        if 10000 in by_size and 20000 in by_size:
            report["scaling_20k_10k"] = by_size[20000] / by_size[10000]
            print(f"robrayc 20k/10k frames: {report['scaling_20k_10k']:.2f} (goal <= 2.05)")
        ratios = [r["ratio"] for r in rows if r["ratio"] is not None]
        print(f"worst ratio robrayc/aarxc: {max(ratios):.2f}")
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
