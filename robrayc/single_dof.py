"""A scene for outputs whose joints have one degree of freedom (amino's scene graph): each
ball joint as three revolute joints, each floating joint fixed at its rest pose (or an error),
with a named warning (`ball-joint`, `floating-joint`) saying what changed.

A ball frame NAME (variable V) becomes NAME_yaw (about z, with NAME's fixed pose; variable
V_yaw), NAME_pitch (about y; V_pitch) and NAME (about x; V_roll, holding the geometry and the
children): the same rest pose and the same rotations, as the URDF rpy angles (roll, pitch,
yaw) of the ball's rotation instead of its rotation vector (URDF export writes a ball alike).
"""

from __future__ import annotations

from robrayc import ir
from robrayc.diagnostics import DiagnosticSink
from robrayc.records import replace

FLOATING_CHOICES = ("fixed", "error")
_BALL_AXES = (("yaw", (0.0, 0.0, 1.0)), ("pitch", (0.0, 1.0, 0.0)), ("roll", (1.0, 0.0, 0.0)))


def single_dof_scene(scene: ir.Scene, sink: DiagnosticSink, output: str,
                     floating: str = "fixed") -> ir.Scene:
    """The scene with only fixed, revolute and prismatic joints (see the module docstring);
    `output` names the format in the warnings; floating "error" refuses floating joints."""
    if not any(f.is_multi_dof for f in scene.frames):
        return scene
    frames: list[ir.Frame] = []
    names = {f.name for f in scene.frames}
    variables = set(scene.variables)
    for f in scene.frames:
        if f.kind == "floating":
            frames.append(_fixed(f, sink, output, floating))
        elif f.kind == "ball":
            frames += _three_revolutes(f, sink, output, names, variables)
        else:
            frames.append(f)
    sink.check()  # floating joints refused
    return ir.Scene(frames=tuple(frames), allowed=scene.allowed, sources=scene.sources,
                    root=scene.root, robot_name=scene.robot_name, root_link=scene.root_link)


def _fixed(f: ir.Frame, sink: DiagnosticSink, output: str, floating: str) -> ir.Frame:
    if floating == "error":
        sink.error(f"{output} has no floating joint: '{f.name}' is one", f.pos,
                   "--floating-base fixed writes it fixed at its rest pose")
    else:
        sink.warning(f"{output} has no floating joint: floating joint '{f.name}' written as a "
                     "fixed frame at its rest pose (its variables are dropped)", f.pos,
                     name="floating-joint")
    return replace(f, kind="fixed", variable=None)


def _three_revolutes(f: ir.Frame, sink: DiagnosticSink, output: str, names: set[str],
                     variables: set[str]) -> list[ir.Frame]:
    frame_names = [ir.unique_name(f"{f.name}_{a}", names, "_") for a, _ in _BALL_AXES[:2]]
    frame_names.append(f.name)
    base = f.variable or f.name
    vars_ = [ir.unique_name(f"{base}_{a}", variables, "_") for a, _ in _BALL_AXES]
    sink.warning(f"{output} has no ball joint: ball joint '{f.name}' written as revolute "
                 f"frames {', '.join(repr(n) for n in frame_names)} about z, y, x (variables "
                 f"{', '.join(vars_)}: rpy angles instead of its rotation vector)", f.pos,
                 name="ball-joint")
    out = []
    parent = f.parent
    for k, ((_, axis), name, var) in enumerate(zip(_BALL_AXES, frame_names, vars_,
                                                   strict=True)):
        if k < 2:  # a massless, shapeless joint frame
            out.append(ir.Frame(name=name, parent=parent, kind="revolute",
                                translation=f.translation if k == 0 else ir.ZERO_V,
                                quaternion=f.quaternion if k == 0 else ir.IDENTITY_Q,
                                axis=axis, variable=var, pos=f.pos))
        else:
            out.append(replace(f, parent=parent, kind="revolute", translation=ir.ZERO_V,
                               quaternion=ir.IDENTITY_Q, axis=axis, variable=var))
        parent = name
    return out
