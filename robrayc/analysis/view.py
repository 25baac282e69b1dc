"""What every 3D picture format shares: the configuration, the posed world geometry, the
camera (given or framing the whole scene), triangles for each shape, and the collision overlay.

The picture options (camera, image size, geometry kind, ``--highlight-collisions``,
``--config``) are added once, by the pov backend (argparse refuses duplicates); the png, glb,
html and svg backends build their typed options from them (:class:`PictureOptions`).

numpy is imported inside functions so that loading a backend for ``--help`` stays cheap.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from robrayc import ir
from robrayc.diagnostics import NOWHERE, DiagnosticSink, SourcePos
from robrayc.links import link_pair
from robrayc.records import field, record

DEFAULT_WIDTH, DEFAULT_HEIGHT = 640, 480  # the original's --pov-x/--pov-y defaults
DEFAULT_FOV = 45.0  # degrees, horizontal (POV-Ray's `angle`)
DEFAULT_UP = (0.0, 0.0, 1.0)
VIEW_DIRECTION = (1.0, 0.6, 0.45)  # automatic camera: from the front right, a little above
HIGHLIGHT = (1.0, 0.0, 0.0)  # colliding frames
HIGHLIGHT_HEX = "#ff0000"
SPHERE_BANDS = 24  # tessellation of spheres (rings) for the mesh formats
ROUND_SEGMENTS = 48  # points per rim of cylinders and cones


def _vector(text: str) -> tuple[float, float, float]:
    parts = text.replace(",", " ").split()
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected three numbers, got {text!r}") from None
    if len(values) != 3 or not all(math.isfinite(v) for v in values):
        raise argparse.ArgumentTypeError(f"expected three finite numbers, got {text!r}")
    return values  # type: ignore[return-value]


def add_picture_arguments(group: argparse._ArgumentGroup) -> None:
    """The options every picture format reads (added once, by the pov backend)."""
    group.add_argument("--cam-eye", type=_vector, metavar="'X Y Z'",
                       help="pictures: camera position (default: framing the whole scene)")
    group.add_argument("--cam-look", type=_vector, metavar="'X Y Z'",
                       help="pictures: point the camera looks at (default: the scene's centre)")
    group.add_argument("--cam-up", type=_vector, default=DEFAULT_UP, metavar="'X Y Z'",
                       help="pictures: camera up direction (default '0 0 1')")
    group.add_argument("--fov", type=float, default=DEFAULT_FOV, metavar="DEG",
                       help=f"pictures: horizontal field of view (default {DEFAULT_FOV:g})")
    group.add_argument("--pov-x", "--width", dest="pov_x", type=int, default=DEFAULT_WIDTH,
                       metavar="PX", help=f"pictures: image width (default {DEFAULT_WIDTH})")
    group.add_argument("--pov-y", "--height", dest="pov_y", type=int, default=DEFAULT_HEIGHT,
                       metavar="PX", help=f"pictures: image height (default {DEFAULT_HEIGHT})")
    group.add_argument("--geometry", choices=("visual", "collision"), default="visual",
                       help="pictures: which geometry to draw (default visual; the HTML "
                            "viewer toggles both)")
    group.add_argument("--highlight-collisions", action="store_true",
                       help="pictures and SVG: colour the frames of colliding pairs red and "
                            "name the pairs in a legend")
    group.add_argument("--config", metavar="FILE",
                       help="pictures and SVG: configuration file, NAME=VALUE lines; --var "
                            "wins")


@record(frozen=True)
class PictureOptions:
    """The options every picture format reads (built once per output by from_args)."""

    configuration: dict[str, float] = field(default_factory=dict)  # --config, then --var
    config_names: tuple[tuple[str, SourcePos], ...] = ()  # --config's names, where given
    eye: tuple[float, float, float] | None = None
    look: tuple[float, float, float] | None = None
    up: tuple[float, float, float] = DEFAULT_UP
    fov: float = DEFAULT_FOV
    width: int = DEFAULT_WIDTH
    height: int = DEFAULT_HEIGHT
    geometry: str = "visual"
    highlight: bool = False

    @classmethod
    def from_args(cls, ns: argparse.Namespace, sink: DiagnosticSink) -> PictureOptions:
        """The picture options of the command line; bad values are errors (then stop)."""
        config: dict[str, float] = {}
        names: tuple[tuple[str, SourcePos], ...] = ()
        if ns.config is not None:
            from robrayc.configuration import read_config_file

            given = read_config_file(ns.config, sink)
            config = {name: value for name, (value, _) in given.items()}
            names = tuple((name, pos) for name, (_, pos) in given.items())
        config.update(ns.configuration or {})
        for name, value in (("--pov-x", ns.pov_x), ("--pov-y", ns.pov_y)):
            if not 1 <= value <= 16384:
                sink.error(f"{name} must be between 1 and 16384 pixels, got {value}", NOWHERE)
        if not (math.isfinite(ns.fov) and 0 < ns.fov < 180):
            sink.error(f"--fov must be between 0 and 180 degrees, got {ns.fov!r}", NOWHERE)
        if math.hypot(*ns.cam_up) == 0:
            sink.error("--cam-up must not be the zero vector", NOWHERE)
        if ns.cam_eye is not None and ns.cam_eye == ns.cam_look:
            sink.error("--cam-eye and --cam-look are the same point", NOWHERE)
        sink.check()
        return cls(config, names, ns.cam_eye, ns.cam_look, tuple(ns.cam_up), ns.fov, ns.pov_x,
                   ns.pov_y, ns.geometry, ns.highlight_collisions)


def for_scene(opts: PictureOptions, scene: ir.Scene, sink: DiagnosticSink) -> PictureOptions:
    """The options, once --config's names are checked against the scene's variables (--var's
    are checked by the command line for every format)."""
    if opts.config_names:
        from robrayc.configuration import check_variables

        check_variables(dict(opts.config_names), scene.variables, sink)
        sink.check()
    return opts


# --- posed geometry -----------------------------------------------------------------------------
@record(frozen=True)
class Posed:
    """One geometry of one frame, with the frame's world transform (4x4 numpy array)."""

    frame: ir.Frame
    index: int  # the geometry's index in its frame
    geometry: ir.Geometry
    world: object  # (4, 4) numpy array
    highlight: bool = False

    @property
    def color(self) -> ir.Vec3:
        return HIGHLIGHT if self.highlight else self.geometry.color


def wanted(g: ir.Geometry, kind: str) -> bool:
    return g.collision if kind == "collision" else g.visual


def frame_transforms(scene: ir.Scene, config: dict[str, float]) -> dict[str, object]:
    """Every frame's world transform through the kinematics module."""
    from robrayc.kinematics import fk

    return fk(scene, config)


def posed_geometries(scene: ir.Scene, opts: PictureOptions, highlighted: set[str],
                     kind: str | None = None) -> list[Posed]:
    """The geometries to draw (visual or collision, as asked), in frame order."""
    tfs = frame_transforms(scene, opts.configuration)
    kind = kind or opts.geometry
    return [Posed(f, i, g, tfs[f.name], f.name in highlighted)
            for f in scene.frames for i, g in enumerate(f.geometries) if wanted(g, kind)]


# --- collision overlay --------------------------------------------------------------------------
def colliding_pairs(scene: ir.Scene, opts: PictureOptions, sink: DiagnosticSink
                    ) -> list[tuple[str, str]]:
    """The exact checker's colliding frame pairs at the picture's configuration ([] unless
    --highlight-collisions)."""
    if not opts.highlight:
        return []
    from robrayc.analysis.collision import CollisionChecker

    checker = CollisionChecker(scene, sink)
    sink.check()
    return [tuple(p) for p in checker.colliding_pairs(opts.configuration)]  # type: ignore[misc]


def highlighted_frames(pairs: list[tuple[str, str]]) -> set[str]:
    return {name for pair in pairs for name in pair}


def pair_label(pair: tuple[str, str], links: dict[str, str] | None = None) -> str:
    """A colliding frame pair as a legend names it: by robot links when the scene names them
    (`robrayc.links.frame_links`), else by frames."""
    a, b = link_pair(pair, links)
    return f"{a} <-> {b}"


# --- triangles ----------------------------------------------------------------------------------
def _box(shape: ir.Box, sink: DiagnosticSink, g: ir.Geometry):
    import numpy as np

    d = np.array(shape.dimension, dtype=float) / 2
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    faces = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                      [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    return corners * d, faces


def _sphere(shape: ir.Sphere, sink: DiagnosticSink, g: ir.Geometry):
    import numpy as np

    n = SPHERE_BANDS
    theta = np.linspace(0, math.pi, n + 1)[1:-1]
    phi = np.arange(2 * n) * (math.pi / n)
    ring = np.stack([np.outer(np.sin(theta), np.cos(phi)), np.outer(np.sin(theta), np.sin(phi)),
                     np.outer(np.cos(theta), np.ones_like(phi))], -1).reshape(-1, 3)
    verts = np.vstack([[0, 0, 1], ring, [0, 0, -1]]) * abs(shape.radius)
    m, last = 2 * n, len(ring) + 1
    faces = [[0, 1 + j, 1 + (j + 1) % m] for j in range(m)]
    for i in range(n - 2):
        for j in range(m):
            a, b = 1 + i * m + j, 1 + i * m + (j + 1) % m
            faces += [[a, a + m, b + m], [a, b + m, b]]
    base = 1 + (n - 2) * m
    faces += [[last, base + (j + 1) % m, base + j] for j in range(m)]
    return verts, np.array(faces)


def _cylinder(shape: ir.Cylinder, sink: DiagnosticSink, g: ir.Geometry):
    from robrayc.analysis.footprints import frustum_mesh

    return frustum_mesh(shape.height, shape.radius, shape.radius, ROUND_SEGMENTS)


def _cone(shape: ir.Cone, sink: DiagnosticSink, g: ir.Geometry):
    from robrayc.analysis.footprints import frustum_mesh

    return frustum_mesh(shape.height, shape.start_radius, shape.end_radius, ROUND_SEGMENTS)


def _mesh(shape: ir.Mesh, sink: DiagnosticSink, g: ir.Geometry):
    from robrayc.meshes import load_mesh

    data = load_mesh(shape, sink, g.pos)
    return data.vertices, data.faces


def grid_bars(shape: ir.Grid) -> list[tuple[tuple[float, float, float], tuple[float, float,
                                                                                float]]]:
    """The grid's lines as thin boxes (centre, size), as amino's grid-mesh draws them: lines
    every `delta` from the centre out to `dimension`, `thickness` wide on each side."""
    (dx, dy), (sx, sy), t = shape.dimension, shape.delta, shape.thickness
    bars = []
    for step, reach, length, along_x in ((sx, dx, dy, False), (sy, dy, dx, True)):
        if step <= 0:
            continue
        k_max = int(math.floor(abs(reach) / step + 1e-9))
        for k in range(-k_max, k_max + 1):
            c = k * step
            if along_x:
                bars.append(((0.0, c, 0.0), (2 * (abs(length) + t), 2 * t, t)))
            else:
                bars.append(((c, 0.0, 0.0), (2 * t, 2 * (abs(length) + t), t)))
    return bars


def _grid(shape: ir.Grid, sink: DiagnosticSink, g: ir.Geometry):
    import numpy as np

    verts, faces = [], []
    for centre, size in grid_bars(shape):
        v, f = _box(ir.Box(size), sink, g)
        faces.append(f + 8 * len(verts))
        verts.append(v + np.array(centre))
    if not verts:
        return np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64)
    return np.vstack(verts), np.vstack(faces)


TRIANGLES: dict[type, Callable] = {
    ir.Box: _box, ir.Sphere: _sphere, ir.Cylinder: _cylinder, ir.Cone: _cone,
    ir.Mesh: _mesh, ir.Grid: _grid,
}


def triangles(g: ir.Geometry, sink: DiagnosticSink):
    """(vertices, faces) of a geometry in its frame, scale applied."""
    verts, faces = ir.handler(TRIANGLES, g.shape)(g.shape, sink, g)
    return verts * g.scale, faces


# --- camera -------------------------------------------------------------------------------------
@record(frozen=True)
class Camera:
    eye: tuple[float, float, float]
    look: tuple[float, float, float]
    up: tuple[float, float, float]
    fov: float  # horizontal, degrees
    width: int
    height: int


FRAMING_POINTS = 2000  # per mesh: enough to frame it, few enough to frame a robot at once


def _framing_points(g: ir.Geometry, sink: DiagnosticSink):
    """Points of a solid in its frame for framing the camera: a mesh's vertices thinned to
    about FRAMING_POINTS (its extreme vertices along each axis always kept), the exact
    hull points of the other shapes."""
    import numpy as np

    from robrayc.analysis.footprints import solid_points

    if isinstance(g.shape, ir.Grid):  # amino draws grids to +-dimension
        return triangles(g, sink)[0]
    pts = solid_points(g, sink, 16)
    if isinstance(g.shape, ir.Mesh) and len(pts) > FRAMING_POINTS:
        extremes = np.concatenate([pts.argmin(axis=0), pts.argmax(axis=0)])
        pts = np.vstack([pts[:: -(-len(pts) // FRAMING_POINTS)], pts[extremes]])
    return pts


def world_points(posed: list[Posed], sink: DiagnosticSink):
    """Points whose hull holds (meshes: nearly) every drawn solid, in world coordinates."""
    import numpy as np

    chunks = []
    for p in posed:
        pts = _framing_points(p.geometry, sink)
        if len(pts):
            w = np.asarray(p.world)
            chunks.append(pts @ w[:3, :3].T + w[:3, 3])
    return np.vstack(chunks) if chunks else np.zeros((0, 3))


def _image_axes(d, up):
    import numpy as np

    right = np.cross(d, up)
    if np.linalg.norm(right) < 1e-12:
        right = np.cross(d, [0.0, 1.0, 0.0])
    right /= np.linalg.norm(right)
    return right, np.cross(right, d)


def _fit(pts, look, d, up, opts: PictureOptions, move_look: bool):
    """(look, distance): how far from the look-at point along d the eye must be for every
    point to fall inside the image with a 5 % margin; when the look-at point is free, it is
    moved (a few rounds) so that the picture of the points is centred despite perspective."""
    import numpy as np

    right, upv = _image_axes(d, up)
    tan_h = math.tan(math.radians(opts.fov) / 2) * 0.95
    tan_v = tan_h * opts.height / opts.width
    distance = 1.0
    for _ in range(4 if move_look else 1):
        rel = pts - look
        z = rel @ d
        x, y = rel @ right, rel @ upv
        distance = max(float((np.maximum(np.abs(x) / tan_h, np.abs(y) / tan_v) + z).max()),
                       float(z.max()) + 1e-3, 1e-3)
        if not move_look:
            break
        depth = distance - z
        sx, sy = x / depth, y / depth
        look = look + (right * (sx.max() + sx.min()) / 2
                       + upv * (sy.max() + sy.min()) / 2) * distance
    return look, distance


def camera_for(posed: list[Posed], opts: PictureOptions, sink: DiagnosticSink) -> Camera:
    """The camera the options ask for; what they leave open frames every drawn solid: the
    look-at point is the centre of their bounding box, the eye far enough along the view
    direction that all of them fit the image."""
    import numpy as np

    pts = world_points(posed, sink)
    if len(pts):
        lo, hi = pts.min(axis=0), pts.max(axis=0)
    else:
        lo, hi = np.full(3, -0.5), np.full(3, 0.5)
    centre = (lo + hi) / 2
    look = np.array(opts.look if opts.look is not None else centre, dtype=float)
    up = np.array(opts.up, dtype=float)
    if opts.eye is not None:
        eye = np.array(opts.eye, dtype=float)
    else:
        d = np.array(VIEW_DIRECTION) / np.linalg.norm(VIEW_DIRECTION)
        if len(pts):
            look, distance = _fit(pts, look, d, up, opts, opts.look is None)
        else:
            distance = 3.0
        eye = look + d * distance
    if np.linalg.norm(np.cross(eye - look, up)) < 1e-12 * max(np.linalg.norm(eye - look), 1):
        up = np.array([0.0, 1.0, 0.0]) if abs(up[2]) > abs(up[1]) else np.array([0, 0, 1.0])
    return Camera(tuple(eye.tolist()), tuple(look.tolist()), tuple(up.tolist()),
                  opts.fov, opts.width, opts.height)


# --- 2D views -----------------------------------------------------------------------------------
# Rows: the picture's right, up and towards-the-viewer directions in world coordinates.
VIEWS: dict[str, tuple[ir.Vec3, ir.Vec3, ir.Vec3]] = {
    "top": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),  # from +Z: X right, Y up
    "front": ((0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (1.0, 0.0, 0.0)),  # from +X: Y right, Z up
    "side": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.0, -1.0, 0.0)),  # from -Y: X right, Z up
}
VIEW_AXES = {"top": ("X", "Y"), "front": ("Y", "Z"), "side": ("X", "Z")}


def viewed_scene(scene: ir.Scene, view: str) -> ir.Scene:
    """The scene turned so that the view's right/up/towards-viewer axes become X/Y/Z: a new
    top-level frame holds the rotation (a 2D projection onto XY is then that view)."""
    from robrayc.kinematics import matrix_to_quat
    from robrayc.records import replace

    if view == "top":
        return scene
    name = "robrayc-view"
    while scene.has_frame(name):
        name += "_"
    turn = ir.Frame(name, quaternion=matrix_to_quat(VIEWS[view]))
    frames = (turn,) + tuple(  # top-level: no parent, or the --root frame outside the scene
        replace(f, parent=name) if f.parent is None or not scene.has_frame(f.parent) else f
        for f in scene.frames)
    return replace(scene, frames=frames)
