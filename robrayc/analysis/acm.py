"""Allowed-collision generation: which frame pairs need never be checked (what MoveIt's Setup
Assistant computes for an SRDF), as ``allow_collision`` statements (SRDF: robrayc.srdf).

Every pair of frames holding collision geometry gets one verdict, in this order:

- ``adjacent``: parent and child, or rigid bodies next to each other in the kinematic tree once
  bodies without collision geometry are passed through (a body is a joint frame with the fixed
  frames under it). The world's fixed frames are adjacent only to their own children: a wall
  is not "adjacent" to every robot standing in the room;
- ``default``: colliding at the default configuration (each variable 0, or the middle of its
  limits when 0 is outside them);
- ``always``: colliding in at least ``always_fraction`` (95 %) of the random samples; samples
  come in batches and sampling goes on past ``samples`` (up to twice as many) until the set of
  such pairs is the same after two consecutive batches;
- ``never``: colliding in none of the samples;
- anything else collides sometimes and stays checked (``reason`` None).

Samples are uniform within each variable's position limits; variables without limits are
sampled on [-pi, pi] (revolute; continuous joints) or [-1, 1] (prismatic, with a warning).
They are the rows of one seeded stream (each batch drawn where it is checked, the generator
advanced to its first row), and which pairs a batch checks is fixed by the batches before it
in order, so the result does not depend on the number of worker processes. The scene's own
``allow_collision`` pairs are ignored while classifying (the output says which of them it
confirms).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable

import numpy as np

from robrayc import ir
from robrayc.diagnostics import DiagnosticSink
from robrayc.kinematics import rigid_groups, sample_ranges
from robrayc.links import link_pair
from robrayc.records import field, record

REASONS = ("adjacent", "default", "always", "never")
# The fewest random samples a run may ask for (0: none, no pair is called 'never' or
# 'always' by sampling): a pair seen in none of n samples gets the rule-of-three bound 3/n
# on its collision probability, an approximation that holds from about 30 samples on (and
# below 10 % there); fewer would call pairs 'never' on a bound that says nothing.
MIN_SAMPLES = 30


@record(frozen=True)
class PairVerdict:
    a: str  # a < b
    b: str
    reason: str | None  # one of REASONS, or None: collides sometimes (keep checking)
    detail: str = ""  # why, in words (adjacency path, collision share)
    collisions: int = 0  # samples in which the pair collided
    in_scene: bool = False  # already an allow_collision pair of the scene
    checked: int = 0  # samples the pair was checked in (sampling stops once it is 'sometimes')
    proven: bool = False  # 'never' for certain: apart at every configuration (acm_proof)

    @property
    def bound(self) -> float | None:
        """For a pair never seen colliding in n samples: the rule-of-three bound on its
        collision probability, 3/n (95 % confidence); 0.0 when proven apart; None otherwise."""
        if self.proven:
            return 0.0
        return 3.0 / self.checked if self.collisions == 0 and self.checked else None


@record(frozen=True)
class AcmResult:
    pairs: tuple[PairVerdict, ...]  # every pair of collision frames, sorted by names
    samples: int  # random configurations drawn
    seed: int
    always_fraction: float
    default_config: dict[str, float] = field(default_factory=dict)
    sources: tuple[str, ...] = ()
    asked: int = 0  # random configurations asked for (--samples)

    @property
    def allowed(self) -> list[PairVerdict]:
        """Pairs with a reason, in REASONS order then by names."""
        order = {r: i for i, r in enumerate(REASONS)}
        return sorted((p for p in self.pairs if p.reason), key=lambda p: (order[p.reason],
                                                                            p.a, p.b))

    @property
    def checked(self) -> list[PairVerdict]:
        return [p for p in self.pairs if p.reason is None]


# --- adjacency ------------------------------------------------------------------------------


def _bodies(scene: ir.Scene) -> tuple[list[int], dict[int, int]]:
    """Body (index of its joint frame, -1 for the world) of every frame, and each body's
    parent body: the rigid groups of the kinematics."""
    groups = rigid_groups(scene)
    body = [groups.anchor(g) for g in groups.group]
    parent_body = {b.frame: groups.anchor(b.parent) for b in groups.bodies}
    return body, parent_body


def adjacent_pairs(scene: ir.Scene, collision_frames: set[str]) -> dict[tuple[str, str], str]:
    """Adjacent pairs of collision frames -> a short explanation."""
    names = [f.name for f in scene.frames]
    body, parent_body = _bodies(scene)
    has_geometry: dict[int, bool] = {}
    for i, name in enumerate(names):
        if name in collision_frames:
            has_geometry[body[i]] = True
    out: dict[tuple[str, str], str] = {}

    def add(a: str, b: str, why: str) -> None:
        key = (a, b) if a < b else (b, a)
        out.setdefault(key, why)

    for f in scene.frames:
        if f.parent is not None and f.name in collision_frames and f.parent in collision_frames:
            add(f.name, f.parent, "parent and child")
    # Body tree, passing through bodies without collision geometry (never the world's).
    children: dict[int, list[int]] = {}
    for b, up in parent_body.items():
        children.setdefault(up, []).append(b)
    members: dict[int, list[str]] = {}
    for i, name in enumerate(names):
        if name in collision_frames:
            members.setdefault(body[i], []).append(name)

    def label(b: int) -> str:
        return "world" if b < 0 else names[b]

    for b in [b for b in parent_body if has_geometry.get(b)]:
        # Walk down from body b through geometry-less bodies to the next bodies with geometry.
        stack = [(c, ()) for c in children.get(b, [])]
        while stack:
            c, via = stack.pop()
            if has_geometry.get(c):
                why = f"bodies of {label(b)} and {label(c)}"
                if via:
                    why += " (through " + ", ".join(label(v) for v in via) + ")"
                for x in members[b]:
                    for y in members[c]:
                        add(x, y, why)
            else:
                stack.extend((g, (*via, c)) for g in children.get(c, []))
    return out


# --- configurations -------------------------------------------------------------------------


def default_configuration(scene: ir.Scene) -> np.ndarray:
    lo, hi = sample_ranges(scene)
    return np.where((lo <= 0) & (0 <= hi), 0.0, (lo + hi) / 2)


# --- generation -----------------------------------------------------------------------------


def generate(scene: ir.Scene, *, samples: int = 10000, seed: int = 0, jobs: int | None = None,
             batch: int = 1000, always_fraction: float = 0.95,
             progress: bool | Callable[[int], None] = False,
             sink: DiagnosticSink | None = None,
             adjacency: Callable[[ir.Scene, set[str]], dict[tuple[str, str], str]]
             = adjacent_pairs, backend: str = "auto", prove: bool | None = None) -> AcmResult:
    """Classify every pair of collision frames (see the module docstring). `adjacency`
    gives the adjacent pairs (robrayc.srdf passes MoveIt's rule, on robot links). `backend`:
    the collision checker's ("auto": the compiled one when a C compiler works). `prove`:
    try to prove pairs never colliding after the first wave (None: from PROVE_MIN_SAMPLES
    samples on), so that they need not be sampled further."""
    from robrayc.analysis.acm_sampling import PROVE_MIN_SAMPLES, Plan, sample_pairs
    from robrayc.analysis.collision import CollisionChecker

    if 0 < samples < MIN_SAMPLES:
        raise ValueError(f"samples must be 0 or at least {MIN_SAMPLES} (got {samples}): the "
                         "rule-of-three bound on a pair never seen colliding needs them")
    sink = sink or DiagnosticSink()
    sample_ranges(scene, sink)  # warnings only; RangeError for limits too far apart
    full = CollisionChecker(scene, sink, use_allowed=False)
    all_pairs = [tuple(sorted(p)) for p in full.frame_pairs]
    in_scene = {(p.a, p.b) if p.a < p.b else (p.b, p.a) for p in scene.allowed}
    q0 = default_configuration(scene)
    verdict = _static_verdicts(scene, full, all_pairs, q0, adjacency)
    rest = [p for p in all_pairs if p not in verdict]

    if prove is None:
        prove = samples >= PROVE_MIN_SAMPLES
    plan = Plan(samples, seed, batch, always_fraction,
                max(1, min(jobs or os.cpu_count() or 1, math.ceil(samples / batch))), backend)
    run = sample_pairs(scene, full, rest, q0, plan, sink, progress, prove)
    for k, pair in enumerate(rest):
        c, n = int(run.counts[k]), int(run.checked[k])
        share = f"{c} of {n} samples ({100 * c / n:.1f}%)" if n else "no samples"
        if run.proven[k]:
            how = (f"proven after {n} samples" if n else "proven before sampling"
                   if run.before[k] else "proven: out of each other's reach")
            verdict[pair] = ("never", f"apart at every configuration within the joint ranges "
                             f"({how})", 0, n, True)
        elif n and c >= always_fraction * n:
            verdict[pair] = ("always", "colliding in " + share, c, n)
        elif n and c == 0:
            verdict[pair] = ("never", f"colliding in none of {n} samples (probability < "
                             f"{3 / n:.2g} at 95% confidence)", 0, n)
        else:
            verdict[pair] = (None, "colliding in " + share, c, n)
    out = tuple(_verdict(a, b, verdict[(a, b)], (a, b) in in_scene) for a, b in sorted(all_pairs))
    return AcmResult(out, run.total, seed, always_fraction,
                     dict(zip(scene.variables, q0.tolist(), strict=True)), asked=samples)


def _static_verdicts(scene: ir.Scene, full, all_pairs: list, q0: np.ndarray,
                     adjacency) -> dict[tuple[str, str], tuple]:
    """Verdicts known without sampling: adjacent, colliding at the default configuration,
    and pairs of one rigid body apart at the default (never, for good)."""
    verdict: dict[tuple[str, str], tuple] = {}
    for pair, why in adjacency(scene, set(full.collision_frames)).items():
        verdict[pair] = ("adjacent", why, 0)
    for pair in full.colliding_pairs(q0):
        verdict.setdefault(pair, ("default", "colliding at the default configuration", 0))
    for pair, joint in across_floating(scene, all_pairs).items():
        verdict.setdefault(pair, (None, f"moved apart by floating joint '{joint}', whose "
                                  "translation is not sampled", 0))
    body = dict(zip((f.name for f in scene.frames), _bodies(scene)[0], strict=True))
    for a, b in all_pairs:
        if body[a] == body[b]:
            verdict.setdefault((a, b), ("never", "fixed to each other, apart", 0))
    return verdict


def across_floating(scene: ir.Scene, pairs: list) -> dict[tuple[str, str], str]:
    """Pairs whose relative pose depends on a floating joint -> that joint's frame. Sampling
    leaves floating translations at 0 (a rigid move of a whole robot changes none of its
    self-collisions), so such pairs (a robot and the floor) are never 'never': kept checked."""
    groups = rigid_groups(scene)
    if not any(f.kind == "floating" for f in scene.frames):
        return {}

    def chain(g: int) -> set[int]:
        out = set()
        while g:
            out.add(g)
            g = groups.bodies[g - 1].parent
        return out

    out = {}
    for a, b in pairs:
        ga, gb = groups.group[scene.index(a)], groups.group[scene.index(b)]
        for g in chain(ga) ^ chain(gb):
            frame = scene.frames[groups.bodies[g - 1].frame]
            if frame.kind == "floating":
                out[(a, b)] = frame.name
                break
    return out


def _verdict(a: str, b: str, v: tuple, in_scene: bool) -> PairVerdict:
    reason, detail, collisions, *more = v
    return PairVerdict(a, b, reason, detail, collisions, in_scene, *more)


# --- output ---------------------------------------------------------------------------------


def _quote(name: str) -> str | None:
    """A frame name as a robray string (strings have no escapes: None if it holds a quote)."""
    return None if '"' in name or "\n" in name else f'"{name}"'


def header(result: AcmResult, sources: list[str], tool: str) -> list[str]:
    """The comment lines that lead the output: what was sampled, how, and what each reason
    means (the counts as drawn, which differ from --samples: see generate)."""
    limits = f"at least {result.always_fraction:.0%}" if result.always_fraction < 1 else "all"
    drawn = f"{result.samples} random configurations drawn (seed {result.seed})"
    if result.samples != result.asked:
        drawn += (f", {result.asked} asked for: sampling goes on, up to twice the count asked, "
                  "until the 'always' pairs settle, and stops once no pair is left to sample")
    return [
        f"Allowed collisions for {', '.join(sources) or 'the scene'}, made by {tool}:",
        drawn + ".",
        "Uniform within the joint limits; without limits: [-pi, pi] for a revolute joint, "
        "[-1, 1] for a prismatic one; ball and floating joints: every rotation; floating "
        "translations 0 (pairs they move apart stay checked).",
        f"adjacent: neighbours in the kinematic tree; default: colliding at the default"
        f" configuration; always: colliding in {limits} of the samples; never: in none.",
    ]


def to_robray(result: AcmResult, sources: list[str] = (),  # type: ignore[assignment]
              tool: str = "robrayc allowed-collisions",
              links: dict[str, str] | None = None) -> str:
    """allow_collision statements (of frames, as robray names them), one per line, each with
    its reason as a comment, led by the pair's robot links when `links` names them."""
    lines = ["// " + h for h in header(result, list(sources), tool)]
    checked = result.checked
    lines.append(f"// {len(result.allowed)} pairs allowed, {len(checked)} still checked "
                 "(listed at the end).")
    lines.append("")
    for p in result.allowed:
        qa, qb = _quote(p.a), _quote(p.b)
        note = f"{p.reason}: {p.detail}" + ("; already allowed in the scene" if p.in_scene
                                            else "")
        if links is not None:
            note = "links {} {}: ".format(*link_pair((p.a, p.b), links)) + note
        if qa is None or qb is None:
            lines.append(f"// cannot write a name holding a quote: {p.a!r} {p.b!r} ({note})")
            continue
        lines.append(f"allow_collision {qa} {qb};  // {note}")
    if checked:
        lines.append("")
        lines.append("// Still checked (they collide only sometimes):")
        for p in checked:
            named = "" if links is None else " (links {} {})".format(
                *link_pair((p.a, p.b), links))
            lines.append(f"//   {p.a} {p.b}{named}: {p.detail}")
    return "\n".join(lines) + "\n"


def to_json(result: AcmResult, links: dict[str, str] | None = None) -> str:
    """The classification as JSON; with `links`, each pair also names its robot links
    (link_a, link_b) beside its frames (a, b)."""
    return json.dumps({
        "samples": result.samples, "samples_asked": result.asked, "seed": result.seed,
        "always_fraction": result.always_fraction,
        "default_configuration": result.default_config,
        "pairs": [{"a": p.a, "b": p.b, "reason": p.reason, "detail": p.detail,
                   "collisions": p.collisions, "in_scene": p.in_scene, "checked": p.checked,
                   "bound": p.bound, **_link_fields(p, links)} for p in result.pairs],
    }, indent=1) + "\n"


def _link_fields(pair, links: dict[str, str] | None) -> dict:
    if links is None:
        return {}
    a, b = link_pair((pair.a, pair.b), links)
    return {"link_a": a, "link_b": b}
