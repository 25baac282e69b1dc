"""jinja2 environment for the text backends (templates/ folder), created on first use.

Compiled templates are cached as bytecode in the user's cache folder (~10 ms a run for the C
template); a cache that cannot be read or written is simply not used.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "robrayc" / "jinja"


@lru_cache(maxsize=1)
def environment():
    import jinja2

    from robrayc.resources import resource_dir

    class QuietCache(jinja2.FileSystemBytecodeCache):
        def load_bytecode(self, bucket) -> None:
            try:
                super().load_bytecode(bucket)
            except (OSError, ValueError, EOFError):
                bucket.reset()

        def dump_bytecode(self, bucket) -> None:
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass

    cache = None
    try:
        folder = cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        cache = QuietCache(str(folder))
    except OSError:
        pass
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resource_dir("templates"))),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True, autoescape=False, bytecode_cache=cache)


def render(template: str, model: dict) -> str:
    return environment().get_template(template).render(**model)
