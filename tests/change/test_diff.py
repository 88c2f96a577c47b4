"""`railyard diff` classifies each change by what it does to the running cluster (issue 17's five cases, and more).

Every case compares an example with an edited copy of it, both previewed
offline at the same instant; the classification comes from the replace
table, the impact from the node groups' and file systems' inputs.
"""

import json
import subprocess
from pathlib import Path

import pytest

from railyard.change.diff import Side, diff, diff_against_revision, side_of
from railyard.change.render import markdown_report, text_report
from railyard.cli import main
from tests.preview.conftest import AT
from tests.yaml_text import edited_copy

EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"
P5 = EXAMPLES / "p5-capacity-block.yaml"
HETERO = EXAMPLES / "heterogeneous.yaml"
DEV = EXAMPLES / "dev-g6e.yaml"
FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


def _diff(old: Path, new: Path):
    return diff(side_of(str(old)), side_of(str(new)), at=AT)


def pinned_copy(source: Path, directory: Path) -> Path:
    """The example as a deployed cluster keeps it: a copy with `railyard lock --write` run on it."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / source.name
    path.write_text(source.read_text())
    assert main(["lock", str(path), "--write"]) == 0
    return path


def _only(result, type_token):
    found = [change for change in result.changes if change.type == type_token]
    assert len(found) == 1, [change.name for change in result.changes]
    return found[0]


def _impact(result, kind):
    found = [impact for impact in result.impacts if impact.kind == kind]
    assert len(found) == 1, [impact.kind for impact in result.impacts]
    return found[0]


def test_an_unchanged_blueprint_changes_nothing():
    result = _diff(P5, P5)
    assert result.ok and result.changes == [] and result.impacts == []


def test_fsx_throughput_change_is_in_place(tmp_path):
    new = edited_copy(P5, tmp_path, ("throughput_mbps_per_tib: 500", "throughput_mbps_per_tib: 1000"))
    result = _diff(P5, new)
    change = _only(result, FSX)
    assert change.action == "update"
    assert [(item.path, item.old, item.new, item.effect.kind) for item in change.inputs] == [("perUnitStorageThroughput", 500, 1000, "update")]
    assert result.ok and result.impacts == []


TO_PERSISTENT_1 = (
    "    deployment_type: PERSISTENT_2\n    capacity_gib: 24000\n    throughput_mbps_per_tib: 250\n    metadata: {mode: automatic}\n",
    "    deployment_type: PERSISTENT_1\n    capacity_gib: 26400\n    throughput_mbps_per_tib: 200\n",
)


def test_fsx_deployment_type_change_is_a_replacement_that_loses_data_and_is_an_error(tmp_path):
    new = edited_copy(HETERO, tmp_path, TO_PERSISTENT_1)
    result = _diff(HETERO, new)
    change = _only(result, FSX)
    assert change.action == "replace"
    assert {item.path for item in change.inputs if item.effect.kind == "replace"} >= {"deploymentType"}
    lost = _impact(result, "state-lost")
    assert "every file on it" in lost.summary and lost.figures["accepted_by"] is None
    [finding] = [finding for finding in result.findings if finding.severity == "error"]
    assert finding.code == "change.state-lost"
    assert finding.path == ("storage", 0) and finding.file == str(new) and finding.line is not None
    assert "accept_replacement" in finding.hint
    assert not result.ok


def test_a_tier_that_accepts_replacement_turns_the_error_into_a_warning_and_is_compiled_unprotected(tmp_path):
    new = edited_copy(HETERO, tmp_path, (TO_PERSISTENT_1[0], TO_PERSISTENT_1[1] + "    accept_replacement: true\n"))
    result = _diff(HETERO, new)
    assert result.ok
    assert [finding.code for finding in result.findings if finding.severity != "info"] == ["change.state-lost-accepted"]
    assert _impact(result, "state-lost").figures["accepted_by"] == "storage[0].accept_replacement: true"
    assert _only(result, FSX).new.protect is False and _only(result, FSX).old.protect is True


def test_going_to_scratch_also_deletes_the_file_systems_key(tmp_path):
    # A scratch file system is encrypted with an AWS-owned key, so the tier's KMS key goes too: state lost, twice.
    new = edited_copy(HETERO, tmp_path, (TO_PERSISTENT_1[0], "    deployment_type: SCRATCH_2\n    capacity_gib: 26400\n"))
    result = _diff(HETERO, new)
    lost = {impact.subject: impact for impact in result.impacts if impact.kind == "state-lost"}
    assert set(lost) == {"hetero-prod-storage-lustre", "hetero-prod-storage-fsx"}
    assert "key" in lost["hetero-prod-storage-fsx"].summary and "deleted" in lost["hetero-prod-storage-fsx"].summary
    # The key leaves the program while the deployed state protects it, which Pulumi refuses in one run: two steps.
    errors = sorted(finding.code for finding in result.findings if finding.severity == "error")
    assert errors == ["change.protected-delete", "change.state-lost"]
    assert "refused while the deployed stack protects it" in lost["hetero-prod-storage-fsx"].summary


def test_launch_template_change_rolls_the_node_group_in_waves(tmp_path):
    new = edited_copy(
        HETERO, tmp_path, ("    role: training\n    nodes: 32\n", "    role: training\n    root_volume: {size_gib: 400}\n    nodes: 32\n")
    )
    result = _diff(HETERO, new)
    template = _only(result, "aws:ec2/launchTemplate:LaunchTemplate")
    assert template.action == "update" and template.inputs[0].path == "blockDeviceMappings.ebs.volumeSize"
    group = _only(result, NODE_GROUP)
    assert group.action == "update" and group.inputs[0].via == template.urn
    rolling = _impact(result, "rolling")
    # 32 p5en nodes of 8 GPUs; maxUnavailablePercentage 10 of 32, rounded up: 4 nodes a wave, so 8 waves.
    assert rolling.subject == "pool h200"
    assert rolling.figures["nodes"] == 32 and rolling.figures["accelerators"] == 256
    assert rolling.figures["nodes_per_wave"] == 4 and rolling.figures["accelerators_per_wave"] == 32 and rolling.figures["waves"] == 8
    # On a capacity reservation the group updates with the MINIMAL strategy: no nodes launch ahead of the drain.
    assert rolling.figures["strategy"] == "MINIMAL" and rolling.figures["surge_nodes"] == 0


def test_pool_resize_is_in_place_with_the_capacity_delta(tmp_path):
    new = edited_copy(HETERO, tmp_path, ("nodes: {min: 4, max: 16, desired: 8}", "nodes: {min: 4, max: 16, desired: 12}"))
    result = _diff(HETERO, new)
    # The pool spreads over two zones, one node group each: each goes from 4 to 6 nodes, in place.
    groups = [change for change in result.changes if change.type == NODE_GROUP]
    assert [change.action for change in groups] == ["update", "update"]
    assert {(item.path, item.old, item.new) for change in groups for item in change.inputs} == {("scalingConfig.desiredSize", 4, 6)}
    # One impact for the pool: its groups' changes add up.
    resized = _impact(result, "resized")
    assert resized.subject == "pool serve"
    assert resized.figures == {"nodes": 4, "accelerators": 48, "node_groups": 2}  # inf2.48xlarge: 12 Inferentia2 each
    assert "across 2 node groups: +4 nodes, +48 accelerators" in resized.summary
    assert result.ok


def test_a_new_pool_is_new_capacity(tmp_path):
    pool = (
        "  - name: eval\n    instance_type: g6e.xlarge\n    role: dev\n"
        "    nodes: {min: 0, max: 2, desired: 2}\n    placement:\n      domains: [usw2a]\n"
    )
    new = edited_copy(DEV, tmp_path, ("storage:\n  - ", pool + "storage:\n  - "))
    result = _diff(DEV, new)
    added = _impact(result, "capacity-added")
    assert added.subject == "pool eval" and added.figures == {"nodes": 2, "accelerators": 2, "node_groups": 1}
    assert {change.action for change in result.changes if change.type == NODE_GROUP} == {"create"}
    assert result.ok


def test_a_replaced_dependency_replaces_what_reads_its_id(tmp_path):
    # A new subnet CIDR replaces the subnet; node groups read its id in subnetIds, which EKS can't change in place.
    new = edited_copy(DEV, tmp_path, ("vpc_cidr: 10.20.0.0/16", "vpc_cidr: 10.30.0.0/16"))
    result = _diff(DEV, new)
    groups = [change for change in result.changes if change.type == NODE_GROUP]
    assert groups and {change.action for change in groups} == {"replace"}
    assert any(item.path == "subnetIds" and item.via for item in groups[0].inputs)
    replaced = {impact.subject: impact.figures for impact in result.impacts if impact.kind == "node-group-replaced"}
    assert replaced["pool dev"]["accelerators"] == 1 and replaced["pool system"]["accelerators"] == 0


def test_an_invalid_side_is_not_compared_and_reports_its_findings(tmp_path):
    new = edited_copy(P5, tmp_path, ("deployment_type: PERSISTENT_2", "deployment_type: PERSISTENT_1"))
    result = _diff(P5, new)
    assert not result.compared and not result.ok
    assert "fsx.feature-unsupported" in {finding.code for finding in result.findings if finding.severity == "error"}


def test_a_stack_config_side_is_the_stack_with_its_overrides(tmp_path):
    stack = tmp_path / "Pulumi.prod.yaml"
    stack.write_text(f"config:\n  railyard:blueprint: {P5}\n  railyard:overrides:\n    metadata: {{environment: prod}}\n")
    assert side_of(str(stack)) == Side(str(stack), None, "prod", str(tmp_path))
    result = diff(side_of(str(stack)), side_of(str(stack)), at=AT)
    assert result.ok and result.changes == []


def test_against_a_git_revision(tmp_path):
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    blueprint = tmp_path / "cluster.yaml"
    blueprint.write_text(P5.read_text())
    git("init", "-q")
    git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "empty")
    git("add", "cluster.yaml")
    git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "cluster")
    blueprint.write_text(P5.read_text().replace("throughput_mbps_per_tib: 500", "throughput_mbps_per_tib: 1000"))
    result = diff_against_revision(side_of(str(blueprint), str(tmp_path)), "HEAD", at=AT)
    assert result.old.label.endswith("@HEAD")
    assert result.compared
    assert [(item.path, item.old, item.new) for item in _only(result, FSX).inputs] == [("perUnitStorageThroughput", 500, 1000)]


def test_a_bad_revision_is_a_clear_error_not_a_traceback(tmp_path, capsys):
    assert main(["diff", str(P5), "--git", "no-such-revision-xyz"]) == 2
    assert "railyard diff: git archive" in capsys.readouterr().err


def test_outputs_text_markdown_and_json_say_the_same_and_json_is_deterministic(tmp_path, capsys):
    new = edited_copy(HETERO, tmp_path, TO_PERSISTENT_1)
    result = _diff(HETERO, new)
    text, markdown = text_report(result), markdown_report(result)
    assert "replace" in text and "change.state-lost" in text
    assert markdown.startswith("### railyard diff:") and ": blocked" in markdown.splitlines()[0]
    assert "| storage" not in markdown and "every file on it" in markdown
    runs = []
    for _ in range(2):
        assert main(["diff", str(HETERO), str(new), "--json", "--at", "2026-11-24T00:00:00Z"]) == 1
        runs.append(capsys.readouterr().out)
    assert runs[0] == runs[1]
    document = json.loads(runs[0])
    assert document["counts"]["replace"] >= 1 and document["replace_table"]["aws"]["kind"] == "terraform-provider-aws"


@pytest.mark.parametrize("argv", [["diff", "a.yaml"], ["diff", "a.yaml", "b.yaml", "--git", "HEAD"]])
def test_old_and_new_or_one_file_with_git(argv, capsys):
    assert main(argv) == 2
    assert "give OLD and NEW, or one file with --git REV" in capsys.readouterr().err


def test_a_dependency_found_replaced_late_still_replaces_what_reads_its_id():
    # The group is compared before its template; the template first flows as an update (a new version), then is
    # found replaced by its own dependency: the group must end up replaced, not just rolled.
    from dataclasses import replace
    from types import MappingProxyType

    from railyard.change.compare import compare
    from railyard.change.replace_table import ReplaceTable, ResourceRules
    from railyard.mocked import PreviewResource

    def rules(token, inputs, recomputed=()):
        return ResourceRules(token, token, MappingProxyType(inputs), recomputed)

    table = ReplaceTable(
        MappingProxyType({}),
        MappingProxyType(
            {
                "t:m/net:Net": rules("t:m/net:Net", {"cidr": "replace"}),
                "t:m/template:Template": rules("t:m/template:Template", {"net": "replace", "size": "update"}, ("version",)),
                "t:m/group:Group": rules("t:m/group:Group", {"template": "update", "template.id": "replace", "template.version": "update"}),
            }
        ),
    )

    def resource(name, token, inputs, depends=None, outputs=None):
        return PreviewResource(f"urn:pulumi:s::p::{token}::{name}", token, name, "", inputs, f"id-{name}", (), depends or {}, outputs=outputs or {})

    net = "urn:pulumi:s::p::t:m/net:Net::1-net"
    template = "urn:pulumi:s::p::t:m/template:Template::3-template"
    old = [
        resource("1-net", "t:m/net:Net", {"cidr": "10.0.0.0/16"}),
        resource("2-group", "t:m/group:Group", {"template": {"id": "id-3-template", "version": 1}}, {"template": [template]}),
        resource("3-template", "t:m/template:Template", {"net": "id-1-net", "size": 1}, {"net": [net]}, outputs={"version": 1}),
    ]
    new = [replace(old[0], inputs={"cidr": "10.1.0.0/16"}), old[1], replace(old[2], inputs={"net": "id-1-net", "size": 2})]
    # In URN order the group comes first: it takes the template's new version (template.version, recomputed)
    # before the template is found replaced by its net; that flow must give way to the new id's.
    changes = {change.name: change for change in compare(old, new, table)}
    assert changes["1-net"].action == "replace"
    assert changes["3-template"].action == "replace"
    group = changes["2-group"]
    assert group.action == "replace"
    assert [(item.path, item.cause) for item in group.inputs] == [("template.id", "replace")]


AI_ON_EKS = EXAMPLES / "ai-on-eks.yaml"
KARPENTER_POOL = "    provisioner: karpenter      # ai-on-eks places its inference nodes with Karpenter\n"


def test_a_node_class_change_drifts_a_karpenter_pool_whose_nodes_are_replaced_a_budget_at_a_time(tmp_path):
    new = edited_copy(AI_ON_EKS, tmp_path, (KARPENTER_POOL, KARPENTER_POOL + "    root_volume: {size_gib: 300}\n"))
    result = _diff(AI_ON_EKS, new)
    assert {change.type for change in result.changes} == {"kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"}
    assert {change.action for change in result.changes} == {"update"}  # pulumi-kubernetes patches the object in place
    drifted = _impact(result, "karpenter-drift")
    # Two NodePools (one per zone), each limited to 384 vCPUs = 8 g6e.12xlarge of 4 L40S; "nodes: 10%" of 8, rounded up, is 1.
    assert drifted.subject == "pool gpu-inference"
    assert drifted.figures["nodes"] == 16 and drifted.figures["accelerators"] == 64
    assert drifted.figures["nodes_per_wave"] == 2 and drifted.figures["accelerators_per_wave"] == 8 and drifted.figures["waves"] == 8
    assert drifted.figures["because"] == ["EC2NodeClass spec.blockDeviceMappings.ebs.volumeSize"]


def test_a_karpenter_limit_change_is_not_drift(tmp_path):
    # spec.limits is outside the NodePool's template hash: the pool may grow, no node is replaced.
    old = pinned_copy(AI_ON_EKS, tmp_path / "old")
    new = edited_copy(old, tmp_path, (KARPENTER_POOL + "    nodes: {min: 0, max: 16}", KARPENTER_POOL + "    nodes: {min: 0, max: 24}"))
    result = _diff(old, new)
    # The NodePools' limits and the Kueue queue's quota follow the new maximum, both patched in place.
    assert {change.type: change.action for change in result.changes} == {
        "kubernetes:karpenter.sh/v1:NodePool": "update",
        "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue": "update",
    }
    assert [impact.kind for impact in result.impacts] == []


def test_an_in_place_update_flows_only_into_inputs_that_read_what_it_recomputes(tmp_path):
    # A new cost-center tag updates the VPC in place. Its recomputed outputs (IPv6 association) are read by no one,
    # so nothing that holds its id is touched; the launch templates' instance tags give each a new version, which
    # the node groups read: they roll, and nothing is replaced.
    new = edited_copy(P5, tmp_path, ("cost_center: cc-fm-1001", "cost_center: cc-fm-1002"))
    result = _diff(P5, new)
    assert {change.action for change in result.changes} == {"update"}
    flowed = {(change.name, item.path) for change in result.changes for item in change.inputs if item.via}
    assert flowed == {("p5-train-prod-system-all-zones", "launchTemplate.version"), ("p5-train-prod-train-use1a", "launchTemplate.version")}
    assert {impact.kind for impact in result.impacts} == {"rolling"}


def test_an_unpinned_plan_that_moves_a_subnet_is_an_error_that_says_how_to_lock(tmp_path):
    # The same Karpenter ceiling raised on a blueprint never locked: its subnets are re-carved from the new demand.
    new = edited_copy(AI_ON_EKS, tmp_path, (KARPENTER_POOL + "    nodes: {min: 0, max: 16}", KARPENTER_POOL + "    nodes: {min: 0, max: 24}"))
    result = _diff(AI_ON_EKS, new)
    moved = [finding for finding in result.findings if finding.code == "change.subnet-moved"]
    assert moved and all(finding.severity == "error" for finding in moved)
    assert "railyard lock OLD --write" in moved[0].hint and not result.ok


def test_a_pin_changed_on_purpose_moves_its_subnet_with_a_warning(tmp_path):
    old = pinned_copy(DEV, tmp_path / "old")
    text = old.read_text()
    pinned = next(line for line in text.splitlines() if "private-us-west-2b:" in line)
    new = edited_copy(old, tmp_path, (pinned, "    private-us-west-2b: 10.20.128.0/21"))
    result = _diff(old, new)
    (moved,) = [finding for finding in result.findings if finding.code == "change.subnet-moved"]
    assert moved.severity == "warning" and moved.path == ("cloud", "subnet_cidrs", "private-us-west-2b")


def _dev_at(tmp_path: Path, version: str) -> Path:
    """The dev example on Kubernetes `version`, in a folder of its own (the edited side keeps the file name)."""
    (tmp_path / "old").mkdir()
    return edited_copy(DEV, tmp_path / "old", ('version: "1.35"', f'version: "{version}"'))


def test_kubernetes_up_one_minor_version_rolls_every_node_group_after_the_control_plane_and_the_node_add_ons(tmp_path):
    old = _dev_at(tmp_path, "1.34")
    new = edited_copy(old, tmp_path, ('version: "1.34"', 'version: "1.35"'))
    result = _diff(old, new)
    assert result.ok
    groups = [change for change in result.changes if change.type == NODE_GROUP]
    assert groups and all({(item.path, item.old, item.new) for item in change.inputs} == {("version", "1.34", "1.35")} for change in groups)
    upgrade = _impact(result, "upgrade")
    phases = upgrade.figures["phases"]
    assert phases[0] == ["control plane"]
    rolls = next(index for index, phase in enumerate(phases) if any(label.endswith(" rolls") for label in phase))
    before_nodes = {label for phase in phases[1:rolls] for label in phase}
    assert {"add-on kube-proxy", "add-on eks-pod-identity-agent"} <= before_nodes
    assert "add-on coredns" in {label for phase in phases[rolls + 1 :] for label in phase}
    assert {impact.kind for impact in result.impacts} >= {"rolling", "upgrade"}


def test_kubernetes_two_minor_versions_at_once_is_refused(tmp_path):
    old = _dev_at(tmp_path, "1.33")
    new = edited_copy(old, tmp_path, ('version: "1.33"', 'version: "1.35"'))
    result = _diff(old, new)
    (skip,) = [finding for finding in result.findings if finding.code == "change.version-skip"]
    assert skip.severity == "error" and "one minor version at a time" in skip.message and "upgrade to 1.34 first" in skip.hint
    assert not result.ok


def test_a_cluster_deployed_before_pins_adopts_them_with_nothing_replaced(tmp_path):
    """`railyard lock --layout legacy --write` pins the ranges a5a8388 planned: against that plan's own preview, nothing moves."""
    recorded = json.loads((Path(__file__).resolve().parents[1] / "topology" / "cluster" / "fixtures" / "subnets_a5a8388.json").read_text())
    copy = tmp_path / P5.name
    copy.write_text(P5.read_text())
    assert main(["lock", str(copy), "--layout", "legacy", "--write"]) == 0
    from blueprints.loader import load_blueprint

    blueprint = load_blueprint(str(copy)).blueprint
    assert blueprint is not None
    assert {key: str(cidr) for key, cidr in blueprint.cloud.pinned_ranges.items()} == recorded["subnets"][
        "blueprints/examples/p5-capacity-block.yaml"
    ]


def test_a_new_pool_shows_its_hourly_cost_beside_its_accelerators_in_text_json_and_markdown(dev_with_a_new_priced_pool):
    result = _diff(*dev_with_a_new_priced_pool)
    added = [delta for delta in result.cost.deltas if delta.key == "pool:eval"]
    assert len(added) == 1 and added[0].what == "added" and added[0].delta_usd == pytest.approx(2 * 1.861)
    # Two more nodes also add two 200 GiB root volumes, which railyard can't price in us-west-2: an unknown
    # change, never a change of zero. Nothing else moves.
    volumes = next(delta for delta in result.cost.deltas if delta.key == "root-volumes")
    assert volumes.delta_usd is None and {delta.key for delta in result.cost.deltas} == {"pool:eval", "root-volumes"}
    expected = f"{2 * 1.861:+,.2f} USD/h ({2 * 1.861 * 730:+,.0f} USD a month of 730 h): pool eval: g6e.xlarge, added"
    text, markdown = text_report(result), markdown_report(result)
    assert "cost: pool:eval" in text and expected in text
    assert f"| cost: pool:eval | {expected} |" in markdown and "| USD per hour as planned |" in markdown
    document = result.as_json()
    line = next(line for line in document["cost"]["lines"] if line["key"] == "pool:eval")
    assert line == {
        "key": "pool:eval",
        "item": "pool eval: g6e.xlarge",
        "what": "added",
        "moved": ["hourly_usd"],
        "hourly_usd": {"before": 0.0, "after": 3.72, "change": 3.72},
        "upfront_usd": {"before": 0.0, "after": 0.0, "change": 0.0},
    }
    volumes = next(line for line in document["cost"]["lines"] if line["key"] == "root-volumes")
    assert volumes["hourly_usd"] == {"before": None, "after": None, "change": None}  # unpriced on both sides: unknown, not zero
