"""The Go source reader finds what forces a new resource, the way the bridge does, on a provider tree shaped like the real one.

The fixture (`fixtures/provider`) is written for these tests: an SDKv2 resource
with nested blocks, a block from a package variable, a block from a helper
function, a key from a `names` constant and a schema from another package;
a CustomizeDiff that forces new on some changes and recomputes an attribute;
and a Plugin Framework resource with plan modifiers. The `newer` package has
the shapes of 2025 provider files: an inline SchemaFunc, `names.Attr*` keys
generated from `names/attr_constants.csv`, helpers held by `sync.OnceValue`
variables, a framework resource named only by its annotation, a ModifyPlan
that asks for replacement itself, and a resource whose struct only embeds
another's (the egress security group rule on the ingress rule's schema).
"""

from pathlib import Path

from railyard.change.terraform_source import CONDITIONAL, REPLACE, UPDATE, find_resources, read_resources, resource_names

PROVIDER = Path(__file__).parent / "fixtures" / "provider"


def _read():
    return read_resources(PROVIDER, {"aws_demo_widget", "aws_demo_gadget", "aws_newer_sprocket", "aws_newer_cog"})


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


def test_a_framework_resource_is_found_by_its_annotation_alone():
    assert resource_names(PROVIDER) == {"aws_demo_widget", "aws_demo_gadget", "aws_newer_sprocket", "aws_newer_cog", "aws_newer_cog_twin"}
    assert find_resources(PROVIDER, {"aws_newer_cog"})["aws_newer_cog"].name == "cog.go"


def test_an_inline_schema_func_and_keys_from_the_generated_names_table_are_read():
    sprocket = _read()["aws_newer_sprocket"]
    # names.AttrCIDRBlock and names.AttrSubnetIDs are declared only by attr_constants.csv rows.
    assert set(sprocket.attributes) == {"cidr_block", "subnet_ids", "policy", "teeth", "tags"}
    assert sprocket.attributes["teeth"] == REPLACE


def test_helpers_behind_once_value_variables_are_followed_across_packages():
    sprocket = _read()["aws_newer_sprocket"]
    assert sprocket.attributes["tags"] == REPLACE  # tftags.TagsSchemaForceNew: sync.OnceValue(func() ... { return &schema.Schema{ForceNew: true} })
    assert sprocket.attributes["policy"] == UPDATE  # sdkv2: sync.OnceValue(helperFunc(x)), whose result returns the literal


def test_customize_diff_calls_that_name_attributes_by_constant_are_resolved():
    sprocket = _read()["aws_newer_sprocket"]
    assert sprocket.attributes["cidr_block"] == CONDITIONAL  # diff.ForceNew(names.AttrCIDRBlock)
    assert sprocket.recomputed == ["subnet_ids"]  # customdiff.ComputedIf(names.AttrSubnetIDs, ...)


def test_a_key_constant_nothing_declares_is_reported_not_dropped():
    assert _read()["aws_newer_sprocket"].unresolved == ["names.AttrNowhere"]


def test_a_framework_modify_plan_replaces_a_named_attribute_and_reports_computed_paths():
    cog = _read()["aws_newer_cog"]
    assert cog.attributes == {"id": UPDATE, "source_kind": UPDATE, "source_id": UPDATE, "mesh": CONDITIONAL}
    assert cog.unresolved == ["ModifyPlan: []path.Path{path.Root(old.sourceName()), path.Root(new.sourceName())}"]


def test_a_framework_resource_that_embeds_another_takes_its_schema_and_modify_plan():
    twin, cog = (read_resources(PROVIDER, {"aws_newer_cog_twin", "aws_newer_cog"})[name] for name in ("aws_newer_cog_twin", "aws_newer_cog"))
    assert twin.attributes == cog.attributes and twin.unresolved == cog.unresolved
    assert twin.file.endswith("cog_twin.go")


def test_attributes_both_optional_and_computed_are_recorded_inline_and_behind_helpers():
    schemas = _read()
    assert schemas["aws_demo_widget"].optional_computed == ["image_type"]  # template_version is computed only
    assert sorted(schemas["aws_newer_sprocket"].optional_computed) == ["cidr_block", "policy"]  # policy: a sync.OnceValue helper
