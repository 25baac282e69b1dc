"""PNG picture, rendered by POV-Ray (Debian package ``povray``) from the scene the pov format
writes: same camera, size, lights and options. ``--highlight-collisions`` adds a legend naming
the colliding pairs (drawn with Pillow). On a terminal the render shows its progress."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from robrayc import ir
from robrayc.analysis.view import PictureOptions
from robrayc.backends import EmitContext, OutputFile
from robrayc.diagnostics import DiagnosticSink
from robrayc.links import frame_links
from robrayc.records import record

if TYPE_CHECKING:
    import subprocess

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
    import shutil  # here, as the other heavy imports: `--help` loads every backend
    import tempfile

    from robrayc.analysis import povray, view

    povray_bin = shutil.which("povray")
    if povray_bin is None:
        raise ctx.sink.fatal("PNG output needs POV-Ray, which is not installed", hint=INSTALL_HINT)
    opts = view.for_scene(ctx.options.picture, scene, ctx.sink)
    args = [povray_bin, f"+W{opts.width}", f"+H{opts.height}", "-D", "+FN", "+Q9", "-GS", "-GR"]
    if ctx.options.antialias:
        args += ["+A0.3", "+AM2", "+R2"]
    show = sys.stderr.isatty() and not ctx.sink.quiet
    with tempfile.TemporaryDirectory(prefix="robrayc-png-") as tmp, \
            _Render(args + (["+V"] if show else ["-V"]), Path(tmp), show) as render:
        # POV-Ray starts before the scene is made: its start-up overlaps with robrayc's work
        pairs = view.colliding_pairs(scene, opts, ctx.sink)
        posed = view.posed_geometries(scene, opts, view.highlighted_frames(pairs))
        cam = view.camera_for(posed, opts, ctx.sink)
        text = povray.scene_text(scene, posed, cam, ctx.sink, pairs, ctx.options.includes)
        ctx.sink.check()
        status, log, data = render.finish(text)
    if data is None:
        raise ctx.sink.fatal(f"POV-Ray failed (exit status {status}): {_first_error(log)}")
    if pairs:
        data = _legend(data, [view.pair_label(p, frame_links(scene)) for p in pairs], ctx)
    return [OutputFile(ctx.output, data)]


PNG_END = b"\0\0\0\0IEND\xaeB`\x82"  # the empty IEND chunk, with its CRC


def finished_png(path: Path) -> bytes | None:
    """The file's bytes once it is a whole PNG (its chunks end with IEND at its end), else
    None: POV-Ray writes the picture a few tenths of a second before it exits."""
    try:
        with open(path, "rb") as f:
            if f.seek(0, os.SEEK_END) < 8 + len(PNG_END):
                return None
            f.seek(-len(PNG_END), os.SEEK_END)
            if f.read() != PNG_END:
                return None
            f.seek(0)
            data = f.read()
    except FileNotFoundError:
        return None
    pos = 8  # after the signature: chunks of length, type, data, CRC
    while pos + 12 <= len(data):
        kind, pos = data[pos + 4:pos + 8], pos + 12 + int.from_bytes(data[pos:pos + 4], "big")
        if kind == b"IEND":
            return data if pos == len(data) else None
    return None


class _Render:
    """A POV-Ray run started before its scene exists, done as soon as the PNG is whole (its
    shut-down is not waited for).

    POV-Ray cannot read a scene from a pipe (it seeks to the end for the size), so it starts
    on a small scene that opens a FIFO, which blocks until robrayc, having written the real
    scene, opens the FIFO's other end; then it includes the real scene. Where no FIFO can be
    made, POV-Ray starts once the scene is written."""

    def __init__(self, args: list[str], tmp: Path, show: bool) -> None:
        self.args, self.tmp, self.show = args, tmp, show
        self.scene, self.png, self.ready = tmp / "scene.pov", tmp / "scene.png", tmp / "ready"
        (tmp / "start.pov").write_text('#fopen RobraycReady "ready" read\n'
                                       '#fclose RobraycReady\n#include "scene.pov"\n')
        self.fd: int | None = None
        self.log, self.shown = bytearray(), -1
        self.proc: subprocess.Popen | None = None
        try:
            os.mkfifo(self.ready)
        except (OSError, AttributeError):  # no FIFOs here (AttributeError: not on POSIX)
            self.ready.touch()
        else:
            self._start()

    def _start(self) -> None:
        import subprocess

        self.proc = subprocess.Popen(self.args + ["+Istart.pov", f"+O{self.png}"], cwd=self.tmp,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)

    def __enter__(self) -> _Render:
        return self

    def __exit__(self, *exc) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            assert self.proc.stdout is not None
            self.proc.stdout.close()
        if self.fd is not None:
            os.close(self.fd)
        if self.show and self.shown >= 0:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()

    def finish(self, text: str) -> tuple[int | None, bytes, bytes | None]:
        """Write the scene, let POV-Ray go on, read its messages; (exit status or None if
        still running, the messages' tail, the PNG's bytes or None)."""
        import selectors

        self.scene.write_text(text, encoding="utf-8")
        if self.proc is None:
            self._start()
        else:  # held open (as a writer) until POV-Ray is done: its second open must not block
            self.fd = os.open(self.ready, os.O_RDWR | os.O_NONBLOCK)
        assert self.proc is not None and self.proc.stdout is not None
        out = self.proc.stdout
        sel = selectors.DefaultSelector()
        sel.register(out, selectors.EVENT_READ)
        while (image := finished_png(self.png)) is None and self.proc.poll() is None:
            if sel.select(0.02) and not self._read(out.fileno()):
                sel.unregister(out)
        sel.close()
        if image is None:  # POV-Ray ended: its last messages, and the picture if it wrote one
            while self._read(out.fileno()):
                pass
            image = finished_png(self.png)
        return self.proc.returncode, bytes(self.log), image

    def _read(self, fd: int) -> bool:
        """Take POV-Ray's messages; on a terminal turn its pixel counts into a progress."""
        chunk = os.read(fd, 65536)
        self.log += chunk
        if self.show:
            found = _PROGRESS.findall(self.log[-200:])
            if found:
                done, total = (int(x) for x in found[-1])
                pct = 100 * done // max(total, 1)
                if pct != self.shown:
                    sys.stderr.write(f"\rrobrayc: rendering {pct:3d}%")
                    sys.stderr.flush()
                    self.shown = pct
        if len(self.log) > 1 << 20:  # keep the tail only
            del self.log[: len(self.log) - (1 << 19)]
        return bool(chunk)


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
