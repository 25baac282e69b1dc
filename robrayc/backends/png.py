"""PNG picture, rendered by POV-Ray (Debian package ``povray``) from the scene the pov format
writes: same camera, size, lights and options. ``--highlight-collisions`` adds a legend naming
the colliding pairs (drawn with Pillow). On a terminal the render shows its progress."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from robrayc import ir
from robrayc.analysis.view import PictureOptions
from robrayc.backends import EmitContext, OutputFile
from robrayc.diagnostics import DiagnosticSink
from robrayc.records import record

NAME = "png"
HELP = "PNG picture rendered by POV-Ray (the picture options are listed under pov output)"
INSTALL_HINT = ("install the Debian package 'povray' (apt-get install povray), or write the "
                "scene with -o scene.pov and render it elsewhere")
_PROGRESS = re.compile(rb"Rendered (\d+) of (\d+) pixels")


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--antialias", action="store_true",
                       help="png: anti-aliased edges (slower)")


@record(frozen=True)
class Options:
    picture: PictureOptions
    includes: tuple[str, ...] = ()  # --pov-include, absolute (POV-Ray runs elsewhere)
    antialias: bool = False

    @classmethod
    def from_args(cls, ns: argparse.Namespace, sink: DiagnosticSink) -> Options:
        return cls(PictureOptions.from_args(ns, sink),
                   tuple(os.path.abspath(p) for p in ns.pov_include), ns.antialias)


def emit(scene: ir.Scene, ctx: EmitContext) -> list[OutputFile]:
    from robrayc.analysis import povray, view

    povray_bin = shutil.which("povray")
    if povray_bin is None:
        raise ctx.sink.fatal("PNG output needs POV-Ray, which is not installed", hint=INSTALL_HINT)
    opts = view.for_scene(ctx.options.picture, scene, ctx.sink)
    pairs = view.colliding_pairs(scene, opts, ctx.sink)
    posed = view.posed_geometries(scene, opts, view.highlighted_frames(pairs))
    cam = view.camera_for(posed, opts, ctx.sink)
    text = povray.scene_text(scene, posed, cam, ctx.sink, pairs, ctx.options.includes)
    ctx.sink.check()
    with tempfile.TemporaryDirectory(prefix="robrayc-png-") as tmp:
        pov, png = Path(tmp) / "scene.pov", Path(tmp) / "scene.png"
        pov.write_text(text, encoding="utf-8")
        args = [povray_bin, f"+I{pov}", f"+O{png}", f"+W{cam.width}", f"+H{cam.height}",
                "-D", "+FN", "+Q9", "-GS", "-GR"]
        if ctx.options.antialias:
            args += ["+A0.3", "+AM2", "+R2"]
        show = sys.stderr.isatty() and not ctx.sink.quiet
        status, log = _run(args + (["+V"] if show else ["-V"]), tmp, show)
        if status != 0 or not png.is_file():
            raise ctx.sink.fatal(f"POV-Ray failed (exit status {status}): {_first_error(log)}")
        data = png.read_bytes()
    if pairs:
        data = _legend(data, [view.pair_label(p) for p in pairs], ctx)
    return [OutputFile(ctx.output, data)]


def _run(args: list[str], cwd: str, show: bool) -> tuple[int, bytes]:
    """Run POV-Ray; on a terminal, turn its pixel counts into a one-line progress."""
    proc = subprocess.Popen(args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    log = bytearray()
    assert proc.stdout is not None
    shown = -1
    while chunk := proc.stdout.read1(65536):
        log += chunk
        if show:
            found = _PROGRESS.findall(log[-200:])
            if found:
                done, total = (int(x) for x in found[-1])
                pct = 100 * done // max(total, 1)
                if pct != shown:
                    sys.stderr.write(f"\rrobrayc: rendering {pct:3d}%")
                    sys.stderr.flush()
                    shown = pct
        if len(log) > 1 << 20:  # keep the tail only
            del log[: len(log) - (1 << 19)]
    status = proc.wait()
    if show and shown >= 0:
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()
    return status, bytes(log)


def _first_error(log: bytes) -> str:
    """POV-Ray's first error, its wrapped lines joined (up to the blank line after it)."""
    lines = log.decode("utf-8", "replace").splitlines()
    for i, line in enumerate(lines):
        if "error" in line.lower() and line.strip():
            text, previous = line.strip(), line
            for more in lines[i + 1:]:
                if not more.strip():
                    break
                # POV-Ray cuts its messages at 80 columns, mid-word: rejoin those
                text += ("" if len(previous) >= 79 else " ") + more.strip()
                previous = more
            return re.sub(r"File '[^']*scene\.pov' ", "the generated scene, ", text)[:500]
    return (lines[-1].strip() if lines else "no output")[:500]


def _legend(data: bytes, labels: list[str], ctx: EmitContext) -> bytes:
    """The PNG with a box in its top-left corner naming the colliding pairs in red."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise ctx.sink.fatal("the collision legend needs Pillow",
                             hint="pip install 'robrayc[pictures]'") from None
    import io

    from robrayc.analysis.view import HIGHLIGHT_HEX

    img = Image.open(io.BytesIO(data)).convert("RGB")
    size = max(10, min(16, img.height // 30))
    font = ImageFont.load_default(size=size)
    draw = ImageDraw.Draw(img)
    lines = ["colliding pairs:"] + labels[:20] + ([f"... {len(labels) - 20} more"]
                                                  if len(labels) > 20 else [])
    width = max(draw.textlength(t, font=font) for t in lines) + 2 * size
    height = len(lines) * (size + 4) + size
    draw.rectangle((4, 4, 4 + width, 4 + height), fill="#ffffff", outline="#000000")
    for i, t in enumerate(lines):
        y = 4 + size // 2 + i * (size + 4)
        draw.text((4 + size, y), t, fill="#000000" if i == 0 else HIGHLIGHT_HEX, font=font)
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()
