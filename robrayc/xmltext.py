"""XML text escaping for the text backends (the stdlib's xml.sax.saxutils pulls in urllib and
http.client, ~40 ms of start-up for three replace calls).

XML 1.0 cannot hold most C0 control characters, not even as character references: they are
written as U+FFFD (these backends use names only as labels; the URDF backend, where names are
identities, refuses them instead).
"""

from __future__ import annotations

import re

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def escape(text: str) -> str:
    """Character data: &, < and > escaped; characters XML cannot hold replaced."""
    text = _NOT_XML.sub("\ufffd", text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quoteattr(text: str) -> str:
    """A double-quoted attribute value; tabs and newlines kept as character references."""
    text = escape(text).replace('"', "&quot;")
    return '"' + text.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;") + '"'


def number(x: float) -> str:
    """A number as robot description formats write it: the shortest text that reads back as
    the same double, -0.0 as 0.0."""
    return repr(float(x) + 0.0)


def numbers(values) -> str:
    """Numbers separated by spaces (URDF, MJCF and SDF vectors)."""
    return " ".join(number(x) for x in values)
