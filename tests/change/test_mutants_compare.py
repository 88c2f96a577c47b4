"""railyard/change/compare.py on built records: which inputs differ, what each does, and how replacements and recomputed
outputs travel along dependencies. No preview runs; every resource here is written out, so each assertion names the
exact path, effect, rule, cause and action the comparison must give."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest

from railyard.change.compare import (
    InputChange,
    ResourceChange,
    changed_inputs,
    compare,
    match_key,
)
from railyard.change.replace_table import Effect, ReplaceTable, ResourceRules
from railyard.mocked import PreviewResource

VPC = "t:net/vpc:Vpc"
TEMPLATE = "t:compute/template:Template"
GROUP = "t:compute/group:Group"
LOOSE = "t:other/thing:Thing"  # in no table


def _rules(token: str, inputs: dict, recomputed: tuple[str, ...] = (), optional_computed: frozenset[str] | None = None) -> ResourceRules:
    return ResourceRules(token, token, MappingProxyType(inputs), recomputed, "unknown", optional_computed)


TABLE = ReplaceTable(
    MappingProxyType({"aws": MappingProxyType({"described": "the test's table"}), "k8s": MappingProxyType({})}),
    MappingProxyType(
        {
            VPC: _rules(VPC, {"cidr": "replace", "tags": "update"}),
            TEMPLATE: _rules(TEMPLATE, {"description": "update", "vpcId": "replace", "mode": "conditional"}, ("latestVersion", "arn")),
            GROUP: _rules(
                GROUP,
                {"launchTemplate.id": "replace", "launchTemplate.version": "update", "vpcId": "replace", "size": "update", "note": "update"},
                optional_computed=frozenset({"amiType"}),
            ),
        }
    ),
)


def _res(name: str, token: str, inputs: dict, *, stack: str = "dev", deps: dict | None = None, outputs: dict | None = None) -> PreviewResource:
    return PreviewResource(f"urn:pulumi:{stack}::proj::{token}::{name}", token, name, "", inputs, f"id-{name}", (), deps or {}, outputs=outputs or {})


def _changed(resource: PreviewResource, **inputs) -> PreviewResource:
    return replace(resource, inputs={**resource.inputs, **inputs})


# --- the --json entries --------------------------------------------------------------------------------------------


def test_an_own_input_change_shows_its_values_and_no_via_and_more_only_when_some():
    own = InputChange("size", 1, 2, Effect("update", "size"))
    assert own.as_json() == {"path": "size", "effect": "update", "rule": "size", "old": 1, "new": 2}
    several = InputChange("rules.port", 1, 9, Effect("replace", "rules"), more=2)
    assert several.as_json() == {"path": "rules.port", "effect": "replace", "rule": "rules", "old": 1, "new": 9, "more": 2}


def test_a_flowed_change_shows_where_it_came_from_instead_of_values():
    flowed = InputChange("vpcId", None, None, Effect("replace", "vpcId"), "urn:a", "replace")
    assert flowed.as_json() == {"path": "vpcId", "effect": "replace", "rule": "vpcId", "via": "urn:a", "cause": "replace"}


def test_a_resource_change_entry_lists_its_inputs_entries():
    change = ResourceChange("urn:x", GROUP, "x", "update", None, None, [InputChange("size", 1, 2, Effect("update", "size"))])
    assert change.as_json() == {
        "urn": "urn:x",
        "type": GROUP,
        "name": "x",
        "action": "update",
        "inputs": [{"path": "size", "effect": "update", "rule": "size", "old": 1, "new": 2}],
    }


# --- changed_inputs --------------------------------------------------------------------------------------------------


def test_nested_keys_are_joined_by_dots_and_a_key_on_one_side_only_is_a_change_from_or_to_none():
    old = {"a": {"b": 1, "gone": "x"}, "top": 1}
    new = {"a": {"b": 2, "added": "y"}, "top": 1}
    assert changed_inputs(old, new) == {"a.added": (None, "y", 0), "a.b": (1, 2, 0), "a.gone": ("x", None, 0)}


def test_three_changed_items_under_one_path_keep_the_first_pair_and_count_two_more():
    old = {"rules": [{"port": 1}, {"port": 2}, {"port": 3}]}
    new = {"rules": [{"port": 7}, {"port": 8}, {"port": 9}]}
    assert changed_inputs(old, new) == {"rules.port": (1, 7, 2)}


def test_a_list_mixing_maps_and_plain_values_is_compared_whole():
    old, new = {"items": [{"a": 1}, "x"]}, {"items": [{"a": 2}, "x"]}
    assert changed_inputs(old, new) == {"items": ([{"a": 1}, "x"], [{"a": 2}, "x"], 0)}
    # Only the new side's items are maps: still one value.
    assert changed_inputs({"items": ["x"]}, {"items": [{"a": 1}]}) == {"items": (["x"], [{"a": 1}], 0)}


def test_a_map_on_one_side_and_a_plain_value_on_the_other_is_one_change():
    assert changed_inputs({"a": {"b": 1}}, {"a": 5}) == {"a": ({"b": 1}, 5, 0)}


# --- match_key -------------------------------------------------------------------------------------------------------


def test_a_urn_matches_across_stacks_and_a_kubernetes_layer_stays_apart():
    assert match_key("urn:pulumi:dev::proj::t:a/b:C::name") == "cluster::proj::t:a/b:C::name"
    assert match_key("urn:pulumi:prod::proj::t:a/b:C::name") == "cluster::proj::t:a/b:C::name"
    assert match_key("urn:pulumi:dev-kubernetes::proj::t:a/b:C::name") == "layer::proj::t:a/b:C::name"
    # The suffix counts only at the end of the stack's name.
    assert match_key("urn:pulumi:dev-kubernetes-old::proj::x::n") == "cluster::proj::x::n"


def test_the_same_resource_in_two_stacks_is_no_change_and_a_changed_one_is_named_by_the_new_stack():
    dev = _res("a", VPC, {"cidr": "10.0.0.0/16"}, stack="dev")
    prod = _res("a", VPC, {"cidr": "10.0.0.0/16"}, stack="prod")
    assert compare([dev], [prod], TABLE) == []
    (change,) = compare([dev], [_changed(prod, tags={"k": "v"})], TABLE)
    assert change.urn == prod.urn and change.old == dev


# --- compare: created, deleted, changed, untracked ----------------------------------------------------------------------


def test_created_and_deleted_resources_have_one_side_and_come_in_urn_order():
    a, b = _res("a", VPC, {"cidr": "1"}), _res("b", VPC, {"cidr": "2"})
    changes = compare([b], [a], TABLE)
    assert [(c.name, c.action, c.old, c.new, c.inputs) for c in changes] == [("a", "create", None, a, []), ("b", "delete", b, None, [])]
    assert [(c.urn, c.type) for c in changes] == [(a.urn, VPC), (b.urn, VPC)]


def test_an_unchanged_resource_is_left_out_and_changes_come_in_urn_order():
    a, b, c = _res("a", VPC, {"cidr": "1"}), _res("b", VPC, {"cidr": "2"}), _res("c", VPC, {"cidr": "3"})
    changes = compare([c, b, a], [_changed(c, cidr="9"), b, _changed(a, tags={"x": "y"})], TABLE)
    assert [(change.name, change.action) for change in changes] == [("a", "update"), ("c", "replace")]
    assert changes[1].inputs == [InputChange("cidr", "3", "9", Effect("replace", "cidr"))]


def test_components_providers_and_the_stack_are_not_compared():
    component = _res("comp", "railyard:index:Cluster", {"x": 1})
    provider = _res("prov", "pulumi:providers:aws", {"region": "a"})
    stack = _res("stack", "pulumi:pulumi:Stack", {})
    assert compare([component, provider], [stack], TABLE) == []
    assert compare([_res("comp", "railyard:index:Cluster", {"x": 1})], [_res("comp", "railyard:index:Cluster", {"x": 2})], TABLE) == []
    # A type merely containing the project's name is a provider's resource, compared as usual.
    other = _res("o", "aws:railyard/x:X", {"x": 1})
    assert [change.action for change in compare([other], [_changed(other, x=2)], TABLE)] == ["unclassified"]


def test_a_type_missing_from_the_table_is_unclassified_naming_the_tables_source():
    thing = _res("t", LOOSE, {"x": 1})
    (change,) = compare([thing], [_changed(thing, x=2)], TABLE)
    assert change.action == "unclassified"
    assert change.inputs[0].effect == Effect("unknown", f"{LOOSE} is not in the replace table (the test's table; unknown source)")


def test_an_optional_computed_input_dropped_is_no_change_but_added_or_changed_is():
    group = _res("g", GROUP, {"amiType": "AL2023", "size": 1})
    dropped = replace(group, inputs={"size": 1})
    assert compare([group], [dropped], TABLE) == []
    (added,) = compare([dropped], [group], TABLE)  # from none to a value
    assert [(item.path, item.old, item.new) for item in added.inputs] == [("amiType", None, "AL2023")]
    (changed,) = compare([group], [_changed(group, amiType="BOTTLEROCKET")], TABLE)
    assert [(item.path, item.new) for item in changed.inputs] == [("amiType", "BOTTLEROCKET")]
    # An input the table doesn't mark optional-and-computed, dropped, is a change.
    (gone,) = compare([group], [replace(group, inputs={"amiType": "AL2023"})], TABLE)
    assert [(item.path, item.old, item.new, item.effect.kind) for item in gone.inputs] == [("size", 1, None, "update")]


def test_a_dropped_input_of_a_type_the_table_lacks_is_a_change():
    thing = _res("t", LOOSE, {"amiType": "x"})
    (change,) = compare([thing], [replace(thing, inputs={})], TABLE)
    assert [(item.path, item.old, item.new) for item in change.inputs] == [("amiType", "x", None)]


@pytest.mark.parametrize(
    ("inputs", "action"),
    [
        ({"description": "b"}, "update"),
        ({"mode": "b"}, "may-replace"),
        ({"other": 1}, "unclassified"),
        ({"mode": "b", "vpcId": "z"}, "replace"),
        ({"other": 1, "mode": "b"}, "may-replace"),
        ({"other": 1, "description": "b"}, "unclassified"),
    ],
)
def test_a_resources_action_is_its_most_disruptive_inputs(inputs, action):
    template = _res("lt", TEMPLATE, {"description": "a", "mode": "a", "vpcId": "id-v"})
    (change,) = compare([template], [_changed(template, **inputs)], TABLE)
    assert change.action == action


# --- changes travel along dependencies ------------------------------------------------------------------------------


def _vpc_and_group(group_inputs: dict, deps: dict) -> tuple[PreviewResource, PreviewResource]:
    vpc = _res("v", VPC, {"cidr": "10.0.0.0/16"})
    return vpc, _res("g", GROUP, group_inputs, deps=deps)


def test_a_replaced_dependency_replaces_the_input_holding_its_id_naming_it_and_the_cause():
    vpc, group = _vpc_and_group({"vpcId": "id-v", "size": 1}, {"vpcId": [_res("v", VPC, {}).urn]})
    changes = compare([vpc, group], [_changed(vpc, cidr="10.1.0.0/16"), group], TABLE)
    assert [(change.name, change.action) for change in changes] == [("g", "replace"), ("v", "replace")]
    assert changes[0].inputs == [InputChange("vpcId", None, None, Effect("replace", "vpcId"), vpc.urn, "replace")]
    assert changes[0].old == group and changes[0].new == group


def test_the_id_is_found_deep_inside_an_input_and_in_a_list_else_the_whole_input_changes():
    vpc = _res("v", VPC, {"cidr": "1"})
    moved = _changed(vpc, cidr="2")
    nested = _res("g", GROUP, {"launchTemplate": {"id": "id-v", "name": "n"}}, deps={"launchTemplate": [vpc.urn]})
    (change, _) = compare([vpc, nested], [moved, nested], TABLE)
    assert [(item.path, item.effect, item.cause) for item in change.inputs] == [
        ("launchTemplate.id", Effect("replace", "launchTemplate.id"), "replace")
    ]
    listed = _res("g", GROUP, {"note": ["x", {"ref": "id-v"}, "id-v"]}, deps={"note": [vpc.urn]})
    (change, _) = compare([vpc, listed], [moved, listed], TABLE)
    assert [(item.path, item.via) for item in change.inputs] == [("note", vpc.urn), ("note.ref", vpc.urn)]
    elsewhere = _res("g", GROUP, {"size": 3}, deps={"size": [vpc.urn]})  # reads the VPC but holds no id of it
    (change, _) = compare([vpc, elsewhere], [moved, elsewhere], TABLE)
    assert [(item.path, item.effect.kind, item.cause) for item in change.inputs] == [("size", "update", "replace")]
    assert change.action == "update"


def test_an_update_that_recomputes_outputs_changes_only_the_inputs_holding_one_of_them_compared_as_text():
    template = _res("lt", TEMPLATE, {"description": "a"}, outputs={"latestVersion": 3, "arn": None})
    # The version held as a number, the output compared as text: "3" is found in 3.
    group = _res("g", GROUP, {"launchTemplate": {"id": "id-lt", "version": 3}, "size": 1}, deps={"launchTemplate": [template.urn]})
    changes = compare([template, group], [_changed(template, description="b"), group], TABLE)
    assert [(change.name, change.action) for change in changes] == [("g", "update"), ("lt", "update")]
    assert changes[0].inputs == [
        InputChange("launchTemplate.version", None, None, Effect("update", "launchTemplate.version"), template.urn, "recomputed")
    ]


def test_recomputed_outputs_no_input_holds_change_nothing():
    template = _res("lt", TEMPLATE, {"description": "a"}, outputs={"latestVersion": 3})
    group = _res("g", GROUP, {"launchTemplate": {"id": "id-lt", "version": "7"}}, deps={"launchTemplate": [template.urn]})
    changes = compare([template, group], [_changed(template, description="b"), group], TABLE)
    assert [change.name for change in changes] == ["lt"]


def test_an_output_of_none_is_never_taken_for_an_input_of_none_as_text():
    template = _res("lt", TEMPLATE, {"description": "a"}, outputs={"latestVersion": None, "arn": None})
    group = _res("g", GROUP, {"launchTemplate": {"id": "id-lt", "version": "None"}}, deps={"launchTemplate": [template.urn]})
    assert [change.name for change in compare([template, group], [_changed(template, description="b"), group], TABLE)] == ["lt"]


def test_an_update_of_a_type_that_recomputes_nothing_flows_nowhere():
    vpc = _res("v", VPC, {"cidr": "1", "tags": {}}, outputs={"cidr": "1"})
    group = _res("g", GROUP, {"vpcId": "id-v", "note": "1"}, deps={"vpcId": [vpc.urn], "note": [vpc.urn]})
    assert [change.name for change in compare([vpc, group], [_changed(vpc, tags={"a": "b"}), group], TABLE)] == ["v"]


def test_a_may_replace_or_unclassified_upstream_that_recomputes_outputs_flows_too():
    template = _res("lt", TEMPLATE, {"mode": "a", "other": 0}, outputs={"latestVersion": 3})
    group = _res("g", GROUP, {"launchTemplate": {"version": "3"}}, deps={"launchTemplate": [template.urn]})
    for edit in ({"mode": "b"}, {"other": 1}):
        changes = compare([template, group], [_changed(template, **edit), group], TABLE)
        assert [(change.name, [item.cause for item in change.inputs]) for change in changes][0] == ("g", ["recomputed"])


def test_a_created_or_deleted_dependency_flows_nowhere():
    template = _res("lt", TEMPLATE, {"description": "a"}, outputs={"latestVersion": 3})
    group = _res("g", GROUP, {"launchTemplate": {"version": "3", "id": "id-lt"}}, deps={"launchTemplate": [template.urn]})
    # The template deleted: the group (unchanged) gets nothing from it.
    assert [(c.name, c.action) for c in compare([template, group], [group], TABLE)] == [("lt", "delete")]
    # The template created: same.
    assert [(c.name, c.action) for c in compare([group], [template, group], TABLE)] == [("lt", "create")]


def test_a_created_resource_takes_no_flow_from_what_it_reads():
    vpc = _res("v", VPC, {"cidr": "1"})
    group = _res("g", GROUP, {"vpcId": "id-v"}, deps={"vpcId": [vpc.urn]})
    changes = compare([vpc], [_changed(vpc, cidr="2"), group], TABLE)
    assert [(c.name, c.action, c.inputs) for c in changes][0] == ("g", "create", [])


def test_replacement_travels_down_a_chain_until_nothing_more_changes():
    vpc = _res("v", VPC, {"cidr": "1"})
    template = _res("lt", TEMPLATE, {"vpcId": "id-v"}, deps={"vpcId": [vpc.urn]})
    group = _res("g", GROUP, {"launchTemplate": {"id": "id-lt"}}, deps={"launchTemplate": [template.urn]})
    # The reader comes first: its source is replaced only on a later pass.
    changes = compare([vpc, template, group], [group, template, _changed(vpc, cidr="2")], TABLE)
    assert [(c.name, c.action, [(i.path, i.via, i.cause) for i in c.inputs]) for c in changes] == [
        ("g", "replace", [("launchTemplate.id", template.urn, "replace")]),
        ("lt", "replace", [("vpcId", vpc.urn, "replace")]),
        ("v", "replace", [("cidr", "", "")]),
    ]


def test_a_dependency_first_seen_updating_then_replaced_replaces_its_recomputed_flow_with_the_replacement():
    vpc = _res("v", VPC, {"cidr": "1"})
    template = _res("lt", TEMPLATE, {"description": "a", "vpcId": "id-v"}, deps={"vpcId": [vpc.urn]}, outputs={"latestVersion": 3})
    group = _res("g", GROUP, {"launchTemplate": {"id": "id-lt", "version": "3"}}, deps={"launchTemplate": [template.urn]})
    new = [group, _changed(template, description="b"), _changed(vpc, cidr="2")]
    changes = {change.name: change for change in compare([vpc, template, group], new, TABLE)}
    assert changes["lt"].action == "replace"
    assert [(i.path, i.via, i.cause) for i in changes["g"].inputs] == [("launchTemplate.id", template.urn, "replace")]
    assert changes["g"].action == "replace"


def test_a_group_already_replaced_by_its_own_inputs_takes_no_flow():
    template = _res("lt", TEMPLATE, {"description": "a"}, outputs={"latestVersion": 3})
    group = _res("g", GROUP, {"launchTemplate": {"id": "id-lt", "version": "3"}, "vpcId": "a"}, deps={"launchTemplate": [template.urn]})
    changes = {c.name: c for c in compare([template, group], [_changed(template, description="b"), _changed(group, vpcId="b")], TABLE)}
    assert [(i.path, i.via) for i in changes["g"].inputs] == [("vpcId", "")]


def test_an_own_change_and_a_flowed_one_add_up_to_the_most_disruptive_action():
    template = _res("lt", TEMPLATE, {"description": "a"}, outputs={"latestVersion": 3})
    group = _res("g", GROUP, {"launchTemplate": {"id": "id-lt", "version": "3"}, "size": 1}, deps={"launchTemplate": [template.urn]})
    changes = {c.name: c for c in compare([template, group], [_changed(template, description="b"), _changed(group, size=2)], TABLE)}
    assert [(i.path, i.cause) for i in changes["g"].inputs] == [("size", ""), ("launchTemplate.version", "recomputed")]
    assert changes["g"].action == "update"
    vpc = _res("v", VPC, {"cidr": "1"})
    reader = _res("g", GROUP, {"vpcId": "id-v", "size": 1}, deps={"vpcId": [vpc.urn]})
    changes = {c.name: c for c in compare([vpc, reader], [_changed(vpc, cidr="2"), _changed(reader, size=2)], TABLE)}
    assert [(i.path, i.cause) for i in changes["g"].inputs] == [("size", ""), ("vpcId", "replace")]
    assert changes["g"].action == "replace"


def test_a_recomputed_output_is_found_as_text_inside_a_list_too():
    template = _res("lt", TEMPLATE, {"description": "a"}, outputs={"latestVersion": 3})
    group = _res("g", GROUP, {"note": [3, "x"]}, deps={"note": [template.urn]})
    (change, _) = compare([template, group], [_changed(template, description="b"), group], TABLE)
    assert [(item.path, item.cause) for item in change.inputs] == [("note", "recomputed")]


def test_an_own_change_under_the_input_a_dependency_flows_into_does_not_stop_the_flow():
    template = _res("lt", TEMPLATE, {"description": "a"}, outputs={"latestVersion": 3})
    group = _res("g", GROUP, {"launchTemplate": {"id": "id-lt", "version": 3, "name": "a"}}, deps={"launchTemplate": [template.urn]})
    renamed = _changed(group, launchTemplate={"id": "id-lt", "version": 3, "name": "b"})
    (change, _) = compare([template, group], [_changed(template, description="b"), renamed], TABLE)
    assert [(item.path, item.via, item.cause) for item in change.inputs] == [
        ("launchTemplate.name", "", ""),
        ("launchTemplate.version", template.urn, "recomputed"),
    ]
    assert change.action == "unclassified"


def test_a_resource_changed_only_by_a_flow_takes_its_urn_type_and_name():
    template = _res("lt", TEMPLATE, {"description": "a"}, outputs={"latestVersion": 3})
    group = _res("g", GROUP, {"launchTemplate": {"version": 3}}, deps={"launchTemplate": [template.urn]})
    (change, _) = compare([template, group], [_changed(template, description="b"), group], TABLE)
    assert (change.urn, change.type, change.name, change.action) == (group.urn, GROUP, "g", "update")


def test_how_many_more_values_changed_under_one_path_is_kept_on_the_input_change():
    group = _res("g", GROUP, {"note": [{"port": 1}, {"port": 2}, {"port": 3}]})
    (change,) = compare([group], [_changed(group, note=[{"port": 7}, {"port": 8}, {"port": 9}])], TABLE)
    assert [(item.path, item.old, item.new, item.more) for item in change.inputs] == [("note.port", 1, 7, 2)]


def test_a_replaced_dependencys_id_is_matched_exactly_not_as_text():
    vpc = replace(_res("v", VPC, {"cidr": "1"}), id="5")
    group = _res("g", GROUP, {"vpcId": {"id": "5", "count": 5}}, deps={"vpcId": [vpc.urn]})
    (change, _) = compare([vpc, group], [_changed(vpc, cidr="2"), group], TABLE)
    assert [item.path for item in change.inputs] == ["vpcId.id"]
