"""amino C: a function that builds the scene with amino's scene-graph API (as aarxc emits).

Frames parents-first (the original sorts by name; amino resolves parents at init, so order is
free), each with its geometry; meshes as static arrays before the function; allowed pairs last.
amino has no ball or floating joint: robrayc.single_dof writes a ball as three revolute frames
and a floating joint fixed at its rest pose (`--floating-base error` refuses it instead).
"""

from __future__ import annotations

import argparse
from types import SimpleNamespace as View  # jinja reads attributes faster than dict keys

from robrayc import __version__, ir
from robrayc.backends import EmitContext, OutputFile
from robrayc.ctext import c_comment, c_double, c_doubles, c_identifier, c_string
from robrayc.diagnostics import DiagnosticSink
from robrayc.records import record
from robrayc.single_dof import FLOATING_CHOICES, single_dof_scene
from robrayc.templating import render

NAME = "c"
HELP = "C source for the amino library (default); also writes OUTPUT.h"

_LIMIT_FUNCS = (("pos", "position"), ("vel", "velocity"), ("acc", "acceleration"),
                ("eff", "effort"))


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--no-header", action="store_true",
                       help="C: do not write OUTPUT.h beside the C file")
    group.add_argument("--floating-base", choices=FLOATING_CHOICES, default="fixed",
                       help="C: amino has no floating joint: write one fixed at its rest pose "
                       "(default, warning -Wfloating-joint) or refuse it")


@record(frozen=True, slots=True)
class Options:
    """The C backend's own options."""

    no_header: bool = False
    floating_base: str = "fixed"  # one of FLOATING_CHOICES

    @classmethod
    def from_args(cls, ns: argparse.Namespace, sink: DiagnosticSink) -> Options:
        return cls(no_header=ns.no_header, floating_base=ns.floating_base)


def function_name(name: str) -> str:
    return "aa_rx_dl_sg__" + name


def emit(scene: ir.Scene, ctx: EmitContext) -> list[OutputFile]:
    fn = function_name(ctx.name)
    if not ctx.name.isidentifier() or not ctx.name.isascii():
        raise ctx.sink.fatal(f"scene name '{ctx.name}' is not a C identifier",
                             hint="use -n NAME with letters, digits and '_'")
    scene = single_dof_scene(scene, ctx.sink, "amino C", ctx.options.floating_base)
    write_header = ctx.output is not None and not ctx.options.no_header
    header_path = ctx.output.with_name(ctx.output.name + ".h") if write_header else None
    meshes = _meshes(scene, ctx)
    model = {
        "version": __version__,
        "sources": c_comment(", ".join(s.rsplit("/", 1)[-1] for s in scene.sources[:3])
                             or "(no files)"),
        "header": header_path.name if header_path else None,
        "function": fn,
        "meshes": list(meshes.values()),
        # a generator: each frame's text is built as the template reaches it (memory)
        "frames": map(_Texts(meshes).frame, scene.frames),
        "allowed": [(c_string(a.a), c_string(a.b)) for a in scene.allowed],
    }
    out = [OutputFile(ctx.output, render("amino_c.c.j2", model).encode())] if ctx.output \
        else [OutputFile(None, render("amino_c.c.j2", model).encode())]
    if header_path is not None:
        guard = c_identifier(header_path.name).upper() + "_"
        out.append(OutputFile(header_path, render(
            "amino_c.h.j2", {"version": __version__, "guard": guard, "function": fn}).encode()))
    return out


@record(slots=True, eq=False)
class _FrameText:
    """What the template prints of one frame (a slotted record: built and read faster than
    a namespace, 100,000 times for a large robot)."""

    comment: str
    name: str
    parent: str
    kind: str
    q: str
    v: str
    axis: str | None
    variable: str | None
    offset: str
    limits: list
    inertia: str | None
    mass: str | None
    geometries: list


class _Texts:
    """The C text of values a scene repeats, made once per emit: names (a frame's name is its
    children's parent), limits, vectors and geometries that loaders share among frames. Keyed
    by identity where equality would merge -0.0 with 0.0; the scene keeps the objects alive
    while the emit lasts, so an id is not reused."""

    def __init__(self, meshes: dict) -> None:
        self.meshes = meshes
        self.strings: dict[str, str] = {}
        self.limits: dict[int, list] = {}
        self.geometries: dict[tuple, View] = {}
        self.vectors: dict[int, str] = {}  # loaders share a repeated vector's tuple

    def doubles(self, values) -> str:
        text = self.vectors.get(id(values))
        if text is None:
            text = self.vectors[id(values)] = c_doubles(values)
        return text

    def string(self, name: str) -> str:
        text = self.strings.get(name)
        if text is None:
            text = self.strings[name] = c_string(name)
        return text

    def frame(self, f: ir.Frame) -> View:
        strings = self.strings  # a parent's and a variable's name: written before
        name = self.string(f.name)
        joint = f.kind != "fixed"
        limits = self.limits.get(id(f.limits)) if joint else []
        if limits is None:
            limits = self.limits[id(f.limits)] = [
                (fn, c_double(rng[0]), c_double(rng[1])) for fn, attr in _LIMIT_FUNCS
                if (rng := getattr(f.limits, attr)) is not None]
        inertial = f.inertial
        return _FrameText(
            c_comment(f.name), name,
            "root" if f.parent is None else strings.get(f.parent) or self.string(f.parent),
            f.kind, self.doubles(f.quaternion), self.doubles(f.translation),
            self.doubles(f.axis) if joint and f.axis is not None else None,
            None if f.variable is None else strings.get(f.variable) or self.string(f.variable),
            c_double(f.offset), limits,
            self.doubles(inertial.inertia) if inertial else None,
            c_double(inertial.mass) if inertial else None,
            [self.geometry(g) for g in f.geometries])

    def geometry(self, g: ir.Geometry) -> View:
        key = (id(g.shape), id(g.color), id(g.alpha), id(g.specular), g.visual, g.collision,
               g.no_shadow, id(g.scale))
        view = self.geometries.get(key)
        if view is None:
            view = self.geometries[key] = _geometry(g, self.meshes)
        return view


# shape -> (constructor call, array declared before it, second array); arrays are
# (name, length, C initialiser)
_CONSTRUCTORS = {
    ir.Box: lambda s, meshes: ("aa_rx_geom_box(opt, dimension)",
                               ("dimension", 3, c_doubles(s.dimension)), None),
    ir.Sphere: lambda s, meshes: (f"aa_rx_geom_sphere(opt, {c_double(s.radius)})", None, None),
    ir.Cylinder: lambda s, meshes: (
        f"aa_rx_geom_cylinder(opt, {c_double(s.height)}, {c_double(s.radius)})", None, None),
    ir.Cone: lambda s, meshes: (f"aa_rx_geom_cone(opt, {c_double(s.height)}, "
                                f"{c_double(s.start_radius)}, {c_double(s.end_radius)})",
                                None, None),
    ir.Grid: lambda s, meshes: (f"aa_rx_geom_grid(opt, dimension, delta, {c_double(s.thickness)})",
                                ("dimension", 2, c_doubles(s.dimension)),
                                ("delta", 2, c_doubles(s.delta))),
    ir.Mesh: lambda s, meshes: (f"aa_rx_geom_mesh(opt, {meshes[_mesh_key(s)]['var']})",
                                None, None),
}


def _geometry(g: ir.Geometry, meshes: dict) -> View:
    s = g.shape
    constructor, array, array2 = ir.handler(_CONSTRUCTORS, s)(s, meshes)
    return View(
        color=c_doubles(g.color), alpha=c_double(g.alpha),
        specular=c_doubles(g.specular), visual=int(g.visual),
        collision=int(g.collision), no_shadow=int(g.no_shadow),
        scale=c_double(g.scale) if g.scale != 1.0 else None,
        array=array, array2=array2, constructor=constructor,
    )


def _mesh_key(m: ir.Mesh) -> tuple:
    return (m.path, m.scale3, m.up, m.forward, m.collada_up)


def _meshes(scene: ir.Scene, ctx: EmitContext) -> dict:
    """One static function per distinct (file, scale) with the triangles embedded; every
    unreadable mesh is reported (file and the scene position naming it) before stopping."""
    todo: dict = {}
    for _, g in ir.walk_geometries(scene):
        if isinstance(g.shape, ir.Mesh):
            todo.setdefault(_mesh_key(g.shape), g)
    if not todo:
        return {}
    from robrayc.ctext import c_mesh_texts
    from robrayc.meshes import mesh_error_message

    texts = c_mesh_texts([g.shape for g in todo.values()])
    out: dict = {}
    used: set[str] = set()
    for (key, g), text in zip(todo.items(), texts, strict=True):
        if isinstance(text, Exception):
            ctx.sink.error(mesh_error_message(g.shape, text), g.pos)
            continue
        base = c_identifier(g.shape.path)
        ident = base
        k = 1
        while ident in used:
            k += 1
            ident = f"{base}_{k}"
        used.add(ident)
        out[key] = {
            "fn": "aa_rx_dl_mesh__" + ident, "var": "mesh__" + ident,
            "comment": c_comment(g.shape.source or g.shape.path),
            "n_vertices": text.n_vertices, "n_vertex_floats": 3 * text.n_vertices,
            "n_triangles": text.n_triangles, "n_index": 3 * text.n_triangles,
            "vertices": text.vertices, "normals": text.normals, "indices": text.indices,
        }
    ctx.sink.check()
    return out
