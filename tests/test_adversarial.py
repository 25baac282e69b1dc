"""A seeded slice of the adversarial search (tests/adversarial.py; the full run is
benchmarks/adversarial.py): random URDF scenes of every URDF shape kind (boxes, spheres,
cylinders, closed and open meshes; revolute, continuous, prismatic and mimic joints, a slider
sharing a turning joint's variable), UR5 from the corpus, probes just past the contact
boundary, whole turns, values out of the limits, NaN, the robot carried to far coordinates,
and every pair proven never to collide (bound 0) pushed together. Against an independent
reference (its own URDF kinematics, FCL objects built from the URDF): no unsound answer from
the exact or the compiled checker.

On the code before issue 28's fixes (32113da) this search finds defect 1 (a variable that
turns one joint and slides another wrapped by the compiled checker's cells: the shared
scenes), 2 (the compiled kernel far from the origin), 3 (overlaps below a micrometre called
free: boundary probes, both backends) and 4 (NaN answered), and found a 'never' proven over
a continuous joint's limited mimic's limits: see tests/test_soundness.py for each defect's
smallest scene."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import adversarial as adv
from tests.backends.test_c_checker import needs_cc
from tests.corpus import require_corpus, ros_package_path
from tests.urdf_robots import robot_path

BACKENDS = ("exact", "compiled")
NEAR_ORIGIN = ("boundary", "wrapped", "out-of-limit", "nan", "never")


@pytest.fixture(scope="module")
def random_run(tmp_path_factory) -> adv.Findings:
    folder = tmp_path_factory.mktemp("adversarial")
    return adv.search_random(4, 3, folder, 12, BACKENDS, far=(1e5, 1e7))


@needs_cc
@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_random_scenes_near_the_origin(random_run: adv.Findings, backend: str) -> None:
    checked = {case: n for (b, case), n in random_run.probes.items() if b == backend}
    assert checked.get("boundary", 0) > 50 and checked.get("wrapped", 0) > 50, checked
    assert checked.get("nan", 0), checked
    assert random_run.unsound_in(backend, NEAR_ORIGIN) == []


@needs_cc
@pytest.mark.slow
def test_random_scenes_far_from_the_origin_exact(random_run: adv.Findings) -> None:
    assert random_run.probes.get(("exact", "far"), 0) > 50
    assert random_run.unsound_in("exact", ("far",)) == []


@needs_cc
@pytest.mark.slow
def test_random_scenes_far_from_the_origin_compiled(random_run: adv.Findings) -> None:
    assert random_run.probes.get(("compiled", "far"), 0) > 50
    assert random_run.unsound_in("compiled", ("far",)) == []


@needs_cc
@pytest.mark.slow
def test_ur5(tmp_path: Path, monkeypatch) -> None:
    require_corpus()
    monkeypatch.setenv("ROS_PACKAGE_PATH", ros_package_path())
    urdf = tmp_path / "ur5.urdf"  # beside its rail version (package:// meshes)
    urdf.write_text(robot_path("ur5").read_text())
    findings = adv.Findings()
    import numpy as np

    adv.search_urdf(urdf, np.random.default_rng(5), 10, BACKENDS, findings,
                    never_samples=10000)  # proofs come after the first waves
    assert findings.probes.get(("exact", "boundary"), 0) > 10, findings.probes
    assert findings.never_pairs > 0
    assert findings.unsound == []
