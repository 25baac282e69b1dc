"""Standalone C: the scene as constant tables plus generated forward kinematics, no amino.

`-o scene.c` writes scene.c and scene.h (the header is inlined when the C goes to standard
output). The FK function is straight-line code, one block per frame in parents-first order:
poses that do not depend on the configuration are folded at compile time (a fixed frame under
fixed frames is a constant; a chain of fixed frames below a joint is one pre-multiplied pose),
and products with the constant 0 or 1 are left out. Poses are quaternion x y z w followed by the
translation; the arithmetic follows amino's (revolute: fixed rotation, then rotation about the
axis by value + offset; prismatic: translation along the rotated axis).
"""

from __future__ import annotations

import argparse

from robrayc import __version__, ir
from robrayc.backends import EmitContext, NoOptions, OutputFile
from robrayc.ctext import c_comment, c_double, c_doubles, c_identifier, c_string, c_string_or_null
from robrayc.diagnostics import DiagnosticSink
from robrayc.ir import joint_variables
from robrayc.kinematics import Pose, moves, qmul, qrotate, quat_to_matrix, rigid_groups
from robrayc.templating import render

NAME = "c-standalone"
HELP = ("C99 without amino: constant scene tables and a generated forward-kinematics "
        "function NAME_fk; also writes OUTPUT.h (scene.c -> scene.h)")

_KINDS = {"fixed": "ROBRAYC_FIXED", "revolute": "ROBRAYC_REVOLUTE",
          "prismatic": "ROBRAYC_PRISMATIC", "ball": "ROBRAYC_BALL",
          "floating": "ROBRAYC_FLOATING"}
_SHAPES = {ir.Box: "ROBRAYC_BOX", ir.Sphere: "ROBRAYC_SPHERE", ir.Cylinder: "ROBRAYC_CYLINDER",
           ir.Cone: "ROBRAYC_CONE", ir.Grid: "ROBRAYC_GRID", ir.Mesh: "ROBRAYC_MESH"}
_LIMITS = (("position", "ROBRAYC_LIMIT_POSITION"), ("velocity", "ROBRAYC_LIMIT_VELOCITY"),
           ("acceleration", "ROBRAYC_LIMIT_ACCELERATION"), ("effort", "ROBRAYC_LIMIT_EFFORT"))


Options = NoOptions  # -n NAME and -o are all it reads


def add_arguments(group: argparse._ArgumentGroup) -> None:
    """No options of its own: -n NAME names the symbols, -o the files."""


def header_path(output):
    """scene.c -> scene.h; any other name gets '.h' appended."""
    if output.suffix == ".c":
        return output.with_suffix(".h")
    return output.with_name(output.name + ".h")


def emit(scene: ir.Scene, ctx: EmitContext) -> list[OutputFile]:
    name = ctx.name
    if not name.isidentifier() or not name.isascii():
        raise ctx.sink.fatal(f"scene name '{name}' is not a C identifier",
                             hint="use -n NAME with letters, digits and '_'")
    model = _model(scene, name, ctx.sink)
    header_file = header_path(ctx.output) if ctx.output is not None else None
    model["guard"] = c_identifier(header_file.name if header_file else name + ".h").upper() + "_"
    header = render("c_standalone.h.j2", model)
    model["include"] = header_file.name if header_file else None
    model["inline_header"] = None if header_file else header
    source = render("c_standalone.c.j2", model).encode()
    if header_file is None:
        return [OutputFile(None, source)]
    return [OutputFile(ctx.output, source), OutputFile(header_file, header.encode())]


# --- tables -----------------------------------------------------------------------------------


def _model(scene: ir.Scene, name: str, sink: DiagnosticSink) -> dict:
    variables = {v: i for i, v in enumerate(scene.variables)}
    index = {f.name: i for i, f in enumerate(scene.frames)}
    return {
        "version": __version__,
        "sources": c_comment(", ".join(s.rsplit("/", 1)[-1] for s in scene.sources[:3])
                             or "(no files)"),
        "name": name,
        "n_frames": len(scene.frames),
        "n_config": len(variables),
        "root": c_string_or_null(scene.root),
        "frames": [_frame(f, index, variables) for f in scene.frames],
        "configs": _configs(scene, variables),
        "geometries": [_geometry(g, index[f.name], sink)
                       for f, g in ir.walk_geometries(scene)],
        "allowed": [(index[a.a], index[a.b], c_comment(f"{a.a} {a.b}")) for a in scene.allowed],
        "fk_parts": _parts(_fk_blocks(scene, variables)),
    }


# Frames per FK function: one function for a 10,000-frame scene took gcc -O2 over 5 minutes
# and 2.7 GB (its passes are superlinear in a function's size); slices of 32 frames, each a
# static function called in order, compile in under a minute and cost nothing at run time.
FK_PART_FRAMES = 32


def _parts(blocks: list[dict]) -> list[list[dict]]:
    return [blocks[i:i + FK_PART_FRAMES] for i in range(0, len(blocks), FK_PART_FRAMES)]


def _frame(f: ir.Frame, index: dict[str, int], variables: dict[str, int]) -> dict:
    joint = moves(f)
    inertial = f.inertial
    return {
        "comment": c_comment(f.name),
        "name": c_string(f.name),
        "parent": -1 if f.parent is None else index[f.parent],
        "kind": _KINDS[f.kind] if joint else "ROBRAYC_FIXED",
        "config": variables[joint_variables(f)[0]] if joint else -1,
        "axis": c_doubles(f.axis if joint and f.axis is not None else (0.0, 0.0, 0.0)),
        "offset": c_double(f.offset if joint else 0.0),
        "q": c_doubles(f.quaternion),
        "v": c_doubles(f.translation),
        "mass": c_double(inertial.mass if inertial else 0.0),
        "has_inertial": int(inertial is not None),
        "inertia": c_doubles(inertial.inertia if inertial else (0.0,) * 9),
    }


def _configs(scene: ir.Scene, variables: dict[str, int]) -> list[dict]:
    """One entry per variable; limits as amino keeps them (set per variable, last wins)."""
    limits: dict[str, dict[str, tuple[float, float]]] = {v: {} for v in variables}
    for f in scene.frames:
        if moves(f) and not f.is_multi_dof:  # a ball or floating joint has no limits
            for attr, _ in _LIMITS:
                rng = getattr(f.limits, attr)
                if rng is not None:
                    limits[f.variable][attr] = rng
    out = []
    for v in variables:
        have = limits[v]
        mask = " | ".join(flag for attr, flag in _LIMITS if attr in have) or "0u"
        out.append({
            "comment": c_comment(v), "name": c_string(v), "mask": mask,
            **{attr: c_doubles(have.get(attr, (0.0, 0.0))) for attr, _ in _LIMITS},
        })
    return out


# shape -> (its size parameters, the mesh path as C text)
_SIZES = {
    ir.Box: lambda s: (s.dimension, "NULL"),
    ir.Sphere: lambda s: ((s.radius,), "NULL"),
    ir.Cylinder: lambda s: ((s.height, s.radius), "NULL"),
    ir.Cone: lambda s: ((s.height, s.start_radius, s.end_radius), "NULL"),
    ir.Grid: lambda s: ((*s.dimension, *s.delta, s.thickness), "NULL"),
    ir.Mesh: lambda s: (s.scale3, c_string(s.path)),
}


_IDENTITY_3 = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


def _mesh_transform(s: ir.Mesh, g: ir.Geometry, sink: DiagnosticSink) -> tuple[float, ...]:
    """Row-major 3x3 taking the file's points as stored into the frame: the mesh's axis
    conventions, COLLADA up axis and unit, and per-axis scale (fixed at load time)."""
    from robrayc.meshes import load_placement

    rot, scale = load_placement(s, sink, g.pos)
    return tuple(float(x) + 0.0 for x in (rot * scale).reshape(-1))


def _geometry(g: ir.Geometry, frame: int, sink: DiagnosticSink) -> dict:
    s = g.shape
    size, mesh = ir.handler(_SIZES, s)(s)
    size = tuple(size) + (0.0,) * (5 - len(size))
    transform = _mesh_transform(s, g, sink) if isinstance(s, ir.Mesh) else _IDENTITY_3
    return {
        "frame": frame, "shape": ir.handler(_SHAPES, s), "size": c_doubles(size), "mesh": mesh,
        "color": c_doubles(g.color), "alpha": c_double(g.alpha),
        "specular": c_doubles(g.specular), "scale": c_double(g.scale),
        "visual": int(g.visual), "collision": int(g.collision), "no_shadow": int(g.no_shadow),
        "transform": c_doubles(transform),
    }


# --- forward kinematics -----------------------------------------------------------------------


def _fk_blocks(scene: ir.Scene, variables: dict[str, int]) -> list[dict]:
    """One C block per frame: a comment and the statements that fill tf_out[i]. A frame's pose
    is its rigid group's anchor frame (-1: the root) times a constant folded at compile time."""
    groups = rigid_groups(scene)
    blocks = []
    for i, f in enumerate(scene.frames):
        g = groups.group[i]
        if not moves(f):
            anchor = groups.anchor(g)
            what = "constant" if anchor < 0 else f"frame {anchor} * constant"
            lines = _fixed_lines(i, anchor, groups.rel[i])
        else:
            body = groups.bodies[g - 1]
            anchor = groups.anchor(body.parent)
            if f.is_multi_dof:
                columns = [variables[n] for n in joint_variables(f)]
                blocks.append({"index": i, "comment": c_comment(
                    f"{i} {f.name}: {f.kind} on q[{', '.join(map(str, columns))}]"
                    + (f", after frame {anchor}" if anchor >= 0 else "")),
                    "lines": _multi_dof_lines(i, anchor, body.base, columns)})
                continue
            k = variables[f.variable]
            value = f"q[{k}]" if f.offset == 0.0 else \
                f"(q[{k}] {'-' if f.offset < 0 else '+'} {c_double(abs(f.offset))})"
            if f.kind == "revolute":
                lines = _revolute_lines(i, anchor, body.base, f.axis, value)
            else:
                lines = _prismatic_lines(i, anchor, body.base, f.axis, value)
            what = f"{f.kind} on q[{k}]" + (f", after frame {anchor}" if anchor >= 0 else "")
        blocks.append({"index": i, "comment": c_comment(f"{i} {f.name}: {what}"),
                       "lines": lines})
    return blocks


# Expressions are C text; constants are written with c_double, so a zero factor is
# recognised by its text and its product left out (exact: adding 0 changes no finite value).


def _zero(x: str) -> bool:
    return x in ("0.0", "-0.0")


def _sum(terms: list[tuple[int, str, str]]) -> str:
    """C text of sum(sign * x * y) over (sign, x, y), without products that have a zero factor
    or a factor 1."""
    parts: list[tuple[int, str]] = []
    for sign, x, y in terms:
        if _zero(x) or _zero(y):
            continue
        factors = []
        for f in (x, y):
            if f.startswith("-"):
                sign, f = -sign, f[1:]
            if f != "1.0":
                factors.append(f)
        parts.append((sign, " * ".join(factors) or "1.0"))
    if not parts:
        return "0.0"
    text = ("-" if parts[0][0] < 0 else "") + parts[0][1]
    for sign, body in parts[1:]:
        text += f" {'-' if sign < 0 else '+'} {body}"
    return text


def _qmul(a: list[str], b: list[str]) -> list[str]:
    """Hamilton product a * b (x y z w) of quaternions given as C expressions."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return [
        _sum([(1, aw, bx), (1, ax, bw), (1, ay, bz), (-1, az, by)]),
        _sum([(1, aw, by), (-1, ax, bz), (1, ay, bw), (1, az, bx)]),
        _sum([(1, aw, bz), (1, ax, by), (-1, ay, bx), (1, az, bw)]),
        _sum([(1, aw, bw), (-1, ax, bx), (-1, ay, by), (-1, az, bz)]),
    ]


def _name_nonconstant(prefix: str, values: list[str]) -> tuple[list[str], list[str]]:
    """Locals for the values that are expressions: (declarations, names to use)."""
    decls, names = [], []
    for j, v in enumerate(values):
        if _zero(v) or _is_simple(v):
            names.append(v)
        else:
            decls.append(f"const double {prefix}{j} = {v};")
            names.append(f"{prefix}{j}")
    return decls, names


def _is_simple(text: str) -> bool:
    """A constant or a single name: no need for a local."""
    return " " not in text


def _assign(i: int, values: list[str]) -> list[str]:
    return [f"tf_out[{i}][{j}] = {v};" for j, v in enumerate(values)]


def _consts(values) -> list[str]:
    return [c_double(x) for x in values]


def _apply(i: int, anchor: int, q: list[str], u: list[str]) -> list[str]:
    """Statements setting tf_out[i] = tf_out[anchor] * (q, u), for q and u given as C text
    (amino's rotation: t = 2 cross(a.xyz, u); u' = u + w t + cross(a.xyz, t))."""
    # the anchor's pose in locals: stores to tf_out may alias it, so reading tf_out in every
    # expression would mean a load each time (and slow alias analysis in the compiler)
    a = [f"a{j}" for j in range(7)]
    ax, ay, az, aw = a[:4]
    lines = [f"const double {', '.join(f'a{j} = tf_out[{anchor}][{j}]' for j in range(7))};"]
    decls, u = _name_nonconstant("u", u)
    lines += decls
    lines += _assign(i, _qmul(a[:4], q))
    t = [_sum([(1, ay, u[2]), (-1, az, u[1])]),
         _sum([(1, az, u[0]), (-1, ax, u[2])]),
         _sum([(1, ax, u[1]), (-1, ay, u[0])])]
    tnames = []
    for j, tj in enumerate(t):
        if _zero(tj):
            tnames.append("0.0")
        else:
            lines.append(f"const double t{j} = 2.0 * ({tj});")
            tnames.append(f"t{j}")
    cross = [_sum([(1, ay, tnames[2]), (-1, az, tnames[1])]),
             _sum([(1, az, tnames[0]), (-1, ax, tnames[2])]),
             _sum([(1, ax, tnames[1]), (-1, ay, tnames[0])])]
    for j in range(3):
        parts = [a[4 + j]] + [x for x in (u[j], _sum([(1, aw, tnames[j])]))
                              if not _zero(x)]
        if not _zero(cross[j]):
            parts.append(f"({cross[j]})")
        lines.append(f"tf_out[{i}][{4 + j}] = {' + '.join(parts)};")
    return lines


def _fixed_lines(i: int, anchor: int, rel: Pose) -> list[str]:
    q, v = rel
    if anchor < 0:
        return _assign(i, _consts((*q, *v)))
    return _apply(i, anchor, _consts(q), _consts(v))


def _revolute_lines(i: int, anchor: int, pre: Pose, axis: ir.Vec3, value: str) -> list[str]:
    q0, v = pre
    # local rotation = pre.q * (s axis, c) = c pre.q + s (pre.q * (axis, 0))
    q1 = qmul(q0, (axis[0], axis[1], axis[2], 0.0))
    lines = [f"const double h = 0.5 * {value};", "const double s = sin(h), c = cos(h);"]
    local = [_sum([(1, c_double(q0[j]), "c"), (1, c_double(q1[j]), "s")]) for j in range(4)]
    if anchor < 0:
        return lines + _assign(i, local + _consts(v))
    decls, local = _name_nonconstant("l", local)
    return lines + decls + _apply(i, anchor, local, _consts(v))


def _prismatic_lines(i: int, anchor: int, pre: Pose, axis: ir.Vec3, value: str) -> list[str]:
    q0, v = pre
    step = qrotate(q0, axis)  # the axis in the anchor's coordinates
    lines = [f"const double d = {value};"]
    local_v = [_sum([(1, c_double(v[j]), "1.0"), (1, c_double(step[j]), "d")])
               for j in range(3)]
    if anchor < 0:
        return lines + _assign(i, _consts(q0) + local_v)
    return lines + _apply(i, anchor, _consts(q0), local_v)


def _multi_dof_lines(i: int, anchor: int, pre: Pose, columns: list[int]) -> list[str]:
    """A ball (columns: rx, ry, rz) or floating joint (x, y, z, rx, ry, rz): pre * T(x, y, z)
    * R(exp(r)), the rotation vector's quaternion by Rodrigues (sin(a/2)/a by its series
    near 0, as kinematics.rotvec_to_quat)."""
    q0, v = pre
    rx, ry, rz = (f"q[{k}]" for k in columns[-3:])
    lines = [f"const double rx = {rx}, ry = {ry}, rz = {rz};",
             "const double n2 = rx * rx + ry * ry + rz * rz, n = sqrt(n2);",  # n: the angle
             "const double k = n < 1e-4 ? 0.5 - n2 / 48.0 + n2 * n2 / 3840.0 : sin(0.5 * n) / n;",
             "const double ex = k * rx, ey = k * ry, ez = k * rz, ew = cos(0.5 * n);"]
    local = _qmul(_consts(q0), ["ex", "ey", "ez", "ew"])
    local_v = _consts(v)
    if len(columns) == 6:  # the translation, in the parent after the fixed rotation
        m = quat_to_matrix(q0)
        local_v = [_sum([(1, c_double(v[j]), "1.0")] + [
            (1, c_double(m[j][n]), f"q[{columns[n]}]") for n in range(3)]) for j in range(3)]
    if anchor < 0:
        return lines + _assign(i, local + local_v)
    decls, local = _name_nonconstant("l", local)
    return lines + decls + _apply(i, anchor, local, local_v)
