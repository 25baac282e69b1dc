"""STL, binary and ASCII -> RawMesh (one position per corner; normals left to conversion)."""

from __future__ import annotations

import re

from robrayc.meshes.model import MeshError, RawMesh


def read_stl(data: bytes) -> RawMesh:
    import numpy as np

    if len(data) >= 84:
        count = int.from_bytes(data[80:84], "little")
        if len(data) == 84 + 50 * count and (count > 0 or not data.lstrip().startswith(b"solid")):
            rec = np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])
            tri = np.frombuffer(data, dtype=rec, count=count, offset=84)
            pos = tri["v"].reshape(-1, 3).astype(np.float64)
            return RawMesh(pos, np.arange(len(pos), dtype=np.int64), None, None, None, 1.0)
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
    return RawMesh(pos, np.arange(len(pos), dtype=np.int64), None, None, None, 1.0)
