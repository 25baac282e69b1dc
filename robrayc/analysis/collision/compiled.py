"""The compiled checker: C generated from an exact checker's solids, pairs and rigid groups
(certified sphere trees with oriented leaf boxes, float32 tests, exact sphere/box closed forms),
built by the system C compiler on first use and cached by content hash; the exact checker
resolves what the trees leave open (MAYBE), so the answers are the exact checker's.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from robrayc.analysis.collision.c_build import (
    CompilerMissing,
    build_parts,
    checker_text,
    open_library,
    python_caller,
    start_extension,
    start_object,
)
from robrayc.analysis.collision.c_environment import KernelEnvironment
from robrayc.analysis.collision.c_pairs import CollisionChecker, pair_tables
from robrayc.analysis.collision.cells import cell_tables, empty_tables
from robrayc.analysis.collision.closed_form import _EPS_SAT
from robrayc.analysis.collision.solids import BOX, CONE, CYLINDER, FRUSTUM, SPHERE
from robrayc.analysis.collision.tolerance import CONTACT_TOL
from robrayc.analysis.collision.triangles import c_tables as triangles_c_tables
from robrayc.analysis.collision.triangles import triangle_trees
from robrayc.ctext import c_doubles
from robrayc.records import record

# Target sphere cell edge, as a fraction of the scene's largest solid: ~the size VAMP's fits use.
DEFAULT_SPHERE_FRACTION = 0.08
# Radii and box half extents grow by _MARGIN x X to absorb float32 rounding, X the largest
# coordinate the kernel's float tests see (c_model's reach: group origins within GROUP_REACH,
# solids within SOLID_REACH of them; past it the kernel grows its world-frame tests, see
# "precision" in robrayc/c/checker_kernel.c). With u = 2^-24 (float32's unit roundoff): a
# centre stored as float is off by <= sqrt(3) u X (its radius is not grown for it); a
# transform rounded from double (`relative`) by u per rotation entry and 2 u X per coordinate
# of its translation (a pair that can touch has its group origins within 2X); `apply` (three
# products and three sums) adds <= 4 u (3X + 2X) per coordinate, so a moved centre is off by
# <= sqrt(3) (20 + 3 + 2) u X ~ 43 u X; the comparison after it (a squared distance or a
# box's, against a squared radius) by <= ~7 u X. The longest chain (`tree_solid`, `tree_tree`:
# a node moved into the other's frame, then compared) loses <= ~55 u X, below 4e-6 X = 67 u X
# (and a tree against a tree has two grown radii). The separating-axis tests' own 1e-6 on
# |R_ij| (checker_kernel.c, `sat1`) covers the rotations' rounding (<= ~4 u = 2.4e-7 an entry).
# tests/test_far_coordinates.py checks the kernel against python-fcl at 1e3..1e7.
_MARGIN = 4e-6
FREE, COLLIDES, MAYBE = 0, 1, 2
INVALID = 3  # CHECKER_INVALID: no answer (a value not finite, poses past 1e18)
# Leaf pairs (two ints each) the triangle proofs keep open across the boxes being split.
TRIANGLE_WORK = 1 << 22


def _f32_up(x) -> np.ndarray:
    """The float32 at or above each element of x (as doubles)."""
    x = np.asarray(x, dtype=float)
    f = x.astype(np.float32)
    return np.where(f.astype(float) >= x, f, np.nextafter(f, np.float32(np.inf))).astype(float)


def _floats(values) -> str:
    from robrayc.ctext import c_float

    return ", ".join(c_float(v) for v in values)


def _pose12(m: np.ndarray) -> list[float]:
    return [*m[:3, :3].ravel().tolist(), *m[:3, 3].tolist()]


def sphere_size(checker: CollisionChecker, size: float | None) -> float:
    if size is not None:
        return size
    half = checker.solids.half
    return DEFAULT_SPHERE_FRACTION * 2 * float(half.max()) if len(half) else 1.0


def c_model(checker: CollisionChecker, name: str, size: float | None = None,
            trees: set[int] | None = None, texts: bool = True) -> dict:
    """The c_checker templates' variables for a dense-mode exact checker (with trees: only
    those solids get sphere trees, the others their bounding sphere alone). The trees are
    also there as arrays ("trees"); without texts, only so (a certifying build binds them)."""
    from robrayc import __version__
    from robrayc.analysis.collision.c_kinematics import fk_code, travel_code
    from robrayc.ctext import c_comment, c_string

    if checker.mode != "dense":
        raise ValueError("the compiled checker needs a robot-sized scene (dense mode)")
    s = checker.solids
    size = sphere_size(checker, size)
    motions = checker.motions
    # every group origin within group_reach of the world origin while the joints are
    # revolute (a prismatic joint's first unit of travel too); every solid within
    # solid_reach of its group's origin
    group_reach = 1.0 + sum(float(np.abs(m[1][:3, 3]).sum()) for m in motions)
    solid_reach = max((float(np.abs(item.placement[:3, 3]).sum() + s.brad[k]) for k, item in
                       enumerate(s.items)), default=0.0)
    margin = _MARGIN * (group_reach + solid_reach)
    solids, bounds, table = _solid_tables(checker, margin, size, trees)
    names = checker.frame_pairs[:len(checker.pair_keys)]  # (not the run-time obstacles')
    const = checker._const_hit.astype(int).tolist()
    kinematics, turns = fk_code(motions)
    return {
        "version": __version__, "name": name, "linkage": "", "cells_part": "",
        "sources": c_comment(", ".join(p.rsplit("/", 1)[-1] for p in checker.scene.sources[:3])
                             or "(no files)"),
        "variables": c_comment(" ".join(checker.variables) or "(none)"),
        "n_config": len(checker.variables), "n_groups": len(motions) + 1,
        "fk_code": kinematics, "fk_turns": turns, "travel": travel_code(motions),
        "fk8_code": fk_code(motions, "[l]")[0],
        "n_solids": len(s), "n_solids_decl": max(1, len(s)), "solids": solids,
        "trees": table, **(_tree_texts(table) if texts else {}),
        "n_solid_pairs": len(checker._pi), "n_solid_pairs_decl": max(1, len(checker._pi)),
        "pairs": [f"{a}, {b}, {fp}" for a, b, fp in zip(checker._pi.tolist(),
                                                        checker._pj.tolist(),
                                                        checker._pfp.tolist(), strict=True)],
        **pair_tables(checker, bounds),
        "n_pairs": len(names), "n_pairs_decl": max(1, len(names)),
        "pair_names": [(c_string(a), c_string(b)) for a, b in names],
        "const_hit": ", ".join(map(str, const)) or "0", "any_const_hit": int(any(const)),
        "contact_tol": repr(CONTACT_TOL), "eps_sat": repr(_EPS_SAT),
        "margin": f"{margin:.3g}", "group_reach": repr(group_reach),
        "solid_reach": repr(solid_reach), "margin_rate": repr(_MARGIN),
        "group_solids": ", ".join("1" if g in set(checker.group.tolist()) else "0"
                                  for g in range(len(motions) + 1)),
        **empty_tables(len(checker._pi)), **_frame_tables(checker),
    }


def _frame_tables(checker: CollisionChecker) -> dict:
    """Every frame's name, rigid group and pose in it, and each solid's frame: where
    NAME_attach puts shapes."""
    from robrayc.ctext import c_string

    fk = checker.fk
    names = [f.name for f in checker.scene.frames]
    return {"n_frames": len(names), "n_frames_decl": max(1, len(names)),
            "frame_names": ", ".join(c_string(n) for n in names) or "0",
            "frame_group": ", ".join(str(int(g)) for g in fk.group.tolist()) or "0",
            "frame_pose": [c_doubles(_pose12(m)) for m in fk.rel],
            "solid_frame": ", ".join(map(str, checker.owner.tolist())) or "0"}


def certifying_model(checker: CollisionChecker, scale: float = 1.0,
                     solids: set[int] | None = None) -> dict:
    """c_model for the certified cells' own build (cells.prove_cells): trees of scale times
    the default sphere size (only solids get them, when given), as arrays only."""
    return c_model(checker, "rcells", sphere_size(checker, None) * scale, solids, texts=False)


def _f32(c: np.ndarray) -> np.ndarray:
    return np.asarray(c, dtype=np.float32).astype(float)


def _tree(item, size: float, margin: float, root_only: bool = False):
    """The sphere tree of one solid (its group frame): leaves are its certified spheres, radii
    grown by the margin; exact kinds (spheres, boxes), and any solid with root_only, get a
    root only, their bounding sphere. Also the cover (None for a root only), for the leaves'
    boxes."""
    from robrayc.analysis.spheres import SphereTree, cover, sphere_tree

    if item.kind in (SPHERE, BOX) or root_only:
        r = item.params[0] if item.kind == SPHERE else float(np.linalg.norm(_box_half(item)))
        return SphereTree(_f32(item.placement[:3, 3])[None], np.array([r + margin]),
                          np.zeros(1, np.int64), np.zeros(1, np.int64),
                          np.full(1, -1, np.int64)), None
    c = cover(item, size, overshoot=False).placed(item.placement)
    radii = _f32_up(c.radii + margin)
    return sphere_tree(_f32(c.centres), radii, size, rounding=_f32), c


def _box_half(item) -> list[float]:
    """Half extents of a solid's bounding box in its own frame (meshes: their AABB)."""
    a, b, c = (float(x) for x in item.params)
    if item.kind == SPHERE:
        return [a, a, a]
    if item.kind in (CYLINDER, CONE, FRUSTUM):
        return [max(a, b), max(a, b), c]
    return [a, b, c]


@record(frozen=True)
class Trees:
    """Every solid's sphere tree as the C tables hold them (float32, group frames, margin
    included): nodes (x, y, z, radius), their children (first, count; a leaf: its box in
    leaves, or -1), the leaves' boxes and each solid's bounding box (centre, rotation
    row-major, half extents), and each node's solid."""

    nodes: np.ndarray
    kids: np.ndarray
    leaves: np.ndarray
    boxes: np.ndarray
    node_solid: np.ndarray


def _solid_tables(checker: CollisionChecker, margin: float, size: float,
                  trees: set[int] | None = None) -> tuple[list[str], list[list[float]], Trees]:
    """C initialisers of the solids; each solid's bounding sphere (its tree's root: x, y, z,
    radius); and the trees."""
    s = checker.solids
    fixed = set(np.flatnonzero(checker.group == 0).tolist())
    solids, nodes, kids, bounds, leaves, boxes, owner = [], [], [], [], [], [], []
    n_nodes = n_leaves = 0
    for k, item in enumerate(s.items):
        tree, c = _tree(item, size, margin, trees is not None and k not in trees)
        radii = _f32_up(tree.radii)
        nodes.append(np.column_stack([tree.centres, radii]))
        owner.append(np.full(len(tree), k))
        kid = np.column_stack([np.where(tree.count > 0, n_nodes + tree.first, -1), tree.count])
        n_nodes += len(tree)
        if c is not None:
            at = np.flatnonzero(tree.count == 0)
            j = tree.leaf[at]
            kid[at, 0] = n_leaves + np.arange(len(at))
            n_leaves += len(at)
            leaves.append(np.column_stack([c.box_centres[j],
                                           c.box_axes[j].transpose(0, 2, 1).reshape(-1, 9),
                                           _f32_up(c.box_half[j] + margin)]))
        kids.append(kid)
        root = n_nodes - len(tree)
        bound = [*tree.centres[0].tolist(), float(radii[0])]
        bounds.append(bound)
        boxes.append([*item.placement[:3, 3], *item.placement[:3, :3].ravel(),
                      *_f32_up(np.array(_box_half(item)) + margin).tolist()])
        # the exact kinds: 0 sphere, 1 box, -2 cylinder (convex.c), -1 its sphere tree only
        exact = {SPHERE: 0, BOX: 1, CYLINDER: -2}.get(item.kind, -1)
        half = s.par[k] if item.kind != SPHERE else (s.par[k, 0], 0.0, 0.0)
        solids.append(f"{int(checker.group[k])}, {exact}, {int(exact == 1 and k in fixed)}, "
                      f"{root}, {{ {_floats(bound)} }}, "
                      f"{{ {c_doubles(_pose12(item.placement))} }}, {{ {c_doubles(half)} }}, "
                      f"{{ {c_doubles(_box_half(item))} }}")
    table = Trees(np.concatenate(nodes or [np.zeros((0, 4))]).astype(np.float32),
                  np.concatenate(kids or [np.zeros((0, 2))]).astype(np.int32),
                  np.concatenate(leaves or [np.zeros((0, 15))]).astype(np.float32),
                  np.array(boxes, np.float32).reshape(-1, 15),
                  np.concatenate(owner or [np.zeros(0)]).astype(np.int64))
    return solids, bounds, table


def _tree_texts(t: Trees) -> dict:
    """The templates' tree tables."""
    return {"n_nodes_decl": max(1, len(t.nodes)), "n_leaves_decl": max(1, len(t.leaves)),
            "nodes": [_floats(row) for row in t.nodes.tolist()],
            "kids": [f"{a}, {b}" for a, b in t.kids.tolist()],
            "leaves": [_floats(row) for row in t.leaves.tolist()],
            "boxes": [_floats(row) for row in t.boxes.tolist()]}


def c_source(checker: CollisionChecker, name: str, size: float | None = None,
             include: str | None = None, cells: bool = True,
             triangles: bool = False, mesh_tests: bool = True) -> tuple[str, str]:
    """(C source, header) of the compiled checker; the source includes ``include`` or, when
    None, holds the header inline. With cells (and a C compiler), pairs of one to three
    variables get tables of certified cells (robrayc.analysis.collision.cells). With
    triangles, it also holds the exact proofs on triangle trees bound at run time
    (``NAME_tbind``, ``NAME_tprove``: robrayc.analysis.collision.triangles); else, with
    mesh_tests, the meshes' triangles as static tables (robrayc/c/meshes.c decides the pairs
    with meshes that the sphere trees leave open; without, they stay MAYBE)."""
    from robrayc.ctext import c_identifier
    from robrayc.templating import render

    model = c_model(checker, name, size)
    model["upper"] = name.upper()
    model["guard"] = c_identifier(include or name + ".h").upper() + "_"
    if cells:
        model.update(cell_tables(checker, model, certifying_model))
    if mesh_tests and not triangles:
        model.update(triangles_c_tables(triangle_trees(checker)))
    header = render("c_checker.h.j2", model)
    return checker_text(model, include, header, triangles), header


def kernel_library(checker: CollisionChecker, size: float | None, cells: bool) -> Path:
    """The shared library of a Kernel (named rc, its triangles bound at run time), built in
    two parts (c_build.build_parts): its code, then its cell tables (none without cells).
    When the cells are to be proven, the code compiles meanwhile, and pycall.c's extension
    too (on two cores, UR5's checker is ready ~4 s sooner)."""
    from robrayc.analysis.collision import cells as cell_proofs
    from robrayc.templating import render

    model = c_model(checker, "rc", size)
    model.update(upper="RC", guard="RC_H_")
    header = render("c_checker.h.j2", model)

    def part(name: str, tables: dict) -> str:
        return checker_text({**model, **tables, "cells_part": name}, None, header, True)

    code = part("code", empty_tables(len(checker._pi)))
    path, tables = (cell_proofs.cached_cell_tables(checker, model, certifying_model) if cells
                    else (None, empty_tables(len(checker._pi))))
    if tables is not None:
        return build_parts(code, part("tables", tables))
    started = start_object(code)
    try:
        start_extension()
        tables = cell_proofs.proven_cell_tables(checker, model, certifying_model, path)
    except BaseException:
        started.close()
        raise
    return build_parts(code, part("tables", tables), started)


class Kernel:
    """A loaded compiled checker: solid-pair states for blocks of configurations."""

    def __init__(self, checker: CollisionChecker, size: float | None = None,
                 cells: bool = True) -> None:
        self.lib = open_library(kernel_library(checker, size, cells))
        self._triangles = None  # the bound arrays, kept alive while the library reads them
        self._work: np.ndarray | None = None  # the triangle proofs' work space
        self.n_config = len(checker.variables)
        self.n_groups = len(checker.motions) + 1
        self._scratch: np.ndarray | None = None
        self.n_pairs = len(checker._pi)
        f = self.lib.rc_solid_states
        f.argtypes = (ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p)
        f.restype = None
        self._states = f
        g = self.lib.rc_check
        g.argtypes = (ctypes.c_void_p,)
        g.restype = ctypes.c_int
        self._check = g
        self._bind_motions()
        # what the library reads in place (global to it, shared by every checker of the same
        # robot): the run-time obstacles, witness points and triangle trees, bound again
        # before a call when another checker's were the last (KernelEnvironment.own)
        self.env = KernelEnvironment(self.lib)
        self.env.bind_witnesses(checker.solids)
        self._bind_trees(checker)
        self.caller = python_caller(self)  # one configuration or motion a Python call

    def set_environment(self, obstacles, attached: dict) -> None:
        """The run-time obstacles (obstacles.Packed) and attached shapes ({frame index:
        (Packed, touch frame indices)}) into the C."""
        self.env.set(obstacles, attached)

    def _bind_motions(self) -> None:
        """The batch and motion entry points (robrayc/c/motions.c), and the buffers a call of
        one configuration or motion copies into (taking an array's address costs more than
        the check)."""
        lib, ptr, long_ = self.lib, ctypes.c_void_p, ctypes.c_long
        for name, args, result in (
                ("rc_check_batch", (ptr, long_, ptr), long_),
                ("rc_check_motion", (ptr, ptr, ctypes.c_double), ctypes.c_int),
                ("rc_check_motions", (ptr, ptr, long_, ctypes.c_double, ptr), long_),
                ("rc_motion_samples", (ptr, ptr, ctypes.c_double), long_),
                ("rc_motion_configs", (ptr, ptr, ctypes.c_double, ptr), long_)):
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = args, result
        self._one = (ctypes.c_double * max(1, self.n_config))()
        self._two = (ctypes.c_double * max(1, self.n_config))()
        self._one_at, self._two_at = ctypes.addressof(self._one), ctypes.addressof(self._two)
        # their views as doubles: a float64 vector copies into one 4x as fast as item by item
        self._views = {id(b): memoryview(b).cast("B").cast("d") for b in (self._one, self._two)}

    def states(self, q: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
        """(N, solid pairs) uint8 states (FREE, COLLIDES, MAYBE) for configurations q; solid
        pairs with active False are skipped (FREE)."""
        return self._state_bytes(q, active)[:q.shape[0] * max(1, self.n_pairs)].reshape(
            q.shape[0], max(1, self.n_pairs))[:, :self.n_pairs]

    def open_states(self, q: np.ndarray, active: np.ndarray | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The entries of states(q, active) that are not FREE, in row order: configurations,
        solid pairs and states. Found 8 bytes at a time: most are FREE."""
        buf = self._state_bytes(q, active, scratch=True)
        words = np.flatnonzero(buf.view(np.uint64))
        inner = np.flatnonzero(buf.reshape(-1, 8)[words])
        at = words[inner // 8] * 8 + inner % 8
        width = max(1, self.n_pairs)
        return at // width, at % width, buf[at]

    def _state_bytes(self, q: np.ndarray, active: np.ndarray | None,
                     scratch: bool = False) -> np.ndarray:
        """The states as flat bytes, zero-padded to a multiple of 8; with scratch, in the
        kernel's own buffer, overwritten by the next such call (a sampler's batches need not
        have the system zero fresh pages for each)."""
        q = np.ascontiguousarray(q, dtype=np.float64)
        size = q.shape[0] * max(1, self.n_pairs)
        words = -(-size // 8) * 8
        if not scratch:
            out = np.empty(words, dtype=np.uint8)
        else:
            if self._scratch is None or len(self._scratch) < words:
                self._scratch = np.empty(words, dtype=np.uint8)
            out = self._scratch[:words]
        out[size:] = 0
        mask = None if active is None else np.ascontiguousarray(active, dtype=np.uint8)
        self.env.own()
        self._states(q.ctypes.data, q.shape[0], None if mask is None else mask.ctypes.data,
                     out.ctypes.data)
        return out

    def group_poses(self, q: np.ndarray) -> np.ndarray:
        """(N, groups, 4, 4): the world pose of every rigid group, by the generated
        kinematics (what CollisionChecker.group_poses computes, without numpy's per-joint
        calls: a few configurations cost microseconds, not a millisecond)."""
        q = np.ascontiguousarray(q, dtype=np.float64)
        flat = np.empty((q.shape[0], self.n_groups, 12))
        self.lib.rc_group_poses(q.ctypes.data_as(ctypes.c_void_p), ctypes.c_long(q.shape[0]),
                                flat.ctypes.data_as(ctypes.c_void_p))
        out = np.zeros((q.shape[0], self.n_groups, 4, 4))
        out[..., :3, :3] = flat[..., :9].reshape(q.shape[0], self.n_groups, 3, 3)
        out[..., :3, 3] = flat[..., 9:]
        out[..., 3, 3] = 1.0
        return out

    def check(self, q: np.ndarray) -> int:
        q = np.ascontiguousarray(q, dtype=np.float64)
        self.env.own()
        return int(self._check(q.ctypes.data))

    def _copy(self, buffer, config) -> bool:
        """config (a sequence of n_config numbers) into a buffer; False when it is not one."""
        try:
            self._views[id(buffer)][:] = config  # a float64 vector of n_config, by its buffer
            return True
        except (TypeError, ValueError):
            pass
        try:
            buffer[:] = config
        except (TypeError, ValueError):
            return False
        return True

    def check_one(self, config) -> int:
        """NAME_check of one configuration given as any sequence of n_config numbers (MAYBE
        for anything else): one foreign call."""
        if not self._copy(self._one, config):
            return MAYBE
        self.env.own()
        return self._check(self._one_at)  # (INVALID for a value that is not finite)

    def check_motion_one(self, a, b, resolution: float) -> int:
        """NAME_check_motion of a -> b (sequences of n_config numbers; MAYBE for anything
        else)."""
        if not (self._copy(self._one, a) and self._copy(self._two, b)):
            return MAYBE
        self.env.own()
        try:
            return self.lib.rc_check_motion(self._one_at, self._two_at, resolution)
        except ctypes.ArgumentError:  # a resolution that is no number: the caller's error
            return INVALID

    def check_batch(self, q: np.ndarray) -> np.ndarray:
        """(N,) int32: NAME_check of each row of q (N, n_config), each stopping at its first
        certain collision."""
        q = np.ascontiguousarray(q, dtype=np.float64)
        out = np.empty(q.shape[0], dtype=np.int32)
        self.env.own()
        self.lib.rc_check_batch(q.ctypes.data, q.shape[0], out.ctypes.data)
        return out

    def check_motions(self, a: np.ndarray, b: np.ndarray, resolution: float) -> np.ndarray:
        """(N,) int32: NAME_check_motion of each row pair of a and b (N, n_config)."""
        a = np.ascontiguousarray(a, dtype=np.float64)
        b = np.ascontiguousarray(b, dtype=np.float64)
        out = np.empty(a.shape[0], dtype=np.int32)
        self.env.own()
        self.lib.rc_check_motions(a.ctypes.data, b.ctypes.data, a.shape[0], resolution,
                                  out.ctypes.data)
        return out

    def motion_configs(self, a: np.ndarray, b: np.ndarray, resolution: float) -> np.ndarray:
        """(samples, n_config): the samples NAME_check_motion takes, in its order."""
        a = np.ascontiguousarray(a, dtype=np.float64)
        b = np.ascontiguousarray(b, dtype=np.float64)
        n = self.lib.rc_motion_samples(a.ctypes.data, b.ctypes.data, resolution)
        if n <= 0:  # (the caller checks the motion can be sampled: never free unchecked)
            raise ValueError("the motion cannot be sampled")
        out = np.empty((n, self.n_config))
        self.lib.rc_motion_configs(a.ctypes.data, b.ctypes.data, resolution, out.ctypes.data)
        return out

    def _bind_trees(self, checker: CollisionChecker) -> None:
        """Binds the meshes' triangle trees, for the exact tests of meshes.c (their speeds
        zero until bind_triangles gives them)."""
        trees = triangle_trees(checker)
        self.bind_triangles(trees, np.zeros((len(trees.nodes), max(1, self.n_config)),
                                            np.float32))
        self._speeds = False

    @property
    def triangles_bound(self) -> bool:
        """Whether the triangle trees are bound with their nodes' speeds (prove_apart)."""
        return self._speeds

    def bind_triangles(self, trees, speeds: np.ndarray) -> None:
        """Binds the triangle trees (triangles.TriangleTrees) and their nodes' speeds
        ((nodes, variables) float32) for prove_apart."""
        arrays = (np.ascontiguousarray(trees.nodes, np.float64),
                  np.ascontiguousarray(trees.kids, np.int32),
                  np.ascontiguousarray(trees.triangles, np.float64),
                  np.ascontiguousarray(trees.roots, np.int32),
                  np.ascontiguousarray(speeds, np.float32),
                  np.ascontiguousarray(trees.boxes, np.float64),
                  np.ascontiguousarray(trees.hull, np.float64),
                  np.ascontiguousarray(trees.hull_spans, np.int32),
                  np.ascontiguousarray(trees.node_hulls, np.int32))
        self._triangles = arrays
        self._speeds = True
        self.env.bind_triangles(arrays)

    def prove_apart(self, a: int, b: int, var: list[int], lo: np.ndarray, hi: np.ndarray,
                    margin: float, depth: int, q: np.ndarray, budget: int) -> tuple[bool, int]:
        """Whether mesh solids a and b are farther apart than margin for every value of the
        variables var in lo..hi (the others as in q), proven on the bound triangle trees in
        at most `depth` splits of the box and `budget` node pairs; and the budget left."""
        q = np.array(q, dtype=np.float64)
        left = ctypes.c_long(budget)
        self.env.own()
        if self._work is None:  # one work space for all the proofs (16 MB: not per call)
            self._work = np.empty(TRIANGLE_WORK, dtype=np.int32)
        work = self._work
        ok = self.lib.rc_tprove(ctypes.c_int(a), ctypes.c_int(b), ctypes.c_int(len(var)),
                                (ctypes.c_int * 3)(*var), (ctypes.c_double * 3)(*lo),
                                (ctypes.c_double * 3)(*hi), ctypes.c_double(margin),
                                ctypes.c_int(depth), q.ctypes.data_as(ctypes.c_void_p),
                                ctypes.byref(left), work.ctypes.data_as(ctypes.c_void_p),
                                ctypes.c_long(len(work)))
        return bool(ok), int(left.value)


def kernel_for(checker: CollisionChecker, sphere_size: float | None, cells: bool) -> Kernel:
    """The compiled kernel of an exact checker; CompilerMissing says why there is none (no C
    compiler, or a scene the kernel does not take)."""
    frames = checker.scene.frames
    multi = [frames[b.frame].name for b in checker.fk.groups.bodies if frames[b.frame].is_multi_dof]
    if multi:  # its kinematics (c_kinematics) turns and slides about one axis only
        raise CompilerMissing(f"the scene has ball or floating joints ('{multi[0]}'), "
                              "which the compiled checker does not support")
    if checker.mode != "dense":
        raise CompilerMissing("the scene has too many solid pairs for the compiled "
                              "checker (it needs a robot-sized scene)")
    return Kernel(checker, sphere_size, cells)
