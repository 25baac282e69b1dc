"""The compiled checker's forward kinematics as straight-line C, one block per moving group.

Each group's pose is its parent's times a constant, times the joint's motion. The constant is
known here, so its product with the parent is written out term by term: terms with a zero
factor are left out and a factor of 1 or -1 becomes the parent's entry itself, which gives the
same doubles as the full product (x * 1 and x + 0 are exact; only a zero's sign may differ). A
joint about a frame axis mixes two columns, as the generic loop's `spin` did, with the same
arithmetic. Other axes use amino's axis-angle quaternion; prismatic joints slide along the
constant's axis. Variables and offsets are read as the generic loop read them.
"""

from __future__ import annotations

import numpy as np

from robrayc.ctext import c_double

# The columns a turn about frame axis k mixes (x: y and z, ...), as the generic code's table.
_MIXED = ((1, 2), (2, 0), (0, 1))


def _base(parent: int, const: np.ndarray, lane: str = "") -> list[str]:
    """The 12 entries (rotation row-major, translation) of parent's pose times const (lane:
    the index of the lane version's last dimension, e.g. "[l]")."""
    R, t = const[:3, :3], const[:3, 3]
    if parent == 0:  # the world's pose is the identity: the constant itself
        return [c_double(x) for x in [*R.ravel().tolist(), *t.tolist()]]
    p = f"g[{parent}]"
    out = []
    for i in range(3):
        for j in range(3):
            out.append(_sum([(f"{p}[{3 * i + k}]{lane}", float(R[k, j])) for k in range(3)])
                       or "0.0")
    for i in range(3):
        terms = _sum([(f"{p}[{3 * i + k}]{lane}", float(t[k])) for k in range(3)])
        out.append(f"{terms} + {p}[{9 + i}]{lane}" if terms else f"{p}[{9 + i}]{lane}")
    return out


def _sum(terms: list[tuple[str, float]]) -> str:
    """sum(entry * factor) in order, without the zero factors and the multiplications by 1."""
    parts = []
    for entry, factor in terms:
        if factor == 0.0:
            continue
        term = entry if factor == 1.0 else f"-{entry}" if factor == -1.0 else \
            f"{entry} * {c_double(factor)}"
        if parts and term.startswith("-"):
            parts.append(f"- {term[1:]}")
        elif parts:
            parts.append(f"+ {term}")
        else:
            parts.append(term)
    return " ".join(parts)


def _motion(group: int, motion: tuple, lane: str = "") -> list[str]:
    """One group's block of fk (lane ""), or of fk8's loop over lanes (lane "[l]": every
    pose entry and variable indexed by the lane, sine and cosine by sin_cos; fk by fk_sincos)."""
    parent, const, kind, axis, var, offset = motion
    axis = [float(a) for a in axis]
    lines = [f"    {{   /* group {group}: {kind}, variable {var} */"]
    lines += [f"        const double b{n} = {e};"
              for n, e in enumerate(_base(parent, const, lane))]
    lines.append(f"        const double v = q[{var}]{lane} + {c_double(offset)};")
    out = f"g[{group}]"
    nonzero = [k for k in range(3) if axis[k] != 0.0]
    sincos = f"        double s, w;\n        {'sin_cos' if lane else 'fk_sincos'}(0.5 * v, &s, &w);"
    if kind != "revolute":
        for n in range(9):
            lines.append(f"        {out}[{n}]{lane} = b{n};")
        for i in range(3):
            lines.append(f"        {out}[{9 + i}]{lane} = b{9 + i} + v * (b{3 * i} * "
                         f"{c_double(axis[0])} + b{3 * i + 1} * {c_double(axis[1])}"
                         f" + b{3 * i + 2} * {c_double(axis[2])});")
    elif len(nonzero) == 1:
        k = nonzero[0]
        a, b = _MIXED[k]
        lines.append(sincos)
        lines.append(f"        const double h = s * {c_double(axis[k])};")
        lines.append("        const double c = 1 - 2 * (h * h), t = 2 * (h * w);")
        for i in range(3):
            lines.append(f"        {out}[{3 * i + k}]{lane} = b{3 * i + k};")
            lines.append(f"        {out}[{3 * i + a}]{lane} = b{3 * i + a} * c + "
                         f"b{3 * i + b} * t;")
            lines.append(f"        {out}[{3 * i + b}]{lane} = b{3 * i + b} * c - "
                         f"b{3 * i + a} * t;")
        for i in range(3):
            lines.append(f"        {out}[{9 + i}]{lane} = b{9 + i};")
    elif lane:
        lines += _lane_turn(out, axis, sincos)
    else:
        base = ", ".join(f"b{n}" for n in range(12))
        lines.append(f"        const double base[12] = {{ {base} }};")
        values = ", ".join(map(c_double, axis))
        lines.append(f"        static const double axis[3] = {{ {values} }};")
        lines.append(f"        turn(base, axis, v, {out});")
    lines.append("    }")
    return lines


def _lane_turn(out: str, axis: list[float], sincos: str) -> list[str]:
    """turn() (kinematics.c) written out for one lane: amino's axis-angle quaternion's
    rotation, then the base times it."""
    x, y, z = (c_double(a) for a in axis)
    lines = [sincos, f"        const double x = s * {x}, y = s * {y}, z = s * {z};",
             "        const double r0 = 1 - 2 * (y * y + z * z), r1 = 2 * (x * y - z * w);",
             "        const double r2 = 2 * (x * z + y * w), r3 = 2 * (x * y + z * w);",
             "        const double r4 = 1 - 2 * (x * x + z * z), r5 = 2 * (y * z - x * w);",
             "        const double r6 = 2 * (x * z - y * w), r7 = 2 * (y * z + x * w);",
             "        const double r8 = 1 - 2 * (x * x + y * y);"]
    for i in range(3):
        for j in range(3):
            lines.append(f"        {out}[{3 * i + j}][l] = b{3 * i} * r{j} + b{3 * i + 1} * "
                         f"r{3 + j} + b{3 * i + 2} * r{6 + j};")
    for i in range(3):
        lines.append(f"        {out}[{9 + i}][l] = b{9 + i};")
    return lines


def fk_code(motions: list[tuple], lane: str = "") -> tuple[str, bool]:
    """The statements of the C function fk(q, g) after g[0] is set (one block per moving
    group, parents first), and whether they call turn() (a joint about another axis); with
    lane "[l]", the body of fk8's loop over the lanes l (g[0] set before it)."""
    lines: list[str] = []
    general = False
    for group, motion in enumerate(motions, start=1):
        lines += _motion(group, motion, lane)
        general |= motion[2] == "revolute" and sum(float(a) != 0.0 for a in motion[3]) != 1
    return "\n".join(lines), general


def travel_code(motions: list[tuple]) -> str:
    """The expression of how far the prismatic joints have slid at configuration q (the sum
    of |value + offset| times the axis' length): while it is at most 1, every group origin
    lies within the kernel's GROUP_REACH (which counts one unit of travel)."""
    terms = []
    for _, _, kind, axis, var, offset in motions:
        if kind == "revolute":
            continue
        length = float(np.linalg.norm(np.asarray(axis, dtype=float)))
        term = f"fabs(q[{var}] + {c_double(offset)})"
        terms.append(term if length == 1.0 else f"{term} * {c_double(length)}")
    return " + ".join(terms) or "0.0"
