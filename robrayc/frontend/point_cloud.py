"""Point-cloud files: the points of a sensor's scan, as (n, 3) coordinates (run-time obstacles,
`robrayc plan --points`).

Formats, by suffix: `.pcd` (PCL's; DATA ascii, binary or binary_compressed, the fields x, y,
z), `.ply` (ascii, binary little or big endian; the vertex element's x, y, z), `.npy` (numpy,
an (n, 3) array) and `.xyz` (text: x y z a line, more columns ignored, `#` comments). Points without
coordinates (NaN: no return, as organised clouds hold them) are left out with a warning; any
other problem is an error at its place in the file.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from robrayc.diagnostics import DiagnosticSink, SourceCache, SourcePos

SUFFIXES = (".pcd", ".ply", ".npy", ".xyz")
_NUMBER = re.compile(r"[^\s,]+")


class _Bad(Exception):
    """A problem at (line, col) of the file (0: the file)."""

    def __init__(self, message: str, line: int = 0, col: int = 0, hint: str | None = None):
        super().__init__(message)
        self.line, self.col, self.hint = line, col, hint


def read_points(path: str, sink: DiagnosticSink,
                sources: SourceCache | None = None) -> np.ndarray:
    """The points of a point-cloud file ((n, 3) floats, finite); errors go to sink and raise
    CompileError (with the text in sources, so that an error in a text file shows its line)."""
    suffix = Path(path).suffix.lower()
    data = b""
    readers = {".pcd": _pcd, ".ply": _ply, ".npy": _npy, ".xyz": _xyz}
    try:
        if suffix not in readers:
            raise _Bad(f"unrecognized point-cloud suffix '{suffix}'",
                       hint="known suffixes: " + ", ".join(SUFFIXES))
        data = Path(path).read_bytes()
        points = np.asarray(readers[suffix](data), dtype=float).reshape(-1, 3)
    except OSError as exc:
        raise sink.fatal(f"cannot read point cloud: {exc.strerror or exc}",
                         SourcePos(path)) from None
    except _Bad as exc:
        if exc.line > 0 and sources is not None:
            sources.add(path, data.decode("utf-8", "replace"))
        raise sink.fatal(str(exc), SourcePos(path, exc.line, exc.col), exc.hint) from None
    faces = _ply_faces(data) if suffix == ".ply" else 0
    if faces:
        sink.warning(f"the PLY file holds {faces} faces (a mesh): only its vertices are points "
                     "here", SourcePos(path), "give a mesh as a scene's geometry to --obstacles",
                     name="point-cloud-faces")
    missing = np.isnan(points).any(axis=1)
    if missing.any():
        sink.warning(f"{int(missing.sum())} of {len(points)} points have no coordinates (NaN) "
                     "and are left out", SourcePos(path), name="missing-points")
        points = points[~missing]
    if not np.isfinite(points).all():
        raise sink.fatal("a point has an infinite coordinate", SourcePos(path))
    return points


def _npy(data: bytes) -> np.ndarray:
    import io

    try:
        arr = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError) as exc:
        raise _Bad(f"not a numpy .npy file: {exc}") from None
    if arr.dtype.kind not in "fiu" or arr.ndim != 2 or arr.shape[1] != 3:
        raise _Bad(f"a .npy point cloud must be an (n, 3) array of numbers, got "
                   f"{arr.dtype} of shape {arr.shape}")
    return arr


def _text_rows(lines: list[str], first: int, columns: int) -> np.ndarray:
    """The first `columns` numbers of each line (line numbers from `first`); blank lines and
    `#` comments skipped."""
    rows = []
    for number, line in enumerate(lines, first):
        body = line.split("#", 1)[0]
        fields = list(_NUMBER.finditer(body))
        if not fields:
            continue
        if len(fields) < columns:
            raise _Bad(f"expected {columns} numbers, got {len(fields)}", number,
                       len(body.rstrip()) + 1)
        row = []
        for f in fields[:columns]:
            try:
                row.append(float(f.group()))
            except ValueError:
                raise _Bad(f"'{f.group()}' is not a number", number, f.start() + 1) from None
        rows.append(row)
    return np.array(rows, dtype=float).reshape(len(rows), columns)


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Bad(f"not a text file (byte {exc.start})") from None


def _xyz(data: bytes) -> np.ndarray:
    return _text_rows(_decode(data).splitlines(), 1, 3)


def _header(data: bytes, end: bytes, limit: int = 1 << 16) -> tuple[list[str], int]:
    """The header's lines up to and including the one starting with `end`, and the offset of
    the data after it."""
    at, lines = 0, []
    while at < min(len(data), limit):
        stop = data.find(b"\n", at)
        if stop < 0:
            break
        line = data[at:stop].decode("ascii", "replace").rstrip("\r")
        lines.append(line)
        at = stop + 1
        if line.split(" ", 1)[0].encode() == end:
            return lines, at
    raise _Bad(f"no '{end.decode()}' line ending the header", len(lines) or 1, 1)


# --- PCD ------------------------------------------------------------------------------------

_PCD_TYPES = {("F", 4): "f4", ("F", 8): "f8", ("I", 1): "i1", ("I", 2): "i2", ("I", 4): "i4",
              ("I", 8): "i8", ("U", 1): "u1", ("U", 2): "u2", ("U", 4): "u4", ("U", 8): "u8"}


def _pcd(data: bytes) -> np.ndarray:
    lines, offset = _header(data, b"DATA")
    head: dict[str, tuple[int, list[str]]] = {}
    for number, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].split()
        if words:
            head[words[0].upper()] = (number, words[1:])
    for key in ("FIELDS", "POINTS"):
        if key not in head:
            raise _Bad(f"PCD header without {key}", len(lines), 1)
    fields = head["FIELDS"][1]
    n = len(fields)
    sizes = head.get("SIZE", (0, ["4"] * n))[1]
    types = head.get("TYPE", (0, ["F"] * n))[1]
    counts = head.get("COUNT", (0, ["1"] * n))[1]
    if not (len(sizes) == len(types) == len(counts) == n):
        raise _Bad("PCD FIELDS, SIZE, TYPE and COUNT differ in length", head["FIELDS"][0], 1)
    for name in "xyz":
        if name not in fields:
            raise _Bad(f"PCD without a field '{name}'", head["FIELDS"][0], 1)
    try:
        total = int(head["POINTS"][1][0])
        widths = [int(c) for c in counts]
    except (ValueError, IndexError):
        raise _Bad("PCD POINTS and COUNT must be whole numbers", head["POINTS"][0], 1) from None
    kind = head["DATA"][1][0].lower() if head["DATA"][1] else ""
    column = {name: sum(widths[:k]) for k, name in enumerate(fields)}
    if kind == "ascii":
        rows = _text_rows(_decode(data[offset:]).splitlines(), len(lines) + 1, sum(widths))
        if len(rows) != total:
            raise _Bad(f"PCD POINTS says {total}, the data holds {len(rows)}",
                       head["POINTS"][0], 1)
        return rows[:, [column["x"], column["y"], column["z"]]]
    if kind not in ("binary", "binary_compressed"):
        raise _Bad(f"PCD DATA {kind or '(none)'} is not read", len(lines), 6,
                   "PCD data is ascii, binary or binary_compressed")
    try:
        columns = [np.dtype("<" + _PCD_TYPES[(t.upper(), int(s))])
                   for t, s in zip(types, sizes, strict=True)]
    except (KeyError, ValueError):
        raise _Bad("PCD SIZE and TYPE name no number type", head.get("TYPE", (1,))[0],
                   1) from None
    if kind == "binary":  # a record a point
        dtype = np.dtype([(f"f{k}", c, (w,)) for k, (c, w) in enumerate(zip(columns, widths,
                                                                          strict=True))])
        if len(data) - offset < total * dtype.itemsize:
            raise _Bad(f"PCD data too short for {total} points", len(lines), 1)
        rec = np.frombuffer(data, dtype=dtype, count=total, offset=offset)
        return np.column_stack([rec[f"f{fields.index(a)}"][:, 0].astype(float) for a in "xyz"])
    body = _pcd_inflate(data[offset:], len(lines))  # a field at a time, each all points'
    starts = np.cumsum([0] + [total * c.itemsize * w for c, w in zip(columns, widths,
                                                                     strict=True)])
    if len(body) < starts[-1]:
        raise _Bad(f"PCD data too short for {total} points", len(lines), 1)
    out = []
    for a in "xyz":
        k = fields.index(a)
        col = np.frombuffer(body, dtype=columns[k], count=total * widths[k], offset=starts[k])
        out.append(col.reshape(total, widths[k])[:, 0].astype(float))
    return np.column_stack(out)


def _pcd_inflate(data: bytes, line: int) -> bytes:
    """PCD's binary_compressed data: two uint32 (compressed and full size), then LZF."""
    if len(data) < 8:
        raise _Bad("PCD binary_compressed data without its sizes", line, 1)
    packed, size = (int(x) for x in np.frombuffer(data, "<u4", 2))
    out = _lzf(data[8:8 + packed], size) if len(data) >= 8 + packed else None
    if out is None or len(out) != size:
        raise _Bad("PCD binary_compressed data is corrupt (LZF)", line, 1)
    return out


def _lzf(data: bytes, size: int) -> bytes | None:
    """LZF decompression (liblzf's lzf_decompress, as PCL writes it); None when corrupt."""
    out, at, n = bytearray(), 0, len(data)
    while at < n:
        ctrl = data[at]
        at += 1
        if ctrl < 32:  # ctrl + 1 literal bytes
            out += data[at:at + ctrl + 1]
            at += ctrl + 1
            continue
        length = ctrl >> 5
        if length == 7:
            if at >= n:
                return None
            length += data[at]
            at += 1
        if at >= n:
            return None
        ref = len(out) - ((ctrl & 0x1F) << 8) - data[at] - 1
        at += 1
        length += 2
        if ref < 0 or len(out) + length > size:
            return None
        while length > 0:  # the reference may overlap what it writes: in steps
            step = min(length, len(out) - ref)
            out += out[ref:ref + step]
            ref, length = ref + step, length - step
    return bytes(out)


# --- PLY ------------------------------------------------------------------------------------

_PLY_TYPES = {"char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1", "short": "i2",
              "int16": "i2", "ushort": "u2", "uint16": "u2", "int": "i4", "int32": "i4",
              "uint": "u4", "uint32": "u4", "float": "f4", "float32": "f4", "double": "f8",
              "float64": "f8"}


def _ply_vertex(lines: list[str]) -> tuple[str, int, list[str], int]:
    """(format, vertex count, vertex property types by name order, header line of the vertex
    element): the vertex element must come first and hold no lists."""
    if not lines or lines[0].strip() != "ply":
        raise _Bad("not a PLY file (no 'ply' first line)", 1, 1)
    fmt, element, props, names, at = "", None, [], [], 0
    for number, line in enumerate(lines, 1):
        words = line.split()
        if words[:1] == ["format"] and len(words) > 1:
            fmt = words[1]
        elif words[:1] == ["element"]:
            if element is not None:
                break
            if len(words) != 3 or words[1] != "vertex" or not words[2].isdigit():
                raise _Bad("the first PLY element must be 'element vertex N'", number, 1)
            element, at = int(words[2]), number
        elif words[:1] == ["property"] and element is not None:
            if len(words) != 3 or words[1] not in _PLY_TYPES:
                raise _Bad(f"a PLY vertex property of type '{' '.join(words[1:-1])}' is not "
                           "read", number, 10)
            props.append(_PLY_TYPES[words[1]])
            names.append(words[2])
    if fmt not in ("ascii", "binary_little_endian", "binary_big_endian"):
        raise _Bad(f"unknown PLY format '{fmt}'", 2, 1)
    if element is None:
        raise _Bad("a PLY file without a vertex element", len(lines), 1)
    for name in "xyz":
        if name not in names:
            raise _Bad(f"the PLY vertex element has no property '{name}'", at, 1)
    return fmt, element, list(zip(names, props, strict=True)), at


def _ply_faces(data: bytes) -> int:
    """How many faces a PLY file's header declares (0: a point cloud)."""
    lines, _ = _header(data, b"end_header")
    counts = [w[2] for w in (line.split() for line in lines)
              if len(w) == 3 and w[:2] == ["element", "face"]]
    return int(counts[0]) if counts and counts[0].isdigit() else 0


def _ply(data: bytes) -> np.ndarray:
    lines, offset = _header(data, b"end_header")
    fmt, n, props, _ = _ply_vertex(lines)
    names = [name for name, _ in props]
    if fmt == "ascii":
        body = _decode(data[offset:]).splitlines()[:n]  # other elements (faces) follow
        rows = _text_rows(body, len(lines) + 1, len(props))
        if len(rows) < n:
            raise _Bad(f"the PLY file holds {len(rows)} of its {n} vertices", len(lines), 1)
        return rows[:n, [names.index(a) for a in "xyz"]]
    order = "<" if fmt == "binary_little_endian" else ">"
    dtype = np.dtype([(f"p{k}", order + t) for k, (_, t) in enumerate(props)])
    if len(data) - offset < n * dtype.itemsize:
        raise _Bad(f"the PLY data is too short for {n} vertices", len(lines), 1)
    rec = np.frombuffer(data, dtype=dtype, count=n, offset=offset)
    return np.column_stack([rec[f"p{names.index(a)}"].astype(float) for a in "xyz"])

