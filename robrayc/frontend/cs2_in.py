"""cs2 board files (KIPR's simulator) -> IR: every drawn item becomes a flat, thin box.

Read as cs2's own ``BoardFile::parse`` does (see ../shared/specs/real-readers.md): tokens split
on single spaces (a tab makes the command unknown), a line whose first token starts with '#' is
a comment, ``set-units in`` scales coordinates by 2.54 (cm otherwise), pen widths and ``set-z``
are not scaled. Board coordinates are Qt scene coordinates (y grows downward), so the scene's
y is the negated board y -- the inverse of the cs2 writer.

Each ``line``/``dec-line``/``tape`` becomes a box centred on the segment's midpoint, as long as
the segment and as wide as the pen (a zero-width cosmetic pen counts as 1 mm), rotated about Z
to the segment's direction. ``dec-rect`` becomes a box of the rectangle. Boxes are 1 mm thick
with their top at the ``set-z`` value read as centimetres, so drawing order survives a round
trip. Walls (``line``) are collision geometry; decorative items are visual only; tape is visual
only and tagged ``tape``. Colours: the pen for lines, the brush for rectangles.

Where cs2 silently draws something (a malformed number reads as 0), robrayc reports an error
with the position; unknown commands and wrong argument counts are warnings and the line is
skipped, as cs2 does.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from robrayc import ir
from robrayc.diagnostics import SourcePos
from robrayc.frontend.common import LoadContext, Partial, PendingFrame
from robrayc.frontend.parse import decode

THICKNESS = 0.001  # metres: boxes are flat
COSMETIC_WIDTH = 0.001  # metres: a 0-width (cosmetic) pen
M_PER_CM = 0.01

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\Z")
_ARGS = {"line": 4, "dec-line": 4, "tape": 4, "dec-rect": 4, "set-z": 1, "pen": 2, "brush": 1,
         "set-units": 1}

# SVG 1.0 colour keywords, as Qt's QColor(QString) knows them.
_SVG_COLORS_TEXT = """
aliceblue f0f8ff antiquewhite faebd7 aqua 00ffff aquamarine 7fffd4 azure f0ffff beige f5f5dc
bisque ffe4c4 black 000000 blanchedalmond ffebcd blue 0000ff blueviolet 8a2be2 brown a52a2a
burlywood deb887 cadetblue 5f9ea0 chartreuse 7fff00 chocolate d2691e coral ff7f50
cornflowerblue 6495ed cornsilk fff8dc crimson dc143c cyan 00ffff darkblue 00008b
darkcyan 008b8b darkgoldenrod b8860b darkgray a9a9a9 darkgreen 006400 darkgrey a9a9a9
darkkhaki bdb76b darkmagenta 8b008b darkolivegreen 556b2f darkorange ff8c00
darkorchid 9932cc darkred 8b0000 darksalmon e9967a darkseagreen 8fbc8f darkslateblue 483d8b
darkslategray 2f4f4f darkslategrey 2f4f4f darkturquoise 00ced1 darkviolet 9400d3
deeppink ff1493 deepskyblue 00bfff dimgray 696969 dimgrey 696969 dodgerblue 1e90ff
firebrick b22222 floralwhite fffaf0 forestgreen 228b22 fuchsia ff00ff gainsboro dcdcdc
ghostwhite f8f8ff gold ffd700 goldenrod daa520 gray 808080 green 008000 greenyellow adff2f
grey 808080 honeydew f0fff0 hotpink ff69b4 indianred cd5c5c indigo 4b0082 ivory fffff0
khaki f0e68c lavender e6e6fa lavenderblush fff0f5 lawngreen 7cfc00 lemonchiffon fffacd
lightblue add8e6 lightcoral f08080 lightcyan e0ffff lightgoldenrodyellow fafad2
lightgray d3d3d3 lightgreen 90ee90 lightgrey d3d3d3 lightpink ffb6c1 lightsalmon ffa07a
lightseagreen 20b2aa lightskyblue 87cefa lightslategray 778899 lightslategrey 778899
lightsteelblue b0c4de lightyellow ffffe0 lime 00ff00 limegreen 32cd32 linen faf0e6
magenta ff00ff maroon 800000 mediumaquamarine 66cdaa mediumblue 0000cd mediumorchid ba55d3
mediumpurple 9370db mediumseagreen 3cb371 mediumslateblue 7b68ee mediumspringgreen 00fa9a
mediumturquoise 48d1cc mediumvioletred c71585 midnightblue 191970 mintcream f5fffa
mistyrose ffe4e1 moccasin ffe4b5 navajowhite ffdead navy 000080 oldlace fdf5e6 olive 808000
olivedrab 6b8e23 orange ffa500 orangered ff4500 orchid da70d6 palegoldenrod eee8aa
palegreen 98fb98 paleturquoise afeeee palevioletred db7093 papayawhip ffefd5
peachpuff ffdab9 peru cd853f pink ffc0cb plum dda0dd powderblue b0e0e6 purple 800080
red ff0000 rosybrown bc8f8f royalblue 4169e1 saddlebrown 8b4513
salmon fa8072 sandybrown f4a460 seagreen 2e8b57 seashell fff5ee sienna a0522d silver c0c0c0
skyblue 87ceeb slateblue 6a5acd slategray 708090 slategrey 708090 snow fffafa
springgreen 00ff7f steelblue 4682b4 tan d2b48c teal 008080 thistle d8bfd8 tomato ff6347
turquoise 40e0d0 violet ee82ee wheat f5deb3 white ffffff whitesmoke f5f5f5 yellow ffff00
yellowgreen 9acd32
"""
_words = _SVG_COLORS_TEXT.split()
SVG_COLORS: dict[str, str] = dict(zip(_words[0::2], _words[1::2], strict=True))

Rgba = tuple[float, float, float, float]


def parse_color(text: str) -> Rgba | None:
    """A colour as QColor(QString) reads it (#rgb, #rrggbb, #aarrggbb, #rrrgggbbb,
    #rrrrggggbbbb, SVG names, 'transparent'); None when Qt would find it invalid."""
    t = text.lower()
    if t == "transparent":
        return (0.0, 0.0, 0.0, 0.0)
    if t in SVG_COLORS:
        t = "#" + SVG_COLORS[t]
    if not t.startswith("#") or not re.fullmatch(r"#[0-9a-f]+", t):
        return None
    digits = t[1:]
    alpha = 1.0
    if len(digits) == 8:  # Qt's #AARRGGBB
        alpha = int(digits[:2], 16) / 255
        digits = digits[2:]
    if len(digits) not in (3, 6, 9, 12):
        return None
    n = len(digits) // 3
    top = 16 ** n - 1
    r, g, b = (int(digits[i * n:(i + 1) * n], 16) / top for i in range(3))
    return (r, g, b, alpha)


def load(path: Path, ctx: LoadContext) -> Partial:
    """Load one .board file: one frame (parented to the world) per drawn item."""
    partial = Partial()
    file = str(path)
    data = ctx.read_source(path)
    if data is None:
        return partial
    text = decode(data, file, ctx.sink)
    if text is None:  # the error's line is shown from the file as read, bad bytes replaced
        ctx.sources.add(file, data.decode("utf-8", "replace"))
        return partial
    ctx.sources.add(file, text)
    _Reader(ctx, file, path.stem, partial).run(text)
    return partial


class _Reader:
    def __init__(self, ctx: LoadContext, file: str, stem: str, partial: Partial) -> None:
        self.sink = ctx.sink
        self.file = file
        self.stem = stem
        self.partial = partial
        # QPen() and QBrush() defaults: a black pen 1 wide, no brush
        self.pen: Rgba = (0.0, 0.0, 0.0, 1.0)
        self.pen_width = 1.0
        self.brush: Rgba = (0.0, 0.0, 0.0, 0.0)
        self.z = 0.0
        self.unit = 1.0  # board units -> cm

    def run(self, text: str) -> None:
        for lineno, raw in enumerate(text.split("\n"), start=1):
            line = raw[:-1] if raw.endswith("\r") else raw
            tokens = _tokens(line)
            if not tokens or tokens[0][1].startswith("#"):
                continue
            self._command(lineno, line, tokens)

    def _pos(self, lineno: int, token: tuple[int, str]) -> SourcePos:
        col, word = token
        return SourcePos(self.file, lineno, col, lineno, col + len(word))

    def _command(self, lineno: int, line: str, tokens: list[tuple[int, str]]) -> None:
        cmd = tokens[0][1]
        where = self._pos(lineno, tokens[0])
        if cmd not in _ARGS:
            hint = None
            if "\t" in cmd:
                hint = "cs2 splits on spaces only: a tab makes the command unknown"
            else:
                from robrayc.diagnostics import suggest

                hint = suggest(cmd, _ARGS)
            self.sink.warning(f"unknown board command '{cmd}'; line ignored (as cs2 does)",
                              where, hint, name="board-syntax")
            return
        args = tokens[1:]
        if len(args) != _ARGS[cmd]:
            self.sink.warning(f"'{cmd}' takes {_ARGS[cmd]} argument(s), got {len(args)}; line "
                              "ignored (as cs2 does)", where, name="board-syntax")
            return
        if cmd == "pen":
            color = self._color(lineno, args[0])
            width = args[1][1]
            if not width.isdigit():  # QString::toUInt: digits only, anything else is 0
                self.sink.warning(f"pen width '{width}' is not an unsigned integer; cs2 reads "
                                  "it as 0", self._pos(lineno, args[1]),
                                  "write an integer width", name="board-syntax")
                self.pen_width = 0.0
            else:
                self.pen_width = float(int(width))
            self.pen = color
        elif cmd == "brush":
            self.brush = self._color(lineno, args[0])
        elif cmd == "set-units":
            unit = args[0][1]
            if unit == "in":
                self.unit = 2.54
            elif unit == "cm":
                self.unit = 1.0
            else:
                self.sink.warning(f"unknown unit '{unit}' (cs2 knows 'in' and 'cm'); "
                                  "unit unchanged", self._pos(lineno, args[0]), name="board-syntax")
        elif cmd == "set-z":
            z = self._number(lineno, args[0])
            if z is not None:
                self.z = z
        else:
            nums = [self._number(lineno, a) for a in args]
            if any(n is None for n in nums):
                return
            coords = [n * self.unit for n in nums]  # cm
            if cmd == "dec-rect":
                self._rect(lineno, where, coords)
            else:
                self._segment(lineno, where, cmd, coords)

    def _number(self, lineno: int, token: tuple[int, str]) -> float | None:
        if not _NUMBER.match(token[1]):
            self.sink.error(f"expected a number, got '{token[1]}'", self._pos(lineno, token),
                            "cs2 would silently read it as 0")
            return None
        return float(token[1])

    def _color(self, lineno: int, token: tuple[int, str]) -> Rgba:
        color = parse_color(token[1])
        if color is None:
            self.sink.warning(f"invalid colour '{token[1]}'; cs2 draws it black",
                              self._pos(lineno, token),
                              "use a colour name, #rgb, #rrggbb or #aarrggbb", name="board-syntax")
            return (0.0, 0.0, 0.0, 1.0)
        return color

    def _segment(self, lineno: int, where: SourcePos, cmd: str, c: list[float]) -> None:
        x1, y1, x2, y2 = c[0] * M_PER_CM, -c[1] * M_PER_CM, c[2] * M_PER_CM, -c[3] * M_PER_CM
        length = math.hypot(x2 - x1, y2 - y1)
        if length == 0:
            self.sink.warning(f"zero-length '{cmd}' has no extent; ignored", where,
                              name="empty-shape")
            return
        width = self.pen_width * M_PER_CM if self.pen_width > 0 else COSMETIC_WIDTH
        yaw = math.atan2(y2 - y1, x2 - x1)
        kind = {"line": "wall", "dec-line": "dec_line", "tape": "tape"}[cmd]
        self._add(lineno, where, kind, ((x1 + x2) / 2, (y1 + y2) / 2), yaw,
                  (length, width), self.pen)

    def _rect(self, lineno: int, where: SourcePos, c: list[float]) -> None:
        x, y, w, h = (v * M_PER_CM for v in c)
        if w == 0 or h == 0:
            self.sink.warning("'dec-rect' with zero width or height has no area; ignored", where,
                              name="empty-shape")
            return
        # Qt rect from (x, y) spanning w, h in board coordinates; scene y is negated.
        cx, cy = x + w / 2, -(y + h / 2)
        self._add(lineno, where, "dec_rect", (cx, cy), 0.0, (abs(w), abs(h)), self.brush)

    def _add(self, lineno: int, where: SourcePos, kind: str, center: tuple[float, float],
             yaw: float, size: tuple[float, float], color: Rgba) -> None:
        wall = kind == "wall"
        geom = ir.Geometry(
            shape=ir.Box((size[0], size[1], THICKNESS)),
            color=(color[0], color[1], color[2]), alpha=color[3],
            visual=True, collision=wall,
            tags=("tape",) if kind == "tape" else (), pos=where)
        top = self.z * M_PER_CM
        frame = ir.Frame(
            name=f"{self.stem}_{kind}_{lineno}",
            translation=(center[0], center[1], top - THICKNESS / 2),
            quaternion=(0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)),
            geometries=(geom,), pos=where)
        self.partial.frames.append(PendingFrame(frame))


def _tokens(line: str) -> list[tuple[int, str]]:
    """(1-based column, text) of each space-separated token (empty parts skipped, as Qt)."""
    out = []
    col = 0
    for part in line.split(" "):
        if part:
            out.append((col + 1, part))
        col += len(part) + 1
    return out
