"""Record classes: the subset of :mod:`dataclasses` robrayc uses, without its start-up cost.

Importing :mod:`dataclasses` pulls in :mod:`inspect` (and ``ast``, ``dis``, ``tokenize``),
and decorating a class runs a long generic pass; together they were a third of a one-frame
compile's start-up (issue 15). :func:`record` writes the same methods from one small source
text per class: ``__init__`` (defaults, ``default_factory``, ``__post_init__``), ``__repr__``,
``__eq__``, ``__hash__`` (frozen), frozen ``__setattr__``/``__delattr__``, ``__slots__`` with
pickling, ``__match_args__``. :func:`replace` and :func:`fields` mirror their dataclasses
namesakes. Annotations are read as written (every module uses ``from __future__ import
annotations``): a field is an annotated class attribute that is not a ``ClassVar``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")
    from typing import dataclass_transform
else:
    def dataclass_transform(**_: object):  # type checkers read records as dataclasses
        return lambda decorator: decorator


class FrozenInstanceError(AttributeError):
    """Assigning to a field of a frozen record."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """One field's declaration: its default (or factory) and whether repr/eq use it."""

    __slots__ = ("name", "default", "default_factory", "repr", "compare")

    def __init__(self, default: Any = MISSING, default_factory: Any = MISSING,
                 repr: bool = True, compare: bool = True) -> None:  # noqa: A002 (as dataclasses)
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare


def field(*, default: Any = MISSING, default_factory: Any = MISSING, repr: bool = True,  # noqa: A002
          compare: bool = True) -> Any:
    """A field with a default factory, or left out of repr / comparison (as dataclasses)."""
    return Field(default, default_factory, repr, compare)


@dataclass_transform(field_specifiers=(field, Field))
def record(cls: type | None = None, /, *, frozen: bool = False, slots: bool = False,
           eq: bool = True) -> Any:
    """Class decorator: `@record` or `@record(frozen=True, slots=True, eq=False)`."""
    def wrap(c: type) -> type:
        return _make(c, frozen, slots, eq)
    return wrap if cls is None else wrap(cls)


def fields(obj: Any) -> tuple[Field, ...]:
    """The fields of a record class or instance, in declaration order."""
    return obj.__record_fields__


def is_record(obj: Any) -> bool:
    return hasattr(obj, "__record_fields__")


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of `obj` with `changes` (field names) applied, built through ``__init__``."""
    for f in obj.__record_fields__:
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    if len(changes) != len(obj.__record_fields__):
        names = {f.name for f in obj.__record_fields__}
        raise TypeError(f"{type(obj).__name__} has no field {sorted(set(changes) - names)[0]!r}")
    return type(obj)(**changes)


def _declared_fields(cls: type) -> list[Field]:
    out = []
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if isinstance(annotation, str) and annotation.startswith(("ClassVar", "typing.ClassVar")):
            continue
        value = cls.__dict__.get(name, MISSING)
        f = value if isinstance(value, Field) else Field(default=value)
        f.name = name
        out.append(f)
    return out


def _factory_source(flds: list[Field], frozen: bool, eq: bool, post_init: bool,
                    slotted: bool = False) -> str:
    """`def make(<defaults>)` returning the class's methods: a text that depends only on the
    fields, so the generated module holds each distinct one once. A frozen record whose
    fields are all slots sets each through its slot's descriptor (`_set_NAME`, given to make
    after its class exists): a third of the time of object.__setattr__ with the field's name."""
    params, body = ["self"], []
    for f in flds:
        if f.default_factory is not MISSING:
            params.append(f"{f.name}=_FACTORY")
            value = f"_factory_{f.name}() if {f.name} is _FACTORY else {f.name}"
        else:
            params.append(f.name if f.default is MISSING else f"{f.name}=_default_{f.name}")
            value = f.name
        body.append(f"_set_{f.name}(self, {value})" if slotted
                    else f"_setattr(self, {f.name!r}, {value})" if frozen
                    else f"self.{f.name} = {value}")
    if post_init:
        body.append("self.__post_init__()")
    shown = ", ".join(f"{f.name}={{self.{f.name}!r}}" for f in flds if f.repr)
    names = ["_setattr", "_FACTORY", *_namespace_names(flds),
             *(f"_set_{f.name}" for f in flds if slotted)]
    lines = [f"def make({', '.join(names)}):",
             f"    def __init__({', '.join(params)}):", *(f"        {b}" for b in body or ["pass"]),
             "    def __repr__(self):",
             f"        return f'{{self.__class__.__qualname__}}({shown})'"]
    compared = "".join(f"self.{f.name}," for f in flds if f.compare)
    made = ["__init__", "__repr__"]
    if eq:
        lines += ["    def __eq__(self, other):",
                  "        if other.__class__ is not self.__class__:",
                  "            return NotImplemented",
                  f"        return ({compared}) == ({compared.replace('self.', 'other.')})"]
        made.append("__eq__")
        if frozen:
            lines += ["    def __hash__(self):", f"        return hash(({compared}))"]
            made.append("__hash__")
    lines.append(f"    return {{{', '.join(f'{m!r}: {m}' for m in made)}}}")
    return "\n".join(lines) + "\n"


def _namespace_names(flds: list[Field]) -> list[str]:
    return [f"_factory_{f.name}" if f.default_factory is not MISSING else f"_default_{f.name}"
            for f in flds if f.default_factory is not MISSING or f.default is not MISSING]


def _namespace_values(flds: list[Field]) -> list[Any]:
    return [f.default_factory if f.default_factory is not MISSING else f.default
            for f in flds if f.default_factory is not MISSING or f.default is not MISSING]


# Every factory text made in this process (regenerating _records.py collects them), and how
# many had to be compiled because _records.py did not hold them (0 when it is up to date).
SOURCES: set[str] = set()
compiled_at_run_time = 0


def _methods(flds: list[Field], frozen: bool, eq: bool, post_init: bool,
             setters: list[Any] | None = None) -> dict[str, Any]:
    global compiled_at_run_time
    from robrayc._records import FACTORIES

    text = _factory_source(flds, frozen, eq, post_init, setters is not None)
    SOURCES.add(text)
    make = FACTORIES.get(text)
    if make is None:  # a record declared or changed since _records.py was generated
        namespace: dict[str, Any] = {}
        exec(text, namespace)  # noqa: S102
        make = namespace["make"]
        compiled_at_run_time += 1
    return make(object.__setattr__, MISSING, *_namespace_values(flds), *(setters or ()))


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in self.__record_fields__]


def _setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(self.__record_fields__, state, strict=True):
        object.__setattr__(self, f.name, value)


def _make(cls: type, frozen: bool, slots: bool, eq: bool) -> type:
    inherited = [f for base in reversed(cls.__mro__[1:])
                 for f in getattr(base, "__record_fields__", ())]
    own = _declared_fields(cls)
    flds = [f for f in inherited if f.name not in {o.name for o in own}] + own
    if slots:  # a new class: __slots__ must exist when the class is made
        attrs = {k: v for k, v in cls.__dict__.items()
                 if k not in ("__dict__", "__weakref__") and k not in {f.name for f in own}}
        attrs.update(__slots__=tuple(f.name for f in own), __getstate__=_getstate,
                     __setstate__=_setstate, __qualname__=cls.__qualname__)
        cls = type(cls)(cls.__name__, cls.__bases__, attrs)
    setters = _slot_setters(cls, flds) if frozen and slots else None
    made = _methods(flds, frozen, eq, hasattr(cls, "__post_init__"), setters)
    methods: dict[str, Any] = {
        "__record_fields__": tuple(flds), "__match_args__": tuple(f.name for f in flds),
        "__init__": made["__init__"], "__repr__": made["__repr__"]}
    if eq:
        methods["__eq__"] = made["__eq__"]
        methods["__hash__"] = made.get("__hash__")  # None: mutable and comparable
    if frozen:
        methods.update(__setattr__=_frozen_setattr, __delattr__=_frozen_delattr)
    for fn in ("__init__", "__repr__", "__eq__", "__hash__"):
        if methods.get(fn) is not None:
            methods[fn].__qualname__ = f"{cls.__qualname__}.{fn}"
    for key, value in methods.items():
        setattr(cls, key, value)
    if slots:
        return cls
    for f in own:  # a default stays a class attribute (as dataclasses); a field() marker not
        if isinstance(cls.__dict__.get(f.name), Field):
            if f.default is MISSING:
                delattr(cls, f.name)
            else:
                setattr(cls, f.name, f.default)
    return cls


def _slot_setters(cls: type, flds: list[Field]) -> list[Any] | None:
    """Each field's slot descriptor's __set__ (None when a field is not a slot: a base
    without __slots__ keeps it in the instance's __dict__)."""
    out = []
    for f in flds:
        slot = next((k.__dict__[f.name] for k in cls.__mro__ if f.name in k.__dict__), None)
        if type(slot) is not _MEMBER:
            return None
        out.append(slot.__set__)
    return out


class _Probe:
    __slots__ = ("x",)


_MEMBER = type(_Probe.__dict__["x"])  # types.MemberDescriptorType, without importing types


def _generated_module() -> str:
    """_records.py's text: every factory of the records robrayc's modules declare."""
    import importlib
    import pkgutil

    import robrayc
    from robrayc import records  # not __main__'s copy of this module: the one classes use

    for info in pkgutil.walk_packages(robrayc.__path__, "robrayc."):
        if not info.name.startswith(("robrayc._records", "robrayc.__main__")):
            importlib.import_module(info.name)
    out = ['"""Generated by `python -m robrayc.records` from the records robrayc declares: their',
           "methods, compiled once at install (robrayc.records compiles a text missing here at",
           'run time). Do not edit."""', "", "# ruff: noqa", ""]
    names = []
    for k, text in enumerate(sorted(records.SOURCES)):
        out.append(text.replace("def make(", f"def _make{k}(", 1))
        names.append(f"    {text!r}: _make{k},")
    return "\n".join([*out, "FACTORIES = {", *names, "}", ""])


def main(argv: list[str] | None = None) -> int:
    """`python -m robrayc.records [--check]`: rewrite (or check) robrayc/_records.py."""
    import sys
    from pathlib import Path

    target = Path(__file__).with_name("_records.py")
    text = _generated_module()
    if "--check" in (sys.argv[1:] if argv is None else argv):
        return 0 if target.read_text() == text else 1
    target.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
