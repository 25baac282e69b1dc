"""SVG preview of the 2D projection: what the 2D backends (cs2, pySimiam, SimMeR, CajunBot) see.

Drawn to scale (``--svg-scale`` pixels per metre, default: the larger side 1000 px), seen from
above with +X right and +Y up, on a grid (``--svg-grid`` metres, default a round step about a
tenth of the scene; 0 turns it off) with a scale bar. Footprints are filled with their
geometry's colour and styled by role (walls and blocks outlined, markers dashed, decorative
geometry translucent, tape solid); robots are drawn on top with a heading arrow along their +X
axis and their sensors as dots with direction ticks. Every shape carries a ``<title>`` naming its
frame and role, and a ``class`` with the role.

The 2D options (``--z-min`` etc.) are added by the cs2 backend and read here too.
"""

from __future__ import annotations

import argparse
import math

from robrayc import __version__, ir
from robrayc.analysis.projection import (
    Projection,
    ProjectionOptions,
    Robot,
    comment_text,
    fmt,
    hex_color,
    options_from,
    project_scene,
    rings,
    source_names,
)
from robrayc.analysis.view import HIGHLIGHT_HEX, VIEW_AXES, PictureOptions, pair_label
from robrayc.backends import EmitContext, OutputFile
from robrayc.diagnostics import DiagnosticSink
from robrayc.links import frame_links
from robrayc.records import record, replace
from robrayc.xmltext import escape

NAME = "svg"
HELP = "SVG preview of the 2D projection (to scale, with roles, grid and scale bar)"

FIT_PX = 1000.0
MARGIN_PX = 30.0
FOOTER_PX = 40.0
LEGEND_PX = 280.0
LABEL_CHARS = 38  # legend text longer than this is cut (the frames' <title>s hold it all)
ROW_PX = 18.0
MAX_COLOURS = 12
STYLE = {  # role -> (fill opacity, stroke, stroke width px, dash)
    "decorative": (0.5, "none", 0, ""),
    "marker": (0.45, "currentColor", 1.5, "6 3"),
    "tape": (1.0, "none", 0, ""),
    "wall": (1.0, "#000000", 1.0, ""),
    "block": (0.9, "#000000", 1.0, "3 2"),
    "robot": (0.75, "#000000", 1.0, ""),
}


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--svg-scale", type=float, metavar="PX",
                       help="SVG: pixels per metre (default: the larger side is 1000 px)")
    group.add_argument("--svg-grid", type=float, metavar="M",
                       help="SVG: grid spacing in metres (default: a round step; 0: no grid)")
    group.add_argument("--view", choices=("top", "front", "side"), default="top",
                       help="SVG: top (from +Z: X right, Y up; default), front (from +X: Y "
                            "right, Z up) or side (from -Y: X right, Z up); --z-min/--z-max "
                            "then bound the depth towards the viewer")


def nice_step(span: float) -> float:
    """A 1, 2 or 5 times a power of ten near span/10."""
    if span <= 0 or not math.isfinite(span):
        return 1.0
    raw = span / 10
    k = math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * 10 ** k >= raw:
            return m * 10 ** k
    return 10 ** (k + 1)


def _bounds(proj: Projection) -> tuple[float, float, float, float]:
    b = proj.bounds()
    xs, ys = [], []
    if b is not None:
        xs += [b[0], b[2]]
        ys += [b[1], b[3]]
    for r in proj.robots:
        xs.append(r.position[0])
        ys.append(r.position[1])
    if not xs:
        return (-0.5, -0.5, 0.5, 0.5)
    minx, maxx, miny, maxy = min(xs), max(xs), min(ys), max(ys)
    if maxx - minx < 1e-6:
        minx, maxx = minx - 0.5, maxx + 0.5
    if maxy - miny < 1e-6:
        miny, maxy = miny - 0.5, maxy + 0.5
    return minx, miny, maxx, maxy


@record(frozen=True)
class Options:
    projection: ProjectionOptions  # at the picture configuration (--var, --config)
    picture: PictureOptions
    scale: float | None = None  # px per metre
    grid: float | None = None  # metres
    view: str = "top"

    @classmethod
    def from_args(cls, ns: argparse.Namespace, sink: DiagnosticSink) -> Options:
        if ns.svg_scale is not None and not (math.isfinite(ns.svg_scale) and ns.svg_scale > 0):
            sink.error(f"--svg-scale must be a positive number, got {ns.svg_scale!r}")
        if ns.svg_grid is not None and not (math.isfinite(ns.svg_grid) and ns.svg_grid >= 0):
            sink.error(f"--svg-grid must be 0 or a positive number, got {ns.svg_grid!r}")
        picture = PictureOptions.from_args(ns, sink)
        projection = replace(options_from(ns, sink), configuration=picture.configuration)
        return cls(projection, picture, ns.svg_scale, ns.svg_grid, ns.view)


def _project(scene: ir.Scene, ctx: EmitContext) -> tuple[Projection, list[tuple[str, str]]]:
    """The projection in the asked view, and the colliding pairs with
    --highlight-collisions."""
    from robrayc.analysis import view

    opts: Options = ctx.options
    picture = view.for_scene(opts.picture, scene, ctx.sink)
    proj = project_scene(view.viewed_scene(scene, opts.view), opts.projection, ctx.sink)
    ctx.sink.check()
    return proj, view.colliding_pairs(scene, picture, ctx.sink)


def emit(scene: ir.Scene, ctx: EmitContext) -> list[OutputFile]:
    proj, pairs = _project(scene, ctx)
    lit = {name for pair in pairs for name in pair}
    scale, grid = ctx.options.scale, ctx.options.grid
    minx, miny, maxx, maxy = _bounds(proj)
    span = max(maxx - minx, maxy - miny)
    if scale is None:
        scale = FIT_PX / span
    step = nice_step(span) if grid is None else grid
    pad = 0.05 * span  # room for arrows and outlines
    minx, miny, maxx, maxy = minx - pad, miny - pad, maxx + pad, maxy + pad
    legend = _legend(proj, pairs, frame_links(scene))
    width = (maxx - minx) * scale + 2 * MARGIN_PX + LEGEND_PX
    height = max((maxy - miny) * scale + 2 * MARGIN_PX, _legend_height(legend)) + FOOTER_PX

    def px(x: float, y: float) -> tuple[str, str]:
        return (fmt((x - minx) * scale + MARGIN_PX, 3), fmt((maxy - y) * scale + MARGIN_PX, 3))

    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f"<!-- 2D projection generated by robrayc {__version__} from "
           f"{source_names(scene)}; 1 m = {fmt(scale, 6)} px -->",
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{fmt(width, 3)}" '
           f'height="{fmt(height, 3)}" viewBox="0 0 {fmt(width, 3)} {fmt(height, 3)}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect class="background" x="0" y="0" width="{fmt(width, 3)}" '
           f'height="{fmt(height, 3)}" fill="#ffffff"/>']
    if step > 0 and (maxx - minx) / step <= 1000 and (maxy - miny) / step <= 1000:
        out.append('<g class="grid" stroke="#e0e0e0" stroke-width="0.5">')
        k = math.ceil(minx / step)
        while k * step <= maxx:
            (x0, y0), (x1, y1) = px(k * step, miny), px(k * step, maxy)
            out.append(f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}"/>')
            k += 1
        k = math.ceil(miny / step)
        while k * step <= maxy:
            (x0, y0), (x1, y1) = px(minx, k * step), px(maxx, k * step)
            out.append(f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}"/>')
            k += 1
        out.append("</g>")
    for f in sorted(proj.footprints, key=lambda f: f.z_high):
        out.append(_shape(f.polygon, f.role, _color(f, lit), f"{f.role} {f.name}", px,
                          f.frame.name in lit))
    for r in proj.robots:
        out += _robot(r, scale, px, lit)
    out += _scale_bar(width, height, scale, span)
    out += _legend_svg(legend, width - LEGEND_PX + 10, MARGIN_PX,
                       ctx.options.view)
    out.append("</svg>")
    return [OutputFile(ctx.output, ("\n".join(out) + "\n").encode())]


def _path(polygon, px) -> str:
    d = []
    for ring in rings(polygon):
        pts = [px(x, y) for x, y in ring]
        d.append("M " + " L ".join(f"{x} {y}" for x, y in pts) + " Z")
    return " ".join(d)


def _color(f, lit: set[str]) -> str:
    return HIGHLIGHT_HEX if f.frame.name in lit else hex_color(f.geometry.color)


def _shape(polygon, role: str, color: str, title: str, px, colliding: bool = False) -> str:
    opacity, stroke, sw, dash = STYLE[role]
    if colliding:  # outlined in red too, so that translucent roles still read as colliding
        opacity, stroke, sw = 1.0, HIGHLIGHT_HEX, 2.0
    attrs = (f'class="{role}" d="{_path(polygon, px)}" fill="{color}" fill-rule="evenodd" '
             f'fill-opacity="{fmt(opacity)}" color="{color}" stroke="{stroke}"')
    if sw:
        attrs += f' stroke-width="{fmt(sw)}"'
    if dash:
        attrs += f' stroke-dasharray="{dash}"'
    return f"<path {attrs}><title>{escape(comment_text(title))}</title></path>"


def _robot(r: Robot, scale: float, px, lit: set[str]) -> list[str]:
    out = [f'<g class="robot-group"><title>robot {escape(comment_text(r.name))}</title>']
    foot = r.footprint()
    color = hex_color(r.color())
    size = 0.05
    colliding = [p for p in r.parts if p.frame.name in lit]
    if foot is not None:
        out.append(_shape(foot, "robot", color, f"robot {r.name}", px))
    for p in colliding:
        out.append(_shape(p.polygon, "robot", HIGHLIGHT_HEX, f"robot {r.name}: {p.name}", px,
                          True))
    if foot is not None:
        minx, miny, maxx, maxy = foot.bounds
        size = max(size, maxx - minx, maxy - miny) / 2
    x, y = r.position[0], r.position[1]
    c, s = math.cos(r.heading), math.sin(r.heading)
    tip = (x + 1.5 * size * c, y + 1.5 * size * s)
    head = 0.35 * size
    left = (tip[0] - head * c - 0.5 * head * s, tip[1] - head * s + 0.5 * head * c)
    right = (tip[0] - head * c + 0.5 * head * s, tip[1] - head * s - 0.5 * head * c)
    (x0, y0), (x1, y1) = px(x, y), px(*tip)
    out.append(f'<line class="heading" x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" '
               'stroke="#000000" stroke-width="2"/>')
    pts = " ".join(f"{a},{b}" for a, b in (px(*tip), px(*left), px(*right)))
    out.append(f'<polygon class="heading" points="{pts}" fill="#000000"/>')
    for sensor in r.sensors:
        lx, ly, _ = sensor.local
        wx, wy = x + c * lx - s * ly, y + s * lx + c * ly
        a = r.heading + sensor.heading
        tick = 0.3 * size
        (sx, sy), (tx, ty) = px(wx, wy), px(wx + tick * math.cos(a), wy + tick * math.sin(a))
        label = escape(comment_text(f"{sensor.kind} {sensor.frame.name}"))
        out.append(f'<g class="sensor {sensor.kind}"><title>{label}</title>'
                   f'<circle cx="{sx}" cy="{sy}" r="3" fill="#d62728"/>'
                   f'<line x1="{sx}" y1="{sy}" x2="{tx}" y2="{ty}" stroke="#d62728" '
                   'stroke-width="1.5"/></g>')
    out.append("</g>")
    return out


def _scale_bar(width: float, height: float, scale: float, span: float) -> list[str]:
    length = nice_step(span * 2)  # about a fifth of the scene
    while length * scale > width - 2 * MARGIN_PX and length > 1e-9:
        length /= 2
    x0 = MARGIN_PX
    y0 = height - FOOTER_PX / 2
    x1 = x0 + length * scale
    label = f"{fmt(length, 9)} m" if length >= 0.01 else f"{fmt(length * 1000, 6)} mm"
    return ['<g class="scale-bar" stroke="#000000" stroke-width="1.5">',
            f'<line x1="{fmt(x0, 3)}" y1="{fmt(y0, 3)}" x2="{fmt(x1, 3)}" y2="{fmt(y0, 3)}"/>',
            f'<line x1="{fmt(x0, 3)}" y1="{fmt(y0 - 5, 3)}" x2="{fmt(x0, 3)}" '
            f'y2="{fmt(y0 + 5, 3)}"/>',
            f'<line x1="{fmt(x1, 3)}" y1="{fmt(y0 - 5, 3)}" x2="{fmt(x1, 3)}" '
            f'y2="{fmt(y0 + 5, 3)}"/>',
            f'<text x="{fmt(x1 + 8, 3)}" y="{fmt(y0 + 4, 3)}" stroke="none" '
            f'fill="#000000">{escape(label)}</text>',
            "</g>"]


# --- legend ---------------------------------------------------------------------------------------
def _legend(proj: Projection, pairs: list[tuple[str, str]], links: dict[str, str] | None
            ) -> list[tuple[str, str, str]]:
    """Rows (kind, swatch colour or role, text): the roles drawn, the colours drawn (with the
    first frames of each), the colliding pairs."""
    items = proj.all_footprints()
    rows: list[tuple[str, str, str]] = [("heading", "", "roles")]
    for role in STYLE:
        if any(f.role == role for f in items):
            rows.append(("role", role, role))
    colours: dict[str, list[str]] = {}
    for f in items:
        colours.setdefault(hex_color(f.geometry.color), []).append(f.frame.name)
    rows.append(("heading", "", "colours"))
    for color, names in list(colours.items())[:MAX_COLOURS]:
        shown = ", ".join(dict.fromkeys(names[:3]))
        rows.append(("color", color, f"{color} {shown}" + (" ..." if len(names) > 3 else "")))
    if len(colours) > MAX_COLOURS:
        rows.append(("note", "", f"... {len(colours) - MAX_COLOURS} more colours"))
    if pairs:
        rows.append(("heading", "", "colliding pairs"))
        rows += [("pair", HIGHLIGHT_HEX, pair_label(p, links)) for p in pairs]
    return rows


def _legend_height(rows: list) -> float:
    return (len(rows) + 2) * ROW_PX + 2 * MARGIN_PX


def _legend_svg(rows: list[tuple[str, str, str]], x: float, y: float, view: str) -> list[str]:
    right, up = VIEW_AXES[view]
    out = ['<g class="legend">',
           f'<text x="{fmt(x, 3)}" y="{fmt(y + 12, 3)}" font-weight="bold">{view} view '
           f'({right} right, {up} up)</text>']
    for i, (kind, key, text) in enumerate(rows, start=1):
        ty = y + 12 + i * ROW_PX
        short = text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 3] + "..."
        label = escape(comment_text(short))
        if kind in ("heading", "note"):
            weight = ' font-weight="bold"' if kind == "heading" else ""
            out.append(f'<text x="{fmt(x, 3)}" y="{fmt(ty + 4, 3)}"{weight}>{label}</text>')
            continue
        if kind == "role":
            opacity, stroke, sw, dash = STYLE[key]
            swatch = (f'fill="#888888" fill-opacity="{fmt(opacity)}" color="#888888" '
                      f'stroke="{stroke}"' + (f' stroke-width="{fmt(sw)}"' if sw else "")
                      + (f' stroke-dasharray="{dash}"' if dash else ""))
        else:
            swatch = f'fill="{key}" stroke="#000000" stroke-width="0.5"'
        out.append(f'<g class="legend-{kind}"><rect x="{fmt(x, 3)}" y="{fmt(ty - 8, 3)}" '
                   f'width="14" height="12" {swatch}/><text x="{fmt(x + 20, 3)}" '
                   f'y="{fmt(ty + 2, 3)}">{label}</text></g>')
    out.append("</g>")
    return out
