"""The committed replace table: it covers what railyard emits, matches the installed SDK, and reads changes the way the provider does."""

import pytest

from railyard.change.replace_table import UNKNOWN, emitted_types, from_schema, load_table
from railyard.change.sdk_names import top_level_inputs
from railyard.change.terraform_source import CONDITIONAL, REPLACE, UPDATE

TABLE = load_table()


@pytest.fixture(scope="module")
def emitted():
    return emitted_types()


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
        # internal/service/fsx/lustre_file_system.go: ForceNew on deployment_type; per_unit_storage_throughput updates in place;
        # storage_capacity is forced new by CustomizeDiff only when it shrinks.
        ("aws:fsx/lustreFileSystem:LustreFileSystem", "deploymentType", REPLACE),
        ("aws:fsx/lustreFileSystem:LustreFileSystem", "perUnitStorageThroughput", UPDATE),
        ("aws:fsx/lustreFileSystem:LustreFileSystem", "storageCapacity", CONDITIONAL),
        ("aws:fsx/lustreFileSystem:LustreFileSystem", "tags.Name", UPDATE),  # a map's key takes the map's effect
        # internal/service/eks/node_group.go: a new template id replaces the group, a new version does not.
        ("aws:eks/nodeGroup:NodeGroup", "launchTemplate.id", REPLACE),
        ("aws:eks/nodeGroup:NodeGroup", "launchTemplate.version", UPDATE),
        ("aws:eks/nodeGroup:NodeGroup", "scalingConfig.desiredSize", UPDATE),
        ("aws:eks/nodeGroup:NodeGroup", "instanceTypes", REPLACE),
        # Inside a block that forces new, every attribute does.
        ("aws:eks/nodeGroup:NodeGroup", "remoteAccess.ec2SshKey", REPLACE),
        ("aws:eks/cluster:Cluster", "name", REPLACE),
        ("aws:eks/cluster:Cluster", "encryptionConfig", CONDITIONAL),
        ("aws:ec2/subnet:Subnet", "cidrBlock", REPLACE),
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
    # ec2_launch_template.go: customdiff.ComputedIf("latest_version", ...) - any change but name/description gives a new version.
    assert "latestVersion" in TABLE.rules("aws:ec2/launchTemplate:LaunchTemplate").recomputed


def test_the_table_names_its_sources():
    assert TABLE.source["aws"]["kind"] == "terraform-provider-aws"
    assert "1a5174b137bb" in TABLE.source["aws"]["revision"]
    assert TABLE.source["kubernetes"]["kind"] == "pulumi-kubernetes"
    assert "after v4.32.0" in TABLE.source["kubernetes"]["revision"]


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
