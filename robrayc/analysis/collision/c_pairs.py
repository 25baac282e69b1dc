"""The compiled checker's pair tables (robrayc/c/configuration.c, lanes.c): which solid pairs
it tests and in what order. Per moving solid, its fixed partners in blocks of 8 (FIXB); the
pairs of two moving solids (MOVP); and the gates of the lanes' pass: one sphere around the
solids of a group that holds several (a gripper's fingers of four boxes each), tested against
a block of fixed partners once for all of them (FIXB_GATE: the members' blocks with the same
partners share one test)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from robrayc import ir
from robrayc.analysis.collision.solids import Solids
from robrayc.ctext import c_float


class CollisionChecker(Protocol):
    """What the compiled checker reads of an exact checker (checker.CollisionChecker, which
    imports compiled.py, so is described here rather than imported)."""

    scene: ir.Scene
    mode: str
    variables: Sequence[str]
    motions: list[tuple]  # the rigid groups' (parent, 4x4 constant, kind, axis, var, offset)
    solids: Solids
    group: np.ndarray  # each solid's rigid group
    _pi: np.ndarray  # the solid pairs tested (first, second) and their frame pairs
    _pj: np.ndarray
    _pfp: np.ndarray
    _const_hit: np.ndarray  # frame pairs that collide in every configuration
    pair_keys: np.ndarray  # the frame pairs checked (frame_pairs: these, then the obstacles')
    owner: np.ndarray  # each solid's frame
    fk: Any  # kinematics.GroupFK: rigid groups, each frame's pose in its group (rel)

    @property
    def frame_pairs(self) -> list[tuple[str, str]]: ...


# the fewest solids of a group a gate is made for: with two, the gate's wider sphere is near
# more often, and its test then comes on top of both members' (Fetch: 4 % more instructions
# in NAME_check8; Panda's fingers, four boxes each: 8.5 % fewer)
GATE_MEMBERS = 3

# a far-away centre for the padding slots of a block of 8 fixed partners (squared: < FLT_MAX)
_FAR = 1e18


def _floats(values) -> str:
    return ", ".join(c_float(v) for v in values)


def pair_tables(checker: CollisionChecker, bounds: list[list[float]]) -> dict:
    """The one-configuration path's tables: per moving solid, its fixed partners in blocks of
    8 (their bounding spheres, world frame, structure of arrays: one AVX2 test a block), the
    pairs of two moving solids, and the lanes' gates. bounds: each solid's bounding sphere
    (group frame, float32 values: x, y, z, radius)."""
    moving = checker.group != 0
    partners: dict[int, list[tuple[int, int]]] = {}
    movp = []
    for p, (a, b) in enumerate(zip(checker._pi.tolist(), checker._pj.tolist(), strict=True)):
        if moving[a] and moving[b]:
            movp.append(p)
        else:
            s, f = (a, b) if moving[a] else (b, a)
            partners.setdefault(s, []).append((f, p))
    gates = _gates(checker, bounds, sorted(partners))
    blocks, block_gate, shared = [], [], {}
    for s, group in sorted(partners.items()):
        for at in range(0, len(group), 8):
            part = group[at:at + 8] + [(-1, -1)] * (8 - len(group[at:at + 8]))
            key = (gates["solid_gate"][s], *(f for f, _ in part))
            block_gate.append(-1 if key[0] < 0 else shared.setdefault(key, len(shared)))
            cols = [bounds[f] if f >= 0 else [_FAR, _FAR, _FAR, 0.0] for f, _ in part]
            arrays = [_floats([c[k] for c in cols]) for k in range(4)]
            blocks.append(f"{s}, {{ {', '.join(str(f) for f, _ in part)} }}, "
                          f"{{ {', '.join(str(q) for _, q in part)} }}, "
                          + ", ".join(f"{{ {a} }}" for a in arrays))
    # moving pairs, padded to whole blocks of 8 with lanes that are never near (reach -1)
    pad = -len(movp) % 8
    sa = checker._pi[movp].tolist() + [0] * pad
    sb = checker._pj[movp].tolist() + [0] * pad
    reach = (np.float32([bounds[a][3] for a in sa]) + np.float32([bounds[b][3] for b in sb]))
    reach2 = np.where(np.arange(len(sa)) < len(movp), reach * reach, np.float32(-1.0))
    return {"n_fixblocks": len(blocks), "n_fixblocks_decl": max(1, len(blocks)),
            "fixblocks": blocks, "n_movp": len(movp), "n_movp_decl": max(8, len(sa)),
            "movp": ", ".join(map(str, movp + [0] * pad)) or "0",
            "mova": ", ".join(map(str, sa)) or "0", "movb": ", ".join(map(str, sb)) or "0",
            "movr2": _floats(reach2.astype(float)) or "0.0f",
            "n_gate_blocks_decl": max(1, len(shared)),
            "fixb_gate": ", ".join(map(str, block_gate)) or "-1",
            **gates, "solid_gate": ", ".join(map(str, gates["solid_gate"])) or "-1"}


def gate_sphere(spheres: np.ndarray) -> list[float]:
    """A sphere (x, y, z, radius; float32 values) holding every sphere of spheres (rows x, y,
    z, radius): about the middle of their box, its radius rounded up past float32's rounding
    of the tests that use it (lanes.c: a member's own test would be no nearer)."""
    lo = (spheres[:, :3] - spheres[:, 3:]).min(axis=0)
    hi = (spheres[:, :3] + spheres[:, 3:]).max(axis=0)
    centre = ((lo + hi) / 2).astype(np.float32).astype(float)
    radius = float((np.linalg.norm(spheres[:, :3] - centre, axis=1) + spheres[:, 3]).max())
    up = np.nextafter(np.float32(radius * (1.0 + 1e-6)), np.float32(np.inf))
    return [*centre.tolist(), float(up)]


def _gates(checker: CollisionChecker, bounds: list[list[float]], members: list[int]) -> dict:
    """The lanes' gates: per group holding GATE_MEMBERS or more solids with fixed partners,
    a sphere around their bounding spheres (its group frame); solid_gate: each solid's gate
    (-1: none)."""
    by_group: dict[int, list[int]] = {}
    for s in members:
        by_group.setdefault(int(checker.group[s]), []).append(s)
    solid_gate = [-1] * len(bounds)
    gates, groups = [], []
    for g, solids in sorted(by_group.items()):
        if len(solids) < GATE_MEMBERS:
            continue
        for s in solids:
            solid_gate[s] = len(gates)
        gates.append(gate_sphere(np.array([bounds[s] for s in solids], dtype=float)))
        groups.append(g)
    return {"n_gates": len(gates), "n_gates_decl": max(1, len(gates)), "solid_gate": solid_gate,
            "gate_group": ", ".join(map(str, groups)) or "0",
            "gates": ", ".join(f"{{ {_floats(g)} }}" for g in gates) or "{ 0.0f }"}
