"""POV-Ray scene (the original's ``-p``/``-P`` output): the posed scene at ``--var/--val`` or
``--config``, with the camera of ``--cam-eye/--cam-look/--cam-up/--fov`` (default: framing
the whole scene) and image size ``--pov-x/--pov-y``. Render it with ``povray`` (Debian package
``povray``), or ask for ``-o scene.png`` to have robrayc do it.

The picture options shared by the 3D formats are added here, once (see analysis/view.py).
"""

from __future__ import annotations

import argparse

from robrayc import ir
from robrayc.analysis.view import PictureOptions
from robrayc.backends import EmitContext, OutputFile
from robrayc.diagnostics import DiagnosticSink
from robrayc.records import record

NAME = "pov"
HELP = ("POV-Ray scene (render with povray); the picture options below also apply to the "
        "png, glb, html and svg formats")


def add_arguments(group: argparse._ArgumentGroup) -> None:
    from robrayc.analysis.view import add_picture_arguments

    add_picture_arguments(group)
    group.add_argument("--pov-include", action="append", default=[], metavar="FILE",
                       help="pov/png: #include FILE at the end of the POV-Ray scene")


@record(frozen=True)
class Options:
    picture: PictureOptions
    includes: tuple[str, ...] = ()

    @classmethod
    def from_args(cls, ns: argparse.Namespace, sink: DiagnosticSink) -> Options:
        for inc in ns.pov_include:
            if '"' in inc or "\n" in inc:
                sink.error(f"--pov-include {inc!r}: a POV-Ray file name cannot hold a double "
                           "quote or a line break")
        return cls(PictureOptions.from_args(ns, sink), tuple(ns.pov_include))


def emit(scene: ir.Scene, ctx: EmitContext) -> list[OutputFile]:
    from robrayc.analysis import povray, view

    opts = view.for_scene(ctx.options.picture, scene, ctx.sink)
    pairs = view.colliding_pairs(scene, opts, ctx.sink)
    posed = view.posed_geometries(scene, opts, view.highlighted_frames(pairs))
    cam = view.camera_for(posed, opts, ctx.sink)
    text = povray.scene_text(scene, posed, cam, ctx.sink, pairs, ctx.options.includes)
    return [OutputFile(ctx.output, text.encode())]
