"""Collision checking of a scene's collision geometry: exact shapes, vectorised, batched.

Build a :class:`CollisionChecker` once from a Scene, then ask which frame pairs collide at one
configuration (:meth:`~CollisionChecker.colliding_pairs`) or at many (an ``(N, dof)`` array:
:meth:`~CollisionChecker.colliding_pairs_batch`, :meth:`~CollisionChecker.collision_matrix`), or
for signed distances (:meth:`~CollisionChecker.distance`, :meth:`~CollisionChecker.closest`).

What is checked (amino's rules, ``amino_fcl.cpp``, except where noted):
- one solid per geometry with ``collision`` non-zero; grids are ignored;
- several solids on one frame are never checked against each other; a frame pair collides when
  any of their solids do (its distance is the minimum);
- pairs named by ``allow_collision`` are skipped; parent/child pairs are NOT (as amino);
- placement: box and sphere centred on the frame origin; cylinder and cone from the origin along
  +Z for ``height`` (a negative height extends along -Z); ``scale`` multiplies every dimension
  (amino shifts a scaled cylinder by the UNSCALED height/2, a bug not copied);
- cones are checked exactly (amino skips them): a cone with one zero radius is FCL's Cone; a
  frustum (two different non-zero radii), which FCL lacks, goes to an exact GJK on its support
  function (the convex hull of its two rim circles), never a polygonal stand-in;
- meshes are FCL BVH triangle soups (OBBRSS): only surfaces collide, so a solid wholly inside a
  closed mesh does not collide (as amino).

How one check runs:
1. Kinematics. Frames fall into rigid groups (a joint frame with the fixed frames under it, or
   the world). Only group transforms are computed per configuration, vectorised over
   configurations. Solid pairs within one group never move relative to each other: they are
   checked once, when the checker is built.
2. Broad phase. Up to ``DENSE_MAX_PAIRS`` moving solid pairs (robots): every pair's bounding
   spheres at once, vectorised over pairs and configurations. More (big scenes): per
   configuration, bounding spheres whose centres are near on a hashed grid (:func:`sphere_pairs`
   over :func:`radius_pairs`, numpy only, the fastest measured: a uniform grid and sweep and
   prune over world AABBs took 2.4-36x its time and were removed), and
   ``benchmarks/collision.py`` measures it against FCL's dynamic AABB tree.
3. Narrow phase, vectorised over candidate pairs. Closed-form exact tests where they exist:
   sphere-sphere, sphere-box, sphere against a cylinder/cone/frustum (a 2-D distance in the
   meridian plane), box-box (the 15-axis separating-axis theorem). When many other pairs are
   left (at least ``_VECTOR_MIN``), certificates decide most of them: a separating axis (the
   oriented boxes' 15 axes, the line between the solids' core segments, the line between
   centres, the line after one alternating projection, each checked with exact support
   functions) proves a pair apart; a point deeper than CONTACT_TOL in both (closed-form signed
   distances) or overlapping inscribed capsules prove it colliding. The pairs left go one by
   one to FCL (cylinders, cones, meshes) or to the exact GJK (frusta): the only Python loop
   over pairs, and only over the undecided ones.

Contact: solids collide when they overlap by more than CONTACT_TOL (1e-9, scene units;
``tolerance.py``, shared with the C kernel), so touching is not colliding. That keeps designed
contacts (links meeting end to end, a finger base resting on a palm, a box on a table) from
flickering with rounding; FCL's own sphere/box routines (and so amino) count exact contact as
colliding. FCL's GJK/MPR (libccd, python-fcl's solver; its tolerance is not exposed) misses
overlaps up to about a micrometre between cylinders, cones, boxes and meshes, so a pair FCL
calls apart is believed only when a separating axis (exact support functions; for a mesh
against a solid, per triangle) shows it overlapping by at most CONTACT_TOL; the others get the
exact GJK on support functions, which calls a pair apart only with a separating plane in hand,
or along an axis that leaves an overlap of at most CONTACT_TOL. A mesh (a surface) touching a
solid within CONTACT_TOL may be reported colliding.
``distance()`` is on the side of 0 the collision test says (<= 0 colliding, >= 0 not).

Modules: ``solids`` (the solids and their constants), ``closed_form`` (vectorised closed forms
and the SAT), ``gjk`` (the scalar GJK), ``narrow`` (the pair tester), ``broadphase`` (broad
phases, PoseChecker), ``checker`` (CollisionChecker); ``compiled`` (the generated C kernel),
``cells`` (its certified cells), ``triangles`` (triangle trees for its exact proofs).
"""

from robrayc.analysis.collision.broadphase import (
    BROADPHASES,
    PoseChecker,
    candidates,
    radius_pairs,
    sphere_pairs,
)
from robrayc.analysis.collision.checker import (
    BLOCK,
    DENSE_MAX_PAIRS,
    CollisionChecker,
    Config,
    PairDistance,
    collision_frames_of,
)
from robrayc.analysis.collision.closed_form import (
    box_distance,
    round_distance,
    sat_separated,
    segment_closest,
    segment_distance2,
)
from robrayc.analysis.collision.gjk import gjk
from robrayc.analysis.collision.narrow import PairTester
from robrayc.analysis.collision.obstacles import Box, Capsule, Cylinder, PointCloud, Sphere
from robrayc.analysis.collision.solids import (
    BOX,
    CONE,
    CONTACT_TOL,
    CYLINDER,
    FRUSTUM,
    KIND_NAMES,
    MESH,
    ROUND,
    SPHERE,
    Solid,
    Solids,
    solid_from_shape,
)

__all__ = [
    "BLOCK", "BOX", "Box", "Capsule", "Cylinder", "PointCloud", "Sphere",
    "BROADPHASES", "CONE", "CONTACT_TOL", "CYLINDER", "DENSE_MAX_PAIRS", "FRUSTUM",
    "KIND_NAMES", "MESH", "ROUND", "SPHERE", "CollisionChecker", "Config", "PairDistance",
    "PairTester", "PoseChecker", "Solid", "Solids", "box_distance", "candidates",
    "collision_frames_of", "gjk", "round_distance", "sat_separated",
    "radius_pairs", "segment_closest", "segment_distance2", "solid_from_shape", "sphere_pairs",
]
