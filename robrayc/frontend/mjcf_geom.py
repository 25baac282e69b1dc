"""MJCF input, second half: geoms, sites, inertials, contact exclusions and joint equalities
(the rules are in mjcf_in's docstring)."""

from __future__ import annotations

import math

from robrayc import ir
from robrayc.frontend.common import PendingFrame
from robrayc.frontend.frames import stable_unit_quaternion
from robrayc.frontend.xmlsource import local
from robrayc.kinematics import axis_angle_quat, compose, qrotate
from robrayc.records import replace

GREY = (0.5, 0.5, 0.5, 1.0)  # MuJoCo's default geom rgba


class GeomReader:
    """Mixed into mjcf_in._Loader (which provides attrs, placement, numbers, pos, ...)."""

    def geom(self, el, parent: str | None, cls: str, offset=None) -> None:
        self.check_attrs(el, "geom")
        attrs = self.attrs(el, cls)
        kind = attrs.get("type", "sphere")
        at = self.pos(el)
        size = self.numbers(el, "size", text=attrs.get("size", "0 0 0")) or ()
        size = (*size[:3], *(0.0,) * (3 - len(size[:3])))  # MuJoCo: missing sizes are 0
        q, v = self.placement(el, attrs)
        if "fromto" in attrs:
            q, v, half = self.fromto(el, attrs["fromto"])
            size = (size[0], half, *size[2:]) if kind != "box" else (size[0], size[1], half)
        if offset is not None:  # in a <frame>
            q, v = compose(offset, (q, v))
        if kind != "mesh" and "mesh" in attrs and "size" not in attrs:
            # MuJoCo sizes the primitive to fit the mesh (compiler fitaabb): not done here
            self.lost.setdefault(f"{kind} fitted to a mesh", [0, at])[0] += 1
            return
        shapes = self.shapes(el, kind, size, attrs)
        if not shapes:
            return
        color = self.rgba(el, attrs)
        contype, conaffinity = attrs.get("contype", "1"), attrs.get("conaffinity", "1")
        visual_only = contype == "0" and conaffinity == "0"
        collision_only = not visual_only and attrs.get("group") == "3"
        groups: dict[float, list[ir.Geometry]] = {}  # amino origin along the geom's Z -> shapes
        for shape, z in shapes:
            groups.setdefault(z, []).append(ir.Geometry(
                shape=shape, color=color[:3], alpha=color[3], visual=not collision_only,
                collision=not visual_only, pos=at))
        for z, geoms in groups.items():
            gq, gv = _placed(q, v, z)
            if parent is not None and gq == ir.IDENTITY_Q and gv == ir.ZERO_V and \
                    "name" not in attrs and self.attach(parent, tuple(geoms)):
                continue
            name = self.unique(attrs.get("name"), f"{parent or 'world'}-geom",
                               at if z == next(iter(groups)) else None)
            self.add(ir.Frame(name=name, parent=parent, translation=gv, quaternion=gq,
                              geometries=tuple(geoms), pos=at))

    def attach(self, parent: str, geoms: tuple[ir.Geometry, ...]) -> bool:
        """Put geometry on the body's own frame (the latest frame of that name)."""
        for pending in reversed(self.partial.frames):
            if pending.frame.name == parent:
                f = pending.frame
                pending.frame = replace(f, geometries=f.geometries + geoms)
                return True
        return False

    def shapes(self, el, kind: str, size, attrs) -> list[tuple[ir.Shape, float]]:
        """(shape, z) for each IR shape of the geom: amino's origin of it sits at z along the
        geom's Z axis (a cylinder starts at its base; a capsule is a cylinder and a sphere at
        each end)."""
        def need(n: int) -> bool:
            if len(size) < n:
                self.sink.error(f"a {kind} geom needs {n} size numbers", self.pos(el, "size"))
                return False
            return True

        if kind == "sphere" and need(1):
            return [(ir.Sphere(size[0]), 0.0)]
        if kind == "box" and need(3):
            return [(ir.Box(tuple(2 * s for s in size[:3])), 0.0)]
        if kind == "cylinder" and need(2):
            return [(ir.Cylinder(2 * size[1], size[0]), -size[1])]
        if kind == "capsule" and need(2):  # a cylinder with a sphere on each end: exact
            r, h = size[0], size[1]
            return [(ir.Cylinder(2 * h, r), -h), (ir.Sphere(r), -h), (ir.Sphere(r), h)]
        if kind == "mesh":
            return self.mesh(el, attrs)
        if kind not in ("sphere", "box", "cylinder", "capsule"):
            self.lost.setdefault(f"{kind}", [0, self.pos(el)])[0] += 1
        return []

    def mesh(self, el, attrs) -> list[tuple[ir.Shape, float]]:
        name = attrs.get("mesh")
        if name in self.inline_meshes:
            self.sink.error(f"mesh asset '{name}' lists its vertices in the MJCF; robrayc reads "
                            "mesh files only", self.pos(el, "mesh"),
                            "write the vertices to an OBJ or STL file and give its file")
            return []
        if name not in self.meshes:
            self.sink.error(f"unknown mesh asset '{name}'", self.pos(el, "mesh"))
            return []
        file, scale, asset = self.meshes[name]
        path = self.meshdir / file
        shape = self.ctx.mesh_shape(str(path), file, self.pos(asset, "file"), tuple(scale))
        return [] if shape is None else [(shape, 0.0)]

    def fromto(self, el, text: str):
        """(q, v, half length) of a primitive spanning the segment: centred, Z along it (the
        minimal rotation from +Z, as MuJoCo)."""
        p = self.numbers(el, "fromto", text=text)
        if p is None or len(p) != 6:
            self.sink.error("fromto needs 6 numbers", self.pos(el, "fromto"))
            return ir.IDENTITY_Q, ir.ZERO_V, 0.0
        d = (p[0] - p[3], p[1] - p[4], p[2] - p[5])  # MuJoCo's Z: from `to` towards `from`
        length = math.sqrt(sum(c * c for c in d))
        if length == 0:
            self.sink.error("fromto: the two points coincide", self.pos(el, "fromto"))
            return ir.IDENTITY_Q, ir.ZERO_V, 0.0
        q = minimal_rotation(tuple(c / length for c in d))
        centre = tuple((a + b) / 2 for a, b in zip(p[:3], p[3:], strict=True))
        return q, centre, length / 2

    def rgba(self, el, attrs) -> tuple[float, ...]:
        if "rgba" in attrs:
            rgba = self.numbers(el, "rgba", text=attrs["rgba"])
            if rgba is not None and len(rgba) == 4:
                return rgba
            self.sink.error("rgba needs 4 numbers", self.pos(el, "rgba"))
        if "material" in attrs:
            if attrs["material"] in self.materials:
                return self.materials[attrs["material"]]
            self.ignore("material without rgba (textures)", el)
        return GREY

    def site(self, el, parent: str | None, cls: str, offset=None) -> None:
        self.check_attrs(el, "site")
        attrs = self.attrs(el, cls)
        q, v = self.placement(el, attrs, offset)
        name = self.unique(attrs.get("name"), f"{parent or 'world'}-site", self.pos(el, "name"))
        self.add(ir.Frame(name=name, parent=parent, translation=v, quaternion=q,
                          pos=self.pos(el)))

    def inertial(self, el, body: str):
        """(inertial on the body, or None and (q, v, inertial) for a BODY-inertial frame)."""
        self.check_attrs(el, "inertial")
        attrs = given(el)
        q, v = self.placement(el, attrs)
        if "mass" not in attrs:
            self.sink.error("<inertial> needs a 'mass' attribute", self.pos(el))
        mass = (self.numbers(el, "mass", text=attrs.get("mass", "0")) or (0.0,))[0]
        if "fullinertia" in attrs:
            i = self.numbers(el, "fullinertia", text=attrs["fullinertia"]) or (0.0,) * 6
            if len(i) != 6:
                self.sink.error("fullinertia needs 6 numbers", self.pos(el, "fullinertia"))
                i = (0.0,) * 6
            tensor = (i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2])
        else:
            d = self.numbers(el, "diaginertia", text=attrs.get("diaginertia", "0 0 0"))
            if d is not None and len(d) != 3:
                self.sink.error("diaginertia needs 3 numbers", self.pos(el, "diaginertia"))
                d = None
            d = d or (0.0, 0.0, 0.0)
            tensor = (d[0], 0.0, 0.0, 0.0, d[1], 0.0, 0.0, 0.0, d[2])
        inertial = ir.Inertial(mass, tuple(c + 0.0 for c in tensor))
        if q == ir.IDENTITY_Q and v == ir.ZERO_V:
            return inertial, None
        return None, (q, v, inertial)

    def contact(self, el) -> None:
        for child in el:
            if local(child.tag) != "exclude":
                self.ignore(f"<contact><{local(child.tag)}>", child)
                continue
            a, b = child.get("body1"), child.get("body2")
            if a and b:
                self.partial.allowed.append((a, b, self.pos(child)))

    def equality(self, el) -> None:
        """joint equalities robrayc writes for a shared variable: joint1 takes joint2's."""
        for child in el:
            if local(child.tag) != "joint":
                self.ignore(f"<equality><{local(child.tag)}>", child)
                continue
            j1, j2 = self.joints.get(child.get("joint1")), self.joints.get(child.get("joint2"))
            coef = self.numbers(child, "polycoef",
                                text=child.get("polycoef", "0 1 0 0 0")) or ()
            if j1 is None or j2 is None or len(coef) != 5:
                self.sink.error("joint equality names unknown joints", self.pos(child))
                continue
            if j1.is_multi_dof or j2.is_multi_dof:  # as MuJoCo
                self.sink.error("only hinge and slide joints are allowed in a joint equality",
                                self.pos(child))
                continue
            if coef[1:] != (1.0, 0.0, 0.0, 0.0) or not math.isclose(
                    coef[0], j1.offset - j2.offset, abs_tol=1e-12):
                self.ignore("joint equality other than equal values", child)
                continue
            self.share(j1.name, j2.variable)

    def share(self, frame: str, variable: str | None) -> None:
        for pending in self.partial.frames:
            if pending.frame.name == frame:
                pending.frame = replace(pending.frame, variable=variable)


KEYWORDS = {"type", "class", "childclass", "limited", "actuatorfrclimited", "angle",
            "autolimits", "eulerseq"}  # an empty keyword is an error in MuJoCo


def given(el) -> dict[str, str]:
    """The element's attributes, an empty value as not given (MuJoCo reads rgba="" or pos=""
    as absent)."""
    return {k: v for k, v in el.attrib.items() if v.strip() or k in KEYWORDS}


def _placed(q: ir.Quat, v: ir.Vec3, z: float) -> tuple[ir.Quat, ir.Vec3]:
    """The geom frame moved by z along its own Z axis."""
    if z == 0.0:
        return q, v
    d = qrotate(q, (0.0, 0.0, z))
    return q, (v[0] + d[0], v[1] + d[1], v[2] + d[2])


__all__ = ["GeomReader", "PendingFrame"]


def minimal_rotation(z: ir.Vec3) -> ir.Quat:
    """The shortest rotation taking +Z onto unit vector z (MuJoCo's zaxis)."""
    c = z[2]
    axis = (-z[1], z[0], 0.0)
    s = math.hypot(axis[0], axis[1])
    if s < 1e-15:
        return ir.IDENTITY_Q if c > 0 else (1.0, 0.0, 0.0, 0.0)
    return stable_unit_quaternion(axis_angle_quat((axis[0] / s, axis[1] / s, 0.0),
                                                  math.atan2(s, c)))
