"""Pods get addresses on every node `validate` passes: custom networking needs a free card-0 slot, and pods_per_node a CNI that can address it.

The probe is the deploy audit's (deploy-realism-v2 finding 1): trn2-ultraserver
with custom networking turned on, which validated clean and planned a pod
subnet of zero addresses a node.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from railyard.pipeline import validate
from tests.yaml_text import edited_copy, replace_once

EXAMPLES = Path(__file__).resolve().parents[3] / "blueprints" / "examples"
REFUSED = ("network.no-pod-eni", "network.pods-over-cni-limit")
CUSTOM = """  topology_aware_scheduling: true
  pod_networking:
    mode: custom_networking
    pods_per_node: 16
    minimum_ip_target: 16
    warm_ip_target: 2
    pod_cidrs: [100.64.0.0/16]
"""


def findings(tmp_path: Path, example: str, old: str, new: str) -> list:
    text = replace_once((EXAMPLES / f"{example}.yaml").read_text(encoding="utf-8"), old, new)
    path = tmp_path / f"{example}.yaml"
    path.write_text(text, encoding="utf-8")
    return [finding for finding in validate(str(path)).findings if finding.code in REFUSED]


def test_custom_networking_on_trn2u_with_card_zero_full_is_refused_at_the_mode(tmp_path):
    found = findings(tmp_path, "trn2-ultraserver", "  topology_aware_scheduling: true\n", CUSTOM)
    assert [(f.code, f.severity, f.path, f.certificate.get("pools")) for f in found] == [
        ("network.no-pod-eni", "error", ("kubernetes", "pod_networking", "mode"), ["ultra"])
    ]
    assert "2 interface slot(s)" in found[0].message and "prefix_delegation" in found[0].hint


def test_custom_networking_on_p5en_keeps_two_pod_enis_and_passes():
    """rail-131k: p5en's card 0 has 4 slots, so 2 are left for pods after the primary and the EFA."""
    result = validate(str(EXAMPLES / "rail-131k.yaml"))
    assert [f for f in result.findings if f.code in REFUSED] == []


@pytest.mark.parametrize(
    ("pods", "mode", "limit"),
    [
        # trn2u: one CNI ENI (card 0's second slot holds the EFA), 50 IPv4 each: 1 x 49 + 2 - 2 host-network pods.
        (120, "secondary_ips", 49),
        # prefix delegation: 1 x 49 x 16 + 2 capped at 250 (over 30 vCPUs), less the 2 host-network pods.
        (249, "prefix_delegation", 248),
    ],
)
def test_pods_per_node_above_what_the_cni_addresses_is_an_error_naming_the_limit(tmp_path, pods, mode, limit):
    networking = f"  topology_aware_scheduling: true\n  pod_networking:\n    mode: {mode}\n    pods_per_node: {pods}\n"
    found = findings(tmp_path, "trn2-ultraserver", "  topology_aware_scheduling: true\n", networking)
    ultra = [f for f in found if f.certificate.get("pools") == ["ultra"]]
    assert [(f.code, f.path) for f in ultra] == [("network.pods-over-cni-limit", ("kubernetes", "pod_networking", "pods_per_node"))]
    assert f"at most {limit} pods under {mode}" in ultra[0].message


def test_pods_per_node_at_the_limit_passes(tmp_path):
    networking = "  topology_aware_scheduling: true\n  pod_networking:\n    mode: secondary_ips\n    pods_per_node: 49\n"
    found = findings(tmp_path, "trn2-ultraserver", "  topology_aware_scheduling: true\n", networking)
    assert [f for f in found if f.certificate.get("pools") == ["ultra"]] == []


def test_eks_ami_managed_groups_say_that_eks_not_the_blueprint_sets_their_pod_limit():
    """rail-131k states pods_per_node 16 under custom networking; its groups are EKS-AMI managed node groups."""
    result = validate(str(EXAMPLES / "rail-131k.yaml"))
    (finding,) = [f for f in result.findings if f.code == "network.max-pods-by-eks"]
    assert (finding.severity, finding.path, finding.certificate["pools"]) == (
        "warning",
        ("kubernetes", "pod_networking", "pods_per_node"),
        ["system", "frontier"],
    )
    assert "takes precedence over a launch template's" in finding.message and "frontier 98" in finding.message


# rail-131k in the default mode (its warm targets kept): the 16,384-node subnet no longer fits (compile.plan), which is another finding.
RAIL_DEFAULT_MODE = (
    ("    mode: custom_networking\n    pods_per_node: 16\n", "    mode: secondary_ips\n"),
    ("    pod_cidrs: [100.64.0.0/16, 100.65.0.0/16, 100.66.0.0/16, 100.67.0.0/16, 100.68.0.0/16,\n", ""),
    ("                100.69.0.0/16, 100.70.0.0/16, 100.71.0.0/16, 100.72.0.0/16]\n", ""),
)


@pytest.mark.parametrize(
    ("example", "edit", "pool", "instance_type", "eks_figure", "addressed"),
    [
        # eni-max-pods.txt @ b52188387f2e: p5.48xlarge 100 and trn2.48xlarge 100 = 2 card-0 slots x 49 + 2; p5en.48xlarge 198 = 4 x 49 + 2.
        # The efa-only interface holds one slot, so the CNI addresses 1 x 49 (p5, trn2u) and 3 x 49 (p5en).
        ("p5-capacity-block", None, "train", "p5.48xlarge", 100, 49),
        ("trn2-ultraserver", None, "ultra", "trn2u.48xlarge", 100, 49),
        ("rail-131k", RAIL_DEFAULT_MODE, "frontier", "p5en.48xlarge", 198, 147),
    ],
)
def test_the_default_mode_on_efa_card_zero_warns_that_eks_max_pods_counts_the_efa_only_slot(
    tmp_path, example, edit, pool, instance_type, eks_figure, addressed
):
    path = EXAMPLES / f"{example}.yaml"
    if edit is not None:
        text = (EXAMPLES / f"{example}.yaml").read_text(encoding="utf-8")
        for old, new in edit:
            text = replace_once(text, old, new)
        path = tmp_path / f"{example}.yaml"
        path.write_text(text, encoding="utf-8")
    (finding,) = [f for f in validate(str(path)).findings if f.code == "network.max-pods-by-eks"]
    assert (finding.severity, finding.path, finding.certificate["pools"]) == ("warning", ("kubernetes", "pod_networking", "mode"), [pool])
    assert (
        f"{pool} ({instance_type}) gets maxPods {eks_figure} from eni-max-pods.txt, which counts the efa-only slot on card 0, "
        f"but the CNI addresses {addressed} pods there (kubelet limit {addressed + 2} with the 2 host-network pods)"
    ) in finding.message
    assert f"maxPods: {addressed + 2} for {pool}" in finding.hint and f"within {addressed} on {pool}" in finding.hint


def test_prefix_delegation_on_p5_draws_no_max_pods_warning(tmp_path):
    """With prefixes p5's one CNI ENI addresses 248 pods, more than the 250-capped limit EKS admits less its host-network pods."""
    path = edited_copy(EXAMPLES / "p5-capacity-block.yaml", tmp_path, PREFIX_MODE)
    assert [f for f in validate(str(path)).findings if f.code == "network.max-pods-by-eks"] == []


PREFIX_MODE = ("  topology_aware_scheduling: true\n", "  topology_aware_scheduling: true\n  pod_networking:\n    mode: prefix_delegation\n")


def test_a_custom_ami_on_p5_in_the_default_mode_gets_the_pod_limit_its_cni_addresses(tmp_path):
    """railyard writes a custom AMI's NodeConfig, so it sets maxPods 51 (49 + 2) instead of leaving nodeadm's 100."""
    from blueprints.catalog import load_catalog
    from blueprints.loader import load_blueprint
    from topology.cluster.node_groups import plan_node_groups

    custom_ami = ("    role: training\n", "    role: training\n    ami_id: ami-0123456789abcdef0\n")
    path = edited_copy(EXAMPLES / "p5-capacity-block.yaml", tmp_path, custom_ami)
    blueprint = load_blueprint(str(path)).blueprint
    assert blueprint is not None
    (train,) = [group for group in plan_node_groups(blueprint, load_catalog()) if group.pool == "train"]
    assert (train.max_pods, train.addresses.default_max_pods) == (51, 100)
    assert [f for f in validate(str(path)).findings if f.code == "network.max-pods-by-eks"] == []
