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

from typing import TYPE_CHECKING

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


def _spec(flds: list[Field], frozen: bool, eq: bool, post_init: bool, slotted: bool) -> tuple:
    """What a record's methods depend on, the key of its factory in _records.py: each field's
    name, its default ("" none, "=" a value, "()" a factory), whether repr and eq use it;
    then whether the record is frozen, compared, post-initialised, set through slots."""
    kinds = tuple((f.name, "()" if f.default_factory is not MISSING
                   else "" if f.default is MISSING else "=", f.repr, f.compare) for f in flds)
    return kinds, frozen, eq, post_init, slotted


def _wrapped(items: list[str], indent: int, sep: str = ", ", width: int = 96) -> list[str]:
    """`items` joined by `sep` into lines of at most `width` characters, `indent` included."""
    lines: list[str] = []
    for item in items:
        if lines and indent + len(lines[-1]) + len(sep) + len(item) <= width:
            lines[-1] += sep + item
        else:
            lines.append(item)
    return [" " * indent + line for line in lines]


def _factory_source(spec: tuple) -> str:
    """The source of `make(...)`, which returns the methods of the records of `spec` (see
    _spec). A frozen record whose fields are all slots sets each through its slot's
    descriptor (`_set_NAME`, given to make after its class exists): a third of the time of
    object.__setattr__ with the field's name."""
    kinds, frozen, eq, post_init, slotted = spec
    params, body, names = ["self"], [], ["_setattr", "_FACTORY"]
    for name, default, _, _ in kinds:
        if default == "()":
            params.append(f"{name}=_FACTORY")
            value = f"_factory_{name}() if {name} is _FACTORY else {name}"
            names.append(f"_factory_{name}")
        else:
            params.append(f"{name}=_default_{name}" if default else name)
            value = name
            if default:
                names.append(f"_default_{name}")
        body.append(f"_set_{name}(self, {value})" if slotted
                    else f"_setattr(self, {name!r}, {value})" if frozen
                    else f"self.{name} = {value}")
    if post_init:
        body.append("self.__post_init__()")
    names += [f"_set_{name}" for name, *_ in kinds if slotted]
    shown = _wrapped([f"{name}={{self.{name}!r}}" for name, _, used, _ in kinds if used], 18)
    shown = [f"{line}, " for line in shown[:-1]] + shown[-1:]
    lines = ["def make(", *_wrapped([f"{n}," for n in names], 8, " "), "):",
             "    def __init__(", *_wrapped([f"{p}," for p in params], 12, " "), "    ):",
             *(f"        {b}" for b in body or ["pass"]),
             "    def __repr__(self):",
             "        return (f'{self.__class__.__qualname__}('",
             *(f"                f'{line.lstrip()}'" for line in shown), "                ')')"]
    compared = [name for name, _, _, used in kinds if used]

    def fields_of(obj: str) -> list[str]:
        return _wrapped([f"{obj}.{name}," for name in compared], 12, " ")

    made = ["__init__", "__repr__"]
    if eq and not compared:
        lines += ["    def __eq__(self, other):",
                  "        if other.__class__ is not self.__class__:",
                  "            return NotImplemented",
                  "        return True"]
        made.append("__eq__")
        if frozen:
            lines += ["    def __hash__(self):", "        return hash(())"]
            made.append("__hash__")
    elif eq:
        lines += ["    def __eq__(self, other):",
                  "        if other.__class__ is not self.__class__:",
                  "            return NotImplemented",
                  "        return (", *fields_of("self"), "        ) == (", *fields_of("other"),
                  "        )"]
        made.append("__eq__")
        if frozen:
            lines += ["    def __hash__(self):", "        return hash((", *fields_of("self"),
                      "        ))"]
            made.append("__hash__")
    lines.append(f"    return {{{', '.join(f'{m!r}: {m}' for m in made)}}}")
    return "\n".join(lines) + "\n"


def _namespace_values(flds: list[Field]) -> list[Any]:
    return [f.default_factory if f.default_factory is not MISSING else f.default
            for f in flds if f.default_factory is not MISSING or f.default is not MISSING]


# The records declared in this process by their spec (regenerating _records.py collects
# them), and how many got the plain methods because _records.py did not hold their spec
# (0 when it is up to date).
DECLARED: dict[tuple, list[str]] = {}
plain_at_run_time = 0


def _methods(cls: type, flds: list[Field], frozen: bool, eq: bool, post_init: bool,
             setters: list[Any] | None = None) -> dict[str, Any]:
    """The record's methods: from _records.py (generated from _factory_source), or the
    plain generic ones when its spec is not there (a record declared since it was
    generated: slower, never wrong)."""
    global plain_at_run_time
    from robrayc._records import FACTORIES

    spec = _spec(flds, frozen, eq, post_init, setters is not None)
    DECLARED.setdefault(spec, []).append(f"{cls.__module__}.{cls.__qualname__}")
    make = FACTORIES.get(spec)
    if make is None:
        plain_at_run_time += 1
        return _plain_methods(flds, frozen, eq, post_init)
    return make(object.__setattr__, MISSING, *_namespace_values(flds), *(setters or ()))


def _plain_methods(flds: list[Field], frozen: bool, eq: bool, post_init: bool
                   ) -> dict[str, Any]:
    """Generic methods that do what the generated ones do, field by field."""
    names = [f.name for f in flds]
    shown = [f.name for f in flds if f.repr]
    compared = [f.name for f in flds if f.compare]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes {len(names)} arguments")
        given = dict(zip(names, args, strict=False))
        for name in kwargs:
            if name in given or name not in names:
                raise TypeError(f"{type(self).__name__}() got a bad argument {name!r}")
        given.update(kwargs)
        for f in flds:
            if f.name in given:
                value = given[f.name]
            elif f.default_factory is not MISSING:
                value = f.default_factory()
            elif f.default is not MISSING:
                value = f.default
            else:
                raise TypeError(f"{type(self).__name__}() missing argument {f.name!r}")
            object.__setattr__(self, f.name, value)
        if post_init:
            self.__post_init__()

    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inner})"

    def values(self: Any) -> tuple:
        return tuple(getattr(self, name) for name in compared)

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return values(self) == values(other)

    def __hash__(self: Any) -> int:
        return hash(values(self))

    made = {"__init__": __init__, "__repr__": __repr__}
    if eq:
        made["__eq__"] = __eq__
        if frozen:
            made["__hash__"] = __hash__
    return made


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
    made = _methods(cls, flds, frozen, eq, hasattr(cls, "__post_init__"), setters)
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
