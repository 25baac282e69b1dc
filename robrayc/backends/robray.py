"""robray text (`-s FILE`, `--format robray`, `-o x.robray`): any loaded scene, losslessly.

Unlike the original's `-s` writer (which drops limits, inertia, specular, scale, no-shadow,
grid deltas, isa tags and allowed collisions, and fails on cones) every IR field is written,
with robrayc's documented attributes where the original language has none (`limit_position`,
`limit_velocity`, `limit_acceleration`, `limit_effort`, `mass`, `inertia`). Frames come
parents-first in scene order, attributes in a fixed order, numbers as repr() (shortest text
that reads back to the same double), so loading the output gives back the same scene: the
tests check parse(emit(scene)) == scene for the corpus and for generated scenes.

Quaternions: the robray loader keeps a quaternion that is unit to rounding and divides any
other by its norm (`unit_quaternion`). The writer applies that same rule to each quaternion
and, for one that would not read back exactly, writes a neighbour that the loader maps onto
exactly the scene's value.

A URDF per-axis mesh scale is written as `scale [x, y, z]` and `package://` mesh names are
kept as written. `--root` and the mesh conventions (-U, -F, --collada-up-axis) are options of
loading, not words of robray: a comment under the header names them. Not expressible in
robray, reported: meshes with different conventions, a mesh with both a per-axis and a
scalar scale (warnings), and names containing a double quote (an error: robray strings have
no escapes, and a changed name would be another scene).
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import re

from robrayc import __version__, ir
from robrayc.backends import EmitContext, NoOptions, OutputFile

NAME = "robray"
HELP = "robray scene text (also -s FILE): every frame, limit, inertia, shape and pair"

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(-[A-Za-z0-9_]+)*")
_KEYWORDS = frozenset({"include", "def", "class", "frame", "object", "allow_collision",
                       "geometry", "pi"})
_LIMITS = ("position", "velocity", "acceleration", "effort")


Options = NoOptions  # -n NAME and -o are all it reads


def add_arguments(group: argparse._ArgumentGroup) -> None:
    """No options of its own."""


def number(x: float) -> str:
    """Shortest text that folds back to exactly `x` (robray reads literals as doubles)."""
    x = float(x)
    if math.isnan(x):
        raise ValueError("NaN has no robray spelling")
    if math.isinf(x):
        return "1e999" if x > 0 else "-1e999"
    return repr(x)


def numbers(values) -> str:
    return "[" + ", ".join(number(v) for v in values) + "]"


def _read_back(quats: list[ir.Quat]) -> list[ir.Quat | None]:
    """What the robray loader makes of each quaternion written with repr() (which reads back
    as the same doubles): the loader's own rule."""
    from robrayc.kinematics import unit_quaternion

    return [unit_quaternion(q) for q in quats]


def _preimage(q: ir.Quat) -> ir.Quat | None:
    """A quaternion that q / |q| (the loader's normalisation) maps onto q bit for bit."""
    scales = [1.0]
    for direction in (0.0, 2.0):
        x = 1.0
        for _ in range(4):
            x = math.nextafter(x, direction)
            scales.append(x)
    for n in scales:
        base = tuple(c * n for c in q)
        for steps in itertools.product((0, -1, 1), repeat=4):
            cand = tuple(math.nextafter(c, math.copysign(math.inf, s)) if s else c
                         for c, s in zip(base, steps, strict=True))
            if _read_back([cand])[0] == q:
                return cand
    return None


def exact_quaternions(quats) -> dict[ir.Quat, ir.Quat]:
    """For each quaternion, the one to write so that loading gives it back exactly."""
    todo = sorted({q for q in quats if q != ir.IDENTITY_Q})
    back = _read_back(todo)
    out = {q: q for q in todo}
    retry = {q: _preimage(q) for q, b in zip(todo, back, strict=True) if b != q}
    retry = {q: c for q, c in retry.items() if c is not None}
    back = _read_back(list(retry.values()))
    for (q, cand), b in zip(retry.items(), back, strict=True):
        if b == q:
            out[q] = cand
    return out


# shape -> its lines: (writer, frame, geometry) -> list of statements
_SHAPE_LINES = {
    ir.Box: lambda w, f, g: ["shape box;", f"dimension {numbers(g.shape.dimension)};"],
    ir.Sphere: lambda w, f, g: ["shape sphere;", f"radius {number(g.shape.radius)};"],
    ir.Cylinder: lambda w, f, g: ["shape cylinder;", f"height {number(g.shape.height)};",
                                  f"radius {number(g.shape.radius)};"],
    ir.Cone: lambda w, f, g: ["shape cone;", f"height {number(g.shape.height)};",
                              f"start_radius {number(g.shape.start_radius)};",
                              f"end_radius {number(g.shape.end_radius)};"],
    ir.Grid: lambda w, f, g: ["shape grid;", f"dimension {numbers(g.shape.dimension)};",
                              f"delta {numbers(g.shape.delta)};",
                              f"thickness {number(g.shape.thickness)};"],
    ir.Mesh: lambda w, f, g: [f"mesh {w.mesh_text(f, g.shape, g.scale)};"],
}


class _Writer:
    def __init__(self, scene: ir.Scene, ctx: EmitContext) -> None:
        self.scene = scene
        self.ctx = ctx
        self.out: list[str] = []
        self.identified = False  # robot name and root link written
        self.quats = exact_quaternions(f.quaternion for f in scene.frames)
        out_dir = ctx.output.parent if ctx.output is not None else None
        self.out_dir = os.path.abspath(out_dir) if out_dir is not None else None

    def load_options(self) -> list[str]:
        """--root and the mesh conventions, which robray has no words for."""
        out = ["--root", self.scene.root] if self.scene.root is not None else []
        conventions = {(g.shape.up, g.shape.forward, g.shape.collada_up)
                       for _, g in ir.walk_geometries(self.scene) if isinstance(g.shape, ir.Mesh)}
        if len(conventions) > 1:
            self.ctx.sink.warning("meshes with different axis conventions (-U, -F, "
                                  "--collada-up-axis) cannot be written to one robray file; "
                                  "the first mesh's are named", hint="write JSON instead",
                                  name="format-loss")
        for _, g in ir.walk_geometries(self.scene):
            if isinstance(g.shape, ir.Mesh):
                m = g.shape
                out += [f"-U{m.up}"] if m.up != "Z" else []
                out += [f"-F{m.forward}"] if m.forward != "Y" else []
                out += [f"--collada-up-axis={m.collada_up}"] if m.collada_up != "honour" else []
                break
        return out

    def name(self, text: str, what: str) -> str:
        if _IDENT.fullmatch(text) and text not in _KEYWORDS:
            return text
        if '"' in text:  # a changed name would be a different scene: refuse
            self.ctx.sink.error(f"{what} '{text}' contains a double quote, which robray "
                                "strings cannot hold", hint="rename it, or write JSON or URDF")
        return f'"{text}"'

    def run(self) -> str:
        scene = self.scene
        sources = ", ".join(os.path.basename(s) for s in scene.sources[:3])
        more = f" and {len(scene.sources) - 3} more" if len(scene.sources) > 3 else ""
        header = f"// Written by robrayc {__version__}" + (f" from {sources}{more}"
                                                         if sources else "")
        self.out.append("".join(c if c.isprintable() else "?" for c in header))
        options = self.load_options()
        if options:  # what robray cannot say: the command line that reads this file back
            self.out.append("".join(c if c.isprintable() else "?"
                                    for c in "// Compile with: " + " ".join(options)))
        tags: dict[str, None] = {}
        for f in scene.frames:
            tags.update(dict.fromkeys(f.tags))
            for g in f.geometries:
                tags.update(dict.fromkeys(g.tags))
        declared = [t for t in tags if _IDENT.fullmatch(t) and t not in _KEYWORDS]
        if declared:  # empty classes: tags without attributes, no "undeclared class" warning
            self.out.append("")
            self.out.extend(f"class {t} {{}}" for t in declared)
        for f in scene.frames:
            self.out.append("")
            self.frame(f)
        if not scene.frames and not scene.allowed and not declared:
            # a file without statements is an error; this one says "nothing" explicitly
            self.out.append("def empty_scene 1;  // the scene has no frames")
        if scene.allowed:
            self.out.append("")
            for a in scene.allowed:
                self.out.append(f"allow_collision {self.name(a.a, 'frame name')} "
                                f"{self.name(a.b, 'frame name')};")
        return "\n".join(self.out) + "\n"

    def frame(self, f: ir.Frame) -> None:
        lines: list[str] = []
        if f.parent is not None:
            lines.append(f"parent {self.name(f.parent, 'frame name')};")
        if f.kind != "fixed":
            lines.append(f"type {f.kind};")
        if any(repr(c) != "0.0" for c in f.translation):
            lines.append(f"translation {numbers(f.translation)};")
        if tuple(map(repr, f.quaternion)) != ("0.0", "0.0", "0.0", "1.0"):
            lines.append(f"quaternion {numbers(self.quats.get(f.quaternion, f.quaternion))};")
        if f.axis is not None:
            lines.append(f"axis {numbers(f.axis)};")
        if repr(f.offset) != "0.0":
            lines.append(f"offset {number(f.offset)};")
        if f.variable is not None and f.variable != f.name:
            lines.append(f"variable {self.name(f.variable, 'variable')};")
        for key in _LIMITS:
            rng = getattr(f.limits, key)
            if rng is not None:
                lines.append(f"limit_{key} {numbers(rng)};")
        if f.inertial is not None:
            lines.append(f"mass {number(f.inertial.mass)};")
            lines.append(f"inertia {numbers(f.inertial.inertia)};")
        for t in f.tags:
            lines.append(f"isa {self.name(t, 'class name')};")
        lines += self.identity(f)
        self.out.append(f"frame {self.name(f.name, 'frame name')} {{")
        self.out.extend("    " + line for line in lines)
        for g in f.geometries:
            self.out.append("    geometry {")
            self.out.extend("        " + line for line in self.geometry(f, g))
            self.out.append("    }")
        self.out.append("}")

    def identity(self, f: ir.Frame) -> list[str]:
        """The robot link of a frame; the robot's name and root link on the first top-level
        frame (robray has no statement for them)."""
        lines = []
        if f.link is not None:
            lines.append(f"link {self.name(f.link, 'link name')};")
            if f.link_role != "link":
                lines.append(f"link_role {f.link_role};")
        if f.parent is None and not self.identified:
            self.identified = True
            scene = self.scene
            if scene.robot_name is not None:
                lines.append(f"robot {self.name(scene.robot_name, 'robot name')};")
            if scene.root_link is not None:
                lines.append(f"root_link {self.name(scene.root_link, 'link name')};")
        return lines

    def geometry(self, f: ir.Frame, g: ir.Geometry) -> list[str]:
        s = g.shape
        lines: list[str] = ir.handler(_SHAPE_LINES, s)(self, f, g)
        if tuple(map(repr, g.color)) != tuple(map(repr, ir.DEFAULT_COLOR)):
            lines.append(f"color {numbers(g.color)};")
        if repr(g.alpha) != "1.0":
            lines.append(f"alpha {number(g.alpha)};")
        if any(repr(c) != "0.0" for c in g.specular):
            lines.append(f"specular {numbers(g.specular)};")
        if not g.visual:
            lines.append("visual 0;")
        if not g.collision:
            lines.append("collision 0;")
        if g.no_shadow:
            lines.append("no-shadow 1;")
        scale3 = g.shape.scale3 if isinstance(s, ir.Mesh) else (1.0, 1.0, 1.0)
        if tuple(map(repr, scale3)) != ("1.0", "1.0", "1.0") and repr(g.scale) == "1.0":
            lines.append(f"scale {numbers(scale3)};")
        elif repr(g.scale) != "1.0":
            lines.append(f"scale {number(g.scale)};")
        for t in g.tags:
            lines.append(f"isa {self.name(t, 'class name')};")
        if g.material is not None:
            lines.append(f"material {self.name(g.material, 'material name')};")
        return lines

    def mesh_text(self, f: ir.Frame, m: ir.Mesh, scale: float) -> str:
        if tuple(m.scale3) != (1.0, 1.0, 1.0) and scale != 1.0:
            self.ctx.sink.warning(
                f"mesh '{m.source or m.path}' of frame '{f.name}' has both a per-axis scale "
                f"{list(m.scale3)!r} and the scale {scale!r}; only the scalar is written",
                name="format-loss")
        path = m.path
        text = path
        if m.source.startswith("package://"):
            text = m.source  # the loader resolves it through the package path again
        elif self.out_dir is not None:
            src = m.source
            if src and not os.path.isabs(src) and "://" not in src and \
                    os.path.abspath(os.path.join(self.out_dir, src)) == os.path.abspath(path):
                text = src  # the scene's own spelling still names the same file from here
            else:
                text = os.path.relpath(path, self.out_dir)
                if text.startswith(".." + os.sep + ".." + os.sep + ".."):
                    text = path  # far away: absolute is clearer
        if '"' in text:
            self.ctx.sink.error(f"mesh path '{text}' contains a double quote, which robray "
                                "strings cannot hold")
        return f'"{text}"'


def emit(scene: ir.Scene, ctx: EmitContext) -> list[OutputFile]:
    try:
        text = _Writer(scene, ctx).run()
    except ValueError as exc:
        raise ctx.sink.fatal(f"cannot write robray: {exc}") from None
    return [OutputFile(ctx.output, text.encode("utf-8", "surrogateescape"))]
