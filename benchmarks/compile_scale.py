"""Compile time against scene size, and the wall time of a one-frame compile.

    python benchmarks/compile_scale.py [--sizes 1000,10000,20000] [--repeat 3]

Generates N-frame scenes (a chain of revolute joints, each with a box, defs and a class, like
real robot scenes), runs `robrayc scene.robray -o scene.c` as a process (median of --repeat),
and prints the time per size, the 20k/10k ratio, and the per-stage split of the largest size
measured in-process (read+parse, lower, merge, emit).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def scene_text(n: int) -> str:
    out = ["def link 0.1;\ndef w 0.02;\nclass part { shape box; color [.5, .5, .5]; "
           "dimension [link, w, w]; }\n"]
    for i in range(n):
        parent = f"parent f{i - 1};" if i else ""
        out.append(
            f"frame f{i} {{\n    {parent}\n    type revolute;\n    axis [0, 0, 1];\n"
            f"    translation [link, 0, {i % 7} * 1e-3];\n    rpy [0, pi/2 * {i % 3}, 0];\n"
            "    geometry { isa part; alpha 0.5; }\n}\n")
    return "".join(out)


def run(args: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def median_time(args: list[str], repeat: int) -> float:
    return statistics.median(run(args) for _ in range(repeat))


def stages(path: Path, out: Path) -> dict[str, float]:
    from robrayc.backends import EmitContext, load
    from robrayc.diagnostics import DiagnosticSink
    from robrayc.frontend import LoadContext, LoadOptions, merge, robray
    from robrayc.frontend.parse import parse

    sink = DiagnosticSink()
    times = {}
    t = time.perf_counter()
    text = path.read_text()
    tree = parse(text, str(path), sink)
    times["read+parse"] = time.perf_counter() - t
    assert tree is not None
    ctx = LoadContext(LoadOptions(), sink)
    t = time.perf_counter()
    part = robray.load(path, ctx)  # parses again: subtract
    times["lower"] = time.perf_counter() - t - times["read+parse"]
    t = time.perf_counter()
    scene = merge([part], ctx)
    times["merge"] = time.perf_counter() - t
    t = time.perf_counter()
    load("c").emit(scene, EmitContext(out, load("c").Options(), sink))
    times["emit C"] = time.perf_counter() - t
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,20000")
    ap.add_argument("--repeat", type=int, default=3)
    opts = ap.parse_args()
    sizes = [int(s) for s in opts.sizes.split(",")]
    exe = [sys.executable, "-m", "robrayc"]
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        results = {}
        for n in [1, *sizes]:
            src = d / f"s{n}.robray"
            src.write_text(scene_text(n))
            results[n] = median_time([*exe, str(src), "-o", str(d / f"s{n}.c")], opts.repeat)
        base = median_time([sys.executable, "-c", "pass"], opts.repeat)
        print(f"{'frames':>8} {'seconds':>9}")
        for n, t in results.items():
            print(f"{n:>8} {t:>9.3f}")
        print(f"python -c pass: {base:.3f} s; one-frame compile = {results[1] / base:.1f}x that")
        if 10000 in results and 20000 in results:
            print(f"20k / 10k = {results[20000] / results[10000]:.2f}")
        big = max(sizes)
        print(f"stages at {big} frames (in-process):")
        import gc

        gc.disable()
        for name, t in stages(d / f"s{big}.robray", d / "x.c").items():
            print(f"  {name:<12} {t:.3f} s")


if __name__ == "__main__":
    main()
