"""`--tree`: the frame tree as text, like check_urdf's tree (frames with joint types and
configuration variables), drawn as `tree --charset=ascii` draws folders."""

from __future__ import annotations

from robrayc import ir

# Deeper levels are not drawn (a 10,000-long parent chain would print 200 MB of rules): the
# line shows its depth instead.
MAX_DRAWN_DEPTH = 32


def _label(f: ir.Frame) -> str:
    if not f.is_joint:
        return f.name
    return f"{f.name} [{f.kind} {f.variable}]"


def frame_tree(scene: ir.Scene) -> str:
    """One line per frame, children under their parent in scene order; top-level frames
    start the trees."""
    children: dict[str | None, list[ir.Frame]] = {}
    for f in scene.frames:
        children.setdefault(f.parent, []).append(f)
    out: list[str] = []
    # (frame, rule prefix for its children, depth), depth-first without recursion
    stack: list[tuple[ir.Frame, str, str, int]] = [
        (f, "", "", 0) for f in reversed(children.get(None, []))]
    while stack:
        f, lead, prefix, depth = stack.pop()
        out.append(lead + _label(f))
        kids = children.get(f.name, [])
        for i in range(len(kids) - 1, -1, -1):
            last = i == len(kids) - 1
            if depth + 1 > MAX_DRAWN_DEPTH:
                stack.append((kids[i], f"... (depth {depth + 1}) ", "", depth + 1))
            else:
                stack.append((kids[i], prefix + ("`-- " if last else "|-- "),
                              prefix + ("    " if last else "|   "), depth + 1))
    return "".join(line + "\n" for line in out)
