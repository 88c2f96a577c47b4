"""The Go source reader finds what forces a new resource, the way the bridge does, on a provider tree shaped like the real one.

The fixture (`fixtures/provider`) is written for these tests: an SDKv2 resource
with nested blocks, a block from a package variable, a block from a helper
function, a key from a `names` constant and a schema from another package;
a CustomizeDiff that forces new on some changes and recomputes an attribute;
and a Plugin Framework resource with plan modifiers.
"""

from pathlib import Path

from railyard.change.terraform_source import CONDITIONAL, REPLACE, UPDATE, find_resources, read_resources

PROVIDER = Path(__file__).parent / "fixtures" / "provider"


def _read():
    return read_resources(PROVIDER, {"aws_demo_widget", "aws_demo_gadget"})


def test_resources_are_found_by_their_sdk_annotation_and_framework_type_name():
    found = find_resources(PROVIDER, {"aws_demo_widget", "aws_demo_gadget", "aws_demo_absent"})
    assert {name: path.name for name, path in found.items()} == {"aws_demo_widget": "widget.go", "aws_demo_gadget": "gadget.go"}


def test_force_new_marks_replacements_at_every_depth():
    widget = _read()["aws_demo_widget"]
    assert widget.attributes["kind"] == REPLACE
    assert widget.attributes["placement"] == UPDATE
    assert widget.attributes["placement.zone"] == REPLACE
    assert widget.attributes["label"] == UPDATE  # a regex with braces and quotes inside a literal does not derail the reader


def test_blocks_from_package_variables_helpers_and_other_packages_are_followed():
    widget = _read()["aws_demo_widget"]
    assert widget.attributes["rule"] == UPDATE and widget.attributes["rule.port"] == UPDATE
    assert widget.attributes["limits"] == REPLACE and widget.attributes["limits.max"] == UPDATE
    assert widget.attributes["tags"] == UPDATE  # names.AttrTags: tftags.TagsSchema()
    assert widget.unresolved == []


def test_customize_diff_force_new_is_conditional_and_computed_if_is_recomputed():
    widget = _read()["aws_demo_widget"]
    assert widget.attributes["size"] == CONDITIONAL
    assert widget.attributes["placement.weight"] == CONDITIONAL  # list indexes dropped from the path
    assert widget.recomputed == ["template_version"]


def test_framework_plan_modifiers_and_nested_blocks():
    gadget = _read()["aws_demo_gadget"]
    assert gadget.attributes["owner"] == REPLACE
    assert gadget.attributes["colour"] == UPDATE
    assert gadget.attributes["region_hint"] == CONDITIONAL
    assert gadget.attributes["timeouts.create"] == UPDATE


def test_what_cannot_be_resolved_is_reported_not_guessed():
    gadget = _read()["aws_demo_gadget"]
    assert "tags" not in gadget.attributes
    assert gadget.unresolved == ["tags"]  # tftags.TagsAttribute is not in the fixture's tags package
