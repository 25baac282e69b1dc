"""An environment scene as run-time obstacles: the collision geometry of a loaded scene (any
format robrayc reads) at its world poses, as the shapes ``CollisionChecker.set_obstacles``
takes (robrayc.analysis.collision.obstacles).

Each collision geometry becomes, at the scene's zero configuration (the pose `collide` checks
when no variable is given):
- a box, sphere or cylinder (a cone of equal radii too): the same shape, exactly;
- a cone, a frustum or a mesh, which the run-time obstacles cannot hold: its certified sphere
  cover (robrayc.analysis.spheres: every point of the solid, or of every triangle of the mesh,
  lies in a sphere), a PointCloud with one radius a sphere. The cover reaches at most its
  overshoot beyond the solid: an answer may be COLLIDES where the exact shape is free, never
  the reverse (a mesh is its triangles, as the checker tests a mesh in a scene).
Geometry that the checker never tests (visual only, grids) is not an obstacle either.
"""

from __future__ import annotations

import numpy as np

from robrayc import ir
from robrayc.analysis.collision.obstacles import Box, Cylinder, PointCloud, Shape, Sphere
from robrayc.analysis.collision.solids import BOX, CYLINDER, SPHERE, Solid, solid_from_shape
from robrayc.diagnostics import DiagnosticSink, SourcePos
from robrayc.records import record

# The cell edge of the sphere covers of meshes and cones, in scene units (2 cm in metres).
DEFAULT_COVER_SIZE = 0.02


@record(frozen=True)
class SceneObstacle:
    """One obstacle shape, the frame it came from and where the scene wrote its geometry;
    ``overshoot``: how far a sphere cover reaches beyond its solid (0 for an exact shape)."""

    shape: Shape
    frame: str
    pos: SourcePos
    overshoot: float = 0.0


def scene_obstacles(scene: ir.Scene, sink: DiagnosticSink,
                    cover_size: float = DEFAULT_COVER_SIZE) -> list[SceneObstacle]:
    """Every collision geometry of ``scene`` as run-time obstacles (see the module docstring);
    a mesh that cannot be read is an error in ``sink`` (CompileError)."""
    from robrayc.kinematics import fk
    from robrayc.meshes import load_mesh

    world = fk(scene)
    out: list[SceneObstacle] = []
    for frame in scene.frames:
        for g in frame.geometries:
            if not g.collision or isinstance(g.shape, ir.Grid):
                continue
            data = load_mesh(g.shape, sink, g.pos) if isinstance(g.shape, ir.Mesh) else None
            solid = solid_from_shape(g.shape, g.scale, mesh_data=data)
            pose = world[frame.name] @ solid.placement
            shape, overshoot = _shape(solid, pose, cover_size)
            out.append(SceneObstacle(shape, frame.name, g.pos, overshoot))
    return out


def _shape(solid: Solid, pose: np.ndarray, cover_size: float) -> tuple[Shape, float]:
    """One solid at its world pose as a run-time shape, and its overshoot."""
    centre, rotation = tuple(pose[:3, 3].tolist()), pose[:3, :3]
    a, b, c = solid.params
    if solid.kind == BOX:
        return Box(centre=centre, half_extents=(a, b, c), rotation=rotation), 0.0
    if solid.kind == SPHERE:
        return Sphere(centre=centre, radius=a), 0.0
    if solid.kind == CYLINDER:
        return Cylinder(centre=centre, radius=a, half_length=c, rotation=rotation), 0.0
    from robrayc.analysis.spheres import cover

    spheres = cover(solid, cover_size).placed(pose)
    return PointCloud(points=spheres.centres, radius=spheres.radii), float(spheres.overshoot)
