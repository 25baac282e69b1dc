"""POV-Ray scene (the original's ``-p``/``-P`` output): the posed scene at ``--var/--val`` or
``--config``, with the camera of ``--cam-eye/--cam-look/--cam-up/--fov`` (default: framing
the whole scene) and image size ``--pov-x/--pov-y``. Render it with ``povray`` (Debian package
``povray``), or ask for ``-o scene.png`` to have robrayc do it.

The picture options shared by the 3D formats are added here, once (see analysis/view.py).
"""

from __future__ import annotations

import argparse

from robrayc import ir
from robrayc.backends import EmitContext, OutputFile

NAME = "pov"
HELP = ("POV-Ray scene (render with povray); the picture options below also apply to the "
        "png, glb, html and svg formats")


def add_arguments(group: argparse._ArgumentGroup) -> None:
    from robrayc.analysis.view import add_picture_arguments

    add_picture_arguments(group)
    group.add_argument("--pov-include", action="append", default=[], metavar="FILE",
                       help="pov/png: #include FILE at the end of the POV-Ray scene")


def emit(scene: ir.Scene, ctx: EmitContext) -> list[OutputFile]:
    from robrayc.analysis import povray, view

    opts = view.options_from(ctx.options, scene, ctx.sink)
    pairs = view.colliding_pairs(scene, opts, ctx.sink)
    posed = view.posed_geometries(scene, opts, view.highlighted_frames(pairs))
    cam = view.camera_for(posed, opts, ctx.sink)
    includes = tuple(getattr(ctx.options, "pov_include", None) or ())
    for inc in includes:
        if '"' in inc or "\n" in inc:
            raise ctx.sink.fatal(f"--pov-include {inc!r}: a POV-Ray file name cannot hold a "
                                 "double quote or a line break")
    text = povray.scene_text(scene, posed, cam, ctx.sink, pairs, includes)
    return [OutputFile(ctx.output, text.encode())]
