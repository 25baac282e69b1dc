"""URDF links -> IR geometry: materials, the frames holding shapes and inertia, shapes,
meshes (package:// and file:// URIs, --missing-mesh=bbox) and inertia. `LinkLowering` is mixed
into the URDF loader (urdf._Loader), whose state (`ctx`, `sink`, `materials`, `taken`,
`link_frame`, `bodies`, `extra`) and XmlSource readers it uses."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from urllib.parse import unquote, urlparse

from robrayc import ir
from robrayc.diagnostics import DiagnosticSink, SourcePos, suggest
from robrayc.frontend.common import LoadContext
from robrayc.frontend.xmlsource import local as _local
from robrayc.kinematics import qrotate
from robrayc.records import field, record, replace

_SOLIDS = (ir.Box, ir.Sphere, ir.Cylinder)


@record(slots=True)
class Body:
    """What ends up on one frame: geometries and an inertial."""

    geometries: list[ir.Geometry] = field(default_factory=list)
    inertial: ir.Inertial | None = None


@record
class Missing:
    """A mesh not found under --missing-mesh=bbox: replaced once the link's shapes are known."""

    kind: str  # visual | collision
    geometry: ir.Geometry  # placeholder shape; colour and flags kept
    source: str
    pos: SourcePos


class LinkLowering:
    """The links section of the URDF loader."""

    def _rgba(self, material) -> tuple[float, float, float, float] | None:
        color = child_element(material, "color")
        if color is None:
            return None
        return self.floats(color, "rgba", 4, None, "color rgba")

    def _material(self, m) -> tuple[tuple[float, float, float, float] | None, str | None]:
        """A visual's colour (None: the default) and material name, from its <material>."""
        if m is None:
            return None, None
        rgba = self._rgba(m)
        name = m.get("name") or None
        if rgba is not None:
            if name:
                self.materials.setdefault(name, rgba)  # an inline named material is global
            return rgba, name
        if name:
            if name in self.materials:
                return self.materials[name], name
            self.sink.warning(f"unknown material '{name}'; default colour used",
                              self.pos(m, "name"), suggest(name, self.materials),
                              name="unknown-material")
        return None, name

    def _frame_name(self, link: str, kind: str) -> str:
        return ir.unique_name(f"{link}-{kind}", self.taken)

    def _place(self, link: str, kind: str, q: ir.Quat, v: ir.Vec3, own: bool,
               pos: Callable[[], SourcePos]) -> str | None:
        """The frame that holds a shape (or inertia) of `link` at pose (q, v); `pos` gives
        the position of a new frame (only computed then: most shapes need none)."""
        holder = self.link_frame[link]
        if holder is not None and not own and q == ir.IDENTITY_Q and v == ir.ZERO_V:
            return holder
        name = self._frame_name(link, kind)
        frame = ir.Frame(name=name, parent=holder, translation=v, quaternion=q, pos=pos(),
                         link=link, link_role=kind)
        body = Body()
        self.bodies[name] = body
        self.extra.append((frame, body))
        return name

    def _link(self, name: str, link) -> None:
        visuals: list = []
        collisions: list = []
        inertial = None
        for c in link:  # one pass over the link's children (lxml makes a proxy per visit)
            tag = c.tag
            if tag == "visual":
                visuals.append((c, first_children(c)))
            elif tag == "collision":
                collisions.append((c, first_children(c)))
            elif tag == "inertial" and inertial is None:
                inertial = c
        first_rgba = self._material(visuals[0][1].get("material"))[0] if visuals else None
        missing: list[Missing] = []
        present: list[tuple[ir.Geometry, ir.Quat, ir.Vec3]] = []
        for el, parts in visuals:
            rgba, material = self._material(parts.get("material"))
            self._shape(name, "visual", el, parts, rgba, material, missing, present)
        for el, parts in collisions:
            self._shape(name, "collision", el, parts, first_rgba, None, missing, present)
        for m in missing:
            self._bbox(name, m, present)
        if inertial is not None:
            q, v = self.origin(inertial)
            holder = self._place(name, "inertial", q, v, self.link_frame[name] is None,
                                 lambda: self.pos(inertial))
            self.bodies[holder].inertial = self._inertia(inertial)

    def _shape(self, link: str, kind: str, el, parts: dict, rgba, material: str | None,
               missing: list, present: list) -> None:
        """One <visual> or <collision> `el` (`parts`: its first child of each tag)."""
        g = parts.get("geometry")
        s = g[0] if g is not None and len(g) == 1 else None  # the common case: one shape
        if s is None or type(s.tag) is not str or s.tag == "material":
            s = self._shape_element(link, kind, el, g)
            if s is None:
                return
        tag = s.tag if "}" not in s.tag else _local(s.tag)
        spos = self.pos(s)
        q, v = self.origin_of(parts.get("origin"))
        if tag == "box":
            shape = self._box(s, spos)
        elif tag == "sphere":
            r = self.number(s, "radius", required=True)
            shape = ir.Sphere(r) if r is not None else None
        elif tag == "cylinder":
            shape, v = self._cylinder(s, q, v)
        elif tag == "mesh":
            shape = self._mesh(s, self._geometry(ir.Sphere(0.0), kind, rgba, material, spos),
                               kind, missing)  # a missing mesh's stand-in keeps this position
        else:
            self.sink.error(f"unsupported URDF shape <{tag}> in link '{link}'", spos,
                            "URDF shapes are box, sphere, cylinder and mesh")
            return
        if shape is None:
            return
        if isinstance(shape, _SOLIDS) and min(
                shape.dimension if isinstance(shape, ir.Box) else (shape.radius,)
                if isinstance(shape, ir.Sphere) else (shape.height, shape.radius)) < 0:
            self.sink.error(f"negative size in <{tag}> of link '{link}'", spos)
            return
        geom = self._geometry(shape, kind, rgba, material, spos)
        # The original's rule (urdf.lisp node-origin): a shape shares its link's frame when its
        # placement, a cylinder's -length/2 shift included, is exactly the identity.
        holder = self._place(link, kind, q, v, self.link_frame[link] is None,
                             lambda: self.pos(el))
        self.bodies[holder].geometries.append(geom)
        present.append((geom, q, v))

    def _shape_element(self, link: str, kind: str, el, g):
        """The one shape element of a <geometry> (None after a diagnostic)."""
        shapes = [c for c in g if isinstance(c.tag, str)] if g is not None else []
        if len(shapes) != 1 or shapes[0].tag == "material":  # the common case is neither
            for stray in [c for c in shapes if c.tag == "material"]:
                self.sink.warning(f"<material> inside the <geometry> of a <{kind}> of link "
                                  f"'{link}' is ignored (as urdfdom does)", self.pos(stray),
                                  f"put it in the <{kind}>, beside <geometry>",
                                  name="urdf-ignored")
                shapes.remove(stray)
        if not shapes:
            self.sink.warning(f"<{kind}> of link '{link}' has no geometry; ignored",
                              self.pos(el), name="empty-geometry")
            return None
        if len(shapes) > 1:
            self.sink.error(f"<{kind}> of link '{link}' has several shapes", self.pos(shapes[1]))
            return None
        return shapes[0]

    def _box(self, s, spos: SourcePos) -> ir.Box | None:
        """A <box>; one record per distinct size (robots repeat a few)."""
        size = self.floats(s, "size", 3, None, "box size")
        if size is None:
            if s.get("size") is None:
                self.sink.error("<box> needs a 'size' attribute", spos)
            return None
        box = self.boxes.get(size)
        if box is None:
            box = self.boxes[size] = ir.Box(size)
        return box

    def _cylinder(self, s, q: ir.Quat, v: ir.Vec3) -> tuple[ir.Cylinder | None, ir.Vec3]:
        r = self.number(s, "radius", required=True)
        h = self.number(s, "length", required=True)
        if r is None or h is None:
            return None, v
        # URDF cylinders are centred on their origin, amino's start there
        d = qrotate(q, (0.0, 0.0, -h / 2))
        return ir.Cylinder(h, r), (v[0] + d[0] + 0.0, v[1] + d[1] + 0.0, v[2] + d[2] + 0.0)

    def _geometry(self, shape: ir.Shape, kind: str, rgba, material: str | None,
                  spos: SourcePos) -> ir.Geometry:
        """A URDF shape's Geometry: visual or collision only, its colour, a mesh's uniform
        scale as amino's own."""
        scale = 1.0
        if isinstance(shape, ir.Mesh) and len(set(shape.scale3)) == 1:
            scale = shape.scale3[0]  # uniform: amino's own scale
            shape = replace(shape, scale3=(1.0, 1.0, 1.0))
        if rgba is None:
            color, alpha = ir.DEFAULT_COLOR, 1.0  # the Geometry's defaults
        else:  # one tuple per colour: the C backend writes it once
            color, alpha = self.colors.get(rgba), rgba[3]
            if color is None:
                color = self.colors[rgba] = rgba[:3]
        return ir.Geometry(shape=shape, color=color, alpha=alpha, visual=kind == "visual",
                           collision=kind == "collision", scale=scale, pos=spos,
                           material=material)

    def _mesh(self, s, geom: ir.Geometry, kind: str, missing: list) -> ir.Shape | None:
        uri = s.get("filename")
        spos = self.pos(s, "filename") if uri is not None else self.pos(s)
        if not uri:
            self.sink.error("<mesh> needs a 'filename' attribute", spos)
            return None
        scale3 = self.floats(s, "scale", 3, (1.0, 1.0, 1.0), "mesh scale") or (1.0, 1.0, 1.0)
        path, problem = self.resolve(uri)
        if path is None and uri.startswith("package:///"):
            path, problem = self.beside_urdf(uri, spos, problem)
        if not self.ctx.options.need_meshes:  # listing: the file is neither looked for nor read
            return self.ctx.mesh_shape(path or uri, uri, spos, scale3)
        if path is not None and os.path.isfile(path):
            return self.ctx.mesh_shape(path, uri, spos, scale3)
        if self.ctx.options.missing_mesh == "bbox":
            missing.append(Missing(kind, geom, uri, spos))  # replaced once the link is read
            return None
        if problem is not None:
            if self.ctx.options.missing_mesh == "error":
                self.sink.error(problem, spos, "use --package-path NAME=DIR or set "
                                "ROS_PACKAGE_PATH (or --missing-mesh=drop)")
            else:
                self.sink.warning(problem + "; geometry dropped", spos, name="missing-mesh")
            return None
        return self.ctx.mesh_shape(path, uri, spos, scale3)

    def beside_urdf(self, uri: str, spos, problem: str | None) -> tuple[str | None, str | None]:
        """package:///rest (no package name) found nowhere Pinocchio looks: rest in the URDF's
        folder, where the exporters that write it (onshape-to-robot) put the meshes."""
        candidate = self.base / uri[len("package:///"):]
        if not os.path.isfile(candidate):
            return None, problem
        self.sink.warning(f"mesh '{uri}' has no package name and is not under a "
                          f"ROS_PACKAGE_PATH folder; using '{candidate}' beside the URDF", spos,
                          "give --package-path =DIR to say where such meshes are",
                          name="mesh-path-fallback")
        return str(candidate), None

    def resolve(self, uri: str) -> tuple[str | None, str | None]:
        """A mesh reference -> (path, None), or (None, why not)."""
        if uri.startswith("package://"):
            found = self.ctx.resolve_package_uri(uri)
            if found is None:
                pkg = uri[len("package://"):].split("/", 1)[0]
                rpp = os.environ.get("ROS_PACKAGE_PATH", "")
                if not pkg:
                    return None, (f"mesh '{uri}' (no package name) is under no "
                                  f"ROS_PACKAGE_PATH folder (ROS_PACKAGE_PATH='{rpp}')")
                return None, (f"package '{pkg}' of mesh '{uri}' not found "
                              f"(ROS_PACKAGE_PATH='{rpp}')")
            return str(found), None
        if uri.startswith("file://"):
            return unquote(urlparse(uri).path), None
        if re.match(r"^[A-Za-z][A-Za-z0-9+.-]+://", uri):
            return None, f"mesh '{uri}': only package:// and file:// URLs are supported"
        return str(self.base / uri) if not os.path.isabs(uri) else uri, None

    def _bbox(self, link: str, m: Missing, present: list) -> None:
        """--missing-mesh=bbox: a box around the link's other shapes, in the link frame."""
        import numpy as np

        corners = []
        for g, q, v in present:
            corners.append(shape_corners(g, q, v, self.ctx, self.sink))
        corners = [c for c in corners if c is not None]
        if not corners:
            self.sink.warning(f"mesh file '{m.source}' not found and link '{link}' has no other "
                              "shape to take a bounding box from; geometry dropped", m.pos,
                              name="missing-mesh")
            return
        pts = np.concatenate(corners)
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        centre = tuple(float(c) + 0.0 for c in (lo + hi) / 2)
        dims = tuple(float(c) + 0.0 for c in hi - lo)
        self.sink.warning(f"mesh file '{m.source}' not found; replaced by the bounding box of "
                          f"link '{link}''s other shapes", m.pos, name="missing-mesh")
        geom = replace(m.geometry, shape=ir.Box(dims), scale=1.0)
        holder = self._place(link, m.kind, ir.IDENTITY_Q, centre, True, lambda: m.pos)
        self.bodies[holder].geometries.append(geom)

    def _inertia(self, el) -> ir.Inertial:
        mass_el = child_element(el, "mass")
        mass = self.number(mass_el, "value", 0.0, required=True) if mass_el is not None else 0.0
        if mass_el is None:
            self.sink.warning("<inertial> without <mass>; mass 0", self.pos(el),
                              name="urdf-inertial")
        i = child_element(el, "inertia")
        vals = []
        for key in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"):
            x = self.number(i, key, 0.0) if i is not None else 0.0
            vals.append(0.0 if x is None else x)
        ixx, ixy, ixz, iyy, iyz, izz = vals
        return ir.Inertial(mass or 0.0, (ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz))


def shape_corners(g: ir.Geometry, q: ir.Quat, v: ir.Vec3, ctx: LoadContext,
                   sink: DiagnosticSink):
    """Points bounding a URDF shape (centred convention) placed at (q, v) in its link."""
    import numpy as np

    from robrayc import meshes

    s = g.shape
    if isinstance(s, ir.Box):
        half = np.asarray(s.dimension) / 2
        pts = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * half
    elif isinstance(s, ir.Sphere):
        r = s.radius
        pts = np.array([[x, y, z] for x in (-r, r) for y in (-r, r) for z in (-r, r)])
    elif isinstance(s, ir.Cylinder):
        r, h = s.radius, s.height
        pts = np.array([[x, y, z] for x in (-r, r) for y in (-r, r) for z in (-h / 2, h / 2)])
    elif isinstance(s, ir.Mesh):
        try:
            data = meshes.mesh_data(s)
        except (meshes.MeshError, ValueError) as exc:
            sink.warning(f"cannot read mesh '{s.source}' for a bounding box: {exc}", g.pos,
                         name="missing-mesh")
            return None
        pts = np.asarray(data.vertices) * g.scale
    else:
        return None
    from robrayc.kinematics import quat_to_matrix

    rot = np.asarray(quat_to_matrix(q))
    return pts @ rot.T + np.asarray(v)


def child_element(el, name: str):
    """The first child element named `name` (a comment's tag is a function: never equal)."""
    if el is not None:
        for c in el:
            if c.tag == name:
                return c
    return None


def first_children(el) -> dict:
    """Tag -> the first child with that tag: one pass where several child_element calls would each
    walk the children (lxml makes a proxy per child visited)."""
    out: dict = {}
    for c in el:
        out.setdefault(c.tag, c)
    return out


def grouped_children(el) -> dict[str, list]:
    """Tag -> the child elements with that tag, in order."""
    out: dict = {}
    for c in el:
        out.setdefault(c.tag, []).append(c)
    return out
