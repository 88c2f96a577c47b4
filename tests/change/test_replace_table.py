"""The committed replace table: it covers what railyard emits, matches the installed SDK, and reads changes the way the provider does."""

import json
import re
from pathlib import Path

import pytest

from railyard.change.replace_table import OUTPUT, UNKNOWN, emitted_types, from_schema, from_terraform, load_table, read_manifest
from railyard.change.sdk_names import top_level_inputs
from railyard.change.terraform_source import CONDITIONAL, REPLACE, UPDATE
from tests.preview.conftest import previewed

TABLE = load_table()
PROVIDER = Path(__file__).parent / "fixtures" / "provider"
COMMIT = re.compile(r"[0-9a-f]{40}")


@pytest.fixture(scope="module")
def emitted():
    return emitted_types(preview=previewed)  # the session's previews of the examples


def test_every_aws_and_kubernetes_type_an_example_emits_is_in_the_table(emitted):
    assert {token.split(":")[0] for token in emitted} == {"aws", "kubernetes"}
    assert [token for token in emitted if TABLE.rules(token) is None] == []


def test_every_top_level_input_in_the_table_is_an_input_of_the_installed_sdk():
    # Catches an SDK upgrade that renames an input the table still lists under its old name.
    for token, rules in TABLE.resources.items():
        if not token.startswith("aws:"):
            continue
        inputs = set(top_level_inputs(token))
        assert {path.split(".")[0] for path in rules.inputs} <= inputs, token


@pytest.mark.parametrize(
    ("token", "path", "kind"),
    [
        # internal/service/fsx/lustre_file_system.go@26511610: ForceNew on deployment_type; per_unit_storage_throughput
        # updates in place; storage_capacity is forced new by CustomizeDiff only when it shrinks.
        ("aws:fsx/lustreFileSystem:LustreFileSystem", "deploymentType", REPLACE),
        ("aws:fsx/lustreFileSystem:LustreFileSystem", "perUnitStorageThroughput", UPDATE),
        ("aws:fsx/lustreFileSystem:LustreFileSystem", "storageCapacity", CONDITIONAL),
        ("aws:fsx/lustreFileSystem:LustreFileSystem", "tags.Name", UPDATE),  # a map's key takes the map's effect
        # Same file: `"file_system_type_version": {... ForceNew: true ...}` still; metadata_configuration has no ForceNew,
        # and resourceLustreFileSystemMetadataConfigCustomizeDiff calls d.ForceNew("metadata_configuration.0.iops") on a decrease.
        ("aws:fsx/lustreFileSystem:LustreFileSystem", "fileSystemTypeVersion", REPLACE),
        ("aws:fsx/lustreFileSystem:LustreFileSystem", "metadataConfiguration.mode", UPDATE),
        ("aws:fsx/lustreFileSystem:LustreFileSystem", "metadataConfiguration.iops", CONDITIONAL),
        # internal/service/eks/node_group.go@0cdab4ae: a new template id replaces the group, a new version does not.
        ("aws:eks/nodeGroup:NodeGroup", "launchTemplate.id", REPLACE),
        ("aws:eks/nodeGroup:NodeGroup", "launchTemplate.version", UPDATE),
        ("aws:eks/nodeGroup:NodeGroup", "scalingConfig.desiredSize", UPDATE),
        ("aws:eks/nodeGroup:NodeGroup", "instanceTypes", REPLACE),
        # Same file: `"node_repair_config": {Type: schema.TypeList, Optional: true, Computed: true, MaxItems: 1, ...}` and
        # update_config's `"update_strategy": {Type: schema.TypeString, Optional: true, ...}`, no ForceNew, no CustomizeDiff.
        ("aws:eks/nodeGroup:NodeGroup", "nodeRepairConfig", UPDATE),
        ("aws:eks/nodeGroup:NodeGroup", "nodeRepairConfig.enabled", UPDATE),
        ("aws:eks/nodeGroup:NodeGroup", "nodeRepairConfig.maxUnhealthyNodeThresholdPercentage", UPDATE),
        ("aws:eks/nodeGroup:NodeGroup", "updateConfig.updateStrategy", UPDATE),
        # Inside a block that forces new, every attribute does.
        ("aws:eks/nodeGroup:NodeGroup", "remoteAccess.ec2SshKey", REPLACE),
        # internal/service/eks/cluster.go@00555dc5: customdiff.ForceNewIfChange("encryption_config", ...) and
        # rd.ForceNew("compute_config.0.node_role_arn") decide at diff time; upgrade_policy has no ForceNew;
        # "remote_network_config" and access_config's "bootstrap_cluster_creator_admin_permissions" are ForceNew: true.
        ("aws:eks/cluster:Cluster", "name", REPLACE),
        ("aws:eks/cluster:Cluster", "encryptionConfig", CONDITIONAL),
        ("aws:eks/cluster:Cluster", "computeConfig.nodeRoleArn", CONDITIONAL),
        ("aws:eks/cluster:Cluster", "computeConfig.nodePools", UPDATE),
        ("aws:eks/cluster:Cluster", "upgradePolicy.supportType", UPDATE),
        ("aws:eks/cluster:Cluster", "remoteNetworkConfig.remoteNodeNetworks.cidrs", REPLACE),
        ("aws:eks/cluster:Cluster", "accessConfig.authenticationMode", UPDATE),
        ("aws:eks/cluster:Cluster", "accessConfig.bootstrapClusterCreatorAdminPermissions", REPLACE),
        ("aws:ec2/subnet:Subnet", "cidrBlock", REPLACE),
        # vpc_subnet.go@00cda125: CustomizeDiff: customdiff.ForceNewIf("ipv6_cidr_block", ...).
        ("aws:ec2/subnet:Subnet", "ipv6CidrBlock", CONDITIONAL),
        # vpc_endpoint.go@008db85a: diff.ForceNew("private_dns_enabled") inside its CustomizeDiff.
        ("aws:ec2/vpcEndpoint:VpcEndpoint", "privateDnsEnabled", CONDITIONAL),
        # iam/openid_connect_provider.go@01606926: "client_id_list" lost its ForceNew (1a5174b1 had it).
        ("aws:iam/openIdConnectProvider:OpenIdConnectProvider", "clientIdLists", UPDATE),
        # logs/group.go@0cdab4ae: `"deletion_protection_enabled": {Type: schema.TypeBool, Optional: true, Computed: true}`.
        ("aws:cloudwatch/logGroup:LogGroup", "deletionProtectionEnabled", UPDATE),
        ("aws:ec2/placementGroup:PlacementGroup", "strategy", REPLACE),
        ("aws:eks/nodeGroup:NodeGroup", "noSuchInput", UNKNOWN),
        # pulumi-kubernetes diff.go: a StorageClass's parameters and provisioner replace it; a claim's storage class does;
        # a persistent volume's CSI source does; any object's name does; everything else is patched in place.
        ("kubernetes:storage.k8s.io/v1:StorageClass", "parameters.deploymentType", REPLACE),
        ("kubernetes:storage.k8s.io/v1:StorageClass", "mountOptions", UPDATE),
        ("kubernetes:core/v1:PersistentVolumeClaim", "spec.storageClassName", REPLACE),
        ("kubernetes:core/v1:PersistentVolumeClaim", "spec.resources.requests.storage", UPDATE),
        ("kubernetes:core/v1:PersistentVolume", "spec.csi.volumeHandle", REPLACE),
        ("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", "spec.resourceGroups.flavors.resources.nominalQuota", UPDATE),
        ("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", "metadata.name", REPLACE),
        # helm_release.go: a release is replaced by a new name or namespace; new values upgrade it.
        ("kubernetes:helm.sh/v3:Release", "namespace", REPLACE),
        ("kubernetes:helm.sh/v3:Release", "values.nodeSelector", UPDATE),
    ],
)
def test_effects_read_from_the_provider_source(token, path, kind):
    assert TABLE.rules(token).effect(path).kind == kind


def test_a_launch_template_update_recomputes_its_versions():
    # ec2_launch_template.go@0cdab4ae: customdiff.ComputedIf("latest_version", ...) - any change but name/description gives a new version.
    assert TABLE.rules("aws:ec2/launchTemplate:LaunchTemplate").recomputed == ("defaultVersion", "latestVersion")


def test_a_vpc_endpoint_update_recomputes_its_network_interfaces_and_subnets():
    # vpc_endpoint.go@008db85a: customdiff.ComputedIf on "network_interface_ids", "subnet_configuration" and names.AttrSubnetIDs.
    assert TABLE.rules("aws:ec2/vpcEndpoint:VpcEndpoint").recomputed == ("networkInterfaceIds", "subnetConfigurations", "subnetIds")


def test_the_table_names_its_sources():
    assert TABLE.source["aws"]["kind"] == "terraform-provider-aws"
    assert TABLE.source["aws"]["assembled"] == "file by file"
    assert "1a5174b137bb" in TABLE.source["aws"]["revision"]  # the commit the types with no newer readable file keep
    assert TABLE.source["kubernetes"]["kind"] == "pulumi-kubernetes"
    assert "after v4.32.0" in TABLE.source["kubernetes"]["revision"]


def _aws_entries():
    return json.loads(OUTPUT.read_text(encoding="utf-8"))["parts"]["aws"]["resources"]


def test_every_aws_resource_records_the_commit_of_the_file_it_was_read_from():
    entries = _aws_entries()
    assert [token for token, entry in entries.items() if not COMMIT.fullmatch(entry.get("revision", ""))] == []
    assert entries["aws:eks/nodeGroup:NodeGroup"]["revision"] == "0cdab4ae09a963535e03dde0bff4784afe8e3517"
    assert entries["aws:fsx/lustreFileSystem:LustreFileSystem"]["revision"] == "26511610ff8e2c21cb3cd3b716b14fcf518a8051"
    # No newer copy of the route table's file could be read: it keeps the whole-checkout commit it was read at.
    assert entries["aws:ec2/routeTable:RouteTable"]["revision"] == "1a5174b137bbdefdebd6e5c2fc033f829057e283"


def test_what_the_newer_files_leave_unresolved_is_recorded():
    entries = _aws_entries()
    # vpc_subnet.go@00cda125 keys outpost_arn by names.AttrOutpostARN, which no readable names file declares.
    assert entries["aws:ec2/subnet:Subnet"]["unresolved"] == ["names.AttrOutpostARN"]
    assert TABLE.rules("aws:ec2/subnet:Subnet").effect("outpostArn").kind == UNKNOWN
    # The ingress rule's ModifyPlan asks for replacement on paths it computes (a change of source type).
    assert [item.split(":")[0] for item in entries["aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"]["unresolved"]] == ["ModifyPlan"]


def test_a_pulumi_schema_gives_the_same_shape_from_will_replace_on_changes():
    schema = {
        "resources": {
            "aws:demo/widget:Widget": {
                "inputProperties": {
                    "kind": {"type": "string", "willReplaceOnChanges": True},
                    "size": {"type": "integer"},
                    "placement": {"$ref": "#/types/aws:demo/WidgetPlacement:WidgetPlacement"},
                }
            }
        },
        "types": {"aws:demo/WidgetPlacement:WidgetPlacement": {"properties": {"zone": {"type": "string", "willReplaceOnChanges": True}}}},
    }
    previous = {"source": {"described": "an older part"}, "resources": {"aws:demo/widget:Widget": {"recomputed": ["version"]}}}
    table = from_schema(schema, "aws@0.0.0", ["aws:demo/widget:Widget", "aws:demo/absent:Absent"], previous)
    widget = table["resources"]["aws:demo/widget:Widget"]
    assert widget["inputs"] == {"kind": REPLACE, "size": UPDATE, "placement": UPDATE, "placement.zone": REPLACE}
    assert table["not_covered"] == ["aws:demo/absent:Absent"]
    # The schema can't say what an update recomputes: that is kept from the part it replaces, which the source names.
    assert widget["recomputed"] == ["version"] and table["source"]["recomputed_from"] == "an older part"


def test_a_manifest_names_each_files_commit_and_refuses_a_file_without_one(tmp_path):
    manifest = tmp_path / "files.json"
    dated, helper = {"commit": "2" * 40, "date": "2025"}, {"commit": None, "note": "the index names no commit"}
    manifest.write_text(json.dumps({"a.go": "1" * 40, "b.go": dated, "c.go": helper}))
    assert read_manifest(manifest) == {"a.go": {"commit": "1" * 40}, "b.go": dated, "c.go": helper}
    manifest.write_text(json.dumps({"a.go": "1a5174b1"}))
    with pytest.raises(ValueError, match=r"give a full 40-character commit .* for a.go"):
        read_manifest(manifest)


def test_file_by_file_keeps_a_type_whose_file_is_missing_with_the_commit_it_was_read_at():
    previous = {
        "source": {"revision": "1a5174b137bbdefdebd6e5c2fc033f829057e283 (2024-04-17, between v5.45.0 and v5.46.0)"},
        "resources": {"aws:demo/absent:Absent": {"source_name": "aws_demo_absent", "file": "x.go", "inputs": {"size": REPLACE}}},
    }
    part = from_terraform(PROVIDER, "file by file", ["aws:demo/absent:Absent"], {}, previous)
    kept = part["resources"]["aws:demo/absent:Absent"]
    assert kept["inputs"] == {"size": REPLACE}
    assert (kept["revision"], kept["revision_date"]) == ("1a5174b137bbdefdebd6e5c2fc033f829057e283", "2024-04-17, between v5.45.0 and v5.46.0")
    assert part["not_covered"] == [] and part["source"]["assembled"] == "file by file"
