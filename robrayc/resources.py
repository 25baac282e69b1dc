"""Locate the data folders (grammar/, templates/, cmake/ ...) installed with the package.

A wheel carries them inside the package (robrayc/grammar); a source checkout or editable
install keeps them at the top of the repository.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    inside = _PACKAGE / name
    if inside.is_dir():
        return inside
    return _PACKAGE.parent / name


def resource_path(folder: str, name: str) -> Path:
    return resource_dir(folder) / name
