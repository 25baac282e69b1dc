"""Planning with OMPL over robrayc's checker (robrayc.analysis.planning; the `plan` extra):
paths around obstacles set at run time, every segment judged free by the exact checker."""

from __future__ import annotations

import gc
import math
import weakref
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ompl", reason="the plan extra (PyPI ompl) is not installed")

from robrayc.analysis.collision import Box, CollisionChecker, Sphere  # noqa: E402
from robrayc.analysis.planning import path_collisions, plan, planning_bounds  # noqa: E402
from robrayc.frontend import load_scene  # noqa: E402
from tests.run import robrayc  # noqa: E402

ARM = Path(__file__).resolve().parents[1] / "examples" / "arm4.urdf"
# a wall in front of the arm, from the floor up, between the start (arm out to the right) and
# the goal (out to the left): the straight line between them sweeps through it
WALL = Box(centre=(0.55, 0.0, 0.35), half_extents=(0.05, 0.1, 0.35))
START, GOAL = [-1.2, 1.2, 0.6, 0.0], [1.2, 1.2, 0.6, 0.0]


@pytest.fixture(scope="module")
def exact() -> CollisionChecker:
    """The arm among WALL, exactly checked (the judge)."""
    checker = CollisionChecker(load_scene([str(ARM)]))
    checker.set_obstacles([WALL])
    return checker


@pytest.fixture(scope="module")
def compiled() -> CollisionChecker:
    """The arm among WALL, the compiled checker (the planner's; a C compile)."""
    checker = CollisionChecker(load_scene([str(ARM)]), backend="compiled")
    checker.set_obstacles([WALL])
    return checker


def test_the_straight_line_collides(exact) -> None:
    assert not exact.check(START) and not exact.check(GOAL)
    assert exact.check_motion(START, GOAL)


@pytest.mark.slow
@pytest.mark.parametrize(("simplify", "step"), [(False, None), (True, None), (False, 0.3)])
def test_a_plan_around_the_wall_is_free_at_every_segment(compiled, exact, simplify, step
                                                          ) -> None:
    assert compiled.check_motion(START, GOAL)
    path = plan(compiled, START, GOAL, timeout=20, simplify=simplify, step=step)
    assert path is not None
    assert path.shape[1] == 4 and len(path) >= 3  # not the straight line: it collides
    np.testing.assert_array_equal(path[0], START)
    np.testing.assert_array_equal(path[-1], GOAL)
    # every segment free at the planner's samples (resolution 32), judged exactly; between
    # samples a segment may graze an obstacle (sampled motion checking, as VAMP's): a finer
    # resolution to plan() makes that gap smaller
    assert not path_collisions(exact, path).any()
    if step is not None and not simplify:  # no motion longer than the step
        assert (np.linalg.norm(np.diff(path, axis=0), axis=1) <= step + 1e-9).all()


ONE_JOINT = """<robot name="wiper">
  <link name="base"/>
  <joint name="swing" type="revolute">
    <parent link="base"/><child link="blade"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/>
  </joint>
  <link name="blade">
    <collision><origin xyz="0.3 0 0"/><geometry><box size="0.4 0.04 0.04"/></geometry></collision>
  </link>
</robot>
"""


@pytest.mark.slow
def test_no_path_through_a_wall(tmp_path) -> None:
    """One joint, a wall across its only way from start to goal: no path, none made up."""
    (tmp_path / "wiper.urdf").write_text(ONE_JOINT)
    checker = CollisionChecker(load_scene([str(tmp_path / "wiper.urdf")]), backend="compiled")
    checker.set_obstacles([Box(centre=(0.3, 0.0, 0.0), half_extents=(0.05, 0.02, 0.1))])
    assert not checker.check([-1.0]) and not checker.check([1.0]) and checker.check([0.0])
    assert plan(checker, [-1.0], [1.0], timeout=1) is None
    checker.set_obstacles([])  # the wall gone: a plan at once, no new compile
    assert plan(checker, [-1.0], [1.0], timeout=5) is not None


def test_a_free_straight_motion_is_the_path() -> None:
    """Start to goal free at its samples: that motion is the path, no search (as VAMP's
    planners; OMPL's RRT-Connect would cut it into steps)."""
    checker = CollisionChecker(load_scene([str(ARM)]))
    checker.set_obstacles([Box(centre=(-2.0, 0.0, 0.3), half_extents=(0.1, 0.1, 0.1))])
    path = plan(checker, START, GOAL, step=0.3, simplify=False)
    np.testing.assert_array_equal(path, [START, GOAL])


@pytest.mark.slow
def test_a_plan_after_a_plan_with_another_checker_is_its_own(compiled, exact) -> None:
    """OMPL's set-up is reused by the next plan over the same bounds: each plan's answers
    are its own checker's, and a set-up left waiting holds no checker."""
    ball = [Sphere(centre=(0.55, 0.0, 0.35), radius=0.1)]  # in the straight line's way too
    other = CollisionChecker(load_scene([str(ARM)]), backend="compiled")
    other.set_obstacles(ball)
    judge = CollisionChecker(load_scene([str(ARM)]))
    judge.set_obstacles(ball)
    for checker, judged_by in ((compiled, exact), (other, judge), (compiled, exact)):
        path = plan(checker, START, GOAL, timeout=20, simplify=False, step=0.3)
        assert len(path) > 2 and not path_collisions(judged_by, path).any()
    plan(other, START, GOAL, timeout=20, simplify=False, step=0.3)
    gone = weakref.ref(other)
    del other
    gc.collect()
    assert gone() is None


class Wrapped:
    """A checker behind another object, with neither a hash nor weak references."""

    __slots__ = ("checker",)
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, checker) -> None:
        self.checker = checker

    def __getattr__(self, name: str):
        return getattr(self.checker, name)


def test_a_wrapped_checker_plans() -> None:
    """plan keeps the scene's bounds by checker where it can; a checker it cannot keep
    them by (no hash, no weak reference) still plans."""
    checker = CollisionChecker(load_scene([str(ARM)]))
    path = plan(Wrapped(checker), START, GOAL)
    np.testing.assert_array_equal(path, [START, GOAL])


def test_a_start_in_collision_gets_no_path(exact) -> None:
    inside = [0.0, 1.2, 0.6, 0.0]  # pointing into the wall
    assert exact.check(inside)
    assert plan(exact, inside, GOAL, timeout=1) is None


def test_path_collisions_finds_the_segment_through_the_wall(exact) -> None:
    assert path_collisions(exact, np.array([START, GOAL])).tolist() == [True]
    assert path_collisions(exact, np.array([START])).tolist() == [False]


def test_bounds_come_from_the_joint_limits(exact) -> None:
    """The revolute joints' limits from the URDF; the continuous base over a full turn,
    widened to hold the start and goal."""
    lo, hi = planning_bounds(exact, np.array(START), np.array(GOAL))
    np.testing.assert_array_equal(lo, [-math.pi, -2, -2, -2])
    np.testing.assert_array_equal(hi, [math.pi, 2, 2, 2])
    turned = np.array([4.0, 1.2, 0.6, 0.0])
    lo, hi = planning_bounds(exact, np.array(START), turned)
    assert lo[0] == -math.pi and hi[0] == 4.0
    with pytest.raises(ValueError, match="'shoulder' is outside its limits"):
        planning_bounds(exact, np.array(START), np.array([0, 2.5, 0, 0]))


def test_unknown_planner(exact) -> None:
    with pytest.raises(ValueError, match="unknown planner 'Dijkstra'"):
        plan(exact, START, GOAL, planner="Dijkstra")
    with pytest.raises(ValueError, match="planner PRM takes no step"):
        plan(exact, START, GOAL, planner="PRM", step=0.5)


# --- robrayc plan ------------------------------------------------------------------------------

WALL_ROBRAY = "frame wall { translation [0.55, 0, 0.35]; " \
              "geometry { shape box; dimension [0.1, 0.2, 0.7]; } }\n"
ENDS = ["--start", "turn=-1.2", "--start", "shoulder=1.2", "--start", "elbow=0.6",
        "--goal", "turn=1.2", "--goal", "shoulder=1.2", "--goal", "elbow=0.6"]


@pytest.fixture
def wall_file(tmp_path) -> Path:
    path = tmp_path / "wall.robray"
    path.write_text(WALL_ROBRAY)
    return path


@pytest.mark.slow
def test_plan_command_prints_a_free_path(wall_file) -> None:
    """The CSV: the variables, then the path from start to goal; the wall is the scene's
    fixed geometry, and the exact checker finds every segment free."""
    run = robrayc("plan", ARM, wall_file, *ENDS)
    assert run.status == 0, run.err
    lines = run.out.splitlines()
    assert lines[0] == "turn,shoulder,elbow,wrist"
    path = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    np.testing.assert_array_equal(path[0], START)
    np.testing.assert_array_equal(path[-1], GOAL)
    judge = CollisionChecker(load_scene([str(ARM), str(wall_file)]))
    assert judge.check_motion(START, GOAL) and not path_collisions(judge, path).any()


def test_plan_command_says_why_there_is_no_path(wall_file) -> None:
    run = robrayc("plan", ARM, wall_file, "--backend", "exact", "--start", "turn=-1.2",
                  "--goal", "shoulder=1.2", "--goal", "elbow=0.6")  # into the wall
    assert (run.status, run.out, run.err) == (  # the pair by its frames, then their links
        1, "", "robrayc plan: the goal collides: 1 colliding pair\n"
        "  forearm-collision wall (links forearm wall)\n")


@pytest.mark.parametrize(("args", "message"), [
    (["--start", "shouldr=1"], "unknown configuration variable 'shouldr' (--start, --goal)"),
    (["--start", "shoulder=3"], "start value 3.0 of 'shoulder' is outside its limits"),
    (["--start", "shoulder=x"], "--start expects NAME=VALUE with a finite number"),
    (["--timeout", "0"], "--timeout must be a positive number"),
])
def test_plan_command_refuses_bad_ends(wall_file, args, message) -> None:
    run = robrayc("plan", ARM, wall_file, "--backend", "exact", *args)
    assert run.status == 2 and message in run.err and not run.out, run.err
