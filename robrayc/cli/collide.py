"""`robrayc collide` and `robrayc allowed-collisions`.

    robrayc collide FILE... [--var NAME --val VALUE]... [--config FILE] [--json] [--distance]
                    [--srdf FILE]
    robrayc allowed-collisions FILE... [-o FILE] [--format robray|srdf|json] [--samples N]
                                       [--seed N] [--jobs N] [--check-srdf SRDF]

``collide`` reports the frame pairs whose collision geometry intersects at one configuration
(variables not given are 0; the link pairs an SRDF given with --srdf disables are not
checked; colliding adjacent links get a hint at --srdf). Its exit status gates a build: 0
nothing collides, 1 something does, 2 nothing was checked (a usage error, or errors in the
inputs, shown as diagnostics), 3 an internal error.

``allowed-collisions`` classifies every pair of collision frames (adjacent, colliding at the
default configuration, always colliding, never colliding in random samples: see
``robrayc.analysis.acm``) and writes ``allow_collision`` statements (with each reason as a
comment), an SRDF naming robot links (``robrayc.srdf``), or JSON. Exit 0 on success, 1 on
errors in the inputs, 2 on usage errors. ``--check-srdf`` lints an existing SRDF instead,
pair by pair by its reason: exit 1 when a pair disabled as never colliding (``Never``, no
reason or an unknown one) collides in the samples; ``Adjacent``, ``Default``, ``Always`` and
``User`` pairs that collide are expected and only counted (so are pairs without a reason that
are adjacent by MoveIt's rule: hand-written SRDFs disable neighbours without one); an
``Always`` pair seen colliding in no sample is a warning (-Wsrdf-unneeded: a check disabled
that is not needed).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from robrayc.cli.arguments import (
    UsageError,
    _Parser,
    add_configuration_arguments,
    add_load_arguments,
)
from robrayc.cli.main import (
    EXIT_ERROR,
    EXIT_OK,
    configuration,
    guarded,
    load_from_args,
)
from robrayc.cli.obstacle_options import (
    add_obstacle_arguments,
    check_obstacle_arguments,
    set_obstacles,
)
from robrayc.cli.srdf_options import add_srdf_argument, adjacent_hint, adjacent_pairs, with_srdf
from robrayc.cli.srdf_options import show_name as _show
from robrayc.configuration import check_variables, read_config_file
from robrayc.diagnostics import NOWHERE, CompileError, DiagnosticSink, SourcePos

EXIT_COLLISION, EXIT_NOT_CHECKED = 1, 2


# --- robrayc collide ------------------------------------------------------------------------


def _collide_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="robrayc collide", add_help=False, allow_abbrev=False,
                description="Report the colliding frame pairs of a scene at a configuration. "
                "Exit status: 0 no collision, 1 collision, 2 not checked (errors).")
    p.add_argument("files", nargs="*", metavar="FILE", help="scene files (.robray, .urdf, ...)")
    p.add_argument("-h", "--help", action="store_true", help="show this help and exit")
    add_configuration_arguments(p)
    p.add_argument("--config", metavar="FILE",
                   help="configuration file: NAME=VALUE lines ('#' comments); --var wins")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--distance", action="store_true",
                   help="also print every checked pair's signed distance, closest first")
    p.add_argument("--ignore-allowed", action="store_true",
                   help="check the scene's allow_collision pairs too")
    p.add_argument("--backend", choices=("exact", "compiled", "auto"), default="exact",
                   help="checker: exact (numpy/FCL, default), compiled (generated C with "
                   "certified spheres, built by the system C compiler and cached; the same "
                   "answers) or auto (compiled when a compiler works)")
    add_obstacle_arguments(p)
    add_srdf_argument(p)
    add_load_arguments(p)
    return p


def _configuration(args: argparse.Namespace, variables: tuple[str, ...],
                   sink: DiagnosticSink) -> dict[str, float]:
    given: dict[str, tuple[float, SourcePos]] = {}
    if args.config is not None:
        given.update(read_config_file(args.config, sink))
    given.update({k: (v, NOWHERE) for k, v in configuration(args).items()})
    check_variables({name: pos for name, (_, pos) in given.items()}, variables, sink)
    return {name: value for name, (value, _) in given.items()}


def _collide(argv: list[str], sink: DiagnosticSink) -> int:
    args = _collide_parser().parse_args(argv)
    if args.help:
        _collide_parser().print_help()
        return EXIT_OK
    if not args.files:
        raise UsageError("no input scene")
    configuration(args)  # usage errors (unpaired --var, bad --val) before any work
    check_obstacle_arguments(args)
    if args.distance and (args.obstacles or args.points):
        raise UsageError("--distance measures the scene's own pairs, not run-time obstacles "
                         "(--obstacles, --points): give the environment as a scene file")
    if args.srdf is not None and args.ignore_allowed:
        raise UsageError("--ignore-allowed checks every pair: --srdf would allow some")
    try:
        scene = load_from_args(args, sink)
        config = _configuration(args, scene.variables, sink)
        sink.check()
        scene = with_srdf(scene, args, sink)
        checker = _checker(scene, sink, args)
        labels = set_obstacles(checker, args, sink)
        sink.check()
    except CompileError:
        return EXIT_NOT_CHECKED
    pairs = [(labels.get(a, a), labels.get(b, b)) for a, b in checker.colliding_pairs(config)]
    distances = []
    if args.distance:
        try:
            distances = sorted(checker.distance(config), key=lambda d: (d.distance, d.a, d.b))
        except ValueError as exc:  # a scene too big to list every pair
            raise UsageError(str(exc)) from None
    _report(args, scene, checker, config, pairs, distances)
    return EXIT_COLLISION if pairs else EXIT_OK


def _report(args, scene, checker, config, pairs: list, distances: list) -> None:
    """collide's answer. A scene that names robot links (a URDF robot) is reported by links,
    each pair once (several frames may make one link); JSON keeps the frame pairs and adds
    the links beside them, and the text's hint as `adjacent_links` and `hint`."""
    from robrayc.links import frame_links, link_pair

    links = frame_links(scene)
    out = sys.stdout
    if args.json:
        full = {v: config.get(v, 0.0) for v in scene.variables}
        doc: dict = {"configuration": full, "collision_frames": list(checker.collision_frames),
                     "collisions": [list(p) for p in pairs]}
        if links is not None:
            doc["links"] = {f: links[f] for f in checker.collision_frames}
            doc["collision_links"] = [list(link_pair(p, links)) for p in pairs]
        # the text's hint as data: colliding adjacent links (MoveIt's rule), what to do
        adjacent = adjacent_pairs(scene, pairs)
        doc["adjacent_links"] = [list(p) for p in adjacent]
        hint = "" if args.ignore_allowed else adjacent_hint(adjacent, args.srdf)
        doc["hint"] = hint.removeprefix("hint: ").strip() or None
        if args.distance:
            doc["distances"] = [[d.a, d.b, d.distance] for d in distances]
            doc["distance_methods"] = [d.method for d in distances]
            if links is not None:
                doc["distance_links"] = [list(link_pair((d.a, d.b), links)) for d in distances]
        out.write(json.dumps(doc, indent=1) + "\n")
        out.flush()
        return
    named = list(dict.fromkeys(_named(p, links) for p in pairs))
    for a, b in named:
        out.write(f"{_show(a)} {_show(b)}\n")
    if args.distance:
        shown: set = set()
        for d in distances:  # closest first: a link pair's first line is its distance
            a, b = _named((d.a, d.b), links)
            if (a, b) not in shown:
                shown.add((a, b))
                how = _METHODS.get(d.method)
                out.write(f"distance {_show(a)} {_show(b)} {d.distance!r}"
                          + (f"  ({how})" if how else "") + "\n")
        if any(d.method == "open-mesh" for d in distances):
            sys.stderr.write("note: a colliding pair with an open mesh reports distance 0 (an "
                             "open surface has no inside, so no penetration depth)\n")
    out.flush()
    at = ", ".join(f"{k}={v!r}" for k, v in config.items()) or "the zero configuration"
    n, kind = len(named), "link pair" if links else "pair"
    sys.stderr.write(f"{n} colliding {kind}{'' if n == 1 else 's'} at {at}\n"
                     if n else f"no collisions at {at}\n")
    if not args.ignore_allowed:  # (checking every pair was asked for)
        sys.stderr.write(adjacent_hint(adjacent_pairs(scene, pairs), args.srdf))


# How a penetration depth was found, as the text output says it (exact ones say nothing).
_METHODS = {"convex-exact": "convex: exact",
            "deepest-vertex-bound": "a bound, at least this deep: the deepest vertex inside "
                                    "the other solid"}


def _named(pair: tuple[str, str], links: dict[str, str] | None) -> tuple[str, str]:
    """A frame pair by its links (in name order), or as it is."""
    from robrayc.links import link_pair

    a, b = link_pair(pair, links)
    return (a, b) if links is None or a <= b else (b, a)


def _checker(scene, sink: DiagnosticSink, args: argparse.Namespace):
    from robrayc.analysis.collision import CollisionChecker
    from robrayc.analysis.collision.c_build import CompilerMissing

    try:
        checker = CollisionChecker(scene, sink, use_allowed=not args.ignore_allowed,
                                   backend=args.backend)
    except CompilerMissing as exc:
        raise sink.fatal(f"the compiled checker is not available: {exc}",
                         hint="use --backend exact or auto") from None
    if checker.note:  # auto without a usable compiled checker
        sink.warning(checker.note, name="exact-checker")
    return checker


def main(argv: list[str]) -> int:
    return guarded(_collide, argv, "robrayc collide")


# --- robrayc allowed-collisions -------------------------------------------------------------

FORMATS = {".srdf": "srdf", ".json": "json", ".robray": "robray"}


def _acm_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="robrayc allowed-collisions", add_help=False, allow_abbrev=False,
                description="Find the frame pairs that need no collision checking (adjacent, "
                "colliding at the default configuration, always or never colliding in random "
                "samples) and write them as allow_collision statements, SRDF or JSON.")
    p.add_argument("files", nargs="*", metavar="FILE", help="scene files (.robray, .urdf, ...)")
    p.add_argument("-h", "--help", action="store_true", help="show this help and exit")
    p.add_argument("-o", "--output", metavar="FILE", help="output file (default: standard "
                   "output)")
    p.add_argument("--format", choices=("robray", "srdf", "json"),
                   help="output format (default: from -o's suffix, else robray)")
    p.add_argument("--samples", type=int, default=10000, metavar="N",
                   help="random configurations to check (default 10000; 0: none, else at "
                   "least 30); a pair seen colliding in none of N is 'never' with "
                   "probability below 3/N, a pair proven apart (bound 0) never collides")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="random seed (default 0)")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                   help="worker processes (default: one per CPU)")
    p.add_argument("--always", type=float, default=0.95, metavar="FRACTION",
                   help="share of samples that makes a pair 'always colliding' (default 0.95)")
    p.add_argument("--check-srdf", metavar="SRDF",
                   help="lint an existing SRDF instead: report the pairs it disables as never "
                   "colliding (Never, no or an unknown reason) that collide in the samples "
                   "(exit 1 if any), Always pairs that never do, and names that are no link")
    p.add_argument("--robot-name", metavar="NAME",
                   help="SRDF robot name (default: the first input's file name)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (it is shown only on a terminal anyway)")
    add_load_arguments(p)
    return p


def _acm(argv: list[str], sink: DiagnosticSink) -> int:
    from robrayc.analysis import acm
    from robrayc.links import frame_links
    from robrayc.outputs import check_target, write_files

    args = _acm_parser().parse_args(argv)
    if args.help:
        _acm_parser().print_help()
        return EXIT_OK
    if not args.files:
        raise UsageError("no input scene")
    if args.samples < 0 or (0 < args.samples < acm.MIN_SAMPLES and not args.check_srdf):
        raise UsageError(f"--samples must be 0 (no sampling) or at least {acm.MIN_SAMPLES} "
                         "(the rule-of-three bound on a pair never seen colliding is only "
                         "meaningful from there on)")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be 1 or more")
    if not 0 < args.always <= 1:
        raise UsageError("--always must be in (0, 1]")
    output = None if args.output in (None, "-") else Path(args.output)
    fmt = args.format or (FORMATS.get(output.suffix.lower()) if output else None) or "robray"
    if output is not None:
        check_target(output, sink)
    scene = load_from_args(args, sink)
    sink.check()
    if args.check_srdf:
        return _check_srdf(scene, args, output, sink)
    progress = not args.no_progress and not args.quiet and sys.stderr.isatty()
    options = dict(samples=args.samples, seed=args.seed, jobs=args.jobs,
                   always_fraction=args.always, progress=progress, sink=sink)
    if fmt == "srdf":  # robot links, MoveIt's adjacency
        from robrayc import srdf

        result, disabled = srdf.classify(scene, **options)
    else:
        result = acm.generate(scene, **options)
    sink.check()
    sources = [Path(f).name for f in args.files]
    if fmt == "srdf":
        name = args.robot_name or scene.robot_name or Path(args.files[0]).stem
        text = srdf.write(name, disabled, acm.header(result, sources,
                                                     "robrayc allowed-collisions"))
    elif fmt == "json":
        text = acm.to_json(result, frame_links(scene))
    else:
        text = acm.to_robray(result, sources, links=frame_links(scene))
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return EXIT_OK
    return EXIT_OK if write_files([(output, text.encode())], sink) else EXIT_ERROR


def _check_srdf(scene, args, output: Path | None, sink: DiagnosticSink) -> int:
    """allowed-collisions --check-srdf: the SRDF's disabled pairs that do collide."""
    from robrayc import srdf
    from robrayc.cli import main
    from robrayc.outputs import write_files

    path = Path(args.check_srdf)
    found = srdf.read_for(scene, args.check_srdf, sink, main._SOURCES)
    entries = list(found.disabled)
    for d in found.defaults:
        sink.warning(f"the pairs of link '{d.link}' (<disable_default_collisions>) are not "
                     "linted: --check-srdf judges <disable_collisions> pairs by their reason",
                     d.pos or SourcePos(str(path)), name="srdf-ignored")
    sink.check()
    findings = srdf.lint(scene, entries, sink, samples=args.samples, seed=args.seed)
    sink.check()
    by = {v: [f for f in findings if f.verdict == v] for v in ("wrong", "expected", "unneeded")}
    lines = [f"{path}: {len(entries)} disabled pairs, {len(by['wrong'])} colliding though "
             f"disabled as never colliding (Never, or no or an unknown reason), "
             f"{len(by['expected'])} colliding as their reason says "
             f"(Adjacent, Default, Always, User), {len(by['unneeded'])} Always never seen "
             f"colliding, in {args.samples} random samples (seed {args.seed})"]
    for f in by["wrong"]:
        d = f.entry
        where = f"{d.pos or path}: {d.link1} {d.link2} ({d.reason or 'no reason'}): "
        if f.example is None:  # across a floating joint, seen colliding in no sample
            lines.append(where + f"moved by floating joint '{f.floating}', whose translation "
                         "(not sampled) brings them together")
            continue
        at = ", ".join(f"{k}={v!r}" for k, v in f.example.items())
        lines.append(where + f"collide in {f.collisions} of {f.samples} samples, e.g. at {at}")
    for f in by["unneeded"]:
        d = f.entry
        sink.warning(f"{d.link1} {d.link2} disabled as Always colliding, but they collide in "
                     f"none of {f.samples} samples: a check disabled that is not needed",
                     d.pos or SourcePos(str(path)), name="srdf-unneeded")
    text = "\n".join(lines) + "\n"
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    elif not write_files([(output, text.encode())], sink):
        return EXIT_ERROR
    return EXIT_COLLISION if by["wrong"] else EXIT_OK


def acm_main(argv: list[str]) -> int:
    return guarded(_acm, argv, "robrayc allowed-collisions")
