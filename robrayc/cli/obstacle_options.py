"""Run-time obstacles from the command line, for the subcommands that check a robot (`plan`,
`collide`): `--obstacles FILE` (an environment in any scene format, its collision geometry at
its world poses; robrayc.analysis.obstacle_scene) and `--points FILE` (a point cloud,
robrayc.frontend.point_cloud) become ``CollisionChecker.set_obstacles``: the robot's checker is
the one built (and cached) for the robot's own scene, whatever the environment.
"""

from __future__ import annotations

import argparse
import math

from robrayc.cli.arguments import UsageError
from robrayc.diagnostics import DiagnosticSink


def add_obstacle_arguments(p: argparse.ArgumentParser) -> None:
    from robrayc.analysis.obstacle_scene import DEFAULT_COVER_SIZE

    p.add_argument("--obstacles", action="append", default=[], metavar="FILE",
                   help="an environment (any scene format: .robray, .urdf, .xml, .sdf, "
                   ".json, ...) whose collision geometry, at its zero configuration, is "
                   "obstacles given at run time (no rebuild of the robot's checker; repeat)")
    p.add_argument("--points", action="append", default=[], metavar="FILE",
                   help="a point cloud (.pcd, .ply, .npy, .xyz) whose points are obstacles, "
                   "each a sphere of --point-radius (repeat)")
    p.add_argument("--point-radius", type=float, default=0.0, metavar="R",
                   help="the radius of each point of --points (default 0)")
    p.add_argument("--obstacle-sphere-size", type=float, default=DEFAULT_COVER_SIZE,
                   metavar="LENGTH", help="the cell edge of the certified sphere covers that "
                   "stand for --obstacles meshes and cones (default "
                   f"{DEFAULT_COVER_SIZE:g})")


def check_obstacle_arguments(args: argparse.Namespace) -> None:
    """Usage errors of the options, before any work."""
    if not (math.isfinite(args.point_radius) and args.point_radius >= 0):
        raise UsageError(f"--point-radius must be a number >= 0, got {args.point_radius!r}")
    size = args.obstacle_sphere_size
    if not (math.isfinite(size) and size > 0):
        raise UsageError(f"--obstacle-sphere-size must be a positive number, got {size!r}")


def set_obstacles(checker, args: argparse.Namespace, sink: DiagnosticSink) -> dict[str, str]:
    """Loads --obstacles and --points into the checker's run-time obstacles (errors in sink:
    CompileError). Returns the name each obstacle has in the checker's answers ("obstacle
    K") -> what it is ("FILE:FRAME", a URDF's "FILE:LINK", a cloud's "FILE")."""
    if not args.obstacles and not args.points:
        return {}
    from robrayc.analysis.collision import PointCloud
    from robrayc.analysis.collision.environment import obstacle_name
    from robrayc.analysis.obstacle_scene import scene_obstacles
    from robrayc.cli import main
    from robrayc.frontend.point_cloud import read_points
    from robrayc.links import frame_links

    shapes, labels = [], []
    for path in args.obstacles:
        scene = main.load_from_args(argparse.Namespace(**{**vars(args), "files": [path]}), sink)
        found = scene_obstacles(scene, sink, args.obstacle_sphere_size)
        covered = [o for o in found if isinstance(o.shape, PointCloud)]
        if covered:
            sink.warning(f"{len(covered)} of the obstacles of {path} (meshes, cones) are their "
                         f"certified sphere covers, reaching up to "
                         f"{max(o.overshoot for o in covered):.3g} beyond them",
                         covered[0].pos, "--obstacle-sphere-size sets the covers' cell edge",
                         name="obstacle-cover")
        shapes += [o.shape for o in found]
        links = frame_links(scene) or {}  # a URDF's obstacles by their links
        labels += [f"{path}:{links.get(o.frame, o.frame)}" for o in found]
    for path in args.points:
        points = read_points(path, sink, main._SOURCES)  # (_SOURCES: the lines errors show)
        shapes.append(PointCloud(points=points, radius=args.point_radius))
        labels.append(path)
    sink.check()
    checker.set_obstacles(shapes)
    return {obstacle_name(k): label for k, label in enumerate(labels)}
