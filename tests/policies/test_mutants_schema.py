"""The policy pack's Cerberus layer (policies/schema.py) piece by piece, on plain props built here: what is copied out
of the props (only the fields a schema names, nested dicts and lists followed), each kind of Cerberus error as its
phrase (the path, the value, what is allowed, with six values shown at most), `absent` and `any_item` (an item with
more keys than its schema names still counts), the validator built once per schema and thread, and `matches`."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from cerberus import errors as cerberus_errors

from policies import schema
from policies.schema import RailyardValidator, Sentences, dotted, matches, plain, problems, project, validator_for


@pytest.fixture(autouse=True)
def fresh_validators(monkeypatch):
    """Each test builds its own validators: none is left cached by an earlier test."""
    monkeypatch.setattr(schema, "_PER_THREAD", threading.local())


class Props(Mapping[str, Any]):
    """A read-only mapping, as the engine's proxied props are: not a dict."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)


def test_plain_copies_mappings_and_sequences_into_dicts_and_lists_and_keeps_strings_and_bytes():
    copied = plain(Props({"a": ("x", Props({"b": 1.0})), "s": "text", "raw": b"\x00"}))
    assert copied == {"a": ["x", {"b": 1.0}], "s": "text", "raw": b"\x00"}
    assert type(copied) is dict and type(copied["a"]) is list and type(copied["a"][1]) is dict


def test_projection_follows_nested_dicts_and_each_item_of_a_list_and_copies_the_rest_whole():
    rules = {
        "spec": {"type": "dict", "schema": {"size": {"max": 8}}},
        "items": {"type": "list", "schema": {"type": "dict", "schema": {"kind": {"allowed": ["a"]}}}},
        "names": {"type": "list", "schema": {"type": "string"}},
        "tags": {"type": "dict"},
        "odd": {"type": "dict", "schema": {"x": {}}},
    }
    props = Props(
        {
            "spec": Props({"size": 9.0, "other": "dropped"}),
            "items": (Props({"kind": "b", "extra": 1}), Props({"kind": "a"})),
            "names": ("n1", "n2"),
            "tags": Props({"team": "ml", "cost": "1"}),
            "odd": "a string where a dict is expected",
            "unnamed": "dropped",
        }
    )
    assert project(props, rules) == {
        "spec": {"size": 9.0},
        "items": [{"kind": "b"}, {"kind": "a"}],
        "names": ["n1", "n2"],
        "tags": {"team": "ml", "cost": "1"},
        "odd": "a string where a dict is expected",
    }


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ((), "<resource>"),
        (("spec",), "spec"),
        ((0, "name"), "[0].name"),
        (("spec", "template", "metadata"), "spec.template.metadata"),
        (("labels", "node.kubernetes.io/instance-type"), "labels['node.kubernetes.io/instance-type']"),
        (("labels", "v1.2"), "labels['v1.2']"),
        (("tags", "a/b", "c"), "tags['a/b'].c"),
        (("headers", "X-Forwarded-For"), "headers.X-Forwarded-For"),
    ],
)
def test_paths_read_like_the_props_at_every_step(path, text):
    assert dotted(path) == text


@pytest.mark.parametrize(
    ("rules", "props", "phrase"),
    [
        ({"a": {"required": True}}, {}, "a is not set"),
        ({"a": {"allowed": ["x", "y"]}}, {"a": "z"}, "a is 'z'; allowed: 'x', 'y'"),
        ({"a": {"allowed": []}}, {"a": "z"}, "a is 'z'; allowed: none"),
        ({"a": {"type": "list", "allowed": list("pqrstu")}}, {"a": ["z", "w"]}, "a has 'z', 'w'; allowed: 'p', 'q', 'r', 's', 't', 'u'"),
        ({"a": {"type": "list", "allowed": list("pqrstuv")}}, {"a": ["z"]}, "a has 'z'; allowed: 'p', 'q', 'r', 's', 't', 'u', ... (7 in all)"),
        ({"a": {"type": "list", "forbidden": ["x", "y"]}}, {"a": ["y", "x", "k"]}, "a includes 'x', 'y', which is not allowed"),
        ({"a": {"forbidden": ["x"]}}, {"a": "x"}, "a is 'x', which is not allowed"),
        ({"a": {"contains": ["y", "x"]}}, {"a": ["z"]}, "a is ['z'] and lacks 'x', 'y'"),
        # Sorted as text, so values of any type can be listed: 10 before 9, an int beside a string.
        ({"a": {"contains": [9, 10, "x"]}}, {"a": [1]}, "a is [1] and lacks 10, 9, 'x'"),
        ({"a": {"empty": False}}, {"a": ""}, "a is empty"),
        ({"a": {"min": 2}}, {"a": 1.0}, "a is 1; minimum 2"),
        ({"a": {"max": 2.0}}, {"a": 2.5}, "a is 2.5; maximum 2"),
        ({"a": {"min": 2.5}}, {"a": 1.5}, "a is 1.5; minimum 2.5"),
        ({"a": {"minlength": 2}}, {"a": ["x"]}, "a has 1 item(s); minimum 2"),
        ({"a": {"maxlength": 1}}, {"a": ["x", "y"]}, "a has 2 item(s); maximum 1"),
        ({"a": {"type": "string"}}, {"a": 3.0}, "a is 3, not of type string"),
        ({"a": {"absent": True}}, {"a": 2.0}, "a is set (2) and must not be"),
        ({"a": {"type": "list", "any_item": {"k": {"allowed": ["v"]}}}}, {"a": [{"k": "w"}]}, "a has no item of the required form"),
        ({"a": {"regex": "^x"}}, {"a": "y"}, "a: value does not match regex '^x'"),
        ({"a": {"nullable": False}}, {"a": None}, "a: null value not allowed"),
        ({"a": {"excludes": "b"}, "b": {}}, {"a": 1, "b": 2}, "a: 'b' must not be present with 'a'"),
    ],
)
def test_each_kind_of_error_is_one_phrase_with_the_path_the_value_and_the_constraint(rules, props, phrase):
    assert problems(props, rules) == [phrase]


def test_phrases_come_in_path_order_and_a_nested_errors_leaves_are_each_one_phrase():
    rules = {
        "z": {"allowed": ["ok"]},
        "spec": {"type": "dict", "schema": {"b": {"required": True}, "a": {"max": 1}}},
        "a": {"min": 5},
    }
    assert problems({"z": "bad", "spec": {"a": 2.0}, "a": 1.0}, rules) == [
        "a is 1; minimum 5",
        "spec.a is 2; maximum 1",
        "spec.b is not set",
        "z is 'bad'; allowed: 'ok'",
    ]


def test_a_default_in_a_schema_never_stands_in_for_a_missing_field():
    assert problems({}, {"a": {"required": True, "default": "x"}}) == ["a is not set"]
    item = {"key": {"required": True, "default": "karpenter.sh/capacity-type"}}
    assert problems({"requirements": [{}]}, {"requirements": {"type": "list", "any_item": item}}) == ["requirements has no item of the required form"]


def test_absent_false_allows_the_field_and_a_sound_document_has_no_problem():
    assert problems({"a": "set"}, {"a": {"absent": False}}) == []
    assert problems({"a": "x"}, {"a": {"allowed": ["x"]}}) == []


SPOT = {"key": {"required": True, "allowed": ["karpenter.sh/capacity-type"]}, "values": {"type": "list", "contains": "spot"}}


@pytest.mark.parametrize(
    ("requirements", "found"),
    [
        # Karpenter's requirements carry `operator` too, which the item schema doesn't name: the item still counts.
        ([{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]}], []),
        (["not a mapping", {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}], []),
        ([{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}], ["requirements has no item of the required form"]),
        (["karpenter.sh/capacity-type"], ["requirements has no item of the required form"]),
        ([], ["requirements has no item of the required form"]),
    ],
)
def test_any_item_needs_one_mapping_item_obeying_its_schema(requirements, found):
    assert problems({"requirements": requirements}, {"requirements": {"type": "list", "any_item": SPOT}}) == found


@pytest.mark.parametrize("value", ["spot", 3.0, {"key": "karpenter.sh/capacity-type"}])
def test_any_item_of_something_not_a_list_has_no_item(value):
    assert problems({"requirements": value}, {"requirements": {"any_item": SPOT}}) == ["requirements has no item of the required form"]


def test_matches_is_whether_the_props_obey_the_schema():
    rules = {"capacityType": {"required": True, "allowed": ["SPOT"]}}
    assert (matches({"capacityType": "SPOT"}, rules), matches({"capacityType": "ON_DEMAND"}, rules), matches({}, rules)) == (True, False, False)


def test_a_validator_is_built_once_per_schema_and_thread_and_ignores_fields_its_schema_does_not_name():
    rules = {"a": {"allowed": ["x"]}}
    built = validator_for(rules)
    assert validator_for({"a": {"allowed": ["x"]}}) is built
    assert validator_for({"a": {"allowed": ["y"]}}) is not built
    both = {"a": {"allowed": ["x"]}, "b": {"max": 1}}
    assert validator_for({"b": {"max": 1}, "a": {"allowed": ["x"]}}) is validator_for(both)
    assert built.validate({"a": "x", "unnamed": 1}, normalize=False)
    others: list[RailyardValidator] = []
    thread = threading.Thread(target=lambda: others.append(validator_for(rules)))
    thread.start()
    thread.join()
    assert others[0] is not built and others[0].schema == built.schema


def test_the_validator_speaks_in_phrases_unless_given_another_error_handler():
    assert isinstance(RailyardValidator({}).error_handler, Sentences)
    mine = RailyardValidator({"a": {"max": 1}}, error_handler=cerberus_errors.BasicErrorHandler)
    assert not mine.validate({"a": 2})
    assert mine.errors == {"a": ["max value is 1"]}
