"""What robrayc's start-up costs, module by module: `python -X importtime` of a command, its
imports beyond bare Python's, the costliest named.

    python benchmarks/startup.py [ROBRAYC ARGS...]   # default: a one-frame compile to C

Prints the time robrayc's imports add to `python -c pass`'s (the minimum of --runs runs per
module, so that one slow run does not count) and the modules that cost most, each with what
it imports (cumulative). tests/test_startup.py holds a compile to its budget with the same
figures; benchmarks/vs_aarxc.py times whole processes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# Bytecode as an installed package has it (pip compiles .pyc files at install).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def import_costs(args: list[str], runs: int = 3) -> dict[str, tuple[int, int]]:
    """module -> (self, cumulative) import time in microseconds of `python args`, each the
    minimum over `runs` runs."""
    best: dict[str, tuple[int, int]] = {}
    for _ in range(runs):
        err = subprocess.run([sys.executable, "-X", "importtime", *args], env=ENV, check=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True).stderr
        for line in err.splitlines():
            if not line.startswith("import time:") or "cumulative" in line:
                continue
            own, total, name = line[len("import time:"):].split("|")
            key, cost = name.strip(), (int(own), int(total))
            best[key] = min(best.get(key, cost), cost)
    return best


def added_costs(args: list[str], runs: int = 3) -> tuple[int, int, list[tuple[str, int, int]]]:
    """(bare Python's import time, the time `args` adds to it, in microseconds; the added
    modules, costliest first, with their self and cumulative times)."""
    base = import_costs(["-c", "pass"], runs)
    run = import_costs(args, runs)
    added = sorted(((m, own, total) for m, (own, total) in run.items() if m not in base),
                   key=lambda row: -row[1])
    return sum(own for own, _ in base.values()), sum(own for _, own, _ in added), added


def report(args: list[str], runs: int = 3, shown: int = 8) -> tuple[int, int, str]:
    """added_costs, with a text naming the `shown` costliest modules."""
    base, extra, added = added_costs(args, runs)
    lines = [f"python -c pass imports {base / 1e3:.1f} ms; robrayc adds {extra / 1e3:.1f} ms "
             f"({extra / base:.2f}x) in {len(added)} modules; costliest (self, cumulative):"]
    lines += [f"  {m:<44} {own / 1e3:6.1f} ms {total / 1e3:6.1f} ms" for m, own, total in
              added[:shown]]
    return base, extra, "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("robrayc_args", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        scene = Path(tmp) / "one.robray"
        scene.write_text("frame a { geometry { shape box; dimension [1, 1, 1]; } }\n")
        command = args.robrayc_args or [str(scene), "-o", str(Path(tmp) / "one.c")]
        print(report(["-m", "robrayc", *command], args.runs)[2])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
