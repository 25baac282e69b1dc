"""COLLADA -> RawMesh with lxml: the visual scene's node transforms applied, <up_axis> and
<unit meter> reported for the conversion; features this reader leaves out (controllers,
unusual accessors, ...) raise Unsupported and the file goes to trimesh instead."""

from __future__ import annotations

import re

from robrayc.meshes.model import MeshError, RawMesh, check_indices, face_normals, numbers


class Unsupported(Exception):
    """A COLLADA feature the own reader leaves to trimesh."""


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def read_dae(data: bytes) -> RawMesh:
    import numpy as np
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                             huge_tree=True, remove_comments=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise MeshError(f"not a valid COLLADA file: {exc}") from None
    ids = {el.get("id"): el for el in root.iter() if el.get("id") is not None}
    up, unit = _conventions(root)

    def ref(url: str | None):
        if not url or not url.startswith("#") or url[1:] not in ids:
            raise Unsupported(f"reference '{url}'")
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

    _walk_scene(root, ref, instance)
    if not out_cp:
        return RawMesh(np.zeros((0, 3)), np.zeros(0, np.int64), None, None, up, unit)
    return RawMesh(np.concatenate(out_pos), np.concatenate(out_cp), np.concatenate(out_nrm),
                np.concatenate(out_cn), up, unit)


def _conventions(root) -> tuple[str | None, float]:
    """The document's <asset> up axis (None: not given) and unit (metres per unit)."""
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
    return up, unit


def _walk_scene(root, ref, instance) -> None:
    """instance(geometry element, world matrix) for every geometry the visual scene places,
    depth first in document order; without a scene every geometry once, untransformed."""
    import numpy as np

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
                    raise Unsupported("instance_controller")
            stack.extend(reversed(children))
    else:  # no scene: every geometry once, untransformed
        for el in root.iter():
            if _local(el.tag) == "geometry":
                instance(el, np.eye(4))


def _dae_node_matrix(node):
    import numpy as np

    m = np.eye(4)
    for t in node:
        tag = _local(t.tag)
        if tag not in ("matrix", "translate", "rotate", "scale", "lookat", "skew"):
            continue
        v = numbers(t.text, np.float64, f"<{tag}>")
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
            raise Unsupported(f"<{tag}> transform")
    return m


def _dae_source(el, ref):
    """A <source>'s float array as (count, stride) (offset 0, every parameter used)."""
    import numpy as np

    arr = next((c for c in el if _local(c.tag) == "float_array"), None)
    acc = next((a for c in el if _local(c.tag) == "technique_common" for a in c
                if _local(a.tag) == "accessor"), None)
    if arr is None or acc is None:
        raise Unsupported("source without float_array/accessor")
    values = numbers(arr.text, np.float64, "<float_array>")
    stride = int(acc.get("stride") or 1)
    count = int(acc.get("count") or 0)
    offset = int(acc.get("offset") or 0)
    if stride < 3 or offset or len(values) < count * stride:
        raise Unsupported("accessor layout")
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
            raise Unsupported(f"<{tag}>")
        inputs = [i for i in prim if _local(i.tag) == "input"]
        stride = 1 + max(int(i.get("offset") or 0) for i in inputs)
        offs = {i.get("semantic"): (int(i.get("offset") or 0), i.get("source")) for i in inputs}
        if "VERTEX" not in offs:
            raise MeshError(f"COLLADA <{tag}> without a VERTEX input")
        p_el = next((c for c in prim if _local(c.tag) == "p"), None)
        idx = numbers(p_el.text if p_el is not None else "", np.int64, "<p>")
        if len(idx) % stride:
            raise MeshError(f"COLLADA <{tag}> index count is not a multiple of its inputs")
        idx = idx.reshape(-1, stride)
        if tag == "polylist":
            vc_el = next((c for c in prim if _local(c.tag) == "vcount"), None)
            vcount = numbers(vc_el.text if vc_el is not None else "", np.int64, "<vcount>")
            if vcount.sum() != len(idx) or (len(vcount) and vcount.min() < 3):
                raise MeshError("COLLADA <polylist> vcount does not match its indices")
            idx = idx[_fan_corners(vcount)]
        elif len(idx) % 3:
            raise MeshError("COLLADA <triangles> with a partial triangle")
        cp = idx[:, offs["VERTEX"][0]]
        check_indices(cp, len(positions), "position")
        all_cp.append(cp)
        if "NORMAL" in offs:
            nrm = _dae_source(ref(offs["NORMAL"][1]), ref)
            cn = idx[:, offs["NORMAL"][0]]
            check_indices(cn, len(nrm), "normal")
            all_nrm.append(nrm)
            all_cn.append(cn + n_nrm)
            n_nrm += len(nrm)
        elif vertex_normals is not None:
            all_nrm.append(vertex_normals)
            all_cn.append(cp + n_nrm)
            n_nrm += len(vertex_normals)
        else:  # no normals: flat normals, appended as one normal per triangle
            tri = positions[cp].reshape(-1, 3, 3)
            all_nrm.append(face_normals(tri))
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


def declared_up(data: bytes) -> str | None:
    m = re.search(rb"<up_axis>\s*([XYZ])_UP\s*</up_axis>", data)
    return m.group(1).decode() if m else None
