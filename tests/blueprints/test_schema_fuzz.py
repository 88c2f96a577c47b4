"""Blueprints generated from the published JSON Schema: the schema and the loader agree, and nothing crashes.

`railyard schema` is what editors validate against. Every document the schema
accepts must get past the loader's schema stage (no `schema.*` finding: what
the models refuse, the schema must refuse too), and `railyard validate` must
end in exit 0 or 1 with findings, never a traceback (a hang fails through pytest-timeout).
The documents come from `schema_strategy.from_schema` (Hypothesis, three fixed seeds).
"""

from __future__ import annotations

import contextlib
import functools
import io
import json

import jsonschema
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from blueprints.loader import load_text
from railyard.cli import main
from tests.blueprints.schema_strategy import from_schema
from tests.blueprints.test_fuzz import dump, validate_text
from tests.properties import examples


@functools.cache
def published_schema() -> dict:
    """`railyard schema`'s document, made on first use (not while the suite's workers collect the tests)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["schema"]) == 0
    return json.loads(out.getvalue())


@functools.cache
def _validator() -> jsonschema.protocols.Validator:
    # Without checking the schema against its metaschema, which `jsonschema.validate` would do for every example
    # (most of its cost); that check is a test of its own below.
    schema = published_schema()
    return jsonschema.validators.validator_for(schema)(schema)


def test_the_published_schema_is_a_valid_json_schema():
    schema = published_schema()
    jsonschema.validators.validator_for(schema).check_schema(schema)


def _passes_the_schema_stage_and_validates(document: dict) -> None:
    _validator().validate(document)  # the generator keeps to the schema
    text = dump(document)
    refused = [
        (finding.code, finding.path_text, finding.message) for finding in load_text(text, "b.yaml").findings if finding.code.startswith("schema.")
    ]
    assert refused == []
    status, stderr = validate_text(text)
    assert status in (0, 1), stderr


# 300 documents in three shards of 100, each with its own fixed seed (so each draws its own documents, the same on every
# run): one 300-document run was the suite's longest single test (25 s), which two workers can't share.
SHARDS = 3


def _shard(number: int):
    @seed(number)
    @settings(max_examples=examples(300 // SHARDS), deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(document=st.deferred(lambda: from_schema(published_schema())))
    def property_shard(document):
        _passes_the_schema_stage_and_validates(document)

    return property_shard


test_a_document_the_schema_accepts_passes_the_schema_stage_and_validates_without_a_traceback_shard_0 = _shard(0)
test_a_document_the_schema_accepts_passes_the_schema_stage_and_validates_without_a_traceback_shard_1 = _shard(1)
test_a_document_the_schema_accepts_passes_the_schema_stage_and_validates_without_a_traceback_shard_2 = _shard(2)


def test_the_generator_refuses_a_keyword_it_does_not_know():
    with pytest.raises(NotImplementedError, match="uniqueItems"):
        from_schema({"type": "array", "uniqueItems": True})
