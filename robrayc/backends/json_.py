"""JSON (`--format json`, `-o x.json`): the whole IR, stable key order, read back by the
`.json` front end (robrayc/frontend/json_in.py) to the identical scene.

The layout is described by the JSON Schema shipped with the package
(schemas/robrayc-scene.schema.json, `robrayc.backends.json_.schema()`); tests validate every
output against it. Numbers are written with repr() (exact doubles); JSON has no infinity, so
an infinite limit is the string "Infinity" or "-Infinity". Source positions are kept, so tools
reading the JSON can point into the original files.
"""

from __future__ import annotations

import argparse
import math
import re

from robrayc import __version__, ir
from robrayc.backends import EmitContext, OutputFile
from robrayc.diagnostics import DiagnosticSink
from robrayc.records import record

NAME = "json"
HELP = "the scene as JSON (whole IR, JSON Schema in the package; readable as input)"

FORMAT = "robrayc-scene"
VERSION = 1
SCHEMA_FILE = "robrayc-scene.schema.json"


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--json-compact", action="store_true",
                       help="JSON: one line, no indentation")


@record(frozen=True, slots=True)
class Options:
    compact: bool = False

    @classmethod
    def from_args(cls, ns: argparse.Namespace, sink: DiagnosticSink) -> Options:
        return cls(compact=ns.json_compact)


def schema() -> dict:
    """The JSON Schema (draft 2020-12) of this format."""
    import json

    from robrayc.resources import resource_path

    with open(resource_path("schemas", SCHEMA_FILE), encoding="utf-8") as fh:
        return json.load(fh)


def _num(x: float):
    x = float(x)
    if math.isnan(x):
        raise ValueError("NaN in the scene")
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def _nums(values) -> list:
    return [_num(v) for v in values]


def _pos(p) -> dict:
    return {"file": p.file, "line": p.line, "col": p.col, "end_line": p.end_line,
            "end_col": p.end_col}


_SHAPES = {
    ir.Box: lambda s: {"type": "box", "dimension": _nums(s.dimension)},
    ir.Sphere: lambda s: {"type": "sphere", "radius": _num(s.radius)},
    ir.Cylinder: lambda s: {"type": "cylinder", "height": _num(s.height),
                            "radius": _num(s.radius)},
    ir.Cone: lambda s: {"type": "cone", "height": _num(s.height),
                        "start_radius": _num(s.start_radius), "end_radius": _num(s.end_radius)},
    ir.Grid: lambda s: {"type": "grid", "dimension": _nums(s.dimension), "delta": _nums(s.delta),
                        "thickness": _num(s.thickness)},
    ir.Mesh: lambda s: {"type": "mesh", "path": s.path, "source": s.source,
                        "scale3": _nums(s.scale3), "up": s.up, "forward": s.forward,
                        "collada_up": s.collada_up},
}


def _shape(s: ir.Shape) -> dict:
    return ir.handler(_SHAPES, s)(s)


def _geometry(g: ir.Geometry) -> dict:
    return {
        "shape": _shape(g.shape), "color": _nums(g.color), "alpha": _num(g.alpha),
        "specular": _nums(g.specular), "visual": g.visual, "collision": g.collision,
        "no_shadow": g.no_shadow, "scale": _num(g.scale), "tags": list(g.tags),
        "material": g.material, "pos": _pos(g.pos),
    }


def _frame(f: ir.Frame) -> dict:
    limits = {}
    for key in ("position", "velocity", "acceleration", "effort"):
        rng = getattr(f.limits, key)
        limits[key] = None if rng is None else _nums(rng)
    return {
        "name": f.name, "parent": f.parent, "type": f.kind,
        "translation": _nums(f.translation), "quaternion": _nums(f.quaternion),
        "axis": None if f.axis is None else _nums(f.axis), "offset": _num(f.offset),
        "variable": f.variable, "limits": limits,
        "inertial": None if f.inertial is None else {
            "mass": _num(f.inertial.mass), "inertia": _nums(f.inertial.inertia)},
        "tags": list(f.tags), "geometries": [_geometry(g) for g in f.geometries],
        "link": f.link, "link_role": f.link_role, "pos": _pos(f.pos),
    }


def scene_dict(scene: ir.Scene) -> dict:
    """The JSON document for a scene, as Python objects (key order is the file's)."""
    return {
        "format": FORMAT, "version": VERSION, "generator": f"robrayc {__version__}",
        "robot_name": scene.robot_name, "root_link": scene.root_link,
        "frames": [_frame(f) for f in scene.frames],
        "allowed": [{"a": a.a, "b": a.b, "pos": _pos(a.pos)} for a in scene.allowed],
        "sources": list(scene.sources),
        "root": scene.root,
    }


def dumps(scene: ir.Scene, compact: bool = False) -> str:
    import json  # here: `--help` and other formats' runs do not pay for it

    doc = scene_dict(scene)
    if compact:
        return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    text = json.dumps(doc, ensure_ascii=False, allow_nan=False, indent=1)
    return _FLAT_ARRAY.sub(_one_line, text)


# an array holding only numbers / null / "Infinity" strings, printed one item per line
_FLAT_ARRAY = re.compile(r'\[\s*((?:-?[0-9][0-9.eE+-]*|null|"-?Infinity")'
                         r'(?:,\s*(?:-?[0-9][0-9.eE+-]*|null|"-?Infinity"))*)\s*\]')


def _one_line(m: re.Match) -> str:
    return "[" + ", ".join(part.strip() for part in m.group(1).split(",")) + "]"


def emit(scene: ir.Scene, ctx: EmitContext) -> list[OutputFile]:
    try:
        text = dumps(scene, ctx.options.compact)
    except ValueError as exc:
        raise ctx.sink.fatal(f"cannot write JSON: {exc}") from None
    return [OutputFile(ctx.output, (text + "\n").encode("utf-8", "surrogateescape"))]
