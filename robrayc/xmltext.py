"""XML text escaping for the text backends (the stdlib's xml.sax.saxutils pulls in urllib and
http.client, ~40 ms of start-up for three replace calls)."""

from __future__ import annotations


def escape(text: str) -> str:
    """Character data: &, < and > escaped."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quoteattr(text: str) -> str:
    """A double-quoted attribute value; tabs and newlines kept as character references."""
    text = escape(text).replace('"', "&quot;")
    return '"' + text.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;") + '"'
