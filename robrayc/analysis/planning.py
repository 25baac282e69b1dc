"""Motion planning for any robot robrayc reads, with OMPL's planners (PyPI `ompl`, the `plan`
extra) over robrayc's collision checker.

Why OMPL and not VAMP's planners: OMPL ships wheels on PyPI and plans in any configuration
space, so a robot read from a URDF plans at once; VAMP's planners are C++ templates compiled
per robot into its module (minutes of C++ build a robot), which would cost far more than the
ten seconds from a new URDF to its first plan.

What OMPL 2.0's Python bindings (nanobind) allow, and what is used: a Python callable as the
state validity checker (one Python call a state, here `CollisionChecker.check`'s answer: one
foreign call when the compiled checker decides), and a Python subclass of `MotionValidator`
(one Python call a motion, here `CollisionChecker.check_motion`'s: one foreign call over the
motion's raked samples, the first collision ending it); both call the compiled kernel's entry
points straight (pycall.c's decide and decide_motion), the checker's methods only for what
the C leaves open. The bindings take no C function
pointer for either (the validity checker is a `std::function` built from a Python callable),
so a C hook without a Python call per state or motion is not possible with the PyPI wheel.
(OMPL's C++ AllValidStateValidityChecker would save RRT-Connect's state calls, leaving each
new state of its goal tree to the motion check; measured on VAMP's Panda problems that is
slower: the C checks a motion's start last, after every sample between.) Nor do they let a
sampler in (RRT-Connect's comes from the space's allocDefaultStateSampler, which a Python
subclass does not override): OMPL's RRT-Connect samples uniformly, without VAMP's Halton
sequence, dynamic domain or balanced trees, and asks more checks in narrow passages.

What a plan costs besides the checker's calls, and what is cut: a free straight motion from
start to goal is the path (no search, as VAMP's planners); OMPL's set-up (space, validity
checks, planner) is reused by the next plan over the same bounds, aimed at that plan's
checker (and at none while it waits), instead of built a plan.

The configuration space is a real vector space over the checker's variables: joint limits
from the scene; a continuous (periodic) joint over one full turn, [-pi, pi], widened to hold
the start and goal values (a path never wraps around: each segment is the straight line the
checker checked).
"""

from __future__ import annotations

import atexit
import math
import weakref
from typing import Any

import numpy as np

from robrayc.analysis.collision.motions import DEFAULT_RESOLUTION
from robrayc.kinematics import periodic_variables, sample_ranges

DEFAULT_TIMEOUT = 5.0  # seconds of planning before giving up
# the planners of ompl.geometric that plan from a start to a goal state with no more set up
PLANNERS = ("RRTConnect", "RRT", "PRM", "KPIECE1", "BKPIECE1", "LBKPIECE1", "RRTstar",
            "BITstar", "AORRTC")
# checker -> (lo, hi, periodic) of its scene (a tenth of a millisecond a plan to recompute)
_SCENE_BOUNDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


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
    lo, hi, periodic = _scene_bounds(checker)
    lo = np.where(periodic, np.minimum(-math.pi, np.minimum(start, goal)), lo)
    hi = np.where(periodic, np.maximum(math.pi, np.maximum(start, goal)), hi)
    for what, q in (("start", start), ("goal", goal)):
        outside = np.flatnonzero((q < lo) | (q > hi))
        if outside.size:
            k = int(outside[0])
            raise ValueError(f"{what} value {float(q[k])!r} of '{checker.variables[k]}' is "
                             f"outside its limits [{float(lo[k])!r}, {float(hi[k])!r}]")
    return lo, hi


def _scene_bounds(checker) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lo, hi, periodic) per variable of the checker's scene: sample_ranges, and whether it
    is a continuous joint's (periodic, no limits); computed once a checker."""
    try:
        known = _SCENE_BOUNDS.get(checker)
    except TypeError:  # a checker without weak references or a hash: computed each time
        known = None
    if known is not None and known[0] is checker.scene:
        return known[1]
    scene = checker.scene
    lo, hi = sample_ranges(scene)
    limited = {f.variable for f in scene.frames
               if f.is_joint and not f.is_multi_dof and f.limits.position is not None}
    periodic = np.array([p and v not in limited for v, p in
                         zip(scene.variables, periodic_variables(scene), strict=True)])
    bounds = (lo, hi, periodic)
    try:
        _SCENE_BOUNDS[checker] = (scene, bounds)
    except TypeError:
        pass
    return bounds


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
    if step is not None and not hasattr(getattr(geometric, planner), "setRange"):
        raise ValueError(f"planner {planner} takes no step")
    q0, q1 = checker.config_vector(start), checker.config_vector(goal)
    lo, hi = planning_bounds(checker, q0, q1)
    if checker.check(q0) or checker.check(q1):
        return None
    if not checker.check_motion(q0, q1, resolution):  # the straight motion: no search (VAMP's too)
        return np.array([q0, q1])
    level = util.getLogLevel()  # OMPL's progress messages (Info, Debug) only when asked for
    if level.value < util.LOG_WARN.value:
        util.setLogLevel(util.LOG_WARN)
    try:
        return _solve(base, geometric, checker, q0, q1, lo, hi, planner=planner,
                      timeout=timeout, resolution=resolution, simplify=simplify, step=step)
    finally:
        util.setLogLevel(level)


# OMPL set-ups not in use, by (planner, step, bounds): a space, its SpaceInformation, the
# validity checks and the planner, reused by the next plan with the same ones (building them
# is about a twentieth of a typical plan on VAMP's Panda problems). A plan takes its set-up
# out while it runs (two plans at once never share one) and puts it back when it ends.
_IDLE: dict[tuple, tuple] = {}
_IDLE_MAX = 8
atexit.register(_IDLE.clear)  # freed before the interpreter ends (nanobind reports leaks)
_VALIDATOR: list = []  # the MotionValidator subclass, made on the first plan (OMPL imported)


def _solve(base, geometric, checker, q0: np.ndarray, q1: np.ndarray, lo: np.ndarray,
           hi: np.ndarray, *, planner: str, timeout: float, resolution: float,
           simplify: bool, step: float | None) -> np.ndarray | None:
    """plan's OMPL problem on a set-up aimed at the checker, the solve, the path."""
    key = (planner, step, lo.tobytes(), hi.tobytes())
    setup = _IDLE.pop(key, None) or _setup(base, geometric, lo, hi, planner, step)
    si, checks, solver = setup
    checks.aim(checker, resolution)
    try:
        n = len(lo)
        problem = base.ProblemDefinition(si)
        a, b = si.allocState(), si.allocState()
        a[0:n], b[0:n] = q0.tolist(), q1.tolist()
        problem.setStartAndGoalStates(a, b)
        solver.setProblemDefinition(problem)
        solver.solve(float(timeout))
        solver.clear()  # the trees, now (the set-up waits for the next plan empty)
        if not problem.hasExactSolution():
            out = None
        else:
            path = problem.getSolutionPath()
            if simplify:
                geometric.PathSimplifier(si).simplify(path, float(timeout))
            out = np.array([s[0:n] for s in path.getStates()], dtype=float)
            out[0], out[-1] = q0, q1  # exactly the configurations asked for
    finally:
        checks.aim(None, resolution)  # the set-up holds no checker while it waits
    if len(_IDLE) < _IDLE_MAX:
        _IDLE[key] = setup
    return out


def _setup(base, geometric, lo: np.ndarray, hi: np.ndarray, planner: str,
           step: float | None) -> tuple:
    """(SpaceInformation, its validity checks, the planner) over the box lo..hi: the state
    validity checker and the motion validator of one _validator_class object."""
    n = len(lo)
    space = base.RealVectorStateSpace(n)
    bounds = base.RealVectorBounds(n)
    for k in range(n):
        bounds.setLow(k, float(lo[k]))
        bounds.setHigh(k, float(hi[k]))
    space.setBounds(bounds)
    si = base.SpaceInformation(space)
    checks = _validator_class(base)(si)
    checks.n = n
    si.setStateValidityChecker(checks.is_valid)
    si.setMotionValidator(checks)
    si.setup()
    solver = getattr(geometric, planner)(si)
    if step is not None:
        solver.setRange(float(step))
    return si, checks, solver


def _validator_class(base):
    """The ompl.base.MotionValidator subclass whose checkMotion is one checker.check_motion
    and whose is_valid (the state validity checker) one checker.check, of the checker it is
    aimed at: straight to the compiled kernel's one-call entry points where it answers for
    the checker (what check and check_motion call first), the checker's own method for what
    the C leaves open."""
    if not _VALIDATOR:
        class CheckerMotions(base.MotionValidator):
            n = 0

            def aim(self, checker, resolution: float) -> None:
                caller = _kernel_caller(checker)
                self.decide = caller.decide if caller is not None else _undecided
                self.decide_motion = (caller.decide_motion if caller is not None
                                      else _undecided)
                self.check = checker.check if checker is not None else None
                self.check_motion = checker.check_motion if checker is not None else None
                self.resolution = resolution

            def is_valid(self, state) -> bool:
                q = state[0:self.n]
                hit = self.decide(q)
                return not (self.check(q) if hit is None else hit)

            def checkMotion(self, a, b) -> bool:  # noqa: N802 (OMPL's name)
                n = self.n
                a, b = a[0:n], b[0:n]
                hit = self.decide_motion(a, b, self.resolution)
                return not (self.check_motion(a, b, self.resolution) if hit is None else hit)

        _VALIDATOR.append(CheckerMotions)
    return _VALIDATOR[0]


def _kernel_caller(checker):
    """motions.kernel_caller of a CollisionChecker; None for no checker, or any other object
    that checks (a wrapped checker plans through its own check and check_motion)."""
    from robrayc.analysis.collision import motions

    if getattr(checker, "_kernel", None) is None:
        return None
    return motions.kernel_caller(checker)


def _undecided(*_) -> None:
    """No kernel: every question left to the checker's own method."""
    return None


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
