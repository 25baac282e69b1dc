"""robrayc.records behaves as the standard library's dataclasses for what robrayc uses.

Each class is declared twice from one body, once as a dataclass and once as a record; the two
must agree on construction, defaults, repr, equality, hashing, freezing, replace and pickling.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from robrayc import records
from tests.imports_probe import modules_after


def _pair(frozen: bool, slots: bool, eq: bool = True):
    def body(deco, fld):
        @deco(frozen=frozen, slots=slots, eq=eq)
        class Point:
            """A point."""

            x: float
            y: float = 2.0
            tags: list = fld(default_factory=list, compare=False)
            note: str = fld(default="n", repr=False)

            def norm1(self) -> float:
                return abs(self.x) + abs(self.y)
        return Point
    return body(dataclasses.dataclass, dataclasses.field), body(records.record, records.field)


KINDS = [(f, s, e) for f in (False, True) for s in (False, True) for e in (False, True)]


@pytest.mark.parametrize(("frozen", "slots", "eq"), KINDS)
def test_same_behaviour_as_dataclasses(frozen: bool, slots: bool, eq: bool) -> None:
    dc, rec = _pair(frozen, slots, eq)
    a, b = dc(1.0, tags=["t"]), rec(1.0, tags=["t"])
    assert repr(a) == repr(b)
    assert (a.x, a.y, a.tags, a.note, a.norm1()) == (b.x, b.y, b.tags, b.note, b.norm1())
    assert (a == dc(1.0)) == (b == rec(1.0))
    assert (a == dc(1.5)) == (b == rec(1.5))
    assert rec.__doc__ == dc.__doc__ and rec.__match_args__ == dc.__match_args__
    assert (dc.__hash__ is None) == (rec.__hash__ is None)
    if dc.__hash__ is not None and eq:
        assert hash(a) == hash(dc(1.0)) and hash(b) == hash(rec(1.0))
    assert hasattr(a, "__dict__") == hasattr(b, "__dict__")
    if frozen:
        with pytest.raises(dataclasses.FrozenInstanceError):
            a.x = 3.0
        with pytest.raises(records.FrozenInstanceError):
            b.x = 3.0
        with pytest.raises(AttributeError):
            del b.x
    else:
        a.x = b.x = 3.0
        assert b.x == 3.0
    assert repr(dataclasses.replace(a, y=5.0)) == repr(records.replace(b, y=5.0))
    with pytest.raises(TypeError):
        records.replace(b, z=1)
    assert [f.name for f in dataclasses.fields(a)] == [f.name for f in records.fields(b)]
    with pytest.raises(TypeError):
        rec()
    assert rec(1.0).tags is not rec(1.0).tags  # a fresh default each time


@records.record(frozen=True, slots=True)
class FrozenSlots:
    x: float
    tags: list = records.field(default_factory=list)


@records.record
class Mutable:
    x: float
    tags: list = records.field(default_factory=list)


@pytest.mark.parametrize("cls", [FrozenSlots, Mutable])
def test_copy_and_pickle(cls: type) -> None:
    b = cls(1.0, tags=["t"])
    for clone in (copy.copy(b), copy.deepcopy(b), pickle.loads(pickle.dumps(b))):
        assert clone == b and clone is not b and clone.tags == ["t"]


def test_post_init_and_inheritance() -> None:
    @records.record(frozen=True)
    class Base:
        a: int
        index: dict = records.field(default_factory=dict, compare=False, repr=False)

        def __post_init__(self) -> None:
            object.__setattr__(self, "index", {"a": self.a})

    @records.record(frozen=True)
    class Child(Base):
        b: str = "x"

    c = Child(1)
    assert (c.a, c.b, c.index) == (1, "x", {"a": 1})
    assert repr(c) == "test_post_init_and_inheritance.<locals>.Child(a=1, b='x')"
    match c:
        case Child(a, _, b):
            assert (a, b) == (1, "x")


def test_a_compile_never_imports_dataclasses(tmp_path) -> None:
    """The reason records exist: a plain C compile does not pay for dataclasses/inspect."""
    scene = tmp_path / "one.robray"
    scene.write_text("frame a { geometry { shape box; dimension [1, 1, 1]; } }\n")
    loaded = modules_after([str(scene), "-o", str(tmp_path / "one.c")])
    assert not {"dataclasses", "inspect"} & loaded


def test_a_record_missing_from_the_generated_module_gets_plain_methods() -> None:
    """A record whose spec is not in _records.py gets the generic methods (no code is made
    at run time), which behave as the generated ones."""
    before = records.plain_at_run_time

    @records.record(frozen=True, slots=True)
    class Unlisted:
        zeta_field_not_in_robrayc: int = 7
        items: list = records.field(default_factory=list)
        hidden: str = records.field(default="h", repr=False, compare=False)

    assert records.plain_at_run_time == before + 1
    name = "test_a_record_missing_from_the_generated_module_gets_plain_methods.<locals>.Unlisted"
    assert repr(Unlisted()) == f"{name}(zeta_field_not_in_robrayc=7, items=[])"
    a, b = Unlisted(1, [2], "x"), Unlisted(zeta_field_not_in_robrayc=1, items=[2])
    assert a == b and a != Unlisted(2) and Unlisted().items is not Unlisted().items
    assert records.replace(a, items=[3]).items == [3]
    with pytest.raises(records.FrozenInstanceError):
        a.items = []  # type: ignore[misc]
    with pytest.raises(TypeError):
        Unlisted(1, [], "h", 4)
    with pytest.raises(TypeError):
        Unlisted(nope=1)
