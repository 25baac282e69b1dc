"""`robrayc plan`: a collision-free path between two configurations of a scene, planned by
OMPL over robrayc's checker (robrayc.analysis.planning; the `plan` extra).

    robrayc plan FILE... --start NAME=VALUE... --goal NAME=VALUE... [--planner NAME]
                 [--timeout S] [--resolution R] [--step S] [--no-simplify] [--backend ...]
                 [--obstacles FILE]... [--points FILE]... [--point-radius R] [--srdf FILE]

The obstacles are the scene's fixed geometry (a robot's URDF and a robray file of boxes, say)
and, given at run time to the robot's own (cached) checker, the collision geometry of each
--obstacles environment and the points of each --points cloud; variables not given are 0.
Prints the path as CSV: a header naming the variables, then one configuration a line, start
first, goal last; each straight segment between two lines is free at the checker's samples.
--srdf's disabled link pairs are not checked; a start or goal that collides is reported with
its colliding pairs (robrayc.cli.srdf_options). Exit 0 with a path, 1 when there is none
(start or goal collides, or none found within the timeout), 2 when nothing was planned
(usage errors, errors in the inputs, OMPL not installed).
"""

from __future__ import annotations

import argparse
import csv
import math
import sys

from robrayc.cli.arguments import UsageError, _Parser, add_load_arguments
from robrayc.cli.main import EXIT_OK, guarded, load_from_args
from robrayc.cli.obstacle_options import (
    add_obstacle_arguments,
    check_obstacle_arguments,
    set_obstacles,
)
from robrayc.cli.srdf_options import add_srdf_argument, collision_report, with_srdf
from robrayc.diagnostics import NOWHERE, CompileError, DiagnosticSink, suggest

EXIT_NO_PATH, EXIT_NOT_PLANNED = 1, 2


def _plan_parser() -> argparse.ArgumentParser:
    from robrayc.analysis.collision.motions import DEFAULT_RESOLUTION
    from robrayc.analysis.planning import DEFAULT_TIMEOUT, PLANNERS

    p = _Parser(prog="robrayc plan", add_help=False, allow_abbrev=False,
                description="Plan a collision-free path between two configurations with "
                "OMPL (pip install 'robrayc[plan]'); print it as CSV. Exit status: 0 a path, "
                "1 none (start or goal collides, or none found in time), 2 not planned "
                "(errors).")
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="scene files (.robray, .urdf, ...): the robot and its obstacles")
    p.add_argument("-h", "--help", action="store_true", help="show this help and exit")
    p.add_argument("--start", action="append", default=[], metavar="NAME=VALUE",
                   help="a variable's start value (repeat; variables not given are 0)")
    p.add_argument("--goal", action="append", default=[], metavar="NAME=VALUE",
                   help="a variable's goal value (repeat; variables not given are 0)")
    p.add_argument("--planner", choices=PLANNERS, default="RRTConnect",
                   help="OMPL's planner (default RRTConnect)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"give up after this long (default {DEFAULT_TIMEOUT:g})")
    p.add_argument("--resolution", type=float, default=DEFAULT_RESOLUTION, metavar="R",
                   help="samples a unit of configuration-space length in each motion check "
                   f"(default {DEFAULT_RESOLUTION:g})")
    p.add_argument("--step", type=float, metavar="LENGTH",
                   help="the longest motion the planner tries at once (default: OMPL's)")
    p.add_argument("--no-simplify", action="store_true",
                   help="print the planner's path as found, not shortcut")
    p.add_argument("--backend", choices=("exact", "compiled", "auto"), default="auto",
                   help="checker: auto (compiled when a C compiler works, default), compiled "
                   "or exact")
    add_obstacle_arguments(p)
    add_srdf_argument(p)
    add_load_arguments(p)
    p.set_defaults(ignore_allowed=False)  # the scene's allow_collision pairs hold
    return p


def _values(items: list[str], option: str) -> dict[str, float]:
    """--start/--goal NAME=VALUE items -> {NAME: value} (usage errors for anything else)."""
    out = {}
    for item in items:
        name, found, text = item.rpartition("=")
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not found or not name or not math.isfinite(value):
            raise UsageError(f"{option} expects NAME=VALUE with a finite number, got {item!r}")
        out[name] = value
    return out


def _plan(argv: list[str], sink: DiagnosticSink) -> int:
    args = _plan_parser().parse_args(argv)
    if args.help:
        _plan_parser().print_help()
        return EXIT_OK
    if not args.files:
        raise UsageError("no input scene")
    start, goal = _values(args.start, "--start"), _values(args.goal, "--goal")
    for option, value in (("--timeout", args.timeout), ("--step", args.step)):
        if value is not None and not (value > 0 and math.isfinite(value)):
            raise UsageError(f"{option} must be a positive number, got {value!r}")
    check_obstacle_arguments(args)
    from robrayc.analysis import planning
    from robrayc.cli.collide import _checker

    try:
        scene = load_from_args(args, sink)
        for name in {**start, **goal}:  # a typo must not silently plan from zero
            if name not in scene.variables:
                sink.error(f"unknown configuration variable '{name}' (--start, --goal)",
                           NOWHERE, suggest(name, scene.variables))
        sink.check()
        scene = with_srdf(scene, args, sink)
        checker = _checker(scene, sink, args)
        labels = set_obstacles(checker, args, sink)
        sink.check()
    except CompileError:
        return EXIT_NOT_PLANNED
    try:
        path = planning.plan(checker, start, goal, planner=args.planner, timeout=args.timeout,
                             resolution=args.resolution, simplify=not args.no_simplify,
                             step=args.step)
    except (ValueError, planning.PlanningUnavailable) as exc:  # a value outside its joint's
        raise UsageError(str(exc)) from None  # limits, a bad resolution; OMPL not installed
    if path is None:
        sys.stderr.write(_no_path(checker, scene, start, goal, args, labels))
        return EXIT_NO_PATH
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(scene.variables)
    out.writerows([repr(v) for v in row] for row in path.tolist())
    return EXIT_OK


def _no_path(checker, scene, start: dict[str, float], goal: dict[str, float],
             args: argparse.Namespace, labels: dict[str, str]) -> str:
    """Why plan found no path: the start or the goal collides (and its pairs), or time ran
    out."""
    for end, config in (("start", start), ("goal", goal)):
        pairs = checker.colliding_pairs(config)
        if pairs:
            n = len(pairs)
            return (f"robrayc plan: the {end} collides: {n} colliding pair{'s' * (n != 1)}\n"
                    + collision_report(scene, pairs, labels, args.srdf))
    return f"robrayc plan: no path found in {args.timeout:g} s\n"


def main(argv: list[str]) -> int:
    return guarded(_plan, argv, "robrayc plan")
