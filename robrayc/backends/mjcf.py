"""MJCF (MuJoCo) export (`-o robot.mjcf`, `--format mjcf`).

- Every frame is a body named after it (fixed frames stay bodies without joints, so no frame
  is lost and no fixed base is merged away); top-level frames are children of the worldbody.
  The body's pos/quat is the frame's fixed transform; a revolute frame gets a hinge joint, a
  prismatic one a slide joint, at the body origin with the frame's axis, named after its
  configuration variable (other frames sharing it: after the frame);
  amino's joint offset is the joint's `ref` (= -offset), so qpos is the configuration value.
  A ball frame gets a ball joint (qpos: the quaternion w x y z of the rotation vector, see
  kinematics.rotvec_to_quat); a floating frame a `<freejoint>` when it is a child of the
  worldbody (qpos: the body's world position and quaternion), elsewhere (MuJoCo allows free
  joints only there) slide joints VAR_x, VAR_y, VAR_z and a ball joint VAR_r, the same motion
  (a name another joint has gets a suffix, with a `renamed` warning).
- Position limits are the joint `range`; effort limits `actuatorfrcrange`. MuJoCo refuses an
  empty range (lower >= upper): such a position range leaves the joint unlimited (it stays a
  joint, so every configuration variable can still be set by name), such an effort range (a
  URDF `effort="0"`) is left out, each with a warning. Frames sharing a configuration
  variable are tied by `<equality><joint>` to the one named after the variable (a URDF
  mimic joint's leader, wherever it comes in the file), else the first.
- Geoms: box, sphere, cylinder (centred by MuJoCo: shifted by half its height, amino's start
  at the frame), a cone with equal radii is a cylinder; other cones and every mesh become
  files written beside the MJCF (STEM-mesh-N.stl, binary; STEM-mesh-N.obj past the 200,000
  faces MuJoCo reads from an STL; MuJoCo reads no COLLADA; axes, units and per-axis scale
  applied), referenced as mesh assets, the geometry's scale as the asset's scale. A binary STL
  that MuJoCo reads as it is (Z up, Y forward, 1 to 200,000 faces) is referenced where it
  lies; an ASCII STL is converted. Mesh assets are `inertia="shell"` (MuJoCo computes a
  mesh's volume even when unused and refuses a flat one); a flat collision mesh (no convex
  hull for MuJoCo) is written without contacts, with a warning. A frame named `world` is body
  `world_frame` (MuJoCo's world body has that name); shapes of zero size are left out, with a
  warning (MuJoCo refuses them). Colour and alpha are the geom's rgba. Visual-only geoms
  are group 1 without contacts, collision-only geoms group 3, geoms that are both group 0.
- Inertia: `<inertial>` with the mass and `fullinertia` where the scene has one. A tensor
  MuJoCo refuses (a negative principal moment, or A + B < C) is written balanced, as MuJoCo's
  balanceinertia would (`diaginertia`, each moment the mean of the three), with a warning. One
  on the edge of those rules within rounding (MuJoCo checks them without slack on its own
  eigen-decomposition): with a moment near 0 and products of inertia, as its principal
  moments (`quat`, `diaginertia`; negative rounding cut to 0); diagonal, the largest moment cut
  to the sum of the other two; with A + B within rounding of C, as it is with
  `balanceinertia="true"` in `<compiler>` (MuJoCo balances it only if its own rounding finds
  A + B < C). Masses come only from there
  (`inertiafromgeom="false"`); bodies without one get MuJoCo's lower bounds
  (`boundmass`, `boundinertia`), which MuJoCo needs for moving bodies.
- Allowed collision pairs are `<contact><exclude>` between the two bodies.
- MJCF cannot express (a located warning, once per kind with a count): grids, velocity and
  acceleration limits, specular colours, no-shadow flags, isa tags, geometry that is neither
  visual nor collision.
"""

from __future__ import annotations

import os
from pathlib import Path

from robrayc import __version__, ir
from robrayc.backends import EmitContext, OutputFile, model_option, model_outputs
from robrayc.diagnostics import DiagnosticSink, SourcePos
from robrayc.xmltext import number as _f
from robrayc.xmltext import numbers as _v

NAME = "mjcf"
HELP = "MuJoCo MJCF model (meshes and cones written beside it as STL)"

BOUND_MASS = 1e-9  # MuJoCo's boundmass/boundinertia for bodies the scene gives no inertia
BOUND_INERTIA = 1e-15
WORLD = "world"  # MuJoCo's world body: no other body may have its name
FLAT = 1e-9  # relative spread of a mesh's vertices across its thinnest direction: no volume
STL_FACE_LIMIT = 200_000  # MuJoCo's STL decoder refuses more faces (it reads OBJ of any size)


add_arguments, Options = model_option("mjcf", "MJCF")


class _Writer:
    def __init__(self, scene: ir.Scene, ctx: EmitContext) -> None:
        self.scene = scene
        self.ctx = ctx
        self.sink = ctx.sink
        out = ctx.output
        self.out_dir = Path(os.path.abspath(out.parent)) if out is not None else None
        self.stem = out.stem if out is not None else "model"
        self.flat_assets: set[str] = set()  # mesh assets without volume
        self.edge_inertia = False  # a tensor MuJoCo's rounding may find A + B < C
        self.lost: dict[str, list] = {}  # what -> [count, first position]
        self.assets: dict[tuple, str] = {}  # (kind, key, scales) -> mesh asset name
        self.generated: dict[tuple, str] = {}  # (kind, key) -> STL file written
        self.files: list[OutputFile] = []
        self.asset_el = None

    def lose(self, what: str, pos: SourcePos) -> None:
        entry = self.lost.setdefault(what, [0, pos])
        entry[0] += 1

    def run(self, model: str):
        from lxml import etree

        root = etree.Element("mujoco", model=model)
        root.append(etree.Comment(f" Generated by robrayc {__version__}. "))
        compiler = etree.SubElement(root, "compiler", angle="radian", inertiafromgeom="false",
                                    boundmass=_f(BOUND_MASS), boundinertia=_f(BOUND_INERTIA))
        self.asset_el = etree.SubElement(root, "asset")
        world = etree.SubElement(root, "worldbody")
        self.joint_names = joint_names(self.scene)
        self.nested_free = nested_free_joint_names(self.scene, self.joint_names, self.sink)
        self.body_names = body_names(self.scene)
        bodies: dict[str | None, object] = {None: world}
        for f in self.scene.frames:
            parent = bodies.get(f.parent, world)
            bodies[f.name] = self.body(parent, f)
        self.equalities(root)
        if self.scene.allowed:
            contact = etree.SubElement(root, "contact")
            for pair in self.scene.allowed:
                if pair.a != pair.b:
                    etree.SubElement(contact, "exclude", body1=self.body_names[pair.a],
                                     body2=self.body_names[pair.b])
        if not len(self.asset_el):
            root.remove(self.asset_el)
        if self.edge_inertia:
            compiler.set("balanceinertia", "true")
        for what, (n, pos) in self.lost.items():
            self.sink.warning(f"MJCF cannot express {what} ({n}x); left out", pos,
                              name="format-loss")
        return root

    def body(self, parent, f: ir.Frame):
        from lxml import etree

        el = etree.SubElement(parent, "body", name=self.body_names[f.name])
        if f.name == WORLD:
            self.sink.warning(f"frame '{WORLD}' written as body '{self.body_names[f.name]}': "
                              "MuJoCo's world body has that name", f.pos, name="format-loss")
        if f.translation != ir.ZERO_V:
            el.set("pos", _v(f.translation))
        x, y, z, w = f.quaternion
        if f.quaternion != ir.IDENTITY_Q:
            el.set("quat", _v((w, x, y, z)))
        if f.tags:
            self.lose("frame isa tags", f.pos)
        if f.inertial is not None:
            etree.SubElement(el, "inertial", pos="0 0 0", mass=_f(f.inertial.mass),
                             **self.inertia(f))
        if f.is_joint:
            self.joint(el, f)
        elif not f.limits.is_empty():
            self.lose("limits on fixed frames", f.pos)
        for g in f.geometries:
            self.geom(el, f, g)
        return el

    def inertia(self, f: ir.Frame) -> dict[str, str]:
        """The inertia attributes of the frame's tensor, in a form MuJoCo accepts."""
        from robrayc.inertia import balanced, is_physical, warning_text

        i = f.inertial.inertia
        if not is_physical(f.inertial):
            self.sink.warning(warning_text(f, "MuJoCo"), f.pos, name="format-loss")
            b = balanced(f.inertial)
            return {"diaginertia": _v(max(m, 0.0) for m in (b[0], b[4], b[8]))}
        edge = edge_form(f.inertial)
        if isinstance(edge, tuple):
            (x, y, z, w), moments = edge
            return {"quat": _v((w, x, y, z)), "diaginertia": _v(moments)}
        self.edge_inertia = self.edge_inertia or edge is True
        return {"fullinertia": _v((i[0], i[4], i[8], i[3], i[6], i[7]))}

    def multi_dof_joint(self, body, f: ir.Frame) -> None:
        """A ball joint; a floating one as a free joint on a child of the worldbody (MuJoCo
        allows it nowhere else), elsewhere as slide joints NAME_x, NAME_y, NAME_z along the
        body's axes and a ball joint NAME_r: MuJoCo applies a body's joints in order, so that
        is the same motion, translation then rotation, qpos the translation and exp(r)."""
        from lxml import etree

        name = self.joint_names[f.name]
        if f.kind == "ball":
            etree.SubElement(body, "joint", name=name, type="ball")
        elif f.parent is None or not self.scene.has_frame(f.parent):
            etree.SubElement(body, "freejoint", name=name)
        else:
            *slides, ball = self.nested_free[f.name]
            for slide, unit in zip(slides, ("1 0 0", "0 1 0", "0 0 1"), strict=True):
                etree.SubElement(body, "joint", name=slide, type="slide", axis=unit)
            etree.SubElement(body, "joint", name=ball, type="ball")

    def joint(self, body, f: ir.Frame) -> None:
        from lxml import etree

        if f.is_multi_dof:
            self.multi_dof_joint(body, f)
            return
        j = etree.SubElement(body, "joint", name=self.joint_names[f.name],
                             type="hinge" if f.kind == "revolute" else "slide",
                             axis=_v(f.axis))
        if f.offset:
            j.set("ref", _f(-f.offset))
        lim = f.limits
        if lim.position is not None and lim.position[0] < lim.position[1]:
            j.set("limited", "true")
            j.set("range", _v(lim.position))
        elif lim.position is not None:
            self.lose("position ranges with lower >= upper (joints written unlimited)", f.pos)
        if lim.effort is not None and lim.effort[0] < lim.effort[1]:
            j.set("actuatorfrclimited", "true")
            j.set("actuatorfrcrange", _v(lim.effort))
        elif lim.effort is not None:
            self.lose("effort ranges with lower >= upper (such as effort 0)", f.pos)
        if lim.velocity is not None:
            self.lose("velocity limits", f.pos)
        if lim.acceleration is not None:
            self.lose("acceleration limits", f.pos)

    def equalities(self, root) -> None:
        from lxml import etree

        leads = lead_frames(self.scene)
        eq = None
        for f in self.scene.frames:
            if not f.is_joint or f.variable is None:
                continue
            lead = self.scene.frame(leads[f.variable])
            if lead is f:
                continue
            if f.is_multi_dof or lead.is_multi_dof:  # MuJoCo ties scalar joints only
                self.lose("ball or floating joints sharing variables", f.pos)
                continue
            if eq is None:
                eq = etree.SubElement(root, "equality")
            # MuJoCo ties (q1 - ref1) = c0 + (q2 - ref2); equal values need c0 = ref2 - ref1
            etree.SubElement(eq, "joint", joint1=self.joint_names[f.name],
                             joint2=self.joint_names[lead.name],
                             polycoef=_v((f.offset - lead.offset, 1.0, 0.0, 0.0, 0.0)))

    def geom(self, body, f: ir.Frame, g: ir.Geometry) -> None:
        from lxml import etree

        if without_extent(g):
            self.lose("shapes of zero size (MuJoCo refuses them)", g.pos)
            return
        attrs = self.shape(g)
        if attrs is None:
            return
        el = etree.SubElement(body, "geom", **attrs)
        el.set("rgba", _v((*g.color, g.alpha)))
        collision = g.collision
        if collision and attrs.get("mesh") in self.flat_assets:
            collision = False
            self.lose("contacts of flat collision meshes (MuJoCo computes no convex hull of "
                      "them: written without contacts)", g.pos)
        if not collision and (g.visual or g.collision):
            el.set("contype", "0")
            el.set("conaffinity", "0")
            el.set("group", "1" if g.visual else "3")
        elif collision and not g.visual:
            el.set("group", "3")
        elif not g.visual:
            self.lose("geometry that is neither visual nor collision", g.pos)
            body.remove(el)
        if any(g.specular):
            self.lose("specular colours", g.pos)
        if g.no_shadow:
            self.lose("no-shadow flags", g.pos)
        if g.tags:
            self.lose("geometry isa tags", g.pos)

    def shape(self, g: ir.Geometry) -> dict[str, str] | None:
        return ir.handler(_SHAPES, g.shape)(self, g.shape, g)

    # --- shapes (amino placement -> MuJoCo's centred primitives) ---------------------------
    def _box(self, s: ir.Box, g: ir.Geometry) -> dict[str, str]:
        return {"type": "box", "size": _v(c * g.scale / 2 for c in s.dimension)}

    def _sphere(self, s: ir.Sphere, g: ir.Geometry) -> dict[str, str]:
        return {"type": "sphere", "size": _f(s.radius * g.scale)}

    def _cylinder(self, s: ir.Cylinder, g: ir.Geometry) -> dict[str, str]:
        h = s.height * g.scale
        return {"type": "cylinder", "size": _v((s.radius * g.scale, h / 2)),
                "pos": _v((0.0, 0.0, h / 2))}

    def _cone(self, s: ir.Cone, g: ir.Geometry) -> dict[str, str] | None:
        if s.start_radius == s.end_radius:
            return self._cylinder(ir.Cylinder(s.height, s.start_radius), g)
        from robrayc.stl import cone_stl

        key = ("cone", s.height, s.start_radius, s.end_radius)
        name = self.asset(key, g, lambda: (".stl", cone_stl(s.height, s.start_radius,
                                                            s.end_radius)))
        return None if name is None else {"type": "mesh", "mesh": name}

    def _mesh(self, s: ir.Mesh, g: ir.Geometry) -> dict[str, str] | None:
        if self.readable(s):  # MuJoCo reads it as robrayc does: reference it
            key = ("file", os.path.realpath(s.path), (1.0, 1.0, 1.0))
            name = self.asset(key, g, None, s.path, s.scale3)
        else:
            key = ("mesh", os.path.realpath(s.path), s.scale3, s.up, s.forward, s.collada_up)
            name = self.asset(key, g, lambda: self.mesh_file(s, g))
        if name is None:
            return None
        if g.collision and name not in self.flat_assets and self.flat(s, g):
            self.flat_assets.add(name)
        return {"type": "mesh", "mesh": name}

    def flat(self, s: ir.Mesh, g: ir.Geometry) -> bool:
        """Whether the mesh has no volume (its vertices on a plane, a line or a point): MuJoCo
        computes no convex hull of it, and refuses it as a collision geom."""
        import numpy as np

        from robrayc.meshes import load_mesh

        v = np.asarray(load_mesh(s, self.sink, g.pos).vertices, dtype=np.float64)
        if len(v) < 4:
            return True
        spread = np.linalg.svd(v - v.mean(axis=0), compute_uv=False)
        return bool(spread[2] <= FLAT * spread[0])

    @staticmethod
    def readable(s: ir.Mesh) -> bool:
        """A binary STL file that needs no axis change and has no more faces than MuJoCo
        reads: MuJoCo reads it directly."""
        if not s.path.lower().endswith(".stl") or (s.up, s.forward) != ("Z", "Y"):
            return False
        try:
            with open(s.path, "rb") as stream:
                count = int.from_bytes(stream.read(84)[80:84].ljust(4, b"\0"), "little")
                size = os.fstat(stream.fileno()).st_size
        except OSError:
            return False
        return 1 <= count <= STL_FACE_LIMIT and size == 84 + 50 * count

    def _grid(self, s: ir.Grid, g: ir.Geometry) -> None:
        self.lose("grid geometry", g.pos)
        return None

    def asset(self, key: tuple, g: ir.Geometry, make, path: str | None = None,
              scale3: ir.Vec3 = (1.0, 1.0, 1.0)) -> str | None:
        """The mesh asset for `key` at the geometry's scale: the file at `path`, or an STL
        file made by `make` (written once, whatever the scales)."""
        from lxml import etree

        full = key + (g.scale, scale3)
        name = self.assets.get(full)
        if name is not None:
            return name
        if path is not None:
            file = (os.path.abspath(path) if self.out_dir is None
                    else os.path.relpath(os.path.abspath(path), self.out_dir))
        elif self.out_dir is None:
            self.lose("generated meshes with the model on standard output (give -o FILE)",
                      g.pos)
            return None
        else:
            file = self.generated.get(key)
            if file is None:
                suffix, data = make()
                file = self.generated[key] = (f"{self.stem}-mesh-{len(self.generated) + 1}"
                                              f"{suffix}")
                self.files.append(OutputFile(self.out_dir / file, data))
        name = self.assets[full] = f"mesh-{len(self.assets) + 1}"
        # inertia="shell": MuJoCo computes a mesh's inertia even where it is not used
        # (inertiafromgeom="false") and refuses a mesh without volume unless it is a shell
        el = etree.SubElement(self.asset_el, "mesh", name=name, file=file, inertia="shell")
        scale = tuple(g.scale * c for c in scale3)
        if scale != (1.0, 1.0, 1.0):
            el.set("scale", _v(scale))
        return name

    def mesh_file(self, s: ir.Mesh, g: ir.Geometry) -> tuple[str, bytes]:
        """(suffix, bytes) of the mesh for MuJoCo: binary STL, or OBJ past the faces MuJoCo
        reads from an STL."""
        from robrayc.meshes import load_mesh
        from robrayc.stl import obj_text, triangles_stl

        data = load_mesh(s, self.sink, g.pos)
        if len(data.faces) > STL_FACE_LIMIT:
            return ".obj", obj_text(data.vertices, data.faces)
        return ".stl", triangles_stl(data.vertices[data.faces], b"robrayc " + Path(
            s.path).name.encode("utf-8", "replace"))


def lead_frames(scene: ir.Scene) -> dict[str, str]:
    """variable -> the frame whose joint is named after it: the joint frame of that name (a
    URDF mimic joint's leader, even when a follower comes first), else the first it moves."""
    leads: dict[str, str] = {}
    for f in scene.frames:
        if f.is_joint and f.variable is not None:
            if f.name == f.variable:
                leads[f.variable] = f.name
            else:
                leads.setdefault(f.variable, f.name)
    return leads


EDGE = 1e-9  # relative distance to MuJoCo's inertia rules within which rounding may decide


def edge_form(inertial: ir.Inertial) -> tuple[ir.Quat, ir.Vec3] | bool | None:
    """How a physical tensor on the edge of MuJoCo's rules (which it checks without slack on
    its own eigen-decomposition) is written so that MuJoCo loads it: (principal axes, moments)
    made to satisfy the rules exactly for a diagonal tensor or one with a moment near 0;
    True for A + B within rounding of C (written as it is, MuJoCo balancing it only if its own
    rounding breaks the rule); None for a tensor clear of the edge."""
    import numpy as np

    from robrayc.kinematics import matrix_to_quat

    m = np.asarray(inertial.inertia, dtype=np.float64).reshape(3, 3)
    diagonal = not np.any(m - np.diag(np.diag(m)))
    if diagonal:  # MuJoCo reads the moments as they are, in this order
        moments, axes = np.diag(m).copy(), np.eye(3)
    else:
        moments, axes = np.linalg.eigh(m)
        if np.linalg.det(axes) < 0:
            axes[:, 2] = -axes[:, 2]
    low, high = float(moments.min()), float(moments.max())
    slack = EDGE * max(abs(high), 1e-300)
    near_zero = low <= slack and not diagonal
    if not near_zero and 2 * high - float(moments.sum()) < -slack:  # C < A + B by a margin
        return None
    if not near_zero and not diagonal:
        return True
    moments = np.maximum(moments, 0.0)
    top = int(np.argmax(moments))
    first, second = (float(moments[k]) for k in range(3) if k != top)
    moments[top] = min(float(moments[top]), first + second)
    if diagonal and np.array_equal(moments, np.diag(m)):
        return None
    return matrix_to_quat(axes.tolist()), tuple(float(x) for x in moments)


def without_extent(g: ir.Geometry) -> bool:
    """A primitive with a zero size, which MuJoCo refuses (`size 0 must be positive`)."""
    s = g.shape
    sizes = {ir.Box: lambda: s.dimension, ir.Sphere: lambda: (s.radius,),
             ir.Cylinder: lambda: (s.radius, abs(s.height)),
             ir.Cone: lambda: (abs(s.height), max(s.start_radius, s.end_radius))}.get(type(s))
    return g.scale == 0 or (sizes is not None and min(sizes()) <= 0)


def body_names(scene: ir.Scene) -> dict[str, str]:
    """frame -> MJCF body name: its own, but for a frame named 'world' (MuJoCo's name for the
    world body, which no other body may have)."""
    names = {f.name: f.name for f in scene.frames}
    if WORLD in names:
        names[WORLD] = ir.unique_name(f"{WORLD}_frame", set(names))
    return names


def joint_names(scene: ir.Scene) -> dict[str, str]:
    """frame -> MJCF joint name: the configuration variable for its lead frame (MJCF input
    reads a joint's name as its variable), other frames their own name where free."""
    out: dict[str, str] = {}
    leads = lead_frames(scene)
    taken = set(leads)
    for f in scene.frames:
        if not f.is_joint:
            continue
        if leads.get(f.variable) == f.name:
            out[f.name] = f.variable
            continue
        out[f.name] = ir.unique_name(f.name, taken)
    return out


def nested_free_joint_names(scene: ir.Scene, names: dict[str, str], sink: DiagnosticSink
                            ) -> dict[str, tuple[str, str, str, str]]:
    """Floating frame below another frame -> the names of its slide joints along x, y, z
    and of its ball joint: NAME_x, NAME_y, NAME_z, NAME_r after its joint name, else with a
    suffix where another joint has that name (MuJoCo refuses a repeated one), with a warning."""
    out: dict[str, tuple[str, str, str, str]] = {}
    taken = set(names.values())
    for f in scene.frames:
        if f.kind != "floating" or f.parent is None or not scene.has_frame(f.parent):
            continue
        made = []
        for role, suffix in (("x slide", "_x"), ("y slide", "_y"), ("z slide", "_z"),
                             ("ball", "_r")):
            want = names[f.name] + suffix
            made.append(ir.unique_name(want, taken, "_"))
            if made[-1] != want:
                sink.warning(f"the {role} joint of floating joint '{f.name}' written as "
                             f"'{made[-1]}' ('{want}' is another joint's name)", f.pos,
                             name="renamed")
        out[f.name] = tuple(made)  # type: ignore[assignment]
    return out


_SHAPES = {
    ir.Box: _Writer._box,
    ir.Sphere: _Writer._sphere,
    ir.Cylinder: _Writer._cylinder,
    ir.Cone: _Writer._cone,
    ir.Mesh: _Writer._mesh,
    ir.Grid: _Writer._grid,
}


def emit(scene: ir.Scene, ctx: EmitContext) -> list[OutputFile]:
    return model_outputs(_Writer(scene, ctx), scene, ctx, "MJCF")
