"""Compiled collision checker in C99 (`--format c-checker`): `-o x.c` writes x.c and x.h.

No amino, no allocation. Forward kinematics of the rigid groups (fixed chains pre-multiplied);
per configuration, each moving solid's bounding sphere against its fixed partners 8 at a time
(AVX2 when compiled for it, else a portable scalar path) and against the other moving solids;
exact closed forms for sphere and box pairs; other pairs through certified sphere trees
(robrayc.analysis.spheres) with oriented boxes at the leaves, tested in each solid's own frame,
then what they leave open by exact tests in double (robrayc/c/convex.c: cylinders, and meshes
on their triangles, held as tables unless --no-mesh-tests);
pairs whose relative pose depends on one to three joint variables skip the trees in the cells of
those variables proven apart at generation time (robrayc.analysis.collision.cells; proving
builds and runs C, so it needs a C compiler: without one, or with --no-cells, there are no
tables and the answers are the same). Allowed pairs and `collision 0` geometry are never
generated. Entry points: NAME_check, NAME_check8, NAME_check_batch, NAME_check_motion(s) (a
straight-line motion's samples in VAMP's raked order, robrayc/c/motions.c),
NAME_colliding_pairs, NAME_solid_states (see the header).
"""

from __future__ import annotations

import argparse

from robrayc import ir
from robrayc.backends import EmitContext, OutputFile
from robrayc.diagnostics import DiagnosticSink
from robrayc.records import record

NAME = "c-checker"
HELP = ("C99 collision checker (certified sphere trees, AVX2 or scalar, exact sphere/box "
        "tests): NAME_check, NAME_check8, NAME_check_motion, NAME_colliding_pairs; also "
        "writes OUTPUT.h")


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--sphere-size", type=float, metavar="LENGTH",
                       help="c-checker: leaf sphere cell edge in scene units (default: 8%% of "
                            "the largest solid); smaller decides more pairs in C, and is "
                            "bigger")
    group.add_argument("--no-cells", action="store_true",
                       help="c-checker: no tables of joint-value cells proven collision-free "
                            "(generated faster, with no C compiler; decides fewer pairs in "
                            "C)")
    group.add_argument("--no-mesh-tests", action="store_true",
                       help="c-checker: no triangle tables for the exact tests of pairs with "
                            "meshes (a smaller file, built faster; those pairs stay MAYBE "
                            "where the sphere trees leave them open)")


@record(frozen=True, slots=True)
class Options:
    sphere_size: float | None = None  # --sphere-size LENGTH
    cells: bool = True  # not --no-cells
    mesh_tests: bool = True  # not --no-mesh-tests

    @classmethod
    def from_args(cls, ns: argparse.Namespace, sink: DiagnosticSink) -> Options:
        return cls(sphere_size=ns.sphere_size, cells=not ns.no_cells,
                   mesh_tests=not ns.no_mesh_tests)


def emit(scene: ir.Scene, ctx: EmitContext) -> list[OutputFile]:
    from robrayc.analysis.collision import CollisionChecker
    from robrayc.analysis.collision.compiled import c_source

    name = ctx.name
    if not name.isidentifier() or not name.isascii():
        raise ctx.sink.fatal(f"scene name '{name}' is not a C identifier",
                             hint="use -n NAME with letters, digits and '_'")
    size = ctx.options.sphere_size
    if size is not None and not size > 0:
        raise ctx.sink.fatal(f"--sphere-size must be positive, got {size}")
    multi = next((f for f in scene.frames if f.is_multi_dof), None)
    if multi is not None:  # its kinematics (c_kinematics) turns and slides about one axis
        raise ctx.sink.fatal(f"the compiled checker does not support {multi.kind} joints "
                             f"('{multi.name}')", multi.pos,
                             "check the scene with 'robrayc collide' (the exact checker)")
    checker = CollisionChecker(scene, ctx.sink, broadphase="dense")
    if checker.mode != "dense":
        raise ctx.sink.fatal("too many solid pairs for a compiled checker",
                             hint="the c-checker format is for robot-sized scenes")
    out = ctx.output
    header_file = None
    if out is not None:
        header_file = out.with_suffix(".h") if out.suffix == ".c" else \
            out.with_name(out.name + ".h")
    source, header = c_source(checker, name, size,
                              header_file.name if header_file is not None else None,
                              cells=ctx.options.cells, mesh_tests=ctx.options.mesh_tests)
    if header_file is None:
        return [OutputFile(None, source.encode())]
    return [OutputFile(out, source.encode()), OutputFile(header_file, header.encode())]
