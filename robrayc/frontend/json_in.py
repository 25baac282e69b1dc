"""JSON scenes (the `--format json` output) -> IR frames: the exact scene back.

Checks what the schema states (types, lengths, the fixed/joint rules) and what the IR needs
(unit quaternion, non-zero axis, symmetric inertia, min <= max), reporting each problem with
its JSON path (`frames[3].axis`). Keys may be omitted from hand-written files: they take the
IR's defaults. Source positions stored in the file are restored, so diagnostics about the
scene still point into the files it was first read from.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from robrayc import ir
from robrayc.diagnostics import SourcePos
from robrayc.frontend.common import LoadContext, Partial, PendingFrame
from robrayc.frontend.frames import checked_axis, checked_quaternion
from robrayc.meshes.axes import check_axes

KINDS = ir.JOINT_KINDS
SHAPES = ("box", "sphere", "cylinder", "cone", "grid", "mesh")


class _Bad(Exception):
    """One item is invalid (already reported)."""


class _Reader:
    def __init__(self, ctx: LoadContext, file: str) -> None:
        self.ctx = ctx
        self.sink = ctx.sink
        self.file = file
        self.where = SourcePos(file)
        self.partial = Partial()

    def fail(self, path: str, message: str):
        self.sink.error(f"{path}: {message}", self.where)
        raise _Bad

    def reporters(self, path: str):
        """(error, warning) reporters for frontend.frames at `path`: an error ends the frame."""
        return (lambda message, hint=None: self.fail(path, message),
                lambda message, hint=None: self.sink.warning(f"{path}: {message}", self.where,
                                                             hint, name="unnormalized"))

    # --- values ---------------------------------------------------------------------------
    def number(self, value, path: str, finite: bool = True) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            self.fail(path, f"expected a number, got {_kind(value)}")
        if isinstance(value, str):
            if not finite and value in ("Infinity", "-Infinity"):
                return math.inf if value == "Infinity" else -math.inf
            self.fail(path, f"expected a number, got the string {value!r}")
        x = float(value)
        if not math.isfinite(x):
            self.fail(path, "expected a finite number")
        return x

    def numbers(self, value, path: str, n: int, finite: bool = True) -> tuple[float, ...]:
        if not isinstance(value, list):
            self.fail(path, f"expected an array of {n} numbers, got {_kind(value)}")
        if len(value) != n:
            self.fail(path, f"expected {n} numbers, got {len(value)}")
        return tuple(self.number(v, f"{path}[{i}]", finite) for i, v in enumerate(value))

    def string(self, value, path: str, allow_null: bool = False) -> str | None:
        if value is None and allow_null:
            return None
        if not isinstance(value, str) or not value:
            self.fail(path, f"expected a non-empty string, got {_kind(value)}")
        return value

    def boolean(self, value, path: str) -> bool:
        if not isinstance(value, bool):
            self.fail(path, f"expected true or false, got {_kind(value)}")
        return value

    def tags(self, value, path: str) -> tuple[str, ...]:
        if not isinstance(value, list):
            self.fail(path, f"expected an array of names, got {_kind(value)}")
        out = tuple(self.string(t, f"{path}[{i}]") for i, t in enumerate(value))
        if len(set(out)) != len(out):
            self.fail(path, "repeated tag")
        return out

    def pos(self, value, path: str, default: SourcePos) -> SourcePos:
        if value is None:
            return default
        if not isinstance(value, dict):
            self.fail(path, f"expected a position object, got {_kind(value)}")
        try:
            return SourcePos(str(value["file"]), *(int(value.get(k, 0)) for k in
                                                 ("line", "col", "end_line", "end_col")))
        except (KeyError, TypeError, ValueError):
            self.fail(path, "a position needs file, line, col, end_line, end_col")

    def keys(self, obj, path: str, known: tuple[str, ...]) -> dict:
        if not isinstance(obj, dict):
            self.fail(path, f"expected an object, got {_kind(obj)}")
        extra = [k for k in obj if k not in known]
        if extra:
            self.fail(path, f"unknown key '{extra[0]}' (known: {', '.join(known)})")
        return obj

    # --- the document -----------------------------------------------------------------------
    def run(self, doc) -> Partial:
        try:
            self.keys(doc, "$", ("format", "version", "generator", "robot_name", "root_link",
                                 "frames", "allowed", "sources", "root"))
            self.partial.robot_name = self.string(doc.get("robot_name"), "$.robot_name", True)
            self.partial.root_link = self.string(doc.get("root_link"), "$.root_link", True)
            if doc.get("format") != "robrayc-scene":
                self.fail("$.format", "not a robrayc scene (expected \"robrayc-scene\")")
            if doc.get("version") != 1:
                self.fail("$.version", f"unsupported version {doc.get('version')!r} "
                          "(this robrayc reads version 1)")
            frames = doc.get("frames", [])
            if not isinstance(frames, list):
                self.fail("$.frames", f"expected an array, got {_kind(frames)}")
            allowed = doc.get("allowed", [])
            if not isinstance(allowed, list):
                self.fail("$.allowed", f"expected an array, got {_kind(allowed)}")
            self.partial.root = self.string(doc.get("root"), "$.root", allow_null=True)
            self.partial.root_pos = self.where
        except _Bad:
            return self.partial
        seen: dict[str, str] = {}
        for i, f in enumerate(frames):
            path = f"frames[{i}]"
            try:
                frame = self.frame(f, path, i)
            except _Bad:
                continue
            if frame.name in seen:
                self.sink.error(f"{path}: duplicate frame '{frame.name}' (also {seen[frame.name]})",
                                self.where)
                continue
            seen[frame.name] = path
            self.partial.frames.append(PendingFrame(frame))
        for i, a in enumerate(allowed):
            path = f"allowed[{i}]"
            try:
                self.keys(a, path, ("a", "b", "pos"))
                names = (self.string(a.get("a"), path + ".a"),
                         self.string(a.get("b"), path + ".b"))
                at = self.pos(a.get("pos"), path + ".pos", SourcePos(self.file))
            except _Bad:
                continue
            self.partial.allowed.append((names[0], names[1], at))
        return self.partial

    def frame(self, f, path: str, index: int) -> ir.Frame:
        self.keys(f, path, ("name", "parent", "type", "translation", "quaternion", "axis",
                            "offset", "variable", "limits", "inertial", "tags", "geometries",
                            "link", "link_role", "pos"))
        name = self.string(f.get("name"), path + ".name")
        parent = self.string(f.get("parent"), path + ".parent", allow_null=True)
        kind = f.get("type", "fixed")
        if kind not in KINDS:
            self.fail(path + ".type", f"expected one of {', '.join(KINDS)}, got {kind!r}")
        pos = self.pos(f.get("pos"), path + ".pos", SourcePos(self.file, 0, index + 1))
        translation = self.numbers(f.get("translation", [0, 0, 0]), path + ".translation", 3)
        q = self.numbers(f.get("quaternion", [0, 0, 0, 1]), path + ".quaternion", 4)
        q = checked_quaternion(q, *self.reporters(path + ".quaternion"))
        axis = variable = None
        offset = 0.0
        if kind == "fixed" or kind in ir.MULTI_DOF_SUFFIXES:
            for key in ("axis", "variable") if kind == "fixed" else ("axis",):
                if f.get(key) is not None:
                    self.fail(f"{path}.{key}", f"must be null for a {kind} frame")
            if kind != "fixed":  # a ball or floating joint: no axis, offset or limits
                variable = self.string(f.get("variable", name) or name, path + ".variable")
                if self.number(f.get("offset", 0.0), path + ".offset") != 0.0:
                    self.fail(path + ".offset", f"a {kind} frame has no offset")
                if not self.limits(f.get("limits"), path + ".limits").is_empty():
                    self.fail(path + ".limits", f"a {kind} frame has no limits")
        else:
            if f.get("axis") is None:
                self.fail(path + ".axis", f"a {kind} frame needs an axis")
            axis = checked_axis(self.numbers(f["axis"], path + ".axis", 3), f"{kind} frame",
                                *self.reporters(path + ".axis"), normalise=kind == "revolute")
            variable = self.string(f.get("variable", name) or name, path + ".variable")
            offset = self.number(f.get("offset", 0.0), path + ".offset")
        limits = self.limits(f.get("limits"), path + ".limits")
        inertial = self.inertial(f.get("inertial"), path + ".inertial")
        tags = self.tags(f.get("tags", []), path + ".tags")
        geoms_in = f.get("geometries", [])
        if not isinstance(geoms_in, list):
            self.fail(path + ".geometries", f"expected an array, got {_kind(geoms_in)}")
        geometries = []
        for k, g in enumerate(geoms_in):
            geom = self.geometry(g, f"{path}.geometries[{k}]", pos)
            if geom is not None:
                geometries.append(geom)
        role = f.get("link_role", "link")
        if role not in ir.LINK_ROLES:
            self.fail(path + ".link_role", f"expected one of {', '.join(ir.LINK_ROLES)}, got "
                      f"{role!r}")
        return ir.Frame(name=name, parent=parent, kind=kind, translation=translation,
                        quaternion=q, axis=axis, offset=offset, variable=variable, limits=limits,
                        inertial=inertial, geometries=tuple(geometries), tags=tags, pos=pos,
                        link=self.string(f.get("link"), path + ".link", True), link_role=role)

    def limits(self, value, path: str) -> ir.Limits:
        if value is None:
            return ir.NO_LIMITS
        keys = ("position", "velocity", "acceleration", "effort")
        self.keys(value, path, keys)
        out = {}
        for key in keys:
            rng = value.get(key)
            if rng is None:
                continue
            lo, hi = self.numbers(rng, f"{path}.{key}", 2, finite=False)
            if lo > hi:
                self.fail(f"{path}.{key}", f"minimum {lo!r} is above maximum {hi!r}")
            out[key] = (lo, hi)
        return ir.Limits(**out) if out else ir.NO_LIMITS

    def inertial(self, value, path: str) -> ir.Inertial | None:
        if value is None:
            return None
        self.keys(value, path, ("mass", "inertia"))
        mass = self.number(value.get("mass", 0.0), path + ".mass")
        raw = value.get("inertia", [0.0] * 9)
        if isinstance(raw, list) and len(raw) == 6:  # ixx ixy ixz iyy iyz izz, as URDF
            a, b, c, d, e, g = self.numbers(raw, path + ".inertia", 6)
            tensor = (a, b, c, b, d, e, c, e, g)
        else:
            tensor = self.numbers(raw, path + ".inertia", 9)
        if any(tensor[i] != tensor[j] for i, j in ((1, 3), (2, 6), (5, 7))):
            self.fail(path + ".inertia", "the inertia tensor is not symmetric")
        return ir.Inertial(mass, tensor)

    def geometry(self, g, path: str, frame_pos: SourcePos) -> ir.Geometry | None:
        self.keys(g, path, ("shape", "color", "alpha", "specular", "visual", "collision",
                            "no_shadow", "scale", "tags", "material", "pos"))
        pos = self.pos(g.get("pos"), path + ".pos", frame_pos)
        shape = self.shape(g.get("shape"), path + ".shape", pos)
        if shape is None:
            return None
        return ir.Geometry(
            shape=shape,
            color=self.numbers(g.get("color", list(ir.DEFAULT_COLOR)), path + ".color", 3),
            alpha=self.number(g.get("alpha", 1.0), path + ".alpha"),
            specular=self.numbers(g.get("specular", [0, 0, 0]), path + ".specular", 3),
            visual=self.boolean(g.get("visual", True), path + ".visual"),
            collision=self.boolean(g.get("collision", True), path + ".collision"),
            no_shadow=self.boolean(g.get("no_shadow", False), path + ".no_shadow"),
            scale=self.number(g.get("scale", 1.0), path + ".scale"),
            tags=self.tags(g.get("tags", []), path + ".tags"), pos=pos,
            material=self.string(g.get("material"), path + ".material", True))

    def shape(self, s, path: str, pos: SourcePos) -> ir.Shape | None:
        if not isinstance(s, dict):
            self.fail(path, f"expected a shape object, got {_kind(s)}")
        kind = s.get("type")
        fields = {"box": ("dimension",), "sphere": ("radius",), "cylinder": ("height", "radius"),
                  "cone": ("height", "start_radius", "end_radius"),
                  "grid": ("dimension", "delta", "thickness"),
                  "mesh": ("path", "source", "scale3", "up", "forward", "collada_up")}
        if kind not in fields:
            self.fail(path + ".type", f"expected one of {', '.join(SHAPES)}, got {kind!r}")
        self.keys(s, path, ("type",) + fields[kind])
        for key in fields[kind]:
            if key not in s and key not in ("source", "scale3", "up", "forward", "collada_up"):
                self.fail(path, f"a {kind} needs '{key}'")
        if kind == "box":
            dim = self.numbers(s["dimension"], path + ".dimension", 3)
            if any(d < 0 for d in dim):
                self.fail(path + ".dimension", "negative size")
            return ir.Box(dim)
        if kind == "sphere":
            r = self.number(s["radius"], path + ".radius")
            if r < 0:
                self.fail(path + ".radius", "negative radius")
            return ir.Sphere(r)
        if kind == "cylinder":
            r = self.number(s["radius"], path + ".radius")
            if r < 0:
                self.fail(path + ".radius", "negative radius")
            return ir.Cylinder(self.number(s["height"], path + ".height"), r)
        if kind == "cone":
            return ir.Cone(self.number(s["height"], path + ".height"),
                           self.number(s["start_radius"], path + ".start_radius"),
                           self.number(s["end_radius"], path + ".end_radius"))
        if kind == "grid":
            return ir.Grid(self.numbers(s["dimension"], path + ".dimension", 2),
                           self.numbers(s["delta"], path + ".delta", 2),
                           self.number(s["thickness"], path + ".thickness"))
        file = self.string(s["path"], path + ".path")
        source = s.get("source") or file
        if not isinstance(source, str):
            self.fail(path + ".source", f"expected a string, got {_kind(source)}")
        scale3 = self.numbers(s.get("scale3", [1, 1, 1]), path + ".scale3", 3)
        if not Path(file).is_absolute():  # relative to the JSON file, as robray
            file = str(Path(self.file).parent / file)
        return self.ctx.mesh_shape(file, source, pos, scale3, self.mesh_axes(s, path))

    def mesh_axes(self, s: dict, path: str) -> tuple[str, str, str] | None:
        """The mesh's conventions as stored, or None (a hand-written file: the command line's)."""
        if not any(k in s for k in ("up", "forward", "collada_up")):
            return None
        o = self.ctx.options
        up = self.string(s.get("up", o.mesh_up), path + ".up")
        forward = self.string(s.get("forward", o.mesh_forward), path + ".forward")
        collada_up = s.get("collada_up", o.collada_up)
        if collada_up not in ("honour", "ignore"):
            self.fail(path + ".collada_up", f"expected \"honour\" or \"ignore\", got "
                      f"{_kind(collada_up)}")
        try:
            up, forward = check_axes(up, forward)
        except ValueError as exc:
            self.fail(path + ".up", str(exc))
        return up, forward, collada_up


def _kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return f"an array of {len(value)}"
    return "an object"


def load(path: Path, ctx: LoadContext) -> Partial:
    """Load one JSON scene file."""
    file = str(path)
    data = ctx.read_source(path)
    if data is None:
        return Partial()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        ctx.sources.add(file, data.decode("utf-8", "replace"))
        ctx.sink.error(f"not UTF-8 text: {exc.reason} at byte {exc.start}",
                       _byte_pos(data, exc.start, file))
        return Partial()
    ctx.sources.add(file, text)

    def no_constant(name: str):
        raise ValueError(f"'{name}' is not JSON")

    try:
        doc = json.loads(text, parse_constant=no_constant)
    except json.JSONDecodeError as exc:
        ctx.sink.error(f"JSON syntax error: {exc.msg}", SourcePos(file, exc.lineno, exc.colno))
        return Partial()
    except RecursionError:
        ctx.sink.error("JSON nested too deeply", _too_deep(text, file))
        return Partial()
    except ValueError as exc:  # NaN, Infinity (parse_constant)
        ctx.sink.error(f"invalid JSON: {exc}", _first_constant(text, file))
        return Partial()
    return _Reader(ctx, file).run(doc)


def _byte_pos(data: bytes, offset: int, file: str) -> SourcePos:
    before = data[:offset]
    line = before.count(b"\n") + 1
    col = offset - (before.rfind(b"\n") + 1) + 1
    return SourcePos(file, line, col, line, col + 1)


def _text_pos(text: str, offset: int, file: str) -> SourcePos:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return SourcePos(file, line, col, line, col + 1)


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]|-?\b(?:NaN|Infinity)\b')


def _too_deep(text: str, file: str, limit: int = 500) -> SourcePos:
    """Where bracket nesting (outside strings) first exceeds `limit`: json's recursion
    error carries no position."""
    depth = 0
    for m in _TOKENS.finditer(text):
        t = m.group()
        if t in "[{":
            depth += 1
            if depth > limit:
                return _text_pos(text, m.start(), file)
        elif t in "]}":
            depth -= 1
    return _text_pos(text, 0, file)


def _first_constant(text: str, file: str) -> SourcePos:
    for m in _TOKENS.finditer(text):
        if m.group().lstrip("-") in ("NaN", "Infinity"):
            return _text_pos(text, m.start(), file)
    return _text_pos(text, 0, file)
