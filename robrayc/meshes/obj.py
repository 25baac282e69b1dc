"""Wavefront OBJ -> RawMesh (polygons fanned into triangles; normals when every face has them)."""

from __future__ import annotations

from robrayc.meshes.model import MeshError, RawMesh, check_indices, numbers


def read_obj(data: bytes) -> RawMesh:
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
    pos = numbers(" ".join(positions), np.float64, "OBJ vertices").reshape(-1, 3)
    corner_pos = np.array(cp, dtype=np.int64)
    check_indices(corner_pos, len(pos), "vertex")
    if has_normals and cp:
        nrm = numbers(" ".join(normals), np.float64, "OBJ normals").reshape(-1, 3)
        corner_nrm = np.array(cn, dtype=np.int64)
        check_indices(corner_nrm, len(nrm), "normal")
        return RawMesh(pos, corner_pos, nrm, corner_nrm, None, 1.0)
    return RawMesh(pos, corner_pos, None, None, None, 1.0)
