"""Binary STL (and OBJ) writing, for backends that must write a mesh file beside their output
(a cone in URDF/SDF/MJCF, a COLLADA mesh MuJoCo cannot read, a mesh too big for an STL)."""

from __future__ import annotations

import math

CONE_SEGMENTS = 32


def triangles_stl(triangles, header: bytes = b"robrayc") -> bytes:
    """Binary STL of a (t, 3, 3) array of triangle corners (float32, as the format holds)."""
    import numpy as np

    t = np.asarray(triangles, dtype=np.float64).reshape(-1, 3, 3)
    n = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
    length = np.linalg.norm(n, axis=1)
    n = np.where(length[:, None] > 0, n / np.where(length > 0, length, 1)[:, None], 0.0)
    rec = np.zeros(len(t), dtype=[("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])
    rec["n"] = n
    rec["v"] = t
    return header[:80].ljust(80, b" ") + len(t).to_bytes(4, "little") + rec.tobytes()


def obj_text(vertices, faces) -> bytes:
    """Wavefront OBJ of a (v, 3) vertex and (f, 3) face array, every double written exactly."""
    import numpy as np

    v = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
    f = np.asarray(faces, dtype=np.int64).reshape(-1, 3) + 1
    lines = [f"v {x!r} {y!r} {z!r}" for x, y, z in v.tolist()]
    lines += [f"f {a} {b} {c}" for a, b, c in f.tolist()]
    return ("\n".join(lines) + "\n").encode("ascii")


def cone_stl(height: float, r0: float, r1: float, segments: int = CONE_SEGMENTS) -> bytes:
    """Binary STL of amino's cone: radius r0 at z=0 to r1 at z=height, capped."""
    import numpy as np

    a = np.linspace(0.0, 2 * math.pi, segments, endpoint=False)
    ring = np.stack([np.cos(a), np.sin(a)], axis=1)
    bottom = np.column_stack([ring * r0, np.zeros(segments)])
    top = np.column_stack([ring * r1, np.full(segments, height)])
    nxt = np.roll(np.arange(segments), -1)
    tris = []
    for i in range(segments):
        j = nxt[i]
        tris.append((bottom[i], bottom[j], top[j]))
        tris.append((bottom[i], top[j], top[i]))
        tris.append(((0.0, 0.0, 0.0), bottom[j], bottom[i]))
        tris.append(((0.0, 0.0, height), top[i], top[j]))
    return triangles_stl(tris, b"robrayc cone")
