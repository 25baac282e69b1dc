"""C source text helpers shared by the C-emitting backends: literals, comments, identifiers,
and meshes as float and index array initialisers."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from robrayc.ir import Mesh

_SAFE = frozenset(range(0x20, 0x7F)) - {ord('"'), ord("\\"), ord("?")}
_PLAIN = re.compile(r'[ !#->@-\[\]-~]*')  # printable ASCII but '"', '?' and backslash


def c_string(name: str) -> str:
    """A C string literal holding `name`'s UTF-8 bytes exactly.

    Bytes outside printable ASCII, quotes, backslashes and `?` (trigraphs) become 3-digit
    octal escapes, which never absorb a following digit.
    """
    if _PLAIN.fullmatch(name):  # the common case: printable ASCII, nothing to escape
        return f'"{name}"'
    out = ['"']
    for byte in name.encode("utf-8", "surrogateescape"):
        out.append(chr(byte) if byte in _SAFE else f"\\{byte:03o}")
    out.append('"')
    return "".join(out)


def c_string_or_null(name: str | None) -> str:
    return "NULL" if name is None else c_string(name)


def c_double(x: float) -> str:
    """Shortest round-trip text for a double, valid C (repr never depends on the locale)."""
    text = repr(float(x))
    if text[-1] in "0123456789":  # finite (the repr of a finite double ends in a digit)
        return text
    if text == "nan":
        return "NAN"
    return "INFINITY" if text == "inf" else "(-INFINITY)"


def c_float(x: float) -> str:
    """A float literal (for mesh arrays): shortest text that round-trips the float32 value."""
    import numpy as np

    return np.format_float_positional(np.float32(x), unique=True, trim="0") + "f"


def c_doubles(values) -> str:
    """A C initialiser list of doubles."""
    text = ", ".join(map(repr, map(float, values)))
    if "n" in text:  # "nan" and "inf" hold an n, finite reprs never: as c_double writes them
        text = ", ".join(c_double(float(t)) for t in text.split(", "))  # reprs round-trip
    return text


_COMMENT_SAFE = re.compile(r"[ -\[\]-~]*")  # printable ASCII but backslash


def c_comment(text: str) -> str:
    """Text safe inside a /* */ comment on one line: ASCII printable, no '*/', no '\\'."""
    if _COMMENT_SAFE.fullmatch(text):
        safe = text
    else:
        safe = "".join(ch if 0x20 <= ord(ch) < 0x7F and ch != "\\" else "?" for ch in text)
    return safe.replace("*/", "*?").replace("/*", "?*")[:200]


def c_identifier(text: str) -> str:
    """A valid C identifier derived from text (not necessarily unique)."""
    ident = re.sub(r"[^A-Za-z0-9_]", "_", text)
    if not ident or ident[0].isdigit():
        ident = "g_" + ident
    return ident


# --- mesh arrays ----------------------------------------------------------------------------
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


class MeshText:
    """A mesh as C initialiser text (see c_mesh_texts). A plain class: a dataclass here cost
    every C compile ~1 ms at import."""

    __slots__ = ("n_vertices", "n_triangles", "vertices", "normals", "indices")

    def __init__(self, n_vertices: int, n_triangles: int, vertices: str, normals: str,
                 indices: str) -> None:
        self.n_vertices, self.n_triangles = n_vertices, n_triangles
        self.vertices, self.normals, self.indices = vertices, normals, indices

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MeshText) and all(
            getattr(self, k) == getattr(other, k) for k in self.__slots__)


def _mesh_text(mesh: Mesh) -> MeshText | Exception:
    from robrayc.meshes import MeshError, mesh_data

    try:
        data = mesh_data(mesh)
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
