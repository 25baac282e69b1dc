"""C source text helpers shared by the C-emitting backends: literals, comments, identifiers."""

from __future__ import annotations

import math
import re

_SAFE = frozenset(range(0x20, 0x7F)) - {ord('"'), ord("\\"), ord("?")}


def c_string(name: str) -> str:
    """A C string literal holding `name`'s UTF-8 bytes exactly.

    Bytes outside printable ASCII, quotes, backslashes and `?` (trigraphs) become 3-digit
    octal escapes, which never absorb a following digit.
    """
    out = ['"']
    for byte in name.encode("utf-8", "surrogateescape"):
        out.append(chr(byte) if byte in _SAFE else f"\\{byte:03o}")
    out.append('"')
    return "".join(out)


def c_string_or_null(name: str | None) -> str:
    return "NULL" if name is None else c_string(name)


def c_double(x: float) -> str:
    """Shortest round-trip text for a double, valid C (repr never depends on the locale)."""
    x = float(x)
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "(-INFINITY)"
    return repr(x)


def c_float(x: float) -> str:
    """A float literal (for mesh arrays): shortest text that round-trips the float32 value."""
    import numpy as np

    return np.format_float_positional(np.float32(x), unique=True, trim="0") + "f"


def c_doubles(values) -> str:
    return ", ".join(c_double(v) for v in values)


def c_comment(text: str) -> str:
    """Text safe inside a /* */ comment on one line: ASCII printable, no '*/', no '\\'."""
    safe = "".join(ch if 0x20 <= ord(ch) < 0x7F and ch != "\\" else "?" for ch in text)
    return safe.replace("*/", "*?").replace("/*", "?*")[:200]


def c_identifier(text: str) -> str:
    """A valid C identifier derived from text (not necessarily unique)."""
    ident = re.sub(r"[^A-Za-z0-9_]", "_", text)
    if not ident or ident[0].isdigit():
        ident = "g_" + ident
    return ident
