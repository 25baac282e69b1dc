"""Reference pages generated from the code at build time, so they cannot drift from it.

MkDocs runs `on_page_markdown` (mkdocs.yml `hooks:`) on every page; a line
`<!-- generated: KIND -->` is replaced by the Markdown of KIND:

- `commands`: every command and option, from the argument parsers themselves (the compiler's
  `robrayc.cli.arguments.build_parser()` with every backend's options, and each subcommand's
  parser, found in the module `robrayc.cli.subcommands.SUBCOMMANDS` names);
- `formats`: the output formats, from `robrayc.backends.BACKENDS` and each backend's `HELP`;
- `inputs`: the input formats, from `robrayc.frontend`'s `LOADERS`, `XML_ROOTS`, `INPUT_FORMATS`;
- `warnings`: every warning name, from `robrayc.diagnostics.WARNINGS`;
- `attributes`: every robray attribute, from the loader's schema
  (`robrayc.frontend.robray_attrs`), described by `ATTRIBUTE_DOCS` below;
- `shapes`, `joint-types`: the shape names, the joint types (inline).

tests/test_docs.py imports this module: an option without help text, a subcommand without a
parser, or an attribute without a description fails there.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re

MARKER = re.compile(r"<!-- generated: ([a-z-]+) -->")

# What each attribute of the robray language means (the loader's schema says where it may
# stand and what kind of value it takes). A new attribute needs a line here: the docs tests
# fail until it has one.
ATTRIBUTE_DOCS: dict[str, str] = {
    "parent": "the parent frame (default: the enclosing frame, else the scene root)",
    "translation": "`[x, y, z]` position in the parent frame",
    "quaternion": "`[x, y, z, w]` rotation, scalar last; normalised (warned when off by "
                  "more than 1e-6); wins over `rpy`",
    "rpy": "`[roll, pitch, yaw]` rotation, R = Rz(yaw) Ry(pitch) Rx(roll) as URDF",
    "type": "the joint type, `fixed` by default: {joint_types}",
    "axis": "`[x, y, z]` joint axis (required for joints; a revolute axis is normalised)",
    "offset": "added to the configuration value",
    "variable": "the configuration variable (default: the frame name; joints may share one)",
    "isa": "a class whose attributes apply (repeatable); an undeclared name is kept as a tag",
    "limit_position": "`[min, max]` position limits (extension)",
    "limit_velocity": "`v` (meaning `[-v, v]`) or `[min, max]` (extension)",
    "limit_acceleration": "`v` or `[min, max]` (extension)",
    "limit_effort": "`v` or `[min, max]`: force or torque (extension)",
    "mass": "mass of the frame's body, kg (extension)",
    "inertia": "`[ixx, ixy, ixz, iyy, iyz, izz]` or the 9 values of the symmetric matrix, "
               "about the frame origin (extension)",
    "shape": "{shapes}",
    "mesh": "`\"file\"`: a mesh (relative to the file naming it, `package://PKG/path`)",
    "dimension": "`[x, y, z]` of a box, `[x, y]` of a grid",
    "radius": "of a sphere or cylinder",
    "height": "of a cylinder or cone, along +Z from the frame origin (negative: along -Z)",
    "start_radius": "of a cone, at the frame origin",
    "end_radius": "of a cone, at `height`",
    "delta": "`[dx, dy]` cell size of a grid",
    "thickness": "line thickness of a grid",
    "color": "`[r, g, b]` (default 0.8 grey)",
    "alpha": "opacity (default 1)",
    "specular": "`[r, g, b]` (default 0)",
    "scale": "a number, or `[x, y, z]` for a mesh (as URDF)",
    "visual": "non-zero: drawn (default 1)",
    "collision": "non-zero: collision geometry (default 1)",
    "no-shadow": "non-zero: casts no shadow (default 0); also spelt `no_shadow`",
    "link": "robot identity: the URDF link this frame stands for or holds part of",
    "link_role": "robot identity: `link`, `visual`, `collision` or `inertial`",
    "robot": "robot identity: the robot's name (a top-level frame)",
    "root_link": "robot identity: the robot's root link (a top-level frame)",
    "material": "robot identity: a visual's material name",
}


def on_page_markdown(markdown: str, page=None, config=None, files=None) -> str:
    """MkDocs hook: expand the `<!-- generated: KIND -->` lines of a page."""
    def expand(m: re.Match) -> str:
        if m.group(1) not in GENERATORS:
            raise KeyError(f"<!-- generated: {m.group(1)} -->: no such generator "
                           f"(known: {', '.join(GENERATORS)})")
        return GENERATORS[m.group(1)]()

    return MARKER.sub(expand, markdown)


SPHINX_ROLE = re.compile(r":(?:class|meth|func|attr|mod|data|obj):(<code>)")


def on_page_content(html: str, page=None, config=None, files=None) -> str:
    """MkDocs hook: docstrings written with Sphinx roles (`:class:`X``) show as plain code."""
    return SPHINX_ROLE.sub(r"\1", html)


# --- commands ------------------------------------------------------------------------------


def parsers() -> dict[str, argparse.ArgumentParser]:
    """`robrayc` and each subcommand -> its parser, as the command builds it."""
    from robrayc.cli.arguments import build_parser
    from robrayc.cli.subcommands import SUBCOMMANDS

    out = {"robrayc": build_parser()}
    for name, target in SUBCOMMANDS.items():
        module = importlib.import_module(target.partition(":")[0])
        found = [p for p in _parsers_in(module) if p.prog == f"robrayc {name}"]
        if len(found) != 1:
            raise LookupError(f"subcommand {name}: {len(found)} parsers with prog "
                              f"'robrayc {name}' in {module.__name__}")
        out[f"robrayc {name}"] = found[0]
    return out


def _parsers_in(module) -> list[argparse.ArgumentParser]:
    """The parsers that the module's argument-free `*parser*` functions build."""
    found = []
    for attr, fn in vars(module).items():
        if "parser" not in attr.lower() or not inspect.isfunction(fn):
            continue
        if fn.__module__ != module.__name__ or any(
                p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                for p in inspect.signature(fn).parameters.values()):
            continue
        parser = fn()
        if isinstance(parser, argparse.ArgumentParser):
            found.append(parser)
    return found


def documented_actions(parser: argparse.ArgumentParser):
    """(group title, description, actions) of every argument group that has arguments."""
    for group in parser._action_groups:
        actions = [a for a in group._group_actions if a.help is not argparse.SUPPRESS]
        if actions:
            yield group.title, group.description, actions


def _option_names(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    shown = []
    for opt in action.option_strings:
        if action.nargs == 0:
            shown.append(f"`{opt}`")
        else:
            meta = action.metavar or (("{" + ",".join(map(str, action.choices)) + "}")
                                      if action.choices else action.dest.upper())
            shown.append(f"`{opt} {meta}`")
    return ", ".join(shown)


def _cell(text: str | None) -> str:
    text = " ".join((text or "").split())
    text = text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("%%", "%")


def _action_row(action: argparse.Action) -> str:
    meaning = _cell(action.help)
    if action.choices is not None and action.metavar is not None:
        meaning = (meaning.rstrip(".") + ". Choices: "
                   + ", ".join(f"`{c}`" for c in action.choices) + ".")
    return f"| {_option_names(action)} | {meaning} |"


def commands_markdown() -> str:
    lines = []
    for name, parser in parsers().items():
        lines += [f"## `{name}`", "", "```text", _usage(parser), "```", ""]
        if parser.description:
            lines += [_cell(parser.description), ""]
        for title, description, actions in documented_actions(parser):
            shown = (f"`{title.removesuffix(' output')}` output" if title.endswith(" output")
                     else title[0].upper() + title[1:])
            lines += [f"### {shown} {{ #{_anchor(name, title)} }}", ""]
            if description:
                lines += [_cell(description), ""]
            lines += ["| option | meaning |", "| --- | --- |"]
            lines += [_action_row(a) for a in actions]
            lines.append("")
    return "\n".join(lines)


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(parser.prog, width=100)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups, "")
    text = formatter.format_help().strip()
    return text if len(text) < 400 else f"{parser.prog} [OPTIONS] FILE..."


def _anchor(command: str, title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", f"{command} {title}".lower()).strip("-")


# --- formats, warnings, attributes ----------------------------------------------------------


def formats_markdown() -> str:
    from robrayc.backends import BACKENDS, load, suffixes

    lines = ["| format | `-o` suffixes | what |", "| --- | --- | --- |"]
    for name in BACKENDS:
        found = ", ".join(f"`{s}`" for s in suffixes(name)) or "(`--format` only)"
        lines.append(f"| `{name}` | {found} | {_cell(load(name).HELP)} |")
    return "\n".join(lines) + "\n"


def inputs_markdown() -> str:
    """Each input format (`--input-format` name) with the suffixes and XML roots that select it."""
    from robrayc.frontend import INPUT_FORMATS, LOADERS, XML_ROOTS

    lines = ["| `--input-format` | selected by | loader |", "| --- | --- | --- |"]
    for name, module in INPUT_FORMATS.items():
        by = [f"`{s}`" if s else "no suffix" for s, m in LOADERS.items() if m == module]
        by += [f"`.xml` with root `<{root}>`" for root, m in XML_ROOTS.items() if m == module]
        lines.append(f"| `{name}` | {', '.join(by) or '`--input-format` only'} | `{module}` |")
    return "\n".join(lines) + "\n"


def warnings_markdown() -> str:
    from robrayc.diagnostics import WARNINGS

    lines = ["| name | warns about |", "| --- | --- |"]
    lines += [f"| `{name}` | {_cell(text).replace('`', '')} |" for name, text in WARNINGS.items()]
    return "\n".join(lines) + "\n"


def attributes_markdown() -> str:
    from robrayc.frontend import robray_attrs as schema

    aliases = {v: k for k, v in schema.ALIASES.items()}
    lines = ["| attribute | value | in | meaning |", "| --- | --- | --- | --- |"]
    for name, (kind, lengths) in schema.ATTR_TYPES.items():
        where = [w for w, names in (("frame", schema.FRAME_ATTRS), ("geometry", schema.GEOM_ATTRS),
                                    ("class", schema.CLASS_ATTRS)) if name in names]
        value = kind if not lengths else f"{kind} of {' or '.join(map(str, lengths))}"
        if kind == schema.NUM and lengths:
            value = f"number or array of {' or '.join(map(str, lengths))}"
        shown = f"`{name}`" + (f", `{aliases[name]}`" if name in aliases else "")
        meaning = ATTRIBUTE_DOCS[name].format(joint_types=_names(schema.JOINT_TYPES),
                                              shapes=_names(schema.SHAPES))
        lines.append(f"| {shown} | {value} | {', '.join(where)} | {meaning} |")
    return "\n".join(lines) + "\n"


def _names(names) -> str:
    return ", ".join(f"`{n}`" for n in names)


def shapes_markdown() -> str:
    from robrayc.frontend import robray_attrs as schema

    return _names(schema.SHAPES) + ", and `mesh \"file\"`"


def joint_types_markdown() -> str:
    from robrayc.frontend import robray_attrs as schema

    return _names(schema.JOINT_TYPES)


GENERATORS = {
    "commands": commands_markdown,
    "formats": formats_markdown,
    "inputs": inputs_markdown,
    "warnings": warnings_markdown,
    "attributes": attributes_markdown,
    "shapes": shapes_markdown,
    "joint-types": joint_types_markdown,
}
