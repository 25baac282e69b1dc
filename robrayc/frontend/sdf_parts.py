"""SDFormat input, second half: what a link holds (visuals, collisions, materials, inertial),
element text values, and finding files by URI (`model://`, `package://`, `file://`,
relative). The rules are in sdf_in's docstring."""

from __future__ import annotations

import math
import os
from pathlib import Path

from robrayc import ir
from robrayc.frontend.xmlsource import local
from robrayc.kinematics import compose
from robrayc.records import replace

Pose = tuple[ir.Quat, ir.Vec3]
IDENTITY: Pose = (ir.IDENTITY_Q, ir.ZERO_V)
# where model:// is looked for, after -I: Gazebo (gz-sim, its old name), libsdformat, classic
RESOURCE_PATHS = ("GZ_SIM_RESOURCE_PATH", "IGN_GAZEBO_RESOURCE_PATH", "SDF_PATH",
                  "GAZEBO_MODEL_PATH")
PLANE_THICKNESS = 0.001  # a plane is read as a slab this thick, its top face on the plane
# children of these elements that robrayc reads; any other is reported once per kind
READ = {
    "visual": {"pose", "geometry", "material", "transparency", "cast_shadows"},
    "collision": {"pose", "geometry"},
    "material": {"ambient", "diffuse", "specular"},
    "inertial": {"pose", "mass", "inertia"},
}


def child(el, tag: str):
    """The first child element called `tag` (None if there is none)."""
    for c in el:
        if c.tag == tag:
            return c
    return None


def children(el, tag: str) -> list:
    return [c for c in el if c.tag == tag]


def is_identity(pose: Pose) -> bool:
    return pose[0] == ir.IDENTITY_Q and pose[1] == ir.ZERO_V


def shifted(pose: Pose, z: float) -> Pose:
    """`pose` moved by z along its own Z axis."""
    if z == 0.0:
        return pose
    return compose(pose, (ir.IDENTITY_Q, (0.0, 0.0, z)))


class LinkParts:
    """Mixed into sdf_in._Loader (which provides pos, sink, ctx, ignore, the pose of an
    element relative to its link, and the frames being built)."""

    # --- element values ---------------------------------------------------------------------
    def values(self, el, n: int | None, what: str) -> tuple[float, ...] | None:
        """The numbers of an element's text (n of them unless None); None after an error."""
        text = el.text or ""
        try:
            values = tuple(float(t) + 0.0 for t in text.split())
        except ValueError:
            self.sink.error(f"<{what}>: '{text.strip()}' is not a list of numbers", self.pos(el))
            return None
        if not all(map(math.isfinite, values)):
            self.sink.error(f"<{what}>: '{text.strip()}' is not finite", self.pos(el))
            return None
        if n is not None and len(values) != n:
            self.sink.error(f"<{what}> needs {n} numbers, got {len(values)}", self.pos(el))
            return None
        return values

    def vector(self, el, tag: str, n: int, default: tuple[float, ...]) -> tuple[float, ...]:
        """The numbers of child `tag` of `el` (SDF's default when it is absent or wrong)."""
        c = child(el, tag) if el is not None else None
        if c is None:
            return default
        return self.values(c, n, tag) or default

    def scalar(self, el, tag: str, default: float) -> float:
        return self.vector(el, tag, 1, (default,))[0]

    def flag(self, el, tag: str, default: bool) -> bool:
        c = child(el, tag) if el is not None else None
        if c is None:
            return default
        text = (c.text or "").strip().lower()
        if text in ("true", "1"):
            return True
        if text in ("false", "0"):
            return False
        self.sink.error(f"<{tag}>: '{text}' is not a boolean (true, false, 1, 0)", self.pos(c))
        return default

    def check_children(self, el, kind: str) -> None:
        for c in el:
            if isinstance(c.tag, str) and c.tag not in READ[kind]:
                self.ignore(f"<{kind}><{local(c.tag)}>", c)

    # --- files --------------------------------------------------------------------------------
    def model_dirs(self) -> list[Path]:
        dirs = [Path(d) for d in self.ctx.options.include_dirs]
        for var in RESOURCE_PATHS:
            dirs += [Path(d) for d in os.environ.get(var, "").split(os.pathsep) if d]
        return dirs

    def resolve_uri(self, uri: str, base: Path) -> tuple[Path | None, str | None]:
        """A URI -> (path, None), or (None, why not). model://NAME/rest looks for a folder
        NAME in -I and the resource paths; relative URIs are relative to `base`."""
        if uri.startswith("model://"):
            name, _, rest = uri[len("model://"):].partition("/")
            for folder in self.model_dirs():
                if (folder / name).is_dir():
                    return folder / name / rest, None
            paths = ", ".join(RESOURCE_PATHS)
            return None, f"model '{name}' of '{uri}' not found (searched -I and {paths})"
        if uri.startswith("package://"):
            found = self.ctx.resolve_package_uri(uri)
            if found is None:
                pkg = uri[len("package://"):].split("/", 1)[0]
                return None, f"package '{pkg}' of '{uri}' not found (ROS_PACKAGE_PATH)"
            return found, None
        if uri.startswith("file://"):
            from urllib.parse import unquote, urlparse

            return Path(unquote(urlparse(uri).path)), None
        if "://" in uri:
            return None, f"'{uri}': only model://, package://, file:// and paths are read " \
                         "(robrayc does not download)"
        return base / uri, None

    # --- a link's contents ----------------------------------------------------------------
    def link_parts(self, link_el, link: str, holder: str) -> None:
        """Visuals, collisions and the inertial of link `link`, onto IR frame `holder` (at
        the link's origin) or onto part frames below it."""
        for kind in ("visual", "collision"):
            for el in children(link_el, kind):
                self.check_children(el, kind)
                geometry = child(el, "geometry")
                if geometry is None:
                    continue  # SDF: a visual or collision without geometry shows nothing
                pose = self.part_pose(el, link)
                color, alpha, specular, shadow = ir.DEFAULT_COLOR, 1.0, ir.ZERO_V, True
                if kind == "visual":
                    color, specular = self.material(child(el, "material"))
                    alpha = 1.0 - self.scalar(el, "transparency", 0.0)
                    shadow = self.flag(el, "cast_shadows", True)
                for shape, z, scale in self.shapes(geometry, link):
                    g = ir.Geometry(shape=shape, color=color, alpha=alpha, specular=specular,
                                    visual=kind == "visual", collision=kind == "collision",
                                    no_shadow=not shadow, scale=scale, pos=self.pos(el))
                    self.place(link, holder, kind, shifted(pose, z), el, geometries=(g,))
        inertial = child(link_el, "inertial")
        if inertial is not None:
            self.check_children(inertial, "inertial")
            self.place(link, holder, "inertial", self.part_pose(inertial, link), inertial,
                       inertial=self.inertia(inertial))

    def place(self, link: str, holder: str, role: str, pose: Pose, el, *,
              geometries: tuple[ir.Geometry, ...] = (), inertial: ir.Inertial | None = None):
        """Put geometry or an inertia on the holder frame when at its origin (and the holder
        has no inertia yet), else on a new part frame LINK-ROLE below it."""
        frames = self.frames
        f = frames[holder]
        if is_identity(pose) and (inertial is None or f.inertial is None):
            frames[holder] = replace(f, geometries=f.geometries + geometries,
                                     inertial=inertial or f.inertial)
            return
        name = ir.unique_name(f"{link}-{role}", self.taken)
        frames[name] = ir.Frame(name=name, parent=holder, quaternion=pose[0],
                                translation=pose[1], geometries=geometries,
                                inertial=inertial, pos=self.pos(el), link=link,
                                link_role=role)

    def material(self, el) -> tuple[ir.Vec3, ir.Vec3]:
        """(colour, specular) of a <material>: diffuse, else ambient, else the default."""
        if el is None:
            return ir.DEFAULT_COLOR, ir.ZERO_V
        self.check_children(el, "material")
        color = ir.DEFAULT_COLOR
        for tag in ("ambient", "diffuse"):  # diffuse wins
            c = child(el, tag)
            if c is not None:
                rgba = self.values(c, None, tag)
                if rgba is not None and len(rgba) in (3, 4):
                    color = rgba[:3]
                elif rgba is not None:
                    self.sink.error(f"<{tag}> needs 3 or 4 numbers", self.pos(c))
        specular = self.vector(el, "specular", 4, (0.0, 0.0, 0.0, 1.0))[:3]
        return color, specular

    def inertia(self, el) -> ir.Inertial:
        """mass (SDF's default 1) and the tensor (default: the identity)."""
        mass = self.scalar(el, "mass", 1.0)
        t = child(el, "inertia")
        v = {k: self.scalar(t, k, 1.0 if k in ("ixx", "iyy", "izz") else 0.0)
             for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
        return ir.Inertial(mass, (v["ixx"], v["ixy"], v["ixz"], v["ixy"], v["iyy"], v["iyz"],
                                  v["ixz"], v["iyz"], v["izz"]))

    # --- shapes: (shape, shift along the part's Z, geometry scale) -----------------------
    def shapes(self, geometry, link: str) -> list[tuple[ir.Shape, float, float]]:
        kids = [c for c in geometry if isinstance(c.tag, str)]
        if len(kids) != 1:
            if kids:
                self.sink.error(f"<geometry> of link '{link}' has {len(kids)} shapes; SDF "
                                "allows one", self.pos(kids[1]))
            return []
        s = kids[0]
        tag = local(s.tag)
        reader = _SHAPES.get(tag)
        if reader is None:
            self.sink.error(f"SDF <{tag}> geometry (link '{link}') has no robrayc shape",
                            self.pos(s), "robrayc reads box, sphere, cylinder, capsule, "
                            "ellipsoid with equal radii, plane and mesh")
            return []
        return reader(self, s, link)

    def _box(self, s, link: str):
        size = self.vector(s, "size", 3, (1.0, 1.0, 1.0))
        return self.solid(ir.Box(size), min(size), s, link)

    def _sphere(self, s, link: str):
        r = self.scalar(s, "radius", 1.0)
        return self.solid(ir.Sphere(r), r, s, link)

    def _cylinder(self, s, link: str):
        r, h = self.scalar(s, "radius", 1.0), self.scalar(s, "length", 1.0)
        return self.solid(ir.Cylinder(h, r), min(r, h), s, link, -h / 2)

    def _capsule(self, s, link: str):
        """A cylinder with a sphere on each end (exact)."""
        r, h = self.scalar(s, "radius", 0.5), self.scalar(s, "length", 1.0)
        if self.solid(ir.Sphere(r), min(r, h), s, link) == []:
            return []
        return [(ir.Cylinder(h, r), -h / 2, 1.0), (ir.Sphere(r), -h / 2, 1.0),
                (ir.Sphere(r), h / 2, 1.0)]

    def _ellipsoid(self, s, link: str):
        radii = self.vector(s, "radii", 3, (1.0, 1.0, 1.0))
        if radii[0] == radii[1] == radii[2]:
            return self.solid(ir.Sphere(radii[0]), radii[0], s, link)
        self.sink.error(f"ellipsoid of link '{link}' with radii {radii} has no robrayc shape",
                        self.pos(s), "robrayc has no ellipsoids: use a mesh")
        return []

    def _plane(self, s, link: str):
        """A plane (infinite in SDF) as its <size> rectangle: a slab PLANE_THICKNESS thick
        whose top face is the plane, turned to its normal; a warning says so."""
        w, h = self.vector(s, "size", 2, (1.0, 1.0))
        normal = self.vector(s, "normal", 3, (0.0, 0.0, 1.0))
        n = math.sqrt(sum(c * c for c in normal))
        if n == 0 or min(w, h) <= 0:
            self.sink.error("plane needs a non-zero normal and a positive size", self.pos(s))
            return []
        self.sink.warning(f"plane of link '{link}' is infinite in SDF; read as its {w!r} x "
                          f"{h!r} size, a slab {PLANE_THICKNESS} m thick below it", self.pos(s),
                          name="format-loss")
        if normal[0] != 0 or normal[1] != 0 or normal[2] <= 0:
            self.sink.error("a plane whose normal is not +Z is not read by robrayc",
                            self.pos(child(s, "normal")), "turn the plane by its <pose>")
            return []
        return [(ir.Box((w, h, PLANE_THICKNESS)), -PLANE_THICKNESS / 2, 1.0)]

    def solid(self, shape: ir.Shape, smallest: float, s, link: str, z: float = 0.0):
        if smallest < 0:
            self.sink.error(f"negative size in <{local(s.tag)}> of link '{link}'", self.pos(s))
            return []
        return [(shape, z, 1.0)]

    def _mesh(self, s, link: str):
        uri_el = child(s, "uri")
        uri = (uri_el.text or "").strip() if uri_el is not None else ""
        at = self.pos(uri_el if uri_el is not None else s)
        if not uri:
            self.sink.error(f"<mesh> of link '{link}' has no <uri>", at)
            return []
        if child(s, "submesh") is not None:
            self.sink.warning("<submesh> is not read by robrayc: the whole mesh is used",
                              self.pos(child(s, "submesh")), name="format-loss")
        scale3 = self.vector(s, "scale", 3, (1.0, 1.0, 1.0))
        path, problem = self.resolve_uri(uri, Path(self.pos(s).file).parent)
        if path is None and not self.ctx.options.need_meshes and uri.startswith(
                ("model://", "package://")):  # a listing (--tree): meshes are not looked for
            path = uri  # (as the URDF and robray loaders: a URDF's missing mesh alike)
        elif path is None:
            if self.ctx.options.missing_mesh == "error":
                self.sink.error(problem, at, "use -I DIR, GZ_SIM_RESOURCE_PATH or "
                                "--package-path NAME=DIR (or --missing-mesh=drop)")
            else:
                self.sink.warning(problem + "; geometry dropped", at, name="missing-mesh")
            return []
        mesh = self.ctx.mesh_shape(str(path), uri, at, scale3)
        if mesh is None:
            return []
        if len(set(scale3)) == 1:  # uniform: the geometry's own scale (as URDF import)
            return [(replace(mesh, scale3=(1.0, 1.0, 1.0)), 0.0, scale3[0])]
        return [(mesh, 0.0, 1.0)]


_SHAPES = {
    "box": LinkParts._box, "sphere": LinkParts._sphere, "cylinder": LinkParts._cylinder,
    "capsule": LinkParts._capsule, "ellipsoid": LinkParts._ellipsoid,
    "plane": LinkParts._plane, "mesh": LinkParts._mesh, "empty": lambda self, s, link: [],
}
