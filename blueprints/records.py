"""`record`: railyard's value classes, made as `dataclasses.dataclass` makes them, with one `exec` a class.

`dataclasses.dataclass(frozen=True)` compiles six functions for every class, each with an `exec` of its own
(`__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__`, `__delattr__`): about 0.8 ms a class on this
project's machine, and a cold `railyard validate` defines some eighty of them before it reads a line of the
blueprint. CPython 3.13 folds those calls into one `exec` a class (python/cpython#109870); on the
Python 3.11 railyard runs on, `record` does the same:

* the hot methods, `__init__`, `__eq__` and `__hash__`, are compiled together, as dataclasses writes them;
* the cold ones need no compiling: `__repr__` is one function shared by every record (it reads the fields),
  and a frozen class's `__setattr__` and `__delattr__` are closures over its field names (they only refuse).

A record is a dataclass: `dataclasses.fields`, `replace`, `asdict`, `is_dataclass`, pickling and `match`
work on it unchanged, because `dataclasses.dataclass` itself collects the fields (with every method turned
off) before `record` adds the methods. Its `__dataclass_params__` therefore say what `dataclasses` was asked
for (no methods, not frozen); `__record_frozen__` says whether the record is frozen.

What it covers is what railyard uses: frozen (the default) or not, `kw_only`, `field(default=...,
default_factory=..., repr=..., compare=..., hash=...)`, `__post_init__`, and inheriting a record's fields.
Anything else (a method of its own among those it makes, `field(init=False)`, a field named `self`, a base
that is another kind of dataclass) it refuses when the class is defined (`TypeError`), so no record can
silently differ from its dataclass. `tests/house/test_records.py` holds it to the dataclass
built from the same class body: signatures, equality, hashes, reprs and errors.
"""

from __future__ import annotations

import dataclasses
import inspect
import reprlib
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform, overload

__all__ = ["record"]

T = TypeVar("T", bound=type)

_OWN_METHODS = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")


@overload
def record(cls: T, /) -> T: ...
@overload
def record(*, frozen: bool = True, kw_only: bool = False) -> Callable[[T], T]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: T | None = None, /, *, frozen: bool = True, kw_only: bool = False) -> T | Callable[[T], T]:
    """The class as a dataclass (`frozen` unless told otherwise, `eq`, `repr`, `init`), with its methods made
    in one `exec`. `@record` and `@record(frozen=False, kw_only=True)` are both allowed."""

    def wrap(cls: T) -> T:
        return _make(cls, frozen=frozen, kw_only=kw_only)

    return wrap if cls is None else wrap(cls)


def _make(cls: T, *, frozen: bool, kw_only: bool) -> T:
    # A body that defines __eq__ gets __hash__ = None from Python itself; only the __eq__ is the class's own doing.
    own = [name for name in _OWN_METHODS if name in cls.__dict__ and not (name == "__hash__" and cls.__dict__[name] is None)]
    if own:
        raise TypeError(f"{cls.__qualname__} defines {', '.join(own)}: make it a dataclasses.dataclass, which decides what to keep")
    documented = cls.__dict__.get("__doc__") is not None
    dataclasses.dataclass(cls, init=False, repr=False, eq=False, frozen=False, kw_only=kw_only)
    fields = dataclasses.fields(cls)
    _refuse_unsupported(cls, fields, frozen)
    init, eq, hash_ = _compile(cls, fields, frozen)
    methods: dict[str, Any] = {"__init__": init, "__repr__": _repr, "__eq__": eq, "__hash__": hash_ if frozen else None}
    if frozen:
        methods["__setattr__"], methods["__delattr__"] = _refusals(cls, frozenset(field.name for field in fields))
    for name, method in methods.items():
        if method is not None and method is not _repr:
            method.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)
    cls.__record_frozen__ = frozen  # type: ignore[attr-defined]
    if not documented:  # dataclasses' docstring for a class without one: its name and signature
        cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    return cls


def _refuse_unsupported(cls: type, fields: tuple[dataclasses.Field[Any], ...], frozen: bool) -> None:
    """A TypeError for what `record` doesn't make the way dataclasses would."""
    for base in cls.__mro__[1:]:
        if "__dataclass_fields__" in base.__dict__ and base.__dict__.get("__record_frozen__") != frozen:
            raise TypeError(f"{cls.__qualname__}: a record inherits only from records as frozen as it is ({base.__qualname__} is not)")
    seen_default = False
    for field in fields:
        if field.name == "self" or field.name.startswith("__record_"):
            raise TypeError(f"{cls.__qualname__}.{field.name}: a name record's methods use themselves; use dataclasses.dataclass")
        if not field.init:
            raise TypeError(f"{cls.__qualname__}.{field.name}: field(init=False) is not made by record; use dataclasses.dataclass")
        if field.kw_only:
            continue
        has_default = field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING
        if seen_default and not has_default:
            raise TypeError(f"non-default argument {field.name!r} follows default argument")
        seen_default = seen_default or has_default


def _compile(cls: type, fields: tuple[dataclasses.Field[Any], ...], frozen: bool) -> tuple[Any, Any, Any]:
    """`__init__`, `__eq__` and `__hash__` of `cls`, compiled from one source text, as dataclasses words them."""
    names: dict[str, Any] = {"__record_object__": object, "__record_factory__": _HAS_FACTORY}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    for field in fields:
        default = f"__record_default_{field.name}__"
        if field.default_factory is not dataclasses.MISSING:
            names[default] = field.default_factory
            parameter = f"{field.name}=__record_factory__"
            value = f"{default}() if {field.name} is __record_factory__ else {field.name}"
        else:
            if field.default is not dataclasses.MISSING:
                names[default] = field.default
            parameter = field.name if field.default is dataclasses.MISSING else f"{field.name}={default}"
            value = field.name
        (keyword if field.kw_only else positional).append(parameter)
        body.append(f"  __record_object__.__setattr__(self, {field.name!r}, {value})" if frozen else f"  self.{field.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("  self.__post_init__()")
    parameters = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    compared = [field.name for field in fields if field.compare]
    hashed = [field.name for field in fields if (field.compare if field.hash is None else field.hash)]
    source = "\n".join(
        [
            f"def __create_record__({', '.join(names)}):",
            f" def __init__({parameters}):",
            *(body or ["  pass"]),
            " def __eq__(self, other):",
            "  if other.__class__ is self.__class__:",
            f"   return {_tuple('self', compared)} == {_tuple('other', compared)}",
            "  return NotImplemented",
            " def __hash__(self):",
            f"  return hash({_tuple('self', hashed)})",
            " return __init__, __eq__, __hash__",
        ]
    )
    scope: dict[str, Any] = {}
    exec(source, {}, scope)  # noqa: S102 - the text is made above from the class's own field names
    init, eq, hash_ = scope["__create_record__"](*names.values())
    init.__annotations__ = {field.name: field.type for field in fields} | {"return": None}
    return init, eq, hash_


def _tuple(owner: str, names: list[str]) -> str:
    return "(" + "".join(f"{owner}.{name}," for name in names) + ")"


class _HasFactory:
    """The default of a parameter whose field has a default factory: the factory runs when it is left out."""

    def __repr__(self) -> str:
        return "<factory>"


_HAS_FACTORY = _HasFactory()


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(f"{field.name}={getattr(self, field.name)!r}" for field in dataclasses.fields(self) if field.repr)
    return f"{self.__class__.__qualname__}({shown})"


def _refusals(owner: type[Any], names: frozenset[str]) -> tuple[Callable[[Any, str, Any], None], Callable[[Any, str], None]]:
    """A frozen record's `__setattr__` and `__delattr__`: they refuse a field of `owner`, or any name on `owner` itself."""

    def assign(self: Any, name: str, value: Any) -> None:
        if type(self) is owner or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(owner, self).__setattr__(name, value)

    def delete(self: Any, name: str) -> None:
        if type(self) is owner or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(owner, self).__delattr__(name)

    return assign, delete
