"""`acceptance.on_failure: replace`, compiled: what is refused, what is warned, and what is emitted, on both stacks.

`adt-eks-capacity-block` gates its 8 x p5.48xlarge pool `p5` on a Capacity Block; with `on_failure: replace`:

    cluster stack: role adt-eks-prod-acceptance-role  (trusts pods.eks.amazonaws.com)
                   policy adt-eks-prod-acceptance-replace (SetInstanceHealth, eks-* groups tagged for p5's node group)
                   PodIdentityAssociation kube-system/railyard-acceptance -> the role
    layer stack:   DaemonSet railyard-acceptance-p5: AWS_REGION=us-west-2, --replace-on-failure
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blueprints.catalog import load_catalog
from blueprints.loader import load_blueprint
from blueprints.models.acceptance import Acceptance
from components.acceptance_access import plan_acceptance_access, replacement_policy
from components.kubernetes.acceptance import checker_script, daemon_set
from policies.runner import run_policies
from railyard.checker_bundle import checker_bundle
from railyard.mocked import MOCK_ACCOUNT, run_preview
from tests.kubernetes.fixtures import EXAMPLES, k8s_findings, load, mutate
from tests.kubernetes.k8s_types import conforms
from tests.yaml_text import edited_copy
from topology.cluster.acceptance import NODE_ADDONS, plan_gates
from topology.cluster.kubernetes import lay_out_kubernetes
from topology.cluster.kubernetes_checks import check_kubernetes
from topology.cluster.labels import ACCEPTANCE_TAINT
from topology.cluster.node_groups import plan_node_groups
from topology.cluster.scheduling import node_groups

CATALOG = load_catalog()
ADT = EXAMPLES / "adt-eks-capacity-block.yaml"
# The small fabric (tests/kubernetes/fixtures.py) with its `gpu` pool (4 x p5.48xlarge, on demand) gated.
GATED = mutate(
    "    fabric: efa\n    storage:\n      - tier: lustre\n",
    "    fabric: efa\n    acceptance: {level: standard}\n    storage:\n      - tier: lustre\n",
)
REPLACING = ("    acceptance:\n      level: standard\n", "    acceptance:\n      level: standard\n      on_failure: replace\n")
ROLE, POLICY, ASSOCIATION = "aws:iam/role:Role", "aws:iam/policy:Policy", "aws:eks/podIdentityAssociation:PodIdentityAssociation"


def _replacing(blueprint, pools: tuple[str, ...] | None = None):
    """`blueprint` with `on_failure: replace` on its gated pools (or on `pools`, gating them)."""
    changed = []
    for pool in blueprint.pools:
        if pools is not None and pool.name in pools:
            pool = pool.model_copy(update={"acceptance": Acceptance(on_failure="replace")})
        elif pools is None and pool.acceptance is not None:
            pool = pool.model_copy(update={"acceptance": pool.acceptance.model_copy(update={"on_failure": "replace"})})
        changed.append(pool)
    return blueprint.model_copy(update={"pools": changed})


def test_a_karpenter_pool_cant_replace_it_has_no_auto_scaling_group(tmp_path):
    edit = ("    provisioner: karpenter      # ai-on-eks places its inference nodes with Karpenter\n",) * 2
    path = edited_copy(EXAMPLES / "ai-on-eks.yaml", tmp_path, (edit[0], edit[1] + "    acceptance: {on_failure: replace}\n"))
    loaded = load_blueprint(str(path))
    assert loaded.blueprint is None
    [finding] = loaded.findings
    assert (finding.code, finding.severity, finding.path_text) == ("pool.acceptance-replace-karpenter", "error", "pools[1].acceptance.on_failure")
    assert "pool 'gpu-inference' sets acceptance.on_failure: replace, but its nodes are launched by Karpenter" in finding.message
    assert finding.hint == "use on_failure: taint on this pool (a failed node stays tainted for an operator), or provisioner: managed_node_group"


def test_an_unknown_on_failure_is_refused_with_both_values_offered():
    loaded = load(mutate("acceptance: {level: standard}", "acceptance: {level: standard, on_failure: terminate}", GATED))
    assert [(f.code, f.path_text, f.hint) for f in loaded.findings] == [
        ("schema.invalid-value", "pools[0].acceptance.on_failure", "use one of 'taint' or 'replace'")
    ]


def test_replacing_with_the_pod_identity_agent_off_is_refused_at_the_agents_switch():
    text = mutate("acceptance: {level: standard}", "acceptance: {level: standard, on_failure: replace}", GATED)
    text = mutate("kubernetes:\n", "kubernetes:\n  addons:\n    pod_identity_agent: {enabled: false}\n    ebs_csi_driver: {enabled: false}\n", text)
    [finding] = [f for f in k8s_findings(text) if f.code.startswith("acceptance.")]
    assert (finding.code, finding.severity, finding.path_text) == (
        "acceptance.replace-without-pod-identity",
        "error",
        "kubernetes.addons.pod_identity_agent.enabled",
    )
    assert finding.message.startswith("pools ['gpu'] replace failed nodes") and finding.certificate["pools"] == ["gpu"]


def test_a_replacing_pool_with_the_agent_on_and_on_demand_capacity_is_clean():
    assert k8s_findings(mutate("acceptance: {level: standard}", "acceptance: {level: standard, on_failure: replace}", GATED)) == []


def test_replacing_on_a_full_capacity_block_warns_that_the_replacement_waits_for_the_clean_up():
    blueprint = _replacing(load_blueprint(str(EXAMPLES / "p5-capacity-block.yaml")).blueprint, ("train",))
    [finding] = [f for f in check_kubernetes(blueprint, CATALOG) if f.code == "acceptance.replace-capacity-block"]
    assert (finding.severity, finding.path_text, finding.certificate["reservation"]) == (
        "warning",
        "pools[0].acceptance.on_failure",
        "cr-0a1b2c3d4e5f60718",
    )
    assert "the pool fills the block (64 nodes, 64 instances): a replacement waits for the failed instance's clean-up" in finding.message


def test_the_pod_identity_agent_tolerates_the_acceptance_taint_where_a_pool_replaces():
    blueprint = _replacing(load_blueprint(str(ADT)).blueprint)
    toleration, source = NODE_ADDONS["pod_identity_agent"]
    assert toleration.tolerates(ACCEPTANCE_TAINT) and "values.yaml @ 00bc0581" in source
    assert blueprint.kubernetes.addons.pod_identity_agent.enabled


def test_the_policy_allows_set_instance_health_on_this_clusters_replace_pools_groups_only():
    blueprint = _replacing(load_blueprint(str(ADT)).blueprint)
    gates = plan_gates(blueprint, node_groups(blueprint, CATALOG))
    plan = plan_acceptance_access("adt-eks-prod", "us-west-2", "aws", gates, plan_node_groups(blueprint, CATALOG), {})
    assert plan is not None and plan.node_groups == ("p5-az2",)
    assert replacement_policy(plan, "123456789012") == {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "ReplaceNodesThatFailAcceptance",
                "Effect": "Allow",
                "Action": "autoscaling:SetInstanceHealth",
                "Resource": "arn:aws:autoscaling:us-west-2:123456789012:autoScalingGroup:*:autoScalingGroupName/eks-*",
                "Condition": {"StringEquals": {"aws:ResourceTag/eks:cluster-name": "adt-eks-prod", "aws:ResourceTag/eks:nodegroup-name": ["p5-az2"]}},
            }
        ],
    }


@pytest.mark.parametrize("example", sorted(path.stem for path in EXAMPLES.glob("*.yaml")))
def test_no_shipped_example_gets_the_checkers_aws_access_or_region_even_with_every_pool_gated(example):
    blueprint = load_blueprint(str(EXAMPLES / f"{example}.yaml")).blueprint
    gated = blueprint.model_copy(
        update={"pools": [pool.model_copy(update={"acceptance": pool.acceptance or Acceptance()}) for pool in blueprint.pools]}
    )
    for design in (blueprint, gated):
        gates = lay_out_kubernetes(design, CATALOG).acceptance
        assert plan_acceptance_access("c", "us-east-1", "aws", gates, plan_node_groups(design, CATALOG), {}) is None
        assert all(not gate.replaces and "--replace-on-failure" not in checker_script(gate)[2] for gate in gates)
    if blueprint.pools[0].acceptance is not None:  # adt-eks-capacity-block: its DaemonSet is what it was
        gates = plan_gates(blueprint, node_groups(blueprint, CATALOG))
        bundle = checker_bundle(blueprint, CATALOG, gates)
        env = daemon_set(gates[0], bundle)["template"]["spec"]["containers"][0]["env"]
        assert bundle.region == "" and [variable["name"] for variable in env] == [
            "NODE_NAME",
            "PYTHONPATH",
            "PATH",
            "NVIDIA_VISIBLE_DEVICES",
            "NVIDIA_DRIVER_CAPABILITIES",
        ]


@pytest.fixture(scope="module")
def replacing_preview(tmp_path_factory):
    path = edited_copy(ADT, tmp_path_factory.mktemp("adt"), REPLACING)
    result = run_preview(str(path), project_dir=Path(__file__).resolve().parents[2])
    assert result.ok, [finding.as_json() for finding in result.findings if finding.severity == "error"]
    return result


def test_the_cluster_stack_makes_the_role_the_policy_and_the_association(replacing_preview):
    [role] = [item for item in replacing_preview.of_type(ROLE) if item.name == "adt-eks-prod-acceptance-role"]
    trust = json.loads(role.inputs["assumeRolePolicy"])
    assert trust["Statement"] == [
        {"Effect": "Allow", "Principal": {"Service": "pods.eks.amazonaws.com"}, "Action": ["sts:AssumeRole", "sts:TagSession"]}
    ]
    [policy] = [item for item in replacing_preview.of_type(POLICY) if item.name == "adt-eks-prod-acceptance-replace"]
    [statement] = json.loads(policy.inputs["policy"])["Statement"]
    assert statement["Action"] == "autoscaling:SetInstanceHealth"
    assert statement["Resource"] == f"arn:aws:autoscaling:us-west-2:{MOCK_ACCOUNT}:autoScalingGroup:*:autoScalingGroupName/eks-*"
    assert statement["Condition"]["StringEquals"]["aws:ResourceTag/eks:nodegroup-name"] == ["p5-az2"]
    [association] = [item for item in replacing_preview.of_type(ASSOCIATION) if item.name == "adt-eks-prod-acceptance-checker"]
    inputs = association.inputs
    assert (inputs["clusterName"], inputs["namespace"], inputs["serviceAccount"]) == ("adt-eks-prod", "kube-system", "railyard-acceptance")
    assert inputs["tags"]["Name"] == "adt-eks-prod-acceptance-checker" and "owner" in inputs["tags"]


def test_the_layer_stack_gives_the_checker_its_region_and_the_replace_flag(replacing_preview):
    [daemon] = [
        item for item in replacing_preview.of_type("kubernetes:apps/v1:DaemonSet") if item.inputs["metadata"]["name"] == "railyard-acceptance-p5"
    ]
    spec = daemon.inputs["spec"]
    assert conforms(spec, "apps", "v1", "DaemonSetSpecArgsDict") == []
    checker = spec["template"]["spec"]["containers"][0]
    assert {"name": "AWS_REGION", "value": "us-west-2"} in checker["env"]
    script = checker["command"][2].split("\n")[2:]  # after the wait for the DCGM step's marker
    assert script[0].endswith('--publish "$NODE_NAME" --lift-taint --replace-on-failure')
    assert script[2].endswith('--publish "$NODE_NAME" --replace-on-failure; fi')


def test_the_replacing_preview_passes_every_policy_of_the_pack(replacing_preview):
    assert [(v.rule_id, v.urn.rsplit("::", 1)[-1]) for v in run_policies(replacing_preview).violations] == []


def test_the_shipped_example_previews_without_any_of_it():
    result = run_preview(str(ADT), project_dir=Path(__file__).resolve().parents[2])
    assert not [item.name for item in result.resources if "acceptance" in item.name and item.type.startswith("aws:")]
    assert not [item for item in result.of_type(ASSOCIATION) if item.inputs["serviceAccount"] == "railyard-acceptance"]
