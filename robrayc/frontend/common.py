"""Shared front-end state: load options, the load context, partial (unmerged) scenes."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from robrayc import ir
from robrayc.diagnostics import DiagnosticSink, SourceCache, SourcePos
from robrayc.records import field, record

if TYPE_CHECKING:
    from collections.abc import Callable

    from robrayc.frontend.symbols import SymbolTable

MAX_SOURCE_BYTES = 256 << 20


@record
class LoadOptions:
    """How the loaders read inputs (from the command line)."""

    include_dirs: tuple[str, ...] = ()
    package_paths: dict[str, str] = field(default_factory=dict)  # --package-path NAME=DIR
    missing_mesh: str = "error"  # error | drop | bbox
    mesh_up: str = "Z"  # -U: up axis of meshes that do not declare one (signed: "-Y")
    mesh_forward: str = "Y"  # -F
    collada_up: str = "honour"  # --collada-up-axis: honour | ignore a COLLADA <up_axis>
    root: str | None = None  # parent of top-level frames (None: the world)
    xacro_args: dict[str, str] = field(default_factory=dict)  # --xacro-arg NAME:=VALUE
    input_format: str | None = None  # --input-format: every input's loader, whatever its suffix
    # False when nothing will read triangles (--list-frames, --list-vars): mesh files are then
    # neither looked for nor read, so a robot whose meshes are missing still lists.
    need_meshes: bool = True


@record
class PendingFrame:
    """A frame not yet attached, with where its parent was named."""

    frame: ir.Frame
    # Where the parent was named, for errors: a position, or a function that finds it (a
    # position costs time to find, and only an error needs it).
    parent_pos: SourcePos | Callable[[], SourcePos] | None = None
    # The input names the parent as outside itself (a URDF joint's parent link that is no
    # link of the URDF; this says whose, "joint 'J'"): the frame of another input, with a
    # warning, as the original aarxc; else an error.
    outside: str | None = None

    def parent_position(self) -> SourcePos:
        """Where the parent was named (the frame's own position when not named)."""
        at = self.parent_pos
        if at is None:
            return self.frame.pos
        return at() if callable(at) else at


@record
class Partial:
    """What one input contributes before merging: frames, allowed pairs, files read."""

    frames: list[PendingFrame] = field(default_factory=list)
    allowed: list[tuple[str, str, SourcePos]] = field(default_factory=list)
    root: str | None = None  # the root the input names (a JSON scene's "root")
    root_pos: SourcePos | None = None
    robot_name: str | None = None  # robot identity (URDF, or robray's `robot` attribute)
    root_link: str | None = None


@record
class LoadContext:
    """The state of one load: options, diagnostics, sources read."""

    options: LoadOptions
    sink: DiagnosticSink
    sources: SourceCache = field(default_factory=SourceCache)
    dependencies: list[str] = field(default_factory=list)  # every file read, in order
    # The language server's record of definitions and references (frontend/symbols.py);
    # None in a compile, which then records nothing.
    symbols: SymbolTable | None = None
    _packages: dict[str, Path | None] = field(default_factory=dict)

    def include_path(self) -> list[Path]:
        dirs = [Path(d) for d in self.options.include_dirs]
        dirs += [Path(d) for d in os.environ.get("ROBRAY_PATH", "").split(os.pathsep) if d]
        return dirs

    def note_dependency(self, path: str) -> None:
        if path not in self.dependencies:
            self.dependencies.append(path)

    def read_source(self, path: Path, at: SourcePos | None = None) -> bytes | None:
        """Read a scene file's bytes; problems become errors at `at` (or the file itself)."""
        where = at or SourcePos(str(path))
        try:
            st = path.stat()
        except OSError as exc:
            self.sink.error(f"cannot read '{path}': {exc.strerror or exc}", where)
            return None
        if stat.S_ISDIR(st.st_mode):
            self.sink.error(f"cannot read '{path}': is a directory", where)
            return None
        if not stat.S_ISREG(st.st_mode):
            self.sink.error(f"cannot read '{path}': not a regular file", where)
            return None
        if st.st_size > MAX_SOURCE_BYTES:
            self.sink.error(f"cannot read '{path}': larger than {MAX_SOURCE_BYTES >> 20} MiB",
                            where)
            return None
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            self.sink.error(f"cannot read '{path}': {exc.strerror or exc}", where)
            return None
        self.note_dependency(str(path))
        return data

    def package_dirs(self) -> list[str]:
        return [d for d in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep) if d]

    def find_package(self, name: str) -> Path | None:
        """A ROS package folder: --package-path first, then ROS_PACKAGE_PATH searched
        recursively by directory name (as amino; no descent below a package.xml)."""
        if name in self.options.package_paths:
            return Path(self.options.package_paths[name])
        if name in self._packages:
            return self._packages[name]
        found = None
        for root in self.package_dirs():
            found = _find_dir(Path(root), name)
            if found is not None:
                break
        self._packages[name] = found
        return found

    def resolve_package_uri(self, uri: str) -> Path | None:
        """package://PKG/rest -> a path, or None when PKG is not found. An empty PKG
        (package:///rest) as Pinocchio resolves it: --package-path =DIR, else the first
        ROS_PACKAGE_PATH folder under which rest exists."""
        rest = uri[len("package://"):]
        pkg, _, tail = rest.partition("/")
        if not pkg and "" not in self.options.package_paths:
            found = (Path(root) / tail for root in self.package_dirs())
            return next((p for p in found if p.exists()), None)
        folder = self.find_package(pkg)
        return None if folder is None else folder / tail

    def _relocate(self, path: str) -> Path | None:
        """A missing absolute mesh path from another machine (…/PKG/meshes/x.stl): try each
        folder name on it as a package found through the package path."""
        parts = Path(path).parts
        for i in range(len(parts) - 2, 0, -1):
            if not self.options.package_paths and not self.package_dirs():
                return None
            folder = self.find_package(parts[i])
            if folder is not None:
                candidate = folder.joinpath(*parts[i + 1:])
                if os.path.isfile(candidate):  # never raises (a name too long, ...)
                    return candidate
        return None

    def new_mesh(self, path: str, source: str, scale3: ir.Vec3 = (1.0, 1.0, 1.0),
                 axes: tuple[str, str, str] | None = None) -> ir.Mesh:
        """A Mesh node with the conventions of this load (-U, -F, --collada-up-axis) unless
        `axes` (up, forward, collada_up) gives the mesh's own."""
        o = self.options
        up, forward, collada_up = axes or (o.mesh_up, o.mesh_forward, o.collada_up)
        return ir.Mesh(path=path, source=source, scale3=scale3, up=up, forward=forward,
                       collada_up=collada_up)

    def mesh_shape(self, path: str, source: str, pos: SourcePos,
                   scale3: ir.Vec3 = (1.0, 1.0, 1.0),
                   axes: tuple[str, str, str] | None = None) -> ir.Mesh | None:
        """A Mesh shape for a file named in a scene; a missing file follows --missing-mesh."""
        if not self.options.need_meshes:
            return self.new_mesh(path, source, scale3, axes)
        if os.path.isfile(path):
            self.note_dependency(path)
            return self.new_mesh(os.path.abspath(path), source, scale3, axes)
        moved = self._relocate(path) if os.path.isabs(path) else None
        if moved is not None:
            self.sink.warning(f"mesh '{source}' not found; using '{moved}' from the package path",
                              pos, name="mesh-path-fallback")
            self.note_dependency(str(moved))
            return self.new_mesh(str(moved.resolve()), source, scale3, axes)
        if self.options.missing_mesh == "error":
            same = os.path.abspath(source) == os.path.abspath(path)
            looked = "" if same else f" (looked for '{path}')"
            self.sink.error(f"mesh file '{source}' not found{looked}", pos,
                            "use --missing-mesh=drop to leave missing meshes out")
        else:
            self.sink.warning(f"mesh file '{source}' not found; geometry dropped", pos,
                              name="missing-mesh")
        return None


def _find_dir(root: Path, name: str) -> Path | None:
    """Breadth-first search for a folder called `name` below root (not below packages)."""
    queue = [root]
    while queue:
        folder = queue.pop(0)
        if folder.name == name:
            return folder
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        if folder != root and any(e.name == "package.xml" for e in entries):
            continue
        queue.extend(Path(e.path) for e in entries if e.is_dir(follow_symlinks=False))
    return None
