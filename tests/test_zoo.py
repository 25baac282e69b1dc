"""The robot zoo (benchmarks/zoo.py) on a seeded slice: a few robots of example-robot-data and
rtb-data (PyPI, the `zoo` extra) and a small MJCF robot of our own (MuJoCo Menagerie is not
reachable from CI), through every robot output format, each read back by its real reader
(check_urdf + yourdfpy + Pinocchio, MuJoCo, libsdformat, gcc + amino, robrayc's own JSON and
robray readers), link poses equal Pinocchio's or MuJoCo's within 1e-9. Every outcome is a pass
or a refusal with a located error; nothing is written that its reader refuses or misplaces.
Skipped without the zoo packages, except in CI (CI=true), where that fails."""

from __future__ import annotations

import importlib.util
import random
import re
import sys
from pathlib import Path

import pytest

from tests.corpus import IN_CI

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
SEED = 27
ROBOTS_PER_PACKAGE = 2
LOCATED = re.compile(r"^refused: .+:\d+:\d+: error: ")


def zoo():
    missing = [m for m in ("pinocchio", "rtbdata") if importlib.util.find_spec(m) is None]
    if missing:
        if IN_CI:
            pytest.fail(f"the zoo extra is not installed in CI (no {', '.join(missing)})")
        pytest.skip("pip install '.[zoo]' (example-robot-data, rtb-data, pin)")
    sys.path.insert(0, str(BENCH))
    import zoo as module

    if not module.example_robot_data():
        if IN_CI:
            pytest.fail("example-robot-data is not installed in CI")
        pytest.skip("pip install '.[zoo]' (example-robot-data)")
    return module


def the_slice(module) -> list:
    rng = random.Random(SEED)
    out = []
    for robots in (module.example_robot_data(), module.rtb_data()):
        urdfs = [r for r in robots if r.kind == "urdf"]
        out += rng.sample(urdfs, ROBOTS_PER_PACKAGE)
    own = Path(__file__).parent / "zoo" / "walker.xml"
    return [*out, module.Robot("own/walker", own, "mjcf")]


@pytest.mark.slow
def test_zoo_slice_passes_or_is_refused_with_a_located_error():
    module = zoo()
    robots = the_slice(module)
    results = module.run_robots(robots, configs=2, seed=SEED, meshes=False)
    report = module.table(results) + "\n" + module.problems(results)
    assert len(results) == len(robots)
    for r in results:
        assert set(r.outcomes) == {"in", *module.FORMATS} or module.status(
            r.outcomes["in"]) == "refused", report
        for direction, outcome in r.outcomes.items():
            status = module.status(outcome)
            assert status in ("pass", "refused"), f"{r.key} [{direction}] {outcome}\n{report}"
            if status == "refused":
                assert LOCATED.match(outcome), f"{r.key} [{direction}] not located: {outcome}"
    # the slice reads at least one robot of each package all the way
    assert sum(module.status(r.outcomes["in"]) == "pass" for r in results) >= 2, report
