"""jinja2 environment for the text backends (templates/ folder), created on first use."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def environment():
    import jinja2

    from robrayc.resources import resource_dir

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resource_dir("templates"))),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True, autoescape=False)


def render(template: str, model: dict) -> str:
    return environment().get_template(template).render(**model)
