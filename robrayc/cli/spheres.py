"""`robrayc spheres`: certified collision spheres of a robot, for sphere-based checkers.

    robrayc spheres FILE... [-o OUT.urdf | OUT.yml] [--format urdf|yaml] [--size L | --count N]

URDF output: the robot with every link's <collision> elements replaced by spheres (as VAMP's
cricket and other sphere-based tools take): a URDF input is rewritten (all else kept as it is),
any other scene is first written as URDF by the URDF backend (links as `robrayc.links` names
them, meshes referenced relative to the output). YAML output: cuRobo's
``collision_spheres`` (link name -> list of centre and radius, in the link's frame). Every point
of every collision primitive, and every point of every mesh triangle, is inside the spheres
(robrayc.analysis.spheres); a summary with the largest overshoot goes to standard error.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from robrayc.cli.arguments import UsageError, _Parser, add_load_arguments
from robrayc.cli.main import EXIT_ERROR, EXIT_OK, guarded, load_from_args
from robrayc.diagnostics import DiagnosticSink

FORMATS = {".urdf": "urdf", ".yml": "yaml", ".yaml": "yaml"}
DEFAULT_COUNT = 200  # spheres in all, without --size or --count


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="robrayc spheres", add_help=False, allow_abbrev=False,
                description="Cover a robot's collision geometry with spheres that provably "
                "contain it, and write them as a URDF of spheres or as cuRobo's YAML.")
    p.add_argument("files", nargs="*", metavar="FILE", help="robot files (.urdf, .robray, ...)")
    p.add_argument("-h", "--help", action="store_true", help="show this help and exit")
    p.add_argument("-o", "--output", metavar="FILE", help="output (default: standard output)")
    p.add_argument("--format", choices=("urdf", "yaml"),
                   help="output format (default: from -o's suffix, else yaml)")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--size", type=float, metavar="LENGTH",
                      help="sphere cell edge in scene units (smaller: more, tighter spheres)")
    size.add_argument("--count", type=int, metavar="N",
                      help=f"at most N spheres in all (default {DEFAULT_COUNT}); an error "
                      "when the coarsest cover needs more")
    add_load_arguments(p)
    return p


def link_spheres(scene, sink: DiagnosticSink, size: float | None, count: int | None
                 ) -> tuple[dict[str, list[tuple[tuple[float, float, float], float]]], float,
                            float]:
    """link name (as `robrayc.links` names it, so as URDF import and export do) ->
    [(centre in the link frame, radius)], the cell size used and the largest overshoot."""
    from robrayc.analysis.collision import CollisionChecker
    from robrayc.analysis.spheres import cover_all
    from robrayc.links import plan_links

    checker = CollisionChecker(scene, sink, use_allowed=False)
    items = checker.solids.items
    covers, used = cover_all(items, size=size, count=None if size else (count or DEFAULT_COUNT))
    zero = np.zeros((1, len(scene.variables)))
    world = checker.fk.frame_poses(zero)[0]
    group_pose = checker.group_poses(zero)[0]
    plan = plan_links(scene)
    index = {f.name: i for i, f in enumerate(scene.frames)}

    def link_pose(frame) -> np.ndarray:
        """World pose (at zero) of the frame that makes the frame's link."""
        holder = frame.parent if frame.name in plan.folded else frame.name
        return world[index[holder]] if holder in index else np.eye(4)

    out: dict[str, list] = {}
    for k, c in enumerate(covers):
        frame = scene.frames[int(checker.owner[k])]
        # covers are in the solid's group frame: to the world at zero, then to the link
        to_link = np.linalg.inv(link_pose(frame)) @ group_pose[int(checker.group[k])]
        placed = c.placed(to_link)
        spheres = out.setdefault(plan.link_of(frame.name), [])
        for centre, r in zip(placed.centres.tolist(), placed.radii.tolist(), strict=True):
            spheres.append((tuple(centre), r))
    overshoot = max((c.overshoot for c in covers), default=0.0)
    return out, used, overshoot


def scene_urdf(scene, output: Path | None, sink: DiagnosticSink) -> tuple[bytes, list]:
    """A scene read from any format as URDF (the URDF backend's document) and the files it
    needs beside it (cones as STL)."""
    from robrayc.backends import EmitContext
    from robrayc.backends import urdf as urdf_backend

    files = urdf_backend.emit(scene, EmitContext(output, urdf_backend.Options(), sink))
    return files[0].data, files[1:]


def to_yaml(spheres: dict) -> str:
    """cuRobo's collision_spheres document (numbers in shortest round-trip form)."""
    import json

    lines = ["collision_spheres:"]
    for link, items in spheres.items():
        lines.append(f"  {json.dumps(link)}:")
        for (x, y, z), r in items:
            lines.append(f"    - center: [{x!r}, {y!r}, {z!r}]")
            lines.append(f"      radius: {r!r}")
    return "\n".join(lines) + "\n"


def to_urdf(source: bytes, spheres: dict, sink: DiagnosticSink) -> bytes:
    """The URDF with each link's collision elements replaced by its spheres."""
    root = ET.fromstring(source)
    missing = set(spheres) - {link.get("name") for link in root.iter("link")}
    if missing:  # never drop spheres, hence geometry, silently
        raise sink.fatal("no URDF link for the spheres of " + ", ".join(sorted(missing)))
    for link in root.iter("link"):
        for old in link.findall("collision"):
            link.remove(old)
        for k, ((x, y, z), r) in enumerate(spheres.get(link.get("name"), ())):
            col = ET.SubElement(link, "collision", name=f"sphere_{k}")
            ET.SubElement(col, "origin", xyz=f"{x!r} {y!r} {z!r}", rpy="0 0 0")
            ET.SubElement(ET.SubElement(col, "geometry"), "sphere", radius=repr(r))
    ET.indent(root)
    return b'<?xml version="1.0"?>\n' + ET.tostring(root, encoding="utf-8") + b"\n"


def _spheres(argv: list[str], sink: DiagnosticSink) -> int:
    from robrayc.outputs import check_target, write_files

    args = _parser().parse_args(argv)
    if args.help:
        _parser().print_help()
        return EXIT_OK
    if not args.files:
        raise UsageError("no input robot")
    if args.size is not None and not args.size > 0:
        raise UsageError("--size must be positive")
    if args.count is not None and args.count < 1:
        raise UsageError("--count must be 1 or more")
    output = None if args.output in (None, "-") else Path(args.output)
    fmt = args.format or (FORMATS.get(output.suffix.lower()) if output else None) or "yaml"
    if output is not None and not check_target(output, sink):
        return EXIT_ERROR
    scene = load_from_args(args, sink)
    sink.check()
    spheres, used, overshoot = link_spheres(scene, sink, args.size, args.count)
    n = sum(len(v) for v in spheres.values())
    if args.size is None and n > (args.count or DEFAULT_COUNT):
        raise sink.fatal(f"--count {args.count or DEFAULT_COUNT}: the coarsest cover of this "
                         f"geometry has {n} spheres (at least one a solid)",
                         hint=f"give --count {n} or more")
    extra: list = []
    if fmt != "urdf":
        data = to_yaml(spheres).encode()
    elif len(args.files) == 1 and args.files[0].lower().endswith(".urdf"):
        data = to_urdf(Path(args.files[0]).read_bytes(), spheres, sink)
    else:
        source, extra = scene_urdf(scene, output, sink)
        data = to_urdf(source, spheres, sink)
        # files only the replaced collision shapes used (cones) are not written
        extra = [f for f in extra if f.path.name.encode() in data]
        sink.check()
    if not args.quiet:
        sys.stderr.write(f"{n} spheres on {len(spheres)} links (cell {used:.3g}), "
                         f"largest overshoot {overshoot:.3g}\n")
    if output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return EXIT_OK
    files = [(output, data)] + [(f.path, f.data) for f in extra]
    return EXIT_OK if write_files(files, sink) else EXIT_ERROR


def main(argv: list[str]) -> int:
    return guarded(_spheres, argv, "robrayc spheres")
