"""The full adversarial search for unsound collision answers (issue 28): tests/adversarial.py
over random URDF scenes (every URDF shape kind, shared and mimic variables) and the corpus
robots, near the origin and carried to far coordinates on a rail, for the exact and the
compiled checkers and the allowed-collision pairs proven never to collide (bound 0).

    python benchmarks/adversarial.py [--seeds 8] [--scenes 6] [--segments 25]
        [--robots ur5,lwa4d,fetch,pr2,baxter] [--robot-segments 15] [--far 1e3,1e5,1e7]
        [--never-samples 10000] [--backends exact,compiled]

Prints the size of the run (probes by backend and case, never pairs pushed together) and the
count of unsound answers by backend and case, then the first few; exit status 1 when there
is any (far-coordinate answers of the compiled checker are counted apart while that defect
is open). A seeded slice runs in CI: tests/test_adversarial.py.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> int:
    from tests import adversarial as adv
    from tests.corpus import ros_package_path
    from tests.urdf_robots import robot_path

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, default=8)
    p.add_argument("--scenes", type=int, default=6, help="random scenes a seed")
    p.add_argument("--segments", type=int, default=25, help="segments a random scene")
    p.add_argument("--robots", default="ur5,lwa4d,fetch,pr2,baxter")
    p.add_argument("--robot-segments", type=int, default=15)
    p.add_argument("--far", default="1e3,1e5,1e7")
    p.add_argument("--never-samples", type=int, default=10000)
    p.add_argument("--backends", default="exact,compiled")
    args = p.parse_args()
    backends = tuple(args.backends.split(","))
    far = tuple(float(x) for x in args.far.split(",") if x)
    os.environ["ROS_PACKAGE_PATH"] = ros_package_path()
    folder = Path(tempfile.mkdtemp(prefix="adversarial-"))
    start = time.monotonic()
    findings = adv.Findings()
    try:
        for seed in range(args.seeds):
            findings.merge(adv.search_random(seed, args.scenes, folder, args.segments, backends,
                                             far, args.never_samples if seed == 0 else 0))
            print(f"seed {seed}: {sum(findings.probes.values())} probes, "
                  f"{len(findings.unsound)} unsound", flush=True)
        for key in filter(None, args.robots.split(",")):
            urdf = folder / f"{key}.urdf"
            urdf.write_text(robot_path(key).read_text())
            adv.search_urdf(urdf, np.random.default_rng(100), args.robot_segments, backends,
                            findings, far, args.never_samples)
            print(f"{key}: {sum(findings.probes.values())} probes, "
                  f"{len(findings.unsound)} unsound", flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"\n{sum(findings.probes.values())} probes in {time.monotonic() - start:.0f} s; "
          f"{findings.never_pairs} pairs proven never (bound 0) pushed together")
    for (backend, case), n in sorted(findings.probes.items()):
        print(f"  {backend:9} {case:13} {n:7d} checked")
    counts = collections.Counter((u[0], u[1]) for u in findings.unsound)
    print(f"unsound answers: {len(findings.unsound)}")
    for (backend, case), n in sorted(counts.items()):
        print(f"  {backend:9} {case:13} {n:7d} unsound")
    for u in findings.unsound[:10]:
        print("  e.g.", u)
    return 1 if findings.unsound else 0


if __name__ == "__main__":
    sys.exit(main())
