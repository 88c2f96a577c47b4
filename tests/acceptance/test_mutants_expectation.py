"""The expectation document's errors (acceptance/expectation.py), each message exactly, where mutation testing found
them unheld: not an object, an unknown field, the required strings, each declared type (a bool where a count belongs,
an int where a float is allowed), null where it does and does not fit, an unknown level or accelerator kind, text
that is not JSON, and the round trip through `as_dict`."""

from __future__ import annotations

import dataclasses

import pytest

from acceptance.expectation import LEVELS, Expectation, ExpectationError
from tests.acceptance.evidence import P5

BASE = {"pool": "train", "instance_type": "p5.48xlarge"}


def _error(document) -> str:
    with pytest.raises(ExpectationError) as caught:
        Expectation.from_dict(document)
    return str(caught.value)


def test_a_document_that_is_not_an_object_is_refused_naming_its_type():
    assert _error([1]) == "an expectation is a JSON object, not list"


def test_an_unknown_field_is_refused_listing_the_allowed_ones():
    allowed = sorted(f.name for f in dataclasses.fields(Expectation))
    assert _error({**BASE, "gpus": 8, "zz": 1}) == f"unknown field(s) ['gpus', 'zz']; allowed: {allowed}"


@pytest.mark.parametrize(("name", "value"), [("pool", None), ("instance_type", 5)])
def test_the_pool_and_instance_type_are_required_strings(name, value):
    document = {**BASE, name: value}
    assert _error(document) == f"{name!r} is required and must be a string, got {value!r}"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("accelerator_count", True, "'accelerator_count' must be int, got True"),
        ("accelerator_count", 8.0, "'accelerator_count' must be int, got 8.0"),
        ("ecc", 1, "'ecc' must be bool, got 1"),
        ("power_limit_w", "700", "'power_limit_w' must be int or float, got '700'"),
        ("power_limit_w", False, "'power_limit_w' must be int or float, got False"),
        ("sources", ["catalog"], "'sources' must be dict, got ['catalog']"),
        ("accelerator_model", 100, "'accelerator_model' must be str, got 100"),
        ("level", None, "'level' can't be null"),
    ],
)
def test_each_declared_type_is_held_and_a_bool_is_no_count(field, value, message):
    assert _error({**BASE, field: value}) == message


def test_null_fits_every_optional_field_and_an_int_fits_a_float():
    expectation = Expectation.from_dict({**BASE, "accelerator_count": None, "power_limit_w": 700, "ecc": True, "sources": {"ecc": "catalog"}})
    assert (expectation.accelerator_count, expectation.power_limit_w, expectation.ecc, expectation.level) == (None, 700, True, "standard")


def test_an_unknown_level_or_accelerator_kind_is_refused_listing_the_allowed_values():
    assert _error({**BASE, "level": "thorough"}) == f"level 'thorough' is not one of {list(LEVELS)}"
    assert _error({**BASE, "accelerator_kind": "tpu"}) == "accelerator_kind 'tpu' is not one of 'gpu', 'neuron' or null"


@pytest.mark.parametrize(("level", "dcgm"), [("inventory", None), ("quick", 1), ("standard", 2), ("long", 3), ("exhaustive", 4)])
def test_each_level_runs_its_dcgm_diagnostic(level, dcgm):
    assert Expectation.from_dict({**BASE, "level": level}).dcgm_level == dcgm


def test_text_that_is_not_json_is_refused_with_the_parsers_words_and_place():
    with pytest.raises(ExpectationError) as caught:
        Expectation.from_json('{"pool": "train",\n  oops}')
    assert str(caught.value) == "not JSON: Expecting property name enclosed in double quotes at line 2 column 3"


def test_an_expectation_survives_its_own_json_object_every_field_present():
    document = P5.as_dict()
    assert set(document) == {f.name for f in dataclasses.fields(Expectation)}
    assert Expectation.from_dict(document) == P5


@pytest.mark.parametrize("kind", ["gpu", "neuron", None])
def test_each_accelerator_kind_and_none_is_taken(kind):
    assert Expectation.from_dict({**BASE, "accelerator_kind": kind}).accelerator_kind == kind
