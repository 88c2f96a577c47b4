"""railyard/change/sdk_names.py against the installed pulumi_aws SDK: a Terraform path under its wire names (nested
blocks, pluralised lists), a type the SDK lacks, a resource whose own args class is `<Name>InitArgs` because a nested
type took `<Name>Args`, and an output's wire name."""

from __future__ import annotations

import pytest

from railyard.change.sdk_names import _module_and_class, resource_output, sdk_has, top_level_inputs, wire_path

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


@pytest.mark.parametrize(
    ("token", "path", "wire"),
    [
        (NODE_GROUP, "launch_template.version", "launchTemplate.version"),
        (NODE_GROUP, "taint.key", "taints.key"),  # a list block pluralised
        (NODE_GROUP, "scaling_config.desired_size", "scalingConfig.desiredSize"),
        ("aws:ec2/vpcEndpoint:VpcEndpoint", "subnet_configuration.ipv4", "subnetConfigurations.ipv4"),
        ("aws:fsx/lustreFileSystem:LustreFileSystem", "per_unit_storage_throughput", "perUnitStorageThroughput"),
        (NODE_GROUP, "no_such_attribute", None),
        (NODE_GROUP, "launch_template.no_such", None),  # the block exists, its attribute doesn't
        (NODE_GROUP, "version.major", None),  # a plain value has nothing under it
    ],
)
def test_a_terraform_path_under_the_sdks_wire_names(token, path, wire):
    assert wire_path(token, path) == wire


def test_a_type_is_in_the_sdk_only_when_its_module_and_args_exist():
    assert sdk_has(NODE_GROUP) is True
    assert sdk_has("aws:nosuchmodule/thing:Thing") is False
    assert sdk_has("aws:eks/nothing:Nothing") is False


def test_the_index_module_is_the_package_itself():
    assert _module_and_class("aws:index/provider:Provider") == ("pulumi_aws", "ProviderArgs")
    assert _module_and_class("aws:fsx/lustreFileSystem:LustreFileSystem") == ("pulumi_aws.fsx", "LustreFileSystemArgs")
    assert top_level_inputs("aws:index/provider:Provider")["region"] == "region"


def test_top_level_inputs_map_wire_names_to_python_names():
    inputs = top_level_inputs(NODE_GROUP)
    assert (inputs["launchTemplate"], inputs["scalingConfig"], inputs["nodeGroupName"]) == ("launch_template", "scaling_config", "node_group_name")


def test_a_resource_whose_nested_type_took_its_args_name_is_read_from_its_init_args():
    # pulumi_aws.ec2 exports NetworkInterfaceAttachmentArgs for NetworkInterface's `attachments` block; the resource's own
    # arguments are NetworkInterfaceAttachmentInitArgs, in the resource's module, with `networkCardIndex` and `region`.
    inputs = top_level_inputs("aws:ec2/networkInterfaceAttachment:NetworkInterfaceAttachment")
    assert {"deviceIndex", "instanceId", "networkInterfaceId", "networkCardIndex", "region"} <= set(inputs)
    assert "attachmentId" not in inputs


def test_an_outputs_wire_name_or_none():
    assert resource_output("aws:ec2/launchTemplate:LaunchTemplate", "latest_version") == "latestVersion"
    assert resource_output("aws:ec2/launchTemplate:LaunchTemplate", "no_such_output") is None


def test_a_list_block_pluralised_with_es_is_found_under_its_plural():
    # Terraform's aws_route53_record has an `alias` block; pulumi-aws names it `aliases`.
    assert wire_path("aws:route53/record:Record", "alias.evaluate_target_health") == "aliases.evaluateTargetHealth"


def test_an_output_of_a_resource_whose_args_are_init_args_is_read_from_the_resource_not_its_args():
    # NetworkInterfaceAttachment's inputs are NetworkInterfaceAttachmentInitArgs, which has no `attachment_id`: the output
    # is the resource class's own property.
    token = "aws:ec2/networkInterfaceAttachment:NetworkInterfaceAttachment"
    assert (resource_output(token, "attachment_id"), resource_output(token, "network_interface_id")) == ("attachmentId", "networkInterfaceId")
