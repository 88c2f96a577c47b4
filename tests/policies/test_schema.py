"""Cerberus over engine props: only named fields are read, and errors read as phrases with values."""

from __future__ import annotations

import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from policies.runner import engine_props
from policies.schema import dotted, problems, project

SCHEMA = {
    "metadataOptions": {"type": "dict", "required": True, "schema": {"httpTokens": {"allowed": ["required"]}}},
    "networkInterfaces": {"type": "list", "schema": {"type": "dict", "schema": {"interfaceType": {"forbidden": ["efa"]}}}},
    "placement": {"type": "dict", "schema": {"groupName": {"absent": True}}},
    "instanceTypes": {"type": "list", "allowed": ["p5.48xlarge"]},
    "scalingConfig": {"type": "dict", "schema": {"maxSize": {"max": 8}}},
}


def test_projection_reads_only_the_fields_the_schema_names():
    props = engine_props({"metadataOptions": {"httpTokens": "required", "other": UNKNOWN_STRING_VALUE}, "userData": UNKNOWN_STRING_VALUE})
    assert project(props, SCHEMA) == {"metadataOptions": {"httpTokens": "required"}}


def test_projection_raises_on_an_unknown_named_field():
    props = engine_props({"metadataOptions": {"httpTokens": UNKNOWN_STRING_VALUE}})
    with pytest.raises(UnknownValueError) as raised:
        project(props, SCHEMA)
    assert raised.value.message == "string value at .metadataOptions.httpTokens can't be known during preview"


def test_every_broken_field_is_one_phrase_with_its_path_and_value():
    props = engine_props(
        {
            "metadataOptions": {"httpTokens": "optional"},
            "networkInterfaces": [{"interfaceType": "interface"}, {"interfaceType": "efa"}],
            "placement": {"groupName": "pg-1"},
            "instanceTypes": ["p5.48xlarge", "p4d.24xlarge"],
            "scalingConfig": {"maxSize": 16},
        }
    )
    assert problems(props, SCHEMA) == [
        "instanceTypes has 'p4d.24xlarge'; allowed: 'p5.48xlarge'",
        "metadataOptions.httpTokens is 'optional'; allowed: 'required'",
        "networkInterfaces[1].interfaceType is 'efa', which is not allowed",
        "placement.groupName is set ('pg-1') and must not be",
        "scalingConfig.maxSize is 16; maximum 8",
    ]


def test_a_missing_required_field_is_reported_and_a_sound_document_passes():
    assert problems(engine_props({}), SCHEMA) == ["metadataOptions is not set"]
    assert problems(engine_props({"metadataOptions": {"httpTokens": "required"}}), SCHEMA) == []


@pytest.mark.parametrize(
    "path, text",
    [
        (("networkInterfaces", 3, "securityGroups"), "networkInterfaces[3].securityGroups"),
        (("labels", "railyard.dev/role"), "labels['railyard.dev/role']"),
        (("tags", "cost-center"), "tags.cost-center"),
    ],
)
def test_paths_read_like_the_props(path, text):
    assert dotted(path) == text
