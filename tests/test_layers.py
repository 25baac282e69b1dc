"""Dependencies you can see: every module's imports (top level, inside functions, under
TYPE_CHECKING) follow the layer order of ARCHITECTURE.md ("## Layers"), form no cycle, and no
backend imports another."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "robrayc"

def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports(name: str) -> set[str]:
    """The robrayc modules `name` imports anywhere in its text (`from a import b` counts as
    a.b when that is a module, else as a)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.add(full if full in MODULES else base)
    return {m for m in out if m in MODULES and m != name}


def layers() -> list[list[str]]:
    """The numbered list of ARCHITECTURE.md's "## Layers": each item's `names`."""
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    items = re.split(r"\n\d+\. ", "\n" + section.split("\n1. ", 1)[1])
    return [re.findall(r"`(robrayc[\w.]*(?:\.\*)?)`", item) for item in items if item.strip()]


def layer_of(name: str, order: list[list[str]]) -> int:
    """The layer of a module: its exact entry, else the longest `package.*` containing it."""
    best, best_len = None, -1
    for k, entries in enumerate(order):
        for entry in entries:
            if entry == name:
                return k
            stem = entry[:-2] if entry.endswith(".*") else None
            if stem and (name == stem or name.startswith(stem + ".")) and len(stem) > best_len:
                best, best_len = k, len(stem)
    assert best is not None, f"{name} is in no layer of ARCHITECTURE.md: add it"
    return best


GRAPH = {name: imports(name) for name in MODULES}


def test_every_module_imports_only_its_own_and_earlier_layers() -> None:
    order = layers()
    assert len(order) >= 5, order
    upward = [f"{m} (layer {layer_of(m, order) + 1}) imports {d} (layer {layer_of(d, order) + 1})"
              for m, deps in sorted(GRAPH.items()) for d in sorted(deps)
              if layer_of(d, order) > layer_of(m, order)]
    assert not upward, "\n".join(upward)


def test_no_backend_imports_another() -> None:
    found = [f"{m} imports {d}" for m, deps in sorted(GRAPH.items())
             if m.startswith("robrayc.backends.") for d in sorted(deps)
             if d.startswith("robrayc.backends.")]
    assert not found, "\n".join(found)


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_no_import_cycles() -> None:
    cycles = [sorted(c) for c in _cycles(GRAPH)]
    assert not cycles, cycles


def test_the_checker_sees_cycles_and_upward_imports() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    order = [["robrayc.x"], ["robrayc.y.*"]]
    assert layer_of("robrayc.y.z", order) == 1 and layer_of("robrayc.y", order) == 1
