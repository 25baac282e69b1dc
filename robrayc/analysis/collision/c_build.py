"""Building the compiled checker's C: its source (the templates' tables around the kernel's C
files in robrayc/c/), and its shared library, built by the system C compiler on first use and
cached by content hash in the user's cache folder. Below compiled.py (the robot's tables and
the loaded Kernel) and cells.py (the certified cells, which build a checker of their own).
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from importlib.machinery import ExtensionFileLoader
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

# -fno-math-errno lets sin and cos of one angle be one call (the checker never reads errno);
# neither flag changes a result
CFLAGS = ("-std=c99", "-O3", "-fno-math-errno", "-fno-trapping-math", "-fPIC", "-shared")
# the Python entry points' extension (robrayc/c/pycall.c): its module name (PyInit_ its)
EXTENSION = "robrayc_pycall"


class CompilerMissing(RuntimeError):
    """No working C compiler: the compiled backend is not available."""


def checker_text(model: dict, include: str | None, header: str, triangles: bool = False
                 ) -> str:
    """The C source of a checker model: its tables (templates/c_checker.c.j2) around the
    kernel (robrayc/c/checker_kernel.h, checker_kernel.c, kinematics.c, configuration.c,
    cells.c, obstacles.c, points.c, cylinders.c, convex.c, nodeboxes.c, meshes.c, hulls.c,
    lanes.c, passes.c, motions.c and, with triangles, triangles.c, pasted in: the triangle
    trees then bound at run time); it includes ``include``, or holds the header inline when None."""
    from robrayc.templating import render

    # where the meshes' triangles are (meshes.c): bound at run time with triangles, static
    # tables when the model has them, else none (a certifying build proves cells only)
    mode = 2 if triangles else 1 if "tris" in model and not model.get("certify") else 0
    return render("c_checker.c.j2", {
        **model, "include": include, "inline_header": None if include else header,
        "kernel_header": kernel_source("checker_kernel.h"),
        "kernel": kernel_source("checker_kernel.c") + kernel_source("kinematics.c"),
        "configuration_code": kernel_source("configuration.c"),
        "cells_code": kernel_source("cells.c"),
        "lane_code": "".join(kernel_source(f) for f in ("lanes.c", "passes.c")),
        "motion_code": kernel_source("motions.c"),
        "obstacle_code": "".join(kernel_source(f) for f in ("obstacles.c", "points.c",
                                                             "cylinders.c")),
        "convex_code": "".join(kernel_source(f) for f in ("convex.c", "nodeboxes.c", "meshes.c",
                                                           "hulls.c")),
        "triangle_mode": mode,
        "triangle_code": kernel_source("triangles.c") if triangles else ""})


def kernel_source(name: str) -> str:
    """The text of one of the kernel's C files (robrayc/c/)."""
    from robrayc.resources import resource_path

    return resource_path("c", name).read_text(encoding="utf-8")


# --- building and loading -------------------------------------------------------------------


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "robrayc" / "checkers"


def compiler() -> str | None:
    """The system C compiler: $CC when set (as make), else cc, gcc or clang; None if none."""
    cc = os.environ.get("CC")
    for cand in (cc,) if cc else ("cc", "gcc", "clang"):
        if shutil.which(cand):
            return cand
    return None


def build(source: str, extra: tuple[str, ...] = (), stem: str = "checker",
          suffix: str = ".so") -> Path:
    """The shared library of a C source (compiled with the extra flags, named stem-KEY
    suffix): from the cache when it is whole, else compiled (-march=native, which turns the
    AVX2 path on where the CPU has it) and stored atomically, with its size and SHA-256
    beside it (``.sum``). A cached library whose size or hash differs from its record
    (truncated or overwritten: loading it could kill the process with SIGBUS), or without a
    record, is compiled again. A build of the same started before (start) is waited for."""
    cc, flags = _toolchain(extra)
    lib = cache_dir() / f"{stem}-{_key(cc, flags, source)}{suffix}"
    run = _started.pop(lib, None)
    if run is None:
        if _intact(lib):
            return lib
        run = _library_run(cc, flags, source)
    run.store(lib)
    return lib


def start(source: str, extra: tuple[str, ...] = (), stem: str = "checker",
          suffix: str = ".so") -> None:
    """Starts build(source, extra, stem, suffix) in a process of its own (unless its library
    is cached, or started already): the caller works meanwhile, and its build() of the same
    waits for it. A compiler that is missing or fails is left for that build() to report."""
    try:
        cc, flags = _toolchain(extra)
        lib = cache_dir() / f"{stem}-{_key(cc, flags, source)}{suffix}"
        if lib not in _started and not _intact(lib):
            _started[lib] = _library_run(cc, flags, source)
    except CompilerMissing:
        pass


def _stop_started() -> None:
    """Stops the builds started that no build() took over (the process ends)."""
    while _started:
        _started.popitem()[1].close()


# builds started ahead (start), by the library they make; one nobody waited for is stopped
# when the process ends
_started: dict[Path, Compilation] = {}
atexit.register(_stop_started)


def _toolchain(extra: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """The C compiler and the flags of a build with the extra flags."""
    cc = compiler()
    if cc is None:
        raise CompilerMissing("no C compiler found (set CC)")
    return cc, (*CFLAGS, "-march=native", *extra)


def _key(cc: str, flags: tuple[str, ...], *sources: str) -> str:
    return hashlib.sha256("\0".join([cc, *flags, *sources]).encode()).hexdigest()[:32]


def _library_run(cc: str, flags: tuple[str, ...], source: str) -> Compilation:
    return Compilation(cc, [*flags, "-o", "checker.so", "checker.c", "-lm"],
                       {"checker.c": source})


class Compilation:
    """One run of the C compiler on sources (name: text) written to a temporary folder in the
    cache folder, started at once in a process of its own: the caller works meanwhile (on
    two cores, proving cells while the checker's code compiles)."""

    def __init__(self, cc: str, args: list[str], sources: dict[str, str]) -> None:
        self.cc, self.folder = cc, cache_dir()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._tmp = tempfile.TemporaryDirectory(dir=self.folder)
            self.dir = Path(self._tmp.name)
            for name, text in sources.items():
                (self.dir / name).write_text(text)
            self._errors = (self.dir / "errors.txt").open("w+")
            self.process = subprocess.Popen([cc, *args], cwd=self.dir,
                                            stdout=subprocess.DEVNULL, stderr=self._errors)
        except OSError as exc:  # nowhere to build: as good as no compiler
            raise CompilerMissing(f"cannot build in the cache folder {self.folder}: "
                                  f"{exc.strerror or exc}") from exc

    def wait(self) -> None:
        """Waits for the compiler; CompilerMissing with its messages when it failed."""
        if self.process.wait() != 0:
            self._errors.seek(0)
            errors = self._errors.read().strip()[:2000]
            self.close()
            raise CompilerMissing(f"{self.cc} failed: {errors}")

    def store(self, lib: Path, out: str = "checker.so") -> None:
        """Waits, then stores its output `out` as lib in the cache, atomically, with its
        record (size and SHA-256) beside it."""
        try:
            self.wait()
            built = self.dir / out
            record = self.dir / "checker.sum"
            record.write_text(_fingerprint(built.read_bytes()))
            # the record first: a library in place always has its record (a reader racing a
            # second writer at worst finds another build's record, and compiles again)
            os.replace(record, _record(lib))
            os.replace(built, lib)
        except OSError as exc:  # the library has nowhere to go: as good as no compiler
            raise CompilerMissing(f"cannot build in the cache folder {self.folder}: "
                                  f"{exc.strerror or exc}") from exc
        finally:
            self.close()

    def close(self) -> None:
        """Stops the compiler if it still runs, and removes its folder."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._errors.close()
        self._tmp.cleanup()


def start_object(code: str) -> Compilation:
    """The compiler started on a checker's "code" part (checker_text), for build_parts: it
    compiles while the caller proves the cells its "tables" part holds."""
    cc, flags = _toolchain(())
    return Compilation(cc, [*flags, "-c", "-o", "code.o", "code.c"], {"code.c": code})


def build_parts(code: str, tables: str, started: Compilation | None = None) -> Path:
    """The shared library of a checker's two parts (checker_text's "code" and "tables"):
    from the cache when whole (as build), else code's object (started's: start_object(code),
    when given) linked with tables, compiled. The object alone is not cached: it is built
    only while the cells are proven, and they are cached (cells.cell_tables)."""
    cc, flags = _toolchain(())
    lib = cache_dir() / f"checker-{_key(cc, flags, code, '', tables)}.so"
    if _intact(lib):
        if started is not None:
            started.close()
        return lib
    code_run = started if started is not None else start_object(code)
    try:
        code_run.wait()
        # the tables are data: compiled without -march=native (the kernel's header then
        # reads no immintrin.h, half of this step)
        link = Compilation(cc, [*CFLAGS, "-o", "checker.so", str(code_run.dir / "code.o"),
                                "tables.c", "-lm"], {"tables.c": tables})
        link.store(lib)
    finally:
        code_run.close()
    return lib


def load(source: str) -> ctypes.CDLL:
    """The loaded library of a C source (built or taken from the cache, as build); a library
    the loader refuses is CompilerMissing, as a failed build is."""
    return open_library(build(source))


def open_library(lib: Path) -> ctypes.CDLL:
    """The library at lib, loaded (CompilerMissing when the loader refuses it)."""
    try:
        return ctypes.CDLL(str(lib))
    except OSError as exc:
        raise CompilerMissing(f"cannot load the compiled checker {lib}: {exc}") from exc


def python_include() -> str | None:
    """This interpreter's C headers folder, or None when its Python.h is not there (no
    python3-dev, or a Python built without them)."""
    include = sysconfig.get_paths().get("include")
    if include and os.path.isfile(os.path.join(include, "Python.h")):
        return include
    return None


@functools.cache
def extension() -> ModuleType | None:
    """robrayc/c/pycall.c built for this interpreter and loaded: the Python entry points into
    a compiled checker at about the C's cost. None without Python's headers, a compiler, or
    when it does not build or load: robrayc then calls the checkers through ctypes (the same
    answers, a little slower)."""
    include = python_include()
    if include is None:
        return None
    try:
        return load_extension(build_extension(include))
    except (CompilerMissing, ImportError, OSError):
        return None


def build_extension(include: str, extra: tuple[str, ...] = ()) -> Path:
    """pycall.c built against the headers in `include` (with the extra flags), cached as the
    checkers are, its name ending in the interpreter's extension suffix (its ABI)."""
    return build(*_extension_build(include, extra))


def start_extension() -> None:
    """Starts building the extension (c_build.start), unless it is loaded already or cannot
    be built here: it then compiles while the caller works (extension() waits for it)."""
    include = python_include()
    if include is not None and not extension.cache_info().currsize:
        start(*_extension_build(include))


def _extension_build(include: str, extra: tuple[str, ...] = ()) -> tuple:
    """build's arguments for the extension."""
    # macOS links a module's Python symbols when the interpreter loads it, as its own
    # LDSHARED does (-undefined dynamic_lookup); Linux leaves them undefined by default
    link = ("-undefined", "dynamic_lookup") if sys.platform == "darwin" else ()
    return (kernel_source("pycall.c"), (f"-I{include}", *link, *extra), "pycall",
            sysconfig.get_config_var("EXT_SUFFIX") or ".so")


def load_extension(path: Path) -> ModuleType:
    """The extension module built at path (ImportError when it cannot be loaded)."""
    loader = ExtensionFileLoader(EXTENSION, str(path))
    spec = importlib.util.spec_from_file_location(EXTENSION, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


class Caller(Protocol):
    """A loaded checker's Python entry points (pycall.c's Caller, or CtypesCaller): True
    (collides), False (free) or None (not decided: MAYBE, INVALID, or an input it does not
    read, left to the caller's slower path)."""

    def decide(self, q) -> bool | None: ...

    def decide_motion(self, a, b, resolution: float) -> bool | None: ...

    def check_or(self, fallback: Callable[[Any], bool], q) -> bool:
        """decide(q) where it decides, else fallback(q)."""


def python_caller(kernel: Any) -> Caller:
    """The Python entry points of a compiled.Kernel (which imports this module): pycall.c's
    Caller on the kernel's NAME_check and NAME_check_motion, or CtypesCaller where the
    extension is not built."""
    module = extension()
    if module is None:
        return CtypesCaller(kernel)
    return module.Caller(_address(kernel.lib.rc_check), _address(kernel.lib.rc_check_motion),
                         kernel.n_config, kernel.env.holder, kernel.env, kernel.lib)


class CtypesCaller:
    """pycall.c's Caller through ctypes (the kernel's check_one and check_motion_one), where
    the extension is not built: the same answers, from the same C, ~1 µs a call slower."""

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel

    def decide(self, q) -> bool | None:
        return _decided(self.kernel.check_one(q))

    def decide_motion(self, a, b, resolution: float) -> bool | None:
        return _decided(self.kernel.check_motion_one(a, b, resolution))

    def check_or(self, fallback: Callable[[Any], bool], q) -> bool:
        hit = self.decide(q)
        return fallback(q) if hit is None else hit


def _decided(state: int) -> bool | None:
    """A kernel's answer (FREE 0, COLLIDES 1, MAYBE 2, INVALID 3) as a Caller's."""
    return state == 1 if state in (0, 1) else None


def _address(function: ctypes._CFuncPtr) -> int:
    """The address of a function of a loaded library."""
    return ctypes.cast(function, ctypes.c_void_p).value or 0


def _record(lib: Path) -> Path:
    return lib.with_suffix(".sum")


def _fingerprint(data: bytes) -> str:
    return f"{len(data)} {hashlib.sha256(data).hexdigest()}\n"


def _intact(lib: Path) -> bool:
    """Whether the cached library exists and matches its record (size, then SHA-256)."""
    try:
        expected = _record(lib).read_text()
        if lib.stat().st_size != int(expected.split()[0]):
            return False
        return _fingerprint(lib.read_bytes()) == expected
    except (OSError, ValueError, IndexError):
        return False
