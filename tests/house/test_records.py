"""`record` makes the class `dataclasses.dataclass` makes from the same body, and the house uses it for every value class.

The property builds one class body twice, once through `record` and once through `dataclasses.dataclass`
(frozen or not, kw_only or not, fields with defaults, default factories and `repr`/`compare`/`hash` flags,
`__post_init__`, fields inherited from a base), and requires the two to agree on everything a caller can
see: the signature and docstring, what construction accepts and refuses (with the same message), repr,
equality and hashes, what assignment and deletion do, `dataclasses.fields`, `replace` and `asdict`.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blueprints.records import record
from tests.properties import examples

ROOT = Path(__file__).resolve().parents[2]

# One field: its name, default ("none", "value" or "factory"), repr, compare, hash, kw_only.
FIELD = st.tuples(st.sampled_from(["none", "value", "factory"]), st.booleans(), st.booleans(), st.sampled_from([None, True, False]), st.booleans())
SPEC = st.fixed_dictionaries(
    {
        "fields": st.lists(FIELD, max_size=5),
        "base_fields": st.lists(FIELD, max_size=2),
        "frozen": st.booleans(),
        "kw_only": st.booleans(),
        "post_init": st.booleans(),
        "documented": st.booleans(),
    }
)


def _namespace(fields: list[tuple[Any, ...]], prefix: str, documented: bool, post_init: bool) -> dict[str, Any]:
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {"__annotations__": annotations, "__module__": __name__, "__qualname__": "Shape"}
    if documented:
        namespace["__doc__"] = "A shape."
    for index, (default, shown, compared, hashed, kw_only) in enumerate(fields):
        name = f"{prefix}{index}"
        annotations[name] = list if default == "factory" else int
        arguments: dict[str, Any] = {"repr": shown, "compare": compared, "hash": hashed, "kw_only": kw_only}
        if default == "value":
            arguments["default"] = index
        elif default == "factory":
            arguments["default_factory"] = list
        namespace[name] = dataclasses.field(**arguments)
    if post_init:

        def __post_init__(self: Any) -> None:
            calls = self.__dict__.setdefault("_calls", [])
            calls.append(1)

        namespace["__post_init__"] = __post_init__
    return namespace


def _build(spec: dict[str, Any], decorate: Any) -> type | str:
    """The class `decorate` makes of the spec (a base with `base_fields`, then the class), or the TypeError it raised."""
    try:
        bases: tuple[type, ...] = ()
        if spec["base_fields"]:
            base_namespace = _namespace(spec["base_fields"], "b", True, False)
            base_namespace["__qualname__"] = "Base"
            bases = (decorate(type("Base", (), base_namespace), spec),)
        namespace = _namespace(spec["fields"], "f", spec["documented"], spec["post_init"])
        return decorate(type("Shape", bases, namespace), spec)
    except TypeError as refused:
        return f"TypeError: {refused}"


def _as_record(cls: type, spec: dict[str, Any]) -> type:
    return record(frozen=spec["frozen"], kw_only=spec["kw_only"])(cls)


def _as_dataclass(cls: type, spec: dict[str, Any]) -> type:
    return dataclasses.dataclass(frozen=spec["frozen"], kw_only=spec["kw_only"])(cls)


def _outcome(action: Any, *arguments: Any) -> tuple[str, Any]:
    """("ok", what `action(*arguments)` returned, an instance by its fields) or (the exception's type, its message)."""
    try:
        done = action(*arguments)
    except (TypeError, AttributeError, dataclasses.FrozenInstanceError) as refused:
        return type(refused).__name__, str(refused)
    return "ok", done.__dict__ if dataclasses.is_dataclass(done) else done


def _arguments(cls: type, omit_defaults: bool) -> tuple[list[Any], dict[str, Any]]:
    positional, keyword = [], {}
    for number, field in enumerate(dataclasses.fields(cls)):
        has_default = field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING
        if omit_defaults and has_default:
            continue
        value: Any = [number] if field.type in (list, "list") else number * 7
        if field.kw_only:
            keyword[field.name] = value
        else:
            positional.append(value)
    return positional, keyword


@settings(max_examples=examples(300), deadline=None, derandomize=True)
@given(spec=SPEC)
def test_a_record_is_the_dataclass_of_the_same_body(spec):
    made, reference = _build(spec, _as_record), _build(spec, _as_dataclass)
    if isinstance(reference, str) or isinstance(made, str):
        assert made == reference  # both refuse the body, with the same message
        return
    assert str(inspect.signature(made)) == str(inspect.signature(reference))
    assert made.__doc__ == reference.__doc__ and made.__match_args__ == reference.__match_args__
    assert [field.name for field in dataclasses.fields(made)] == [field.name for field in dataclasses.fields(reference)]
    assert (made.__hash__ is None) == (reference.__hash__ is None)
    for omit_defaults in (False, True):
        positional, keyword = _arguments(reference, omit_defaults)
        ours, theirs = made(*positional, **keyword), reference(*positional, **keyword)
        assert repr(ours).replace("Shape", "X") == repr(theirs).replace("Shape", "X")
        assert ours.__dict__ == theirs.__dict__  # the same fields set, and __post_init__ run as often
        assert dataclasses.asdict(ours) == dataclasses.asdict(theirs)
        twin = made(*positional, **keyword)
        assert (ours == twin) is (theirs == reference(*positional, **keyword))
        # One field changed at a time: equal, and hashed alike, exactly when that field takes no part.
        for field in dataclasses.fields(reference):
            changed = {field.name: [-1] if field.type in (list, "list") else -1}
            ours_changed, theirs_changed = dataclasses.replace(ours, **changed), dataclasses.replace(theirs, **changed)
            assert (ours == ours_changed) is (theirs == theirs_changed)
            assert (_outcome(hash, ours) == _outcome(hash, ours_changed)) is (_outcome(hash, theirs) == _outcome(hash, theirs_changed))
        assert _outcome(hash, ours) == _outcome(hash, theirs) == _outcome(hash, twin)  # unhashable alike
        for name in ("f0", "b0", "elsewhere"):
            assert _outcome(setattr, ours, name, 1) == _outcome(setattr, theirs, name, 1)
            assert _outcome(delattr, ours, name) == _outcome(delattr, theirs, name)
        assert _outcome(dataclasses.replace, ours) == _outcome(dataclasses.replace, theirs)
    # Too few and too many arguments are refused alike.
    assert _outcome(made, *range(9)) == _outcome(reference, *range(9))
    assert _outcome(made) == _outcome(reference)


def test_a_default_factory_gives_each_instance_its_own_value():
    @record
    class Holder:
        """Holds a list."""

        items: list[int] = dataclasses.field(default_factory=list)

    first, second = Holder(), Holder()
    assert first.items == [] and first.items is not second.items


@pytest.mark.parametrize(
    "body, says",
    [
        ("def __eq__(self, other): return True", "Odd defines __eq__: make it a dataclasses.dataclass"),
        ("a: int = dataclasses.field(init=False, default=0)", "Odd.a: field(init=False) is not made by record"),
        ("self: int = 0", "Odd.self: a name record's methods use themselves"),
    ],
)
def test_what_record_does_not_make_is_refused_when_the_class_is_defined(body, says):
    namespace: dict[str, Any] = {}
    exec(f"class Odd:\n    '''Odd.'''\n    {body}\n", {"dataclasses": dataclasses}, namespace)
    with pytest.raises(TypeError, match=re.escape(says)):
        record(namespace["Odd"])


def test_a_record_does_not_inherit_from_a_dataclass_record_did_not_make():
    @dataclasses.dataclass
    class Plain:
        """A plain dataclass."""

        a: int

    with pytest.raises(TypeError, match=r"Derived: a record inherits only from records as frozen as it is \(.*Plain is not\)"):

        @record(frozen=False)
        class Derived(Plain):
            """Derived."""

            b: int = 0


def _decorators(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if name == "dataclass":
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    return found


def test_the_stages_make_their_value_classes_with_record():
    # One way to make a value class in the stages `railyard` imports on its way to a plan (the policy pack and the node
    # checker, acceptance/, stand apart, with no import of ours, and keep dataclasses).
    found = [
        place
        for package in ("blueprints", "topology", "components", "railyard")
        for path in (ROOT / package).rglob("*.py")
        for place in _decorators(path)
    ]
    assert found == []
