"""MoveIt's allowed collisions for the subcommands that check a robot (`plan`, `collide`):
`--srdf FILE` reads the link pairs an SRDF leaves unchecked (`<disable_collisions>`,
`<disable_default_collisions>` less `<enable_collisions>`, as MoveIt: robrayc.srdf, the one SRDF
reader) into allowed frame pairs of the scene the checker is built for; and a configuration
that collides is explained: its frame pairs named (with their links, for a robot that names
links), and a hint at `--srdf` when they are adjacent links, whose meshes often touch by design.
"""

from __future__ import annotations

import argparse
import json
import re

from robrayc.diagnostics import DiagnosticSink

_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")


def add_srdf_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--srdf", metavar="FILE",
                   help="a MoveIt SRDF: the link pairs it disables are not checked (as "
                   "allow_collision pairs of the scene): <disable_collisions>, and the pairs "
                   "of <disable_default_collisions> links but for <enable_collisions>")


def with_srdf(scene, args: argparse.Namespace, sink: DiagnosticSink):
    """The scene with the link pairs --srdf disables allowed (errors in sink: CompileError);
    the scene itself without --srdf."""
    if args.srdf is None:
        return scene
    from robrayc import srdf
    from robrayc.cli import main

    found = srdf.read_for(scene, args.srdf, sink, main._SOURCES)  # (_SOURCES: lines shown)
    scene = srdf.allowed(scene, found, sink)
    if found.defaults and (args.obstacles or args.points):
        sink.warning(f"<disable_default_collisions> of link '{found.defaults[0].link}' "
                     "allows its pairs with the scene's frames, not with run-time obstacles "
                     "(--obstacles, --points): those stay checked, though MoveIt's default "
                     "entry would leave them out too", found.defaults[0].pos, name="srdf-ignored")
    sink.check()
    return scene


def show_name(name: str) -> str:
    """A frame or link name as one word of a report: as it is, or quoted when it is not a
    plain identifier (spaces, quotes, ...)."""
    return name if _IDENT.match(name) else json.dumps(name)


def adjacent_pairs(scene, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The link pairs (MoveIt's adjacency, robrayc.srdf) among colliding frame pairs, in
    order, each once (pairs naming frames outside the scene, run-time obstacles, are none)."""
    from robrayc.links import plan_links
    from robrayc.srdf import adjacent_links

    plan = plan_links(scene)
    adjacent = adjacent_links(scene, plan)
    out: dict[tuple[str, str], None] = {}
    for a, b in pairs:
        if scene.has_frame(a) and scene.has_frame(b):
            la, lb = sorted((plan.link_of(a), plan.link_of(b)))
            if (la, lb) in adjacent:
                out[(la, lb)] = None
    return list(out)


def adjacent_hint(adjacent: list[tuple[str, str]], srdf: str | None = None) -> str:
    """What to do about colliding adjacent links (empty: none); `srdf`: the --srdf given."""
    if not adjacent:
        return ""
    a, b = adjacent[0]
    more = f" (and {len(adjacent) - 1} more adjacent pairs)" if len(adjacent) > 1 else ""
    if srdf is not None:
        todo = f"{srdf} does not disable them (a <disable_collisions> would)"
    else:
        todo = ("MoveIt's SRDF disables such pairs; give it with --srdf ROBOT.srdf, or write "
                "one with `robrayc allowed-collisions FILE... -o ROBOT.srdf` (or `-o "
                "pairs.robray`, then another input)")
    return (f"hint: links {show_name(a)} and {show_name(b)} are adjacent{more}: neighbouring "
            f"links' meshes often touch at their joint; {todo}\n")


def collision_report(scene, pairs: list[tuple[str, str]], labels: dict[str, str],
                     srdf: str | None = None) -> str:
    """The colliding frame pairs a line each (a run-time obstacle by what it is, a robot's
    frames with their links), then adjacent_hint."""
    from robrayc.links import frame_links

    links = frame_links(scene) or {}
    lines = []
    for a, b in pairs:
        line = f"  {show_name(labels.get(a, a))} {show_name(labels.get(b, b))}"
        if a in links and b in links:
            line += f" (links {show_name(links[a])} {show_name(links[b])})"
        lines.append(line + "\n")
    return "".join(lines) + adjacent_hint(adjacent_pairs(scene, pairs), srdf)
