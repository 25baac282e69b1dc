"""Motion planning for any robot robrayc reads, with OMPL's planners (PyPI `ompl`, the `plan`
extra) over robrayc's collision checker.

Why OMPL and not VAMP's planners: OMPL ships wheels on PyPI and plans in any configuration
space, so a robot read from a URDF plans at once; VAMP's planners are C++ templates compiled
per robot into its module (minutes of C++ build a robot), which would cost far more than the
ten seconds from a new URDF to its first plan.

What OMPL 2.0's Python bindings (nanobind) allow, and what is used: a Python callable as the
state validity checker (one Python call a state, here one `CollisionChecker.check`: one
foreign call when the compiled checker decides), and a Python subclass of `MotionValidator`
(one Python call a motion, here one `CollisionChecker.check_motion`: one foreign call over the
motion's raked samples, the first collision ending it). The bindings take no C function
pointer for either (the validity checker is a `std::function` built from a Python callable),
so a C hook without a Python call per state or motion is not possible with the PyPI wheel.

The configuration space is a real vector space over the checker's variables: joint limits
from the scene; a continuous (periodic) joint over one full turn, [-pi, pi], widened to hold
the start and goal values (a path never wraps around: each segment is the straight line the
checker checked).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from robrayc.analysis.collision.motions import DEFAULT_RESOLUTION
from robrayc.kinematics import periodic_variables, sample_ranges

DEFAULT_TIMEOUT = 5.0  # seconds of planning before giving up
# the planners of ompl.geometric that plan from a start to a goal state with no more set up
PLANNERS = ("RRTConnect", "RRT", "PRM", "KPIECE1", "BKPIECE1", "LBKPIECE1", "RRTstar",
            "BITstar", "AORRTC")


class PlanningUnavailable(ImportError):
    """OMPL (PyPI `ompl`, the `plan` extra) is not installed."""


def _ompl() -> tuple[Any, Any, Any]:
    try:
        from ompl import base, geometric, util
    except ImportError as e:
        raise PlanningUnavailable("planning needs OMPL: pip install 'robrayc[plan]' "
                                  f"(PyPI ompl>=2.0): {e}") from e
    return base, geometric, util


def planning_bounds(checker, start: np.ndarray, goal: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) per variable of the checker: the scene's joint limits; a continuous joint's
    (periodic, no limits) over [-pi, pi] widened to hold start and goal. ValueError for a
    start or goal value outside a joint's limits."""
    scene = checker.scene
    lo, hi = sample_ranges(scene)
    limited = {f.variable for f in scene.frames
               if f.is_joint and not f.is_multi_dof and f.limits.position is not None}
    periodic = np.array([p and v not in limited for v, p in
                         zip(scene.variables, periodic_variables(scene), strict=True)])
    lo = np.where(periodic, np.minimum(-math.pi, np.minimum(start, goal)), lo)
    hi = np.where(periodic, np.maximum(math.pi, np.maximum(start, goal)), hi)
    for what, q in (("start", start), ("goal", goal)):
        outside = np.flatnonzero((q < lo) | (q > hi))
        if outside.size:
            k = int(outside[0])
            raise ValueError(f"{what} value {float(q[k])!r} of '{checker.variables[k]}' is "
                             f"outside its limits [{float(lo[k])!r}, {float(hi[k])!r}]")
    return lo, hi


def plan(checker, start, goal, *, planner: str = "RRTConnect",
         timeout: float = DEFAULT_TIMEOUT, resolution: float = DEFAULT_RESOLUTION,
         simplify: bool = True, step: float | None = None) -> np.ndarray | None:
    """A collision-free path from start to goal: a (k, dof) array of configurations whose
    every straight segment `checker.check_motion(a, b, resolution)` finds free, starting at
    start and ending at goal; None when the planner finds none within `timeout` seconds (or
    start or goal collides). start and goal: vectors or NAME -> value mappings, as the
    checker takes. `planner`: a name of PLANNERS (OMPL's geometric planners). `simplify`:
    shortcut the path with OMPL's PathSimplifier (its segments checked the same way).
    `step`: the longest motion a tree-growing planner tries at once (OMPL's range; None: its
    default, a fifth of the space's diagonal)."""
    base, geometric, util = _ompl()
    if planner not in PLANNERS:
        raise ValueError(f"unknown planner {planner!r} (one of {', '.join(PLANNERS)})")
    q0, q1 = checker.config_vector(start), checker.config_vector(goal)
    lo, hi = planning_bounds(checker, q0, q1)
    if checker.check(q0) or checker.check(q1):
        return None
    level = util.getLogLevel()  # OMPL's progress messages (Info, Debug) only when asked for
    if level.value < util.LOG_WARN.value:
        util.setLogLevel(util.LOG_WARN)
    try:
        return _solve(base, geometric, checker, q0, q1, lo, hi, planner=planner,
                      timeout=timeout, resolution=resolution, simplify=simplify, step=step)
    finally:
        util.setLogLevel(level)


def _solve(base, geometric, checker, q0: np.ndarray, q1: np.ndarray, lo: np.ndarray,
           hi: np.ndarray, *, planner: str, timeout: float, resolution: float,
           simplify: bool, step: float | None) -> np.ndarray | None:
    """plan's OMPL problem: the space, the checker behind its validity checks, the solve."""
    n = len(lo)
    space = base.RealVectorStateSpace(n)
    bounds = base.RealVectorBounds(n)
    for k in range(n):
        bounds.setLow(k, float(lo[k]))
        bounds.setHigh(k, float(hi[k]))
    space.setBounds(bounds)
    si = base.SpaceInformation(space)
    check = checker.check
    si.setStateValidityChecker(lambda state: not check(state[0:n]))
    validator = _motion_validator(base, si, checker, n, resolution)
    si.setMotionValidator(validator)
    si.setup()
    problem = base.ProblemDefinition(si)
    a, b = si.allocState(), si.allocState()
    a[0:n], b[0:n] = q0.tolist(), q1.tolist()
    problem.setStartAndGoalStates(a, b)
    solver = getattr(geometric, planner)(si)
    if step is not None:
        if not hasattr(solver, "setRange"):
            raise ValueError(f"planner {planner} takes no step")
        solver.setRange(float(step))
    solver.setProblemDefinition(problem)
    solver.setup()
    solver.solve(float(timeout))
    if not problem.hasExactSolution():
        return None
    path = problem.getSolutionPath()
    if simplify:
        geometric.PathSimplifier(si).simplify(path, float(timeout))
    out = np.array([s[0:n] for s in path.getStates()], dtype=float)
    out[0], out[-1] = q0, q1  # exactly the configurations asked for
    return out


def _motion_validator(base, si, checker, n: int, resolution: float):
    """An ompl.base.MotionValidator whose checkMotion is one checker.check_motion."""
    check_motion = checker.check_motion

    class CheckerMotions(base.MotionValidator):
        def checkMotion(self, a, b) -> bool:  # noqa: N802 (OMPL's name)
            return not check_motion(a[0:n], b[0:n], resolution)

    return CheckerMotions(si)


def path_collisions(checker, path, resolution: float = DEFAULT_RESOLUTION) -> np.ndarray:
    """(max(k - 1, 1),) whether each straight segment of a (k, dof) path (one configuration:
    the segment from it to itself) collides at one of the samples check_motion takes at
    `resolution` (a finer one than the planner's judges between its samples)."""
    q = np.asarray(path, dtype=float)
    if q.ndim != 2 or q.shape[0] < 1:
        raise ValueError(f"a path is a (k, dof) array of configurations, got {q.shape}")
    if q.shape[0] == 1:
        q = np.concatenate([q, q])
    return checker.check_motions(q[:-1], q[1:], resolution)
