"""Soundness on hostile input (issue 28): the smallest scene of each defect the adversarial
search found, each test failing before its fix. Which variables may be wrapped is decided
once (kinematics.periodic_variables); NaN and infinite configuration values, sampling ranges
whose width overflows and too few samples are errors, never a "free" or a "never"."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from robrayc import ir
from robrayc.analysis import acm
from robrayc.analysis.collision import CollisionChecker
from robrayc.analysis.collision.tolerance import CONTACT_TOL
from robrayc.frontend import load_scene
from robrayc.kinematics import RangeError, periodic_variables, sample_ranges
from tests import test_collision as tc
from tests.backends.test_c_checker import needs_cc
from tests.run import robrayc
from tests.test_collision import vector_paths  # noqa: F401 (a fixture)

# Issue 28, defect 1: one variable turns the arm and slides the slider. At q = 1 the pole on
# the arm (3 m out) stands inside the slider (a 1 m cylinder moved 1 m along x).
SHARED = """
frame base { }
frame arm { parent base; type revolute; axis [0, 0, 1]; variable q; limit_position [-2*pi, 2*pi]; }
frame pole { parent arm; translation [3, 0, 0]; geometry { shape cylinder; radius .5; height 1; } }
frame slider { parent base; type prismatic; axis [1, 0, 0]; variable q;
               translation [0.6209697, 2.5244130, 0];
               geometry { shape cylinder; radius .5; height 1; } }
"""

# A prismatic joint mimicking a continuous one shares its variable (URDF mimic).
MIMIC_URDF = """<robot name="m">
  <link name="base"/>
  <link name="arm"/>
  <link name="slider"/>
  <joint name="turn" type="continuous"><parent link="base"/><child link="arm"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="slide" type="prismatic"><parent link="base"/><child link="slider"/>
    <axis xyz="1 0 0"/><limit lower="-10" upper="10" effort="1" velocity="1"/>
    <mimic joint="turn"/></joint>
</robot>
"""


def scene_from(tmp_path: Path, text: str, name: str = "scene.robray") -> ir.Scene:
    path = tmp_path / name
    path.write_text(text)
    return load_scene([str(path)])


# --- one rule for wrapping a variable -----------------------------------------------------


def test_periodic_only_when_every_joint_turns(tmp_path: Path) -> None:
    scene = scene_from(tmp_path, SHARED + """
frame wrist { parent base; type revolute; axis [0, 1, 0]; variable w; }
frame wrist2 { parent wrist; type revolute; axis [1, 0, 0]; variable w; }
frame lift { parent base; type prismatic; axis [0, 0, 1]; variable z; }
""")
    assert scene.variables == ("q", "w", "z")
    assert periodic_variables(scene) == (False, True, False)  # q also slides, z only does
    mimic = scene_from(tmp_path, MIMIC_URDF, "m.urdf")
    assert periodic_variables(mimic) == (False,)


@pytest.mark.parametrize("backend", ["exact", pytest.param("compiled", marks=needs_cc)])
def test_cells_never_wrap_a_variable_that_also_slides(tmp_path: Path, backend: str) -> None:
    """The compiled checker's cell tables wrapped q (a revolute joint uses it) and answered
    'free' at q = 1, where the pole is 1 m inside the slider."""
    checker = CollisionChecker(scene_from(tmp_path, SHARED), backend=backend)
    assert checker.backend == backend
    assert checker.colliding_pairs({"q": 1.0}) == [("pole", "slider")]
    # the exact checker's answers everywhere in the range and one turn past it
    exact = CollisionChecker(checker.scene)
    q = np.linspace(-2 * math.pi - 1, 2 * math.pi + 1, 400)[:, None]
    assert checker.colliding_pairs_batch(q) == exact.colliding_pairs_batch(q)


@needs_cc
def test_collide_command_finds_the_shared_variable_collision(tmp_path: Path) -> None:
    path = tmp_path / "shared.robray"
    path.write_text(SHARED)
    r = robrayc("collide", str(path), "--var", "q", "--val", "1.0", "--backend", "compiled",
                process=True)
    assert r.status == 1 and r.out == "pole slider\n", r.err


# --- configuration values and ranges ------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999"])
def test_non_finite_configuration_values_are_errors(tmp_path: Path, value: str) -> None:
    path = tmp_path / "shared.robray"
    path.write_text(SHARED)
    r = robrayc("collide", str(path), "--var", "q", f"--val={value}", process=True)
    assert r.status == 2 and "is not a finite number" in r.err, r.err
    config = tmp_path / "c.cfg"
    config.write_text(f"# pose\nq = {value}\n")
    r = robrayc("collide", str(path), "--config", str(config), process=True)
    assert r.status == 2, r.err
    assert f"{config}:2:5: error: '{value}' is not a finite number" in r.err


@pytest.mark.parametrize("backend", ["exact", pytest.param("compiled", marks=needs_cc)])
def test_api_refuses_non_finite_configurations(tmp_path: Path, backend: str) -> None:
    checker = CollisionChecker(scene_from(tmp_path, SHARED), backend=backend)
    for bad in (math.nan, math.inf):
        with pytest.raises(ValueError, match="variable 'q'.* is not a finite number"):
            checker.colliding_pairs({"q": bad})
        with pytest.raises(ValueError, match="not a finite number"):
            checker.colliding_pairs([bad])
        with pytest.raises(ValueError, match=r"\(row 1\) is not a finite number"):
            checker.colliding_pairs_batch(np.array([[0.0], [bad]]))
        with pytest.raises(ValueError, match="not a finite number"):
            checker.collision_counts(np.array([[bad]]))
        with pytest.raises(ValueError, match="not a finite number"):
            checker.in_collision(np.array([[bad]]))
        with pytest.raises(ValueError, match="not a finite number"):
            checker.distance({"q": bad})


# A ball 1 m out on an arm meets a post at (-1, 0, 0) in about 13 % of the angles.
WIDE = """
frame arm { type revolute; axis [0, 0, 1]; limit_position [%s, %s];
    frame ball { translation [1, 0, 0]; geometry { shape sphere; radius 0.3; } } }
frame post { translation [-1, 0, 0]; geometry { shape box; dimension [0.2, 0.2, 0.2]; } }
"""


@pytest.mark.parametrize("limit", ["1e308", "1e999"])
def test_limits_wider_than_a_double_sample_every_angle(tmp_path: Path, limit: str) -> None:
    """Limits of +-1e308 made every sample inf - inf = NaN, and the pair 'never' collided."""
    scene = scene_from(tmp_path, WIDE % ("-" + limit, limit))
    lo, hi = sample_ranges(scene)
    assert (lo.tolist(), hi.tolist()) == ([-math.pi], [math.pi])
    result = acm.generate(scene, samples=400, seed=0, jobs=1, backend="exact", prove=False)
    (pair,) = result.pairs
    assert pair.reason is None and 0.05 < pair.collisions / pair.checked < 0.25


def test_sliding_limits_wider_than_a_double_are_an_error(tmp_path: Path) -> None:
    path = tmp_path / "slide.robray"
    path.write_text(WIDE.replace("revolute; axis [0, 0, 1]", "prismatic; axis [1, 0, 0]")
                    % ("-1e308", "1e308"))
    with pytest.raises(RangeError, match="too far apart"):
        sample_ranges(load_scene([str(path)]))
    r = robrayc("allowed-collisions", str(path), "--samples", "100", "-j", "1", process=True)
    assert r.status == 1 and r.out == "", r.err
    assert f"{path}:2:7: error: the limits [-1e+308, 1e+308] of variable 'arm'" in r.err
    assert "^~~" in r.err
    # a viewer's sliders need no sampling: their ends are cut to a finite width
    r = robrayc(str(path), "-o", str(tmp_path / "slide.html"), process=True)
    assert r.status == 0 and (tmp_path / "slide.html").is_file(), r.err
    # a check at one configuration needs no sampling: the compiled checker has no cells
    r = robrayc("collide", str(path), "--var", "arm", "--val", "-2", "--backend", "auto",
                process=True)
    assert r.status == 1 and r.out == "ball post\n", r.err


def test_too_few_samples_are_an_error(tmp_path: Path) -> None:
    """--samples 1 became 2 and called every pair 'never' (bound 1.5)."""
    path = tmp_path / "wide.robray"
    path.write_text(WIDE % ("-pi", "pi"))
    for n in ("1", "29"):
        r = robrayc("allowed-collisions", str(path), "--samples", n, process=True)
        assert r.status == 2 and "--samples must be 0 (no sampling) or at least 30" \
            in r.err, r.err
    with pytest.raises(ValueError, match="at least 30"):
        acm.generate(load_scene([str(path)]), samples=5)
    r = robrayc("allowed-collisions", str(path), "--samples", "30", "-j", "1", "--format",
                "json", process=True)
    assert r.status == 0 and json.loads(r.out)["samples"] >= 30, r.err
    r = robrayc("allowed-collisions", str(path), "--samples", "0", "--format", "json", process=True)
    assert r.status == 0 and all(p["reason"] != "never"
                                     for p in json.loads(r.out)["pairs"]), r.out


def test_sphere_count_is_at_most_n_or_an_error(tmp_path: Path) -> None:
    """--count 20 wrote more spheres than 20 while --help said 'at most N'."""
    path = tmp_path / "two.robray"
    path.write_text("""
frame a { geometry { shape box; dimension [1, 0.1, 0.1]; } }
frame b { translation [0, 2, 0]; geometry { shape cylinder; radius 0.1; height 1; } }
frame c { translation [0, 4, 0]; geometry { shape sphere; radius 0.2; } }
""")
    r = robrayc("spheres", str(path), "--count", "2", process=True)
    assert r.status == 1 and r.out == "", r.err
    assert "--count 2: the coarsest cover of this geometry has" in r.err
    for n in (3, 10, 40):
        r = robrayc("spheres", str(path), "--count", str(n), "--format", "yaml", process=True)
        assert r.status == 0, r.err
        assert 3 <= r.out.count("radius") <= n


# --- one contact tolerance ----------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.usefixtures("vector_paths")
@pytest.mark.parametrize("a,b", tc.PAIRS, ids=[f"{a}-{b}" for a, b in tc.PAIRS])
def test_overlaps_of_1e8_to_1e6_collide_on_every_shape_pair(tmp_path: Path, a: str,
                                                           b: str) -> None:
    """FCL (libccd) called cylinders, cones, boxes and meshes overlapping by 1e-8 to 3e-7 m
    free (96 of 624 cases), and distance() said > 0 for pairs colliding_pairs called
    colliding: now the stated tolerance, CONTACT_TOL = 1e-9, holds on every path."""
    assert CONTACT_TOL == 1e-9
    contact = tc.VARIANTS[a][2] + tc.VARIANTS[b][3]
    for rot_a, rot_b in ((0.3, -1.1), (1.2, 0.4)):
        checker = CollisionChecker(tc._pair_scene(tmp_path, a, b, rot_a, rot_b))
        for depth in (1e-8, 1e-7, 3e-7, 1e-6):
            config = {"slide": contact - depth}
            assert checker.colliding_pairs(config) == [("a", "b")], (rot_a, depth)
            (d,) = checker.distance(config)
            assert d.distance <= 0.0, (rot_a, depth, d)
        apart = {"slide": contact + 1e-6}
        assert checker.colliding_pairs(apart) == [] and checker.distance(apart)[0].distance >= 0


# A continuous joint whose URDF mimic is limited: the arm's ball meets the post at 2.5 rad,
# outside the mimic's own limits. Found by the adversarial search (a proven 'never' that
# collides).
MIMIC_LIMITED = """<robot name="m">
  <link name="base"/>
  <link name="arm"><collision><origin xyz="1 0 0"/><geometry><sphere radius="0.2"/></geometry>
  </collision></link>
  <link name="post"><collision><origin xyz="-0.8 0.6 0"/><geometry><box size="0.2 0.2 0.2"/>
  </geometry></collision></link>
  <link name="flap"/>
  <joint name="turn" type="continuous"><parent link="base"/><child link="arm"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="fix" type="fixed"><parent link="base"/><child link="post"/></joint>
  <joint name="flap" type="revolute"><parent link="base"/><child link="flap"/>
    <axis xyz="0 0 1"/><limit lower="-0.5" upper="0.5" effort="1" velocity="1"/>
    <mimic joint="turn" multiplier="-1" offset="0.3"/></joint>
</robot>
"""


def test_a_limited_mimic_does_not_bound_a_continuous_joint(tmp_path: Path) -> None:
    """The variable was sampled (and 'never' proven) within the mimic's limits, as written
    for the mimic joint: the continuous joint's other turns were never looked at."""
    scene = scene_from(tmp_path, MIMIC_LIMITED, "m.urdf")
    lo, hi = sample_ranges(scene)
    assert (lo.tolist(), hi.tolist()) == ([-math.pi], [math.pi])
    result = acm.generate(scene, samples=2000, seed=0, jobs=1, backend="exact", prove=True)
    (pair,) = [p for p in result.pairs if {p.a, p.b} == {"turn", "fix"} or "post" in p.a + p.b]
    assert pair.reason != "never" and pair.collisions > 0, pair
