"""One configuration or motion a Python call (robrayc/c/pycall.c, built for the interpreter
beside the compiled checker's library): its answers are the ctypes path's (the fallback where
Python's headers are missing) on random configurations, a hair from contact, NaN and infinite
values, every kind of sequence and wrong lengths; two checkers of one library each see their
own obstacles; and without Python's headers the checker builds and answers the same through
ctypes."""

from __future__ import annotations

import functools
import math
import subprocess
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from robrayc.analysis.collision import Box, CollisionChecker, Sphere, c_build, motions
from robrayc.analysis.collision.c_build import CtypesCaller
from robrayc.frontend import load_scene
from robrayc.resources import resource_path
from tests.backends.test_c_checker import needs_cc
from tests.corpus import IN_CI
from tests.test_collision_motions import among_boxes, configurations, next_to_free_edge

pytestmark = needs_cc

# a planar arm of two joints at z = 0.2: its hand can meet its upper arm (folded back), the
# post, and obstacles set at run time
ARM = """\
frame base { geometry { shape box; dimension [0.2, 0.2, 0.1]; } }
frame shoulder { parent base; type revolute; axis [0, 0, 1]; variable q; translation [0, 0, 0.2];
  limit_position [-3.1, 3.1]; }
frame upper { parent shoulder; translation [0.25, 0, 0];
  geometry { shape box; dimension [0.3, 0.05, 0.05]; } }
frame elbow { parent shoulder; type revolute; axis [0, 0, 1]; variable r; translation [0.5, 0, 0];
  limit_position [-3.1, 3.1]; }
frame forearm { parent elbow; translation [0.15, 0, 0];
  geometry { shape box; dimension [0.2, 0.04, 0.04]; } }
frame hand { parent elbow; translation [0.35, 0, 0]; geometry { shape sphere; radius 0.06; } }
frame post { translation [0.6, 0.3, 0]; geometry { shape box; dimension [0.1, 0.1, 2]; } }
"""


def python_headers() -> str:
    """Python's headers folder (skips without them, fails in CI: .ci/run installs them)."""
    include = c_build.python_include()
    if include is None:
        if IN_CI:
            pytest.fail("Python's headers missing in CI (.ci/run installs python3-dev)")
        pytest.skip("no Python headers: the extension is not built")
    return include


def _arm(tmp_path: Path) -> CollisionChecker:
    (tmp_path / "arm.robray").write_text(ARM)
    return CollisionChecker(load_scene([str(tmp_path / "arm.robray")]), backend="compiled")


def forms(q: np.ndarray) -> list[tuple[object, bool]]:
    """One configuration as every kind of input a planner may hand check, and whether the
    extension reads it: float64 and float32 arrays of any stride, lists and tuples of
    floats, ints or numpy scalars (read); byte-swapped arrays, 2-D rows, object arrays,
    ranges (left to the ctypes path)."""
    wide = np.zeros((2, 2 * len(q)))
    wide[0, ::2] = q
    column = np.asfortranarray(np.stack([q, q]))[0]  # (a row of a Fortran array: strided)
    whole = np.round(np.nan_to_num(q, posinf=0.0, neginf=0.0)).astype(int).tolist()
    read = [q, q.tolist(), tuple(q.tolist()), list(q), wide[0, ::2], column, q[::-1][::-1],
            whole, q.astype(np.float32), q.astype(np.float32)[::-1][::-1],
            memoryview(q.copy())]
    unread = [q.astype(">f8"), q[None], q.astype(object), range(len(q))]
    return [(x, True) for x in read] + [(x, False) for x in unread]


def wrong(q: np.ndarray) -> list:
    """Inputs no configuration: wrong lengths, no numbers, a mapping by position."""
    return [q[:-1], q.tolist() + [0.0], [], [None] * len(q), ["0.1"] * len(q), "ab", None,
            {k: float(v) for k, v in enumerate(q)}, np.zeros((len(q), 2)), object()]


def inputs(q: np.ndarray) -> list:
    return [x for x, _ in forms(q)] + wrong(q)


def outcome(fn, *args):
    """fn's answer, or the type and text of what it raised."""
    try:
        return fn(*args)
    except (TypeError, ValueError, KeyError) as exc:
        return type(exc).__name__, str(exc)


def assert_alike(checker: CollisionChecker, rows: np.ndarray) -> None:
    """The extension's answers are the ctypes path's (None: left to the slower path, for
    the inputs it does not read only), and check and check_motion answer the same with
    either behind them."""
    python_headers()
    kernel = checker._kernel
    fast, slow = kernel.caller, CtypesCaller(kernel)
    assert type(fast).__name__ == "Caller", "the extension was not built"
    for q in rows:
        for x, read in forms(q):
            got, want = fast.decide(x), slow.decide(x)
            assert got == want if read else got is None, (x, got, want)
        for x in wrong(q):
            assert fast.decide(x) is None
    answers = [[outcome(checker.check, x) for x in inputs(q)] for q in rows]
    pairs = list(zip(rows[:-1], rows[1:], strict=True))[:40]
    resolutions = (32.0, 4, np.float64(8.0), True, 0.0, -1.0, math.nan, math.inf, "32", 1e300)
    motions_answers = [[outcome(checker.check_motion, a, b, r) for r in resolutions]
                       for a, b in pairs]
    for a, b in pairs:
        for (x, read), (y, _) in zip(forms(a), forms(b), strict=True):
            got, want = fast.decide_motion(x, y, 32.0), slow.decide_motion(x, y, 32.0)
            assert got == want if read else got is None, (x, y, got, want)
        for r in resolutions:
            assert fast.decide_motion(a, b, r) in (slow.decide_motion(a, b, r), None)
    kernel.caller = slow
    motions.bind_check(checker)  # check: the ctypes path's check_or now
    try:
        assert answers == [[outcome(checker.check, x) for x in inputs(q)]
                           for q in rows]
        assert motions_answers == [[outcome(checker.check_motion, a, b, r) for r in resolutions]
                                   for a, b in pairs]
    finally:
        kernel.caller = fast
        motions.bind_check(checker)


def test_extension_answers_as_ctypes_on_a_small_arm(tmp_path: Path) -> None:
    checker = _arm(tmp_path)
    rows = configurations(checker.scene, 60, seed=1)
    rows = np.concatenate([rows, [[math.nan, 0.0], [0.0, math.inf], [0.0, 0.0], [0.0, 3.0]]])
    assert_alike(checker, rows)
    assert checker._kernel.caller.decide((0.0, 3.0)) is True  # the hand on the upper arm
    assert checker._kernel.caller.decide([0.0, 0.0]) is False
    assert checker._kernel.caller.decide(np.array([0.0, math.nan])) is None  # INVALID


@pytest.mark.slow
def test_extension_answers_as_ctypes_on_ur5_near_contact() -> None:
    """UR5 among boxes (meshes decided on their triangles): random configurations and ones
    bisected to a hair from the edge of the C's FREE."""
    checker = CollisionChecker(among_boxes("ur5", seed=3), backend="compiled")
    q = configurations(checker.scene, 200, seed=4)
    near = next_to_free_edge(checker._kernel, q, 6, np.random.default_rng(5))
    assert_alike(checker, np.concatenate([q[:40], near]))


def test_configurations_past_the_stack_room_answer_alike(tmp_path: Path) -> None:
    """pycall.c reads a configuration onto the stack up to STACK_DOUBLES values, and into
    allocated room past it: built with room for one, the arm's configurations and motions
    take the allocated room, with the same answers."""
    from robrayc.analysis.collision.c_build import _address

    small = c_build.load_extension(c_build.build_extension(python_headers(),
                                                           ("-DSTACK_DOUBLES=1",)))
    checker = _arm(tmp_path)
    kernel = checker._kernel
    caller = small.Caller(_address(kernel.lib.rc_check), _address(kernel.lib.rc_check_motion),
                          kernel.n_config, kernel.env.holder, kernel.env, kernel.lib)
    rows = configurations(checker.scene, 40, seed=6)
    assert [caller.decide(q) for q in rows] == [kernel.caller.decide(q) for q in rows]
    assert [caller.decide_motion(a, b, 32.0) for a, b in zip(rows, rows[::-1], strict=True)] \
        == [kernel.caller.decide_motion(a, b, 32.0) for a, b in zip(rows, rows[::-1],
                                                                       strict=True)]
    assert caller.decide([0.0]) is None and caller.decide_motion([0.0] * 3, [0.0] * 2, 1) is None


def test_checkers_of_one_library_each_see_their_obstacles(tmp_path: Path) -> None:
    """The obstacles live in the library (global to it): the extension uploads a checker's
    own before its call when another checker's were the last, as the ctypes path does."""
    one, two = _arm(tmp_path), _arm(tmp_path)
    one.set_obstacles([Sphere(centre=(-0.6, 0.0, 0.2), radius=0.1)])
    two.set_obstacles([Box(centre=(0.0, -0.6, 0.2), half_extents=(0.1, 0.1, 0.1))])
    q = configurations(one.scene, 60, seed=2)
    want = one.in_collision(q), two.in_collision(q)
    assert (want[0] != want[1]).sum() >= 10
    for _ in range(2):
        got = [[one.check(x) for x in q], [two.check(x) for x in q]]
        assert [list(w) for w in want] == got
        mixed = [(one.check(x), two.check(x.tolist())) for x in q]
        assert mixed == list(zip(*want, strict=True))
    assert one.check([math.pi, 0.0]) and not two.check([math.pi, 0.0])
    assert two.check_motion([0.0, 0.0], [-2.0, 0.0]) and not one.check_motion([0.0, 0.0],
                                                                                [-2.0, 0.0])


def test_check_is_one_call_until_the_checker_is_restricted(tmp_path: Path) -> None:
    """A compiled checker's check is its Caller's check_or with no Python frame between
    (a functools.partial of it); restricted to some frame pairs, the method again (the C
    answers for every pair); the one call again once the restriction is lifted. It answers
    as the exact checker all along."""
    python_headers()
    checker = _arm(tmp_path)
    exact = CollisionChecker(checker.scene)
    rows = np.concatenate([configurations(checker.scene, 80, seed=4), [[0.0, 3.0]]])
    want = [bool(x) for x in exact.in_collision(rows)]
    assert any(want) and not all(want)
    bound = vars(checker).get("check")
    assert isinstance(bound, functools.partial) and bound.func.__name__ == "check_or"
    assert [checker.check(q) for q in rows] == want
    checker.restrict(np.zeros(len(exact.collision_matrix(rows[:1])[0]), dtype=bool))
    assert "check" not in vars(checker)
    assert not any(checker.check(q) for q in rows)
    checker.restrict(None)
    assert isinstance(vars(checker).get("check"), functools.partial)
    assert [checker.check(q) for q in rows] == want


def test_without_python_headers_the_checker_answers_through_ctypes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where Python's headers are missing (no python3-dev) the extension is not built; the
    checker still builds, and answers the same through ctypes."""
    python_headers()
    with_headers = _arm(tmp_path)
    paths = sysconfig.get_paths()
    monkeypatch.setattr(sysconfig, "get_paths",
                        lambda *a, **k: {**paths, "include": str(tmp_path / "no-headers")})
    c_build.extension.cache_clear()
    try:
        assert c_build.python_include() is None and c_build.extension() is None
        without = _arm(tmp_path)
        assert isinstance(without._kernel.caller, CtypesCaller)
        q = configurations(without.scene, 100, seed=3)
        assert [without.check(x) for x in q] == [with_headers.check(x) for x in q]
        assert [without.check_motion(a, b) for a, b in zip(q[::2], q[1::2], strict=True)] == \
            [with_headers.check_motion(a, b) for a, b in zip(q[::2], q[1::2], strict=True)]
    finally:
        monkeypatch.undo()
        c_build.extension.cache_clear()
    assert c_build.extension() is not None


@pytest.mark.parametrize("std", ["-std=c99", "-std=c11"])
def test_extension_compiles_under_strict_gcc(tmp_path: Path, std: str) -> None:
    include = python_headers()
    run = subprocess.run(["gcc", std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2",
                          "-fPIC", "-shared", f"-I{include}", "-o", str(tmp_path / "p.so"),
                          str(resource_path("c", "pycall.c"))], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize(("platform", "flags"), [
    ("darwin", ("-undefined", "dynamic_lookup")), ("linux", ())])
def test_extension_links_python_at_load_time_on_macos(
        monkeypatch: pytest.MonkeyPatch, platform: str, flags: tuple[str, ...]) -> None:
    """macOS's linker refuses a module's undefined Python symbols unless told to leave them
    to the interpreter (its own LDSHARED says -undefined dynamic_lookup); Linux needs no flag."""
    asked: list[tuple[str, ...]] = []
    monkeypatch.setattr(c_build.sysconfig, "get_config_var", lambda name: ".so")
    monkeypatch.setattr(c_build.sys, "platform", platform)
    monkeypatch.setattr(c_build, "build", lambda source, extra, *rest: asked.append(extra))
    c_build.build_extension("/include")
    assert asked == [("-I/include", *flags)]
