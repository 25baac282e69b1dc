"""robrayc's SRDF against the SRDFs shipped by example-robot-data (opt-in, not CI).

    pip install example-robot-data          # ~400 MB wheel: robots with their SRDFs
    python benchmarks/srdf_vs_example_robot_data.py [--samples N] [--only panda,ur5] [-o out.json]

For every shipped SRDF whose URDF sits beside it (robots/X/srdf/S.srdf and robots/X/urdf/S.urdf
or S_robot.urdf), it runs `allowed-collisions --format srdf` (robrayc.srdf.classify) and the
`--check-srdf` lint on the shipped file, and reports per robot: Adjacent pairs equal or not
(MoveIt's rule, which must match exactly; a hand-written file without reasons: robrayc's
Adjacent pairs all disabled there, shown as "subset"), the counts of disabled pairs in each
file and in both, the pairs the shipped SRDF disables although they collide in robrayc's
samples, and names that are no link. Results are cached (~/.cache/robrayc/srdf-bench, keyed
by the files, the sample count and robrayc's version), so a second run only prints.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import sysconfig
import time
from pathlib import Path

from robrayc import __version__, srdf
from robrayc.diagnostics import DiagnosticSink
from robrayc.frontend import LoadOptions, load_scene

CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "robrayc" / "srdf-bench"


def data_dir() -> Path | None:
    base = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix" / "share"
    return base if (base / "example-robot-data" / "robots").is_dir() else None


def pairs(share: Path) -> list[tuple[str, Path, Path]]:
    """(name, urdf, srdf) for every shipped SRDF with its URDF."""
    out = []
    for s in sorted((share / "example-robot-data" / "robots").glob("*/srdf/*.srdf")):
        for stem in (s.stem, s.stem + "_robot"):
            u = s.parent.parent / "urdf" / f"{stem}.urdf"
            if u.is_file():
                out.append((s.stem, u, s))
                break
    return out


def compare(urdf: Path, srdf_path: Path, share: Path, samples: int) -> dict:
    os.environ["ROS_PACKAGE_PATH"] = str(share)
    sink = DiagnosticSink(quiet=True)
    scene = load_scene([str(urdf)], LoadOptions(missing_mesh="drop"), sink)
    start = time.perf_counter()
    _, ours = srdf.classify(scene, samples=samples, seed=0, sink=sink)
    seconds = time.perf_counter() - start
    _, shipped = srdf.read(srdf_path.read_bytes(), str(srdf_path), sink)
    plan = srdf.plan_links(scene)
    links = set(plan.names.values())
    shaped = set(srdf.collision_links(scene, plan))
    colliding = srdf.lint(scene, shipped, sink, samples=samples, seed=1)
    adj_ours = {(d.link1, d.link2) for d in ours if d.reason == "Adjacent"}
    adj_theirs = {(d.link1, d.link2) for d in shipped if d.reason == "Adjacent"}
    all_ours = {(d.link1, d.link2) for d in ours}
    all_theirs = {(d.link1, d.link2) for d in shipped}
    reasons = any(d.reason for d in shipped)  # hand-written files often give none
    return {
        "links": len(links), "seconds": round(seconds, 1), "shipped_reasons": reasons,
        "ours_names_links": all(a in links and b in links for a, b in all_ours),
        # without reasons: every pair MoveIt calls Adjacent must at least be disabled there
        "adjacent_equal": adj_ours == adj_theirs if reasons else adj_ours <= all_theirs,
        "adjacent_only_ours": sorted(adj_ours - adj_theirs),
        "adjacent_only_shipped": sorted(adj_theirs - adj_ours),
        # shipped SRDFs were often made from a fuller URDF: pairs naming a link without
        # collision geometry here cannot be adjacent by MoveIt's rule on this URDF
        "adjacent_only_shipped_with_geometry": sorted(
            (a, b) for a, b in adj_theirs - adj_ours if a in shaped and b in shaped),
        "adjacent_not_disabled_in_shipped": sorted(adj_ours - all_theirs),
        "disabled_ours": len(all_ours), "disabled_shipped": len(all_theirs),
        "disabled_both": len(all_ours & all_theirs),
        "shipped_unknown_links": sorted({n for p in all_theirs for n in p} - links),
        "shipped_disabled_but_colliding": [
            {"pair": [f.entry.link1, f.entry.link2], "reason": f.entry.reason,
             "collisions": f.collisions, "samples": f.samples}
            for f in colliding if f.verdict == "wrong"],
    }


def cached(urdf: Path, srdf_path: Path, share: Path, samples: int) -> dict:
    h = hashlib.sha256(urdf.read_bytes() + srdf_path.read_bytes()
                       + f"{samples} {__version__}".encode()).hexdigest()[:24]
    path = CACHE / f"{srdf_path.stem}-{h}.json"
    if path.is_file():
        return json.loads(path.read_text())
    result = compare(urdf, srdf_path, share, samples)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1))
    return result


def _adjacent_column(r: dict) -> str:
    """equal / subset (no reasons shipped) / n/a (nothing disabled), else +ours/-shipped
    (-shipped counting only links with collision geometry here, when that differs)."""
    if r["disabled_shipped"] == 0:
        return "n/a"
    if r["adjacent_equal"]:
        return "equal" if r["shipped_reasons"] else "subset"
    if not r["shipped_reasons"]:
        return f"-{len(r['adjacent_not_disabled_in_shipped'])}"
    theirs, geo = len(r["adjacent_only_shipped"]), len(r["adjacent_only_shipped_with_geometry"])
    return f"+{len(r['adjacent_only_ours'])}/-{theirs}" + (f"({geo})" if geo != theirs else "")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--samples", type=int, default=2000)
    p.add_argument("--only", help="comma-separated SRDF names (default: all)")
    p.add_argument("-o", "--output", help="write the results as JSON")
    args = p.parse_args(argv)
    share = data_dir()
    if share is None:
        print("example-robot-data is not installed (pip install example-robot-data)")
        return 2
    wanted = set(args.only.split(",")) if args.only else None
    results = {}
    print(f"{'robot':28} {'links':>5} {'adjacent':>9} {'ours':>5} {'shipped':>7} {'both':>5} "
          f"{'colliding':>9} {'unknown':>7} {'s':>6}")
    for name, urdf, srdf_path in pairs(share):
        if wanted is not None and name not in wanted:
            continue
        try:
            r = cached(urdf, srdf_path, share, args.samples)
        except Exception as exc:  # a robot robrayc cannot load: say so, go on
            print(f"{name:28} not compared: {type(exc).__name__}: {exc}"[:150])
            continue
        results[name] = r
        adj = _adjacent_column(r)
        print(f"{name:28} {r['links']:5} {adj:>9} {r['disabled_ours']:5} "
              f"{r['disabled_shipped']:7} {r['disabled_both']:5} "
              f"{len(r['shipped_disabled_but_colliding']):9} "
              f"{len(r['shipped_unknown_links']):7} {r['seconds']:6}")
        sys.stdout.flush()
    if args.output:
        Path(args.output).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
