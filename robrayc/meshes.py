"""Mesh files -> indexed triangles with per-vertex normals, cached per file per run.

Shared by every backend and analysis that needs triangles (C embedding, collision, projection)
and by the URDF front end (bounding boxes for ``--missing-mesh=bbox``).

Readers: binary/ASCII STL, COLLADA and Wavefront OBJ are read here with lxml and numpy (the
formats of every public robot package we know; trimesh's import alone costs ~0.6 s, more than a
whole robot compile should); every other format (PLY, GLB/glTF, OFF, ...) goes through trimesh.
tests/test_meshes.py checks the own readers against trimesh on every corpus mesh.

Conventions, as the original compiler (amino's mesh.lisp ``mesh-deindex-normals``):
- one output vertex per distinct (position, normal) pair, in order of first use;
- normals from the file where it has them, else flat per-face normals; unit length, rounded
  to 6 decimals (shading needs no more; it keeps the embedded C small);
- COLLADA ``<up_axis>`` and ``<unit meter>`` are honoured (result is Z-up, metres), glTF is
  Y-up by specification; files that declare nothing are rotated so that the ``-U`` axis becomes
  +Z and the ``-F`` axis +Y (defaults Z and Y: unchanged);
- a URDF per-axis ``scale`` (``Mesh.scale3``) is applied to the vertices (normals by the inverse
  transpose), the geometry's scalar ``scale`` is left to amino.
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass

from robrayc.diagnostics import CompileError, DiagnosticSink, SourcePos
from robrayc.ir import Mesh

AXES = ("X", "Y", "Z")


class MeshError(Exception):
    """A mesh file cannot be read or holds no triangles (message names the problem)."""


@dataclass(frozen=True)
class MeshData:
    vertices: object  # (n, 3) float64 numpy array: axes, unit and scale3 applied
    normals: object  # (n, 3) float64 unit per-vertex normals
    faces: object  # (m, 3) int64 indices into vertices


@dataclass(frozen=True)
class _Raw:
    """Triangles as a file stores them: corners index positions and (optionally) normals."""

    positions: object  # (p, 3) float64
    corner_pos: object  # (3t,) int64
    normals: object | None  # (q, 3) float64
    corner_nrm: object | None  # (3t,) int64
    up: str | None  # declared up axis ("X", "Y", "Z") or None
    unit: float  # metres per file unit


# --- axes -----------------------------------------------------------------------------------


def _axis_vector(text: str) -> tuple[int, float]:
    t = text.strip().upper()
    sign = -1.0 if t.startswith("-") else 1.0
    t = t.lstrip("+-")
    if t not in AXES:
        raise ValueError(f"'{text}' is not an axis (X, Y, Z, optionally signed: -Y)")
    return AXES.index(t), sign


def check_axes(up: str, forward: str) -> tuple[str, str]:
    """(up, forward) spelled canonically ("Y", "-Z"); ValueError when not two distinct axes."""
    iu, su = _axis_vector(up)
    i_f, sf = _axis_vector(forward)
    if iu == i_f:
        raise ValueError(f"mesh up axis '{up}' and forward axis '{forward}' are parallel")
    return ("-" if su < 0 else "") + AXES[iu], ("-" if sf < 0 else "") + AXES[i_f]


def axis_rotation(up: str = "Z", forward: str = "Y"):
    """Rotation (3x3, row-major numpy) taking a file's `up` axis to +Z and `forward` to +Y."""
    import numpy as np

    check_axes(up, forward)
    iu, su = _axis_vector(up)
    i_f, sf = _axis_vector(forward)
    u = np.zeros(3)
    u[iu] = su
    f = np.zeros(3)
    f[i_f] = sf
    return np.array([np.cross(f, u), f, u])  # rows: right, forward, up


def _declared_rotation(up: str):
    """COLLADA's table of axes (spec 1.4, <up_axis>) expressed in a Z-up frame."""
    import numpy as np

    if up == "Y":  # right +X, up +Y, in +Z  ->  (x, -z, y)
        return np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])
    if up == "X":  # right -Y, up +X, in +Z  ->  (-y, -z, x)
        return np.array([[0, -1.0, 0], [0, 0, -1.0], [1.0, 0, 0]])
    return np.eye(3)


# --- number parsing -----------------------------------------------------------------------


def _numbers(text: str | bytes | None, dtype, what: str):
    import numpy as np

    if text is None:
        return np.zeros(0, dtype=dtype)
    if isinstance(text, bytes):
        text = text.decode("ascii", "replace")
    if not text.strip():
        return np.zeros(0, dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy warns (then truncates) on a malformed number
        try:
            return np.fromstring(text, dtype=dtype, sep=" ")
        except (ValueError, DeprecationWarning):
            raise MeshError(f"malformed numbers in {what}") from None


# --- STL ------------------------------------------------------------------------------------


def _read_stl(data: bytes) -> _Raw:
    import numpy as np

    if len(data) >= 84:
        count = int.from_bytes(data[80:84], "little")
        if len(data) == 84 + 50 * count and (count > 0 or not data.lstrip().startswith(b"solid")):
            rec = np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])
            tri = np.frombuffer(data, dtype=rec, count=count, offset=84)
            pos = tri["v"].reshape(-1, 3).astype(np.float64)
            return _Raw(pos, np.arange(len(pos), dtype=np.int64), None, None, None, 1.0)
    if data.lstrip()[:5].lower() != b"solid":
        raise MeshError("not a binary STL (size does not match its triangle count) and not "
                        "an ASCII STL")
    found = re.findall(rb"vertex\s+(\S+)\s+(\S+)\s+(\S+)", data)
    try:
        pos = np.array(found, dtype=np.float64).reshape(-1, 3)
    except ValueError:
        raise MeshError("malformed vertex in ASCII STL") from None
    if len(pos) % 3:
        raise MeshError("ASCII STL facet without three vertices")
    return _Raw(pos, np.arange(len(pos), dtype=np.int64), None, None, None, 1.0)


# --- Wavefront OBJ ---------------------------------------------------------------------------


def _read_obj(data: bytes) -> _Raw:
    import numpy as np

    positions: list[str] = []
    normals: list[str] = []
    cp: list[int] = []
    cn: list[int] = []
    has_normals = True
    for lineno, raw in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        parts = raw.split("#", 1)[0].split()
        if not parts:
            continue
        key = parts[0]
        if key == "v":
            if len(parts) < 4:
                raise MeshError(f"line {lineno}: vertex needs 3 coordinates")
            positions.append(" ".join(parts[1:4]))
        elif key == "vn":
            if len(parts) < 4:
                raise MeshError(f"line {lineno}: normal needs 3 coordinates")
            normals.append(" ".join(parts[1:4]))
        elif key == "f":
            corners = []
            for c in parts[1:]:
                fields = c.split("/")
                try:
                    vi = int(fields[0])
                    ni = int(fields[2]) if len(fields) > 2 and fields[2] else None
                except ValueError:
                    raise MeshError(f"line {lineno}: bad face index '{c}'") from None
                vi = vi - 1 if vi > 0 else len(positions) + vi
                if ni is None:
                    has_normals = False
                    ni = 0
                else:
                    ni = ni - 1 if ni > 0 else len(normals) + ni
                corners.append((vi, ni))
            if len(corners) < 3:
                raise MeshError(f"line {lineno}: face with fewer than 3 corners")
            for k in range(1, len(corners) - 1):  # fan triangulation of polygons
                for vi, ni in (corners[0], corners[k], corners[k + 1]):
                    cp.append(vi)
                    cn.append(ni)
    pos = _numbers(" ".join(positions), np.float64, "OBJ vertices").reshape(-1, 3)
    corner_pos = np.array(cp, dtype=np.int64)
    _check_indices(corner_pos, len(pos), "vertex")
    if has_normals and cp:
        nrm = _numbers(" ".join(normals), np.float64, "OBJ normals").reshape(-1, 3)
        corner_nrm = np.array(cn, dtype=np.int64)
        _check_indices(corner_nrm, len(nrm), "normal")
        return _Raw(pos, corner_pos, nrm, corner_nrm, None, 1.0)
    return _Raw(pos, corner_pos, None, None, None, 1.0)


def _check_indices(idx, n: int, what: str) -> None:
    if len(idx) and (idx.min() < 0 or idx.max() >= n):
        raise MeshError(f"{what} index out of range (the file has {n} {what}s)")


# --- COLLADA --------------------------------------------------------------------------------


class _Unsupported(Exception):
    """A COLLADA feature the own reader leaves to trimesh."""


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _read_dae(data: bytes) -> _Raw:
    import numpy as np
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                             huge_tree=True, remove_comments=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise MeshError(f"not a valid COLLADA file: {exc}") from None
    ids = {el.get("id"): el for el in root.iter() if el.get("id") is not None}
    up = None
    unit = 1.0
    for el in root.iter():
        tag = _local(el.tag)
        if tag == "up_axis" and el.text and el.getparent() is not None \
                and _local(el.getparent().tag) == "asset" \
                and _local(el.getparent().getparent().tag) == "COLLADA":
            up = el.text.strip()[:1].upper()
        elif tag == "unit" and _local(el.getparent().getparent().tag) == "COLLADA":
            unit = float(el.get("meter") or 1.0)
    if up not in (None, "X", "Y", "Z"):
        raise MeshError(f"unknown COLLADA up axis '{up}'")

    def ref(url: str | None):
        if not url or not url.startswith("#") or url[1:] not in ids:
            raise _Unsupported(f"reference '{url}'")
        return ids[url[1:]]

    geometries: dict[int, tuple] = {}
    out_pos, out_cp, out_nrm, out_cn = [], [], [], []
    n_pos = n_nrm = 0

    def geometry(el):
        key = id(el)
        if key not in geometries:
            geometries[key] = _dae_geometry(el, ref)
        return geometries[key]

    def instance(geom_el, matrix) -> None:
        nonlocal n_pos, n_nrm
        pos, cp, nrm, cn = geometry(geom_el)
        if not len(cp):
            return
        lin = matrix[:3, :3]
        out_pos.append(pos @ lin.T + matrix[:3, 3])
        out_cp.append(cp + n_pos)
        n_pos += len(pos)
        normal_matrix = np.linalg.inv(lin).T if abs(np.linalg.det(lin)) > 1e-300 else lin
        nrm = nrm @ normal_matrix.T
        out_nrm.append(nrm)
        out_cn.append(cn + n_nrm)
        n_nrm += len(nrm)

    scene = next((el for el in root.iter() if _local(el.tag) == "instance_visual_scene"), None)
    if scene is not None:
        stack = [(child, np.eye(4), 0) for child in reversed(ref(scene.get("url")))
                 if _local(child.tag) == "node"]
        while stack:
            node, parent_m, depth = stack.pop()
            if depth > 256:
                raise MeshError("COLLADA node hierarchy nested too deeply")
            m = parent_m @ _dae_node_matrix(node)
            children = []
            for child in node:
                tag = _local(child.tag)
                if tag == "instance_geometry":
                    instance(ref(child.get("url")), m)
                elif tag == "node":
                    children.append((child, m, depth + 1))
                elif tag == "instance_node":
                    children.append((ref(child.get("url")), m, depth + 1))
                elif tag == "instance_controller":
                    raise _Unsupported("instance_controller")
            stack.extend(reversed(children))
    else:  # no scene: every geometry once, untransformed
        for el in root.iter():
            if _local(el.tag) == "geometry":
                instance(el, np.eye(4))
    if not out_cp:
        return _Raw(np.zeros((0, 3)), np.zeros(0, np.int64), None, None, up, unit)
    return _Raw(np.concatenate(out_pos), np.concatenate(out_cp), np.concatenate(out_nrm),
                np.concatenate(out_cn), up, unit)


def _dae_node_matrix(node):
    import numpy as np

    m = np.eye(4)
    for t in node:
        tag = _local(t.tag)
        if tag not in ("matrix", "translate", "rotate", "scale", "lookat", "skew"):
            continue
        v = _numbers(t.text, np.float64, f"<{tag}>")
        if tag == "matrix" and len(v) == 16:
            m = m @ v.reshape(4, 4)
        elif tag == "translate" and len(v) == 3:
            step = np.eye(4)
            step[:3, 3] = v
            m = m @ step
        elif tag == "scale" and len(v) == 3:
            m = m @ np.diag([v[0], v[1], v[2], 1.0])
        elif tag == "rotate" and len(v) == 4:
            axis = v[:3]
            n = np.linalg.norm(axis)
            if n > 0:
                x, y, z = axis / n
                a = np.radians(v[3])
                c, s, C = np.cos(a), np.sin(a), 1 - np.cos(a)
                step = np.eye(4)
                step[:3, :3] = [[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
                                [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
                                [z * x * C - y * s, z * y * C + x * s, c + z * z * C]]
                m = m @ step
        else:
            raise _Unsupported(f"<{tag}> transform")
    return m


def _dae_source(el, ref):
    """A <source>'s float array as (count, stride) (offset 0, every parameter used)."""
    import numpy as np

    arr = next((c for c in el if _local(c.tag) == "float_array"), None)
    acc = next((a for c in el if _local(c.tag) == "technique_common" for a in c
                if _local(a.tag) == "accessor"), None)
    if arr is None or acc is None:
        raise _Unsupported("source without float_array/accessor")
    values = _numbers(arr.text, np.float64, "<float_array>")
    stride = int(acc.get("stride") or 1)
    count = int(acc.get("count") or 0)
    offset = int(acc.get("offset") or 0)
    if stride < 3 or offset or len(values) < count * stride:
        raise _Unsupported("accessor layout")
    return values[: count * stride].reshape(count, stride)[:, :3]


def _dae_geometry(el, ref):
    """(positions, corner positions, normals, corner normals) of one <geometry>."""
    import numpy as np

    mesh = next((c for c in el if _local(c.tag) == "mesh"), None)
    if mesh is None:
        return np.zeros((0, 3)), np.zeros(0, np.int64), np.zeros((0, 3)), np.zeros(0, np.int64)
    vertices = next((c for c in mesh if _local(c.tag) == "vertices"), None)
    if vertices is None:
        raise MeshError("COLLADA <mesh> without <vertices>")
    vin = {i.get("semantic"): i.get("source") for i in vertices if _local(i.tag) == "input"}
    positions = _dae_source(ref(vin.get("POSITION")), ref)
    vertex_normals = _dae_source(ref(vin["NORMAL"]), ref) if "NORMAL" in vin else None
    all_pos, all_cp, all_nrm, all_cn = [positions], [], [], []
    n_nrm = 0
    for prim in mesh:
        tag = _local(prim.tag)
        if tag in ("lines", "linestrips", "source", "vertices", "extra"):
            continue
        if tag not in ("triangles", "polylist"):
            raise _Unsupported(f"<{tag}>")
        inputs = [i for i in prim if _local(i.tag) == "input"]
        stride = 1 + max(int(i.get("offset") or 0) for i in inputs)
        offs = {i.get("semantic"): (int(i.get("offset") or 0), i.get("source")) for i in inputs}
        if "VERTEX" not in offs:
            raise MeshError(f"COLLADA <{tag}> without a VERTEX input")
        p_el = next((c for c in prim if _local(c.tag) == "p"), None)
        idx = _numbers(p_el.text if p_el is not None else "", np.int64, "<p>")
        if len(idx) % stride:
            raise MeshError(f"COLLADA <{tag}> index count is not a multiple of its inputs")
        idx = idx.reshape(-1, stride)
        if tag == "polylist":
            vc_el = next((c for c in prim if _local(c.tag) == "vcount"), None)
            vcount = _numbers(vc_el.text if vc_el is not None else "", np.int64, "<vcount>")
            if vcount.sum() != len(idx) or (len(vcount) and vcount.min() < 3):
                raise MeshError("COLLADA <polylist> vcount does not match its indices")
            idx = idx[_fan_corners(vcount)]
        elif len(idx) % 3:
            raise MeshError("COLLADA <triangles> with a partial triangle")
        cp = idx[:, offs["VERTEX"][0]]
        _check_indices(cp, len(positions), "position")
        all_cp.append(cp)
        if "NORMAL" in offs:
            nrm = _dae_source(ref(offs["NORMAL"][1]), ref)
            cn = idx[:, offs["NORMAL"][0]]
            _check_indices(cn, len(nrm), "normal")
            all_nrm.append(nrm)
            all_cn.append(cn + n_nrm)
            n_nrm += len(nrm)
        elif vertex_normals is not None:
            all_nrm.append(vertex_normals)
            all_cn.append(cp + n_nrm)
            n_nrm += len(vertex_normals)
        else:  # no normals: flat normals, appended as one normal per triangle
            tri = positions[cp].reshape(-1, 3, 3)
            all_nrm.append(_face_normals(tri))
            all_cn.append(np.repeat(np.arange(len(tri), dtype=np.int64), 3) + n_nrm)
            n_nrm += len(tri)
    if not all_cp:
        return positions[:0], np.zeros(0, np.int64), np.zeros((0, 3)), np.zeros(0, np.int64)
    return (np.concatenate(all_pos), np.concatenate(all_cp), np.concatenate(all_nrm),
            np.concatenate(all_cn))


def _fan_corners(vcount):
    """Row indices turning polygons (vcount corners each) into a triangle fan, 3 per triangle."""
    import numpy as np

    starts = np.concatenate(([0], np.cumsum(vcount)[:-1]))
    ntri = vcount - 2
    if np.all(ntri == 1):
        return np.arange(int(vcount.sum()))
    first = np.repeat(starts, ntri)
    k = np.arange(int(ntri.sum())) - np.repeat(np.cumsum(ntri) - ntri, ntri)
    return np.stack([first, first + k + 1, first + k + 2], axis=1).reshape(-1)


def _face_normals(tri):
    import numpy as np

    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    length = np.linalg.norm(n, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        n = n / length[:, None]
    n[length == 0] = 0.0  # degenerate triangle: no direction
    return n


# --- trimesh (every other format) ----------------------------------------------------------


def _read_trimesh(path: str, declared_up: str | None) -> _Raw:
    import logging

    import numpy as np

    logging.getLogger("trimesh").setLevel(logging.ERROR)
    import trimesh

    tm = trimesh.load(path, force="mesh", process=False)
    if not hasattr(tm, "faces"):
        raise MeshError("no triangles")
    faces = np.asarray(tm.faces, dtype=np.int64).reshape(-1)
    pos = np.asarray(tm.vertices, dtype=np.float64)
    nrm = np.asarray(tm.vertex_normals, dtype=np.float64) if len(faces) else None
    return _Raw(pos, faces, nrm, faces if nrm is not None else None, declared_up, 1.0)


# --- loading, caching, conversion -----------------------------------------------------------

_RAW: dict[str, _Raw] = {}
_DONE: dict[tuple, MeshData] = {}


def read_raw(path: str) -> _Raw:
    """The file's triangles as stored (cached by real path for this process)."""
    real = os.path.realpath(path)
    hit = _RAW.get(real)
    if hit is not None:
        return hit
    suffix = os.path.splitext(path)[1].lower()
    try:
        if suffix in (".stl", ".dae", ".obj"):
            with open(path, "rb") as fh:
                data = fh.read()
        if suffix == ".stl":
            raw = _read_stl(data)
        elif suffix == ".obj":
            raw = _read_obj(data)
        elif suffix == ".dae":
            try:
                raw = _read_dae(data)
            except _Unsupported:
                raw = _read_trimesh(path, _dae_up(data))
        else:
            raw = _read_trimesh(path, "Y" if suffix in (".glb", ".gltf") else None)
    except MeshError:
        raise
    except OSError as exc:
        raise MeshError(exc.strerror or str(exc)) from None
    except Exception as exc:  # trimesh and lxml raise many types for unreadable files
        raise MeshError(f"{type(exc).__name__}: {exc}") from None
    _RAW[real] = raw
    return raw


def _dae_up(data: bytes) -> str | None:
    m = re.search(rb"<up_axis>\s*([XYZ])_UP\s*</up_axis>", data)
    return m.group(1).decode() if m else None


def _unique_rows(a):
    """(unique rows in first-use order, inverse) comparing float values exactly."""
    import numpy as np

    a = np.ascontiguousarray(a + 0.0)  # +0.0 folds -0.0 into 0.0
    view = a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).reshape(-1)
    first, inverse = _first_use(view)
    return a[first], inverse


def _first_use(keys):
    """(index of each distinct key's first occurrence, in that order; inverse into it)."""
    import numpy as np

    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse.reshape(-1)]


def _shading_precision(normals):
    """Unit normals rounded to 6 decimals: they only shade, and short numbers keep the C
    small and fast to write (a normal's direction moves by at most 1e-6)."""
    import numpy as np

    return np.round(normals, 6) + 0.0


def convert(raw: _Raw, scale3=(1.0, 1.0, 1.0), up: str = "Z", forward: str = "Y",
            collada_up: str = "honour") -> MeshData:
    """Apply axes, unit and per-axis scale; index unique (position, normal) pairs."""
    import numpy as np

    if len(raw.corner_pos) == 0:
        raise MeshError("no triangles")
    if raw.up is None:
        rot = axis_rotation(up, forward)
    elif collada_up == "ignore":
        rot = np.eye(3)
    else:
        rot = _declared_rotation(raw.up)
    scale = np.asarray(scale3, dtype=np.float64)
    lin = (scale[:, None] * rot) * raw.unit  # v' = S R (unit v)
    positions, pos_inv = _unique_rows(raw.positions)
    cp = pos_inv[raw.corner_pos]
    positions = positions @ lin.T
    if raw.normals is not None:
        normals, n_inv = _unique_rows(raw.normals)
        cn = n_inv[raw.corner_nrm]
        with np.errstate(divide="ignore", invalid="ignore"):
            normals = normals @ (rot / scale[:, None]).T  # inverse transpose of S R
            length = np.linalg.norm(normals, axis=1)
            normals = np.where(length[:, None] > 0, normals / length[:, None], 0.0)
        normals = _shading_precision(normals)
    else:
        normals, n_inv = _unique_rows(
            _shading_precision(_face_normals(positions[cp].reshape(-1, 3, 3))))
        cn = np.repeat(n_inv, 3)
    key = cp * len(normals) + cn
    first, corner_vertex = _first_use(key)
    vertex_of = key[first]
    vertices = positions[vertex_of // len(normals)]
    vnormals = normals[vertex_of % len(normals)]
    if not np.all(np.isfinite(vertices)):
        raise MeshError("vertex coordinates are not finite")
    return MeshData(vertices, vnormals, corner_vertex.reshape(-1, 3).astype(np.int64))


def mesh_data(mesh: Mesh) -> MeshData:
    """Triangles of a mesh shape in its frame, with the conventions its node holds (cached per
    file, scale and conventions); raises MeshError or ValueError."""
    key = (os.path.realpath(mesh.path), tuple(mesh.scale3), mesh.up, mesh.forward,
           mesh.collada_up)
    hit = _DONE.get(key)
    if hit is None:
        hit = _DONE[key] = convert(read_raw(mesh.path), mesh.scale3, mesh.up, mesh.forward,
                                   mesh.collada_up)
    return hit


def load_mesh(mesh: Mesh, sink: DiagnosticSink, pos: SourcePos) -> MeshData:
    """mesh_data, with errors naming the file and the scene position that asked for it
    (then CompileError)."""
    try:
        return mesh_data(mesh)
    except (MeshError, ValueError) as exc:
        sink.error(mesh_error_message(mesh, exc), pos)
        raise CompileError(sink.items) from None


def mesh_error_message(mesh: Mesh, exc: Exception) -> str:
    name = mesh.source or mesh.path
    where = f" ('{mesh.path}')" if mesh.source and mesh.source != mesh.path else ""
    return f"cannot read mesh '{name}'{where}: {exc}"


def bounds(data: MeshData):
    """(min corner, max corner) of the vertices, numpy arrays."""
    return data.vertices.min(axis=0), data.vertices.max(axis=0)


# --- C text ---------------------------------------------------------------------------------
# Meshes hold millions of floats: formatting them one by one with repr() dominated a robot
# compile. The text is therefore built with numpy: first the shortest decimal (N, e) for each
# float32, then its characters scattered into a byte matrix. The result is exactly what
# `repr(float(decimal)) + "f"` would give (tests compare the two).

_MIDPOINT_MASK = (1 << 29) - 1
_MIDPOINT = 1 << 28
_CHUNK = 1 << 17


_POW10F = [10.0 ** i for i in range(23)]  # exact doubles


def _shortest_decimals(v32):
    """(negative, N, e) with |value| = N * 10**-e the shortest decimal that converts back to
    the same float32 directly (decimal -> float, as a C `f` literal does)."""
    import numpy as np

    v = v32.astype(np.float64)
    neg = np.signbit(v)
    a = np.abs(v)
    n_int = np.zeros(len(v), dtype=np.int64)
    e_out = np.zeros(len(v), dtype=np.int64)
    idx = np.nonzero(a)[0]
    x = a[idx]
    want = x.astype(np.float32)
    mag = np.floor(np.log10(x)).astype(np.int64)
    pow10 = np.asarray(_POW10F)
    pend = np.arange(len(idx))  # positions in idx still without a decimal
    # From 6 digits on: a float32 is never closer than that to a shorter decimal other than the
    # one the 6-digit rounding finds (its trailing zeros are stripped below). Each pass works
    # on the values the previous ones left.
    for digits in range(6, 16):
        e = digits - 1 - mag[pend]
        usable = np.abs(e) <= 22  # exact powers of ten: d is the nearest double
        if not usable.any():
            break
        xs = x[pend]
        scale = pow10[np.minimum(np.abs(e), 22)]
        with np.errstate(over="ignore", invalid="ignore"):
            if (e >= 0).all():
                nn = np.round(xs * scale)
                d = nn / scale
            else:
                up = e >= 0
                nn = np.round(np.where(up, xs * scale, xs / scale))
                d = np.where(up, nn / scale, nn * scale)
            ok = usable & (d.astype(np.float32) == want[pend])
        mid = ok & ((d.view(np.uint64) & np.uint64(_MIDPOINT_MASK)) == np.uint64(_MIDPOINT))
        for i in np.nonzero(mid)[0]:  # a float32 tie: fine only if the decimal IS that double
            ok[i] = _exact_decimal(int(nn[i]), int(e[i]), float(d[i]))
        done = idx[pend[ok]]
        n_int[done] = nn[ok].astype(np.int64)
        e_out[done] = e[ok]
        pend = pend[~ok]
        if not len(pend):
            break
    for i in idx[pend]:  # tiny or huge values: from the exact value's repr
        mant, _, exp = repr(float(a[i])).partition("e")
        whole, _, frac = mant.partition(".")
        n_int[i] = int(whole + frac)  # at most 17 digits
        e_out[i] = len(frac) - int(exp or 0)
    zeros = np.nonzero((n_int % 10 == 0) & (n_int != 0))[0]
    while len(zeros):  # strip trailing zeros
        n_int[zeros] //= 10
        e_out[zeros] -= 1
        zeros = zeros[n_int[zeros] % 10 == 0]
    return neg, n_int, e_out


def _exact_decimal(n: int, e: int, d: float) -> bool:
    from fractions import Fraction

    return Fraction(n) / Fraction(10) ** e == Fraction(d)


_PAIRS = None


def _digit_pairs():
    """uint16 whose two bytes (little-endian memory order) spell 00..99."""
    global _PAIRS
    if _PAIRS is None:
        import numpy as np

        text = "".join(f"{i:02d}" for i in range(100)).encode()
        _PAIRS = np.frombuffer(text, dtype="<u2").astype(np.uint16)
    return _PAIRS


def _float_rows(neg, N, e):
    """A byte matrix, one row per value: `repr(N * 10**-e)` + "f" with NUL bytes in between.

    Each literal is [sign][I][.F][e+XX]: I the integer digits, F the fraction digits (repr's
    positional form: at least one; exponential form: the mantissa's, maybe none). Two byte
    matrices are filled column by column, the left one right-aligned (sign and I), the right
    one left-aligned (the rest), fraction digits two at a time; NULs are dropped later.
    """
    import sys

    import numpy as np

    n = len(N)
    pow10 = 10 ** np.arange(19, dtype=np.int64)
    k = np.searchsorted(pow10, N, side="right").astype(np.int64)  # digits of N
    zero = N == 0
    k[zero] = 1
    decpt = k - e  # value = 0.d1d2...dk * 10**decpt
    expo = ~zero & ((decpt <= -4) | (decpt > 16))
    fl = np.where(expo, k - 1, np.maximum(e, 1))  # fraction digits
    shift = np.where(expo, k - 1, e)
    whole = np.where(shift >= 0, N // pow10[np.clip(shift, 0, 18)],
                     N * pow10[np.clip(-shift, 0, 18)])
    frac = np.where(shift > 0, N - whole * pow10[np.clip(shift, 0, 18)], 0)
    exact = bool(n == 0 or N.max() < (1 << 53))  # digits in float64 arithmetic: faster
    # left matrix: sign and the integer digits, right-aligned
    w_left = 1 + len(str(int(whole.max()))) if n else 2
    left = np.zeros((n, w_left), dtype=np.uint8)
    rest = whole.astype(np.float64) if exact else whole
    kw = np.ones(n, dtype=np.int64)  # digits of `whole` (at least one: "0")
    for t in range(w_left - 1):
        q = np.floor(rest / 10) if exact else rest // 10
        left[:, w_left - 1 - t] = np.where((t == 0) | (rest > 0), rest - 10 * q + 48, 0)
        if t:
            kw += rest > 0
        rest = q
    lflat = left.reshape(-1)
    lflat[(np.arange(n) * w_left + w_left - 1 - kw)[neg]] = ord("-")
    # right matrix: NUL, ".", fraction digits (pairs at even columns), exponent, "f"
    max_fl = int(fl.max()) if n else 0
    n_pairs = (max_fl + 1) // 2
    any_expo = bool(expo.any())
    w_right = 2 + 2 * n_pairs + (6 if any_expo else 2)  # even: viewed as uint16 pairs
    right = np.zeros((n, w_right), dtype=np.uint8)
    right[:, 1] = np.where(fl > 0, ord("."), 0)
    g = frac * pow10[np.clip(2 * n_pairs - fl, 0, 18)]  # fraction digits, left-justified
    if exact:
        g = g.astype(np.float64)
    pairs16 = right.view(np.uint16)
    table = _digit_pairs()
    half = table.copy()  # first digit only: a pair straddling the end of the fraction
    half.view(np.uint8).reshape(-1, 2)[:, 1] = 0
    if sys.byteorder != "little":
        table, half = table.byteswap(), half.byteswap()
    for t in range(n_pairs):
        q = np.floor(g / 100) if exact else g // 100
        pair = (g - 100 * q).astype(np.int64)
        first = 2 * (n_pairs - 1 - t)  # digit index (from the left) of the pair's first digit
        pairs16[:, n_pairs - t] = np.where(fl > first + 1, table[pair],
                                           np.where(fl > first, half[pair], 0))
        g = q
    rflat = right.reshape(-1)
    pos = np.arange(n, dtype=np.int64) * w_right + np.where(fl > 0, 2 + fl, 1)
    if any_expo:
        ev = (decpt - 1)[expo]
        ea = np.abs(ev)
        ep = pos[expo]
        rflat[ep] = ord("e")
        rflat[ep + 1] = np.where(ev < 0, ord("-"), ord("+")).astype(np.uint8)
        three = ea >= 100
        d3 = np.stack([ea // 100, (ea // 10) % 10, ea % 10], axis=1)
        rflat[ep + 2] = np.where(three, d3[:, 0], d3[:, 1]) + 48
        rflat[ep + 3] = np.where(three, d3[:, 1], d3[:, 2]) + 48
        rflat[(ep + 4)[three]] = d3[three, 2] + 48
        pos[expo] += 4 + three
    rflat[pos] = ord("f")
    return np.concatenate([left, right], axis=1)


def c_float_array(values, per_line: int = 8) -> str:
    """Comma-separated float32 literals (shortest round-trip text + `f`), `per_line` a line.

    Meshes repeat their coordinates and normals a lot (one vertex per position/normal pair):
    each distinct value is formatted once, then the rows are gathered.
    """
    import numpy as np

    v32 = np.ascontiguousarray(np.asarray(values, dtype=np.float32).reshape(-1))
    if not np.all(np.isfinite(v32)):
        raise ValueError("non-finite value in a float array")
    if not len(v32):
        return ""
    bits, inverse = np.unique(v32.view(np.uint32), return_inverse=True)  # -0.0 kept apart
    rows = _float_rows(*_shortest_decimals(bits.view(np.float32)))
    inverse = inverse.reshape(-1)
    parts = []
    for start in range(0, len(v32), _CHUNK):
        stop = min(start + _CHUNK, len(v32))
        sep = np.zeros((stop - start, 2), dtype=np.uint8)
        sep[:, 0] = ord(",")
        sep[:, 1] = ord(" ")
        if per_line > 0:
            sep[(np.arange(start, stop) + 1) % per_line == 0, 1] = ord("\n")
        if stop == len(v32):
            sep[-1] = 0
        both = np.concatenate([rows[inverse[start:stop]], sep], axis=1).reshape(-1)
        parts.append(both[both != 0].tobytes())
    return b"".join(parts).decode("ascii")


def float32_texts(values) -> list[str]:
    """Each value's literal as c_float_array writes it (for tests and small arrays)."""
    text = c_float_array(values, per_line=0)
    return text.split(", ") if text else []


def c_index_array(values, per_line: int = 16) -> str:
    import numpy as np

    flat = np.asarray(values, dtype=np.int64).reshape(-1)
    n_full = len(flat) - len(flat) % per_line
    rows = str(flat[:n_full].reshape(-1, per_line).tolist())[2:-2] if n_full else ""
    text = rows.replace("], [", ",\n")
    tail = str(flat[n_full:].tolist())[1:-1]
    if text and tail:
        return text + ",\n" + tail
    return text or tail


@dataclass(frozen=True)
class MeshText:
    """A mesh as C initialiser text (see c_mesh_texts)."""

    n_vertices: int
    n_triangles: int
    vertices: str
    normals: str
    indices: str


def _mesh_text(mesh: Mesh) -> MeshText | Exception:
    try:
        data = convert(read_raw(mesh.path), mesh.scale3, mesh.up, mesh.forward,
                       mesh.collada_up)
        return MeshText(len(data.vertices), len(data.faces), c_float_array(data.vertices),
                        c_float_array(data.normals), c_index_array(data.faces))
    except (MeshError, ValueError) as exc:
        return exc


def c_mesh_texts(shapes: list[Mesh], *, workers: int | None = None):
    """MeshText (or the exception that stopped it) for each mesh, in order.

    Meshes are independent and numpy and lxml release the GIL for their long loops, so they are
    read and formatted on a few threads (one per core, at most 4).
    """
    if workers is None:
        workers = min(4, os.cpu_count() or 1)
    if workers <= 1 or len(shapes) <= 1:
        return [_mesh_text(m) for m in shapes]
    from concurrent.futures import ThreadPoolExecutor

    import numpy  # noqa: F401  (import once, before the threads race to)

    # largest first, so that one big mesh does not finish last alone
    order = sorted(range(len(shapes)), key=lambda i: -_size(shapes[i].path))
    out: list = [None] * len(shapes)
    with ThreadPoolExecutor(workers) as pool:
        futures = {i: pool.submit(_mesh_text, shapes[i]) for i in order}
        for i, fut in futures.items():
            out[i] = fut.result()
    return out


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
