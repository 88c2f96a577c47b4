"""Whoever applies the Kubernetes layer reaches the API server, as the identity the cluster knows.

Two designs, each previewed end to end: the layer in the cluster's own stack
behind a public endpoint restricted to the deployer's CIDRs, and the layer in
a stack of its own, run from inside the VPC, reading the cluster through a
StackReference. A private-only endpoint with the layer in the cluster's stack
is refused at validate, and every Helm release waits for the system nodes.
"""

from __future__ import annotations

import json

import pulumi
import pytest

from components.plan.kubeconfig import DeployerIdentity, render_kubeconfig
from railyard.mocked import run_preview
from railyard.pipeline import validate
from railyard.program import deploy
from tests.preview.conftest import ROOT, write_stack
from tests.preview.test_program import under_mocks

RELEASE = "kubernetes:helm.sh/v3:Release"
SAME_STACK = "    kubernetes: {layer_stack: same, endpoint: {private: true, public_access_cidrs: [203.0.113.0/24]}}\n"


def _stack(tmp_path, name: str, overrides: str, extra: str = "") -> str:
    project = write_stack(tmp_path, name, "dev-g6e.yaml", overrides)
    if extra:
        path = project / f"Pulumi.{name}.yaml"
        path.write_text(path.read_text() + extra)
    return str(project)


def test_private_only_endpoint_with_the_layer_in_the_cluster_stack_is_refused_with_both_ways_out(tmp_path):
    project = _stack(tmp_path, "sealed", "    kubernetes: {layer_stack: same, endpoint: {private: true, private_access_cidrs: []}}\n")
    validation = validate(None, "sealed", project)
    (finding,) = [finding for finding in validation.findings if finding.code == "endpoint.unreachable"]
    assert finding.path == ("kubernetes", "endpoint") and finding.line is not None
    assert "public_access_cidrs" in finding.hint and "layer_stack: separate" in finding.hint
    assert run_preview(None, "sealed", project).resources == []


def test_a_separate_layer_with_no_way_in_for_its_runner_is_refused(tmp_path):
    project = _stack(tmp_path, "closed", "    kubernetes: {endpoint: {private_access_cidrs: []}}\n")
    codes = {finding.code for finding in validate(None, "closed", project).findings if finding.severity == "error"}
    assert codes == {"endpoint.runner-unreachable"}


def test_public_endpoint_restricted_to_the_deployer_carries_the_layer_in_the_cluster_stack(tmp_path):
    result = run_preview(None, "laptop", _stack(tmp_path, "laptop", SAME_STACK))
    assert result.ok and result.layer_stack is None
    (cluster,) = result.of_type("aws:eks/cluster:Cluster")
    vpc = cluster.inputs["vpcConfig"]
    assert (vpc["endpointPrivateAccess"], vpc["endpointPublicAccess"], vpc["publicAccessCidrs"]) == (True, True, ["203.0.113.0/24"])
    assert {release.inputs["name"] for release in result.of_type(RELEASE)} == {"nvidia-device-plugin", "dcgm-exporter", "kueue"}
    assert all(resource.urn.startswith("urn:pulumi:laptop::") for resource in result.resources)


def test_every_release_waits_for_the_system_node_group_with_an_explicit_timeout(tmp_path):
    result = run_preview(None, "laptop", _stack(tmp_path, "laptop", SAME_STACK))
    system = result.named("devbox-dev-system-all-zones")
    releases = result.of_type(RELEASE)
    assert releases
    for release in releases:
        assert system.urn in release.dependencies, release.name
    timeouts = {release.inputs["name"]: release.inputs["timeout"] for release in releases}
    assert timeouts == {"nvidia-device-plugin": 600, "dcgm-exporter": 600, "kueue": 900}


def test_private_access_cidrs_open_443_on_the_cluster_security_group(p5):
    rules = [rule for rule in p5.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule") if "cidrIpv4" in rule.inputs]
    assert [(rule.inputs["cidrIpv4"], rule.inputs["ipProtocol"], rule.inputs["fromPort"], rule.inputs["toPort"]) for rule in rules] == [
        ("10.0.0.0/16", "tcp", 443, 443)
    ]
    assert rules[0].inputs["securityGroupId"].startswith("sg-")


def test_the_layer_stack_reads_the_cluster_stack_and_registers_only_kubernetes_objects():
    cluster = run_preview(None, "prod", ROOT)
    layer = run_preview(None, "prod-kubernetes", ROOT)
    assert cluster.ok and layer.ok
    assert not [r for r in cluster.resources if r.type.startswith("kubernetes:") or "KubernetesLayer" in r.type]
    assert {r.type.split(":")[0] for r in layer.resources} == {"kubernetes", "railyard", "pulumi"}
    (volume,) = layer.of_type("kubernetes:core/v1:PersistentVolume")
    assert volume.inputs["spec"]["csi"]["volumeHandle"] == cluster.outputs["fileSystems"]["lustre"]["id"]
    assert layer.outputs["clusterName"] == "p5-train-prod"
    # Nothing of the cluster's to wait for in the layer's own stack: a release waits at most for its own namespace.
    assert not [r for r in layer.resources if r.type == RELEASE and any(not d.endswith(f"{r.name}-namespace") for d in r.dependencies)]


def test_a_blueprint_file_with_a_separate_layer_previews_both_stacks(p5):
    stacks = {resource.urn.split("::", 1)[0] for resource in p5.resources}
    assert stacks == {"urn:pulumi:preview", "urn:pulumi:preview-kubernetes"}
    assert p5.layer_stack["stack"] == "preview-kubernetes"


def test_a_layer_stack_over_a_blueprint_that_keeps_its_layer_is_refused(tmp_path):
    project = _stack(tmp_path, "laptop", SAME_STACK)
    (tmp_path / "Pulumi.laptop-kubernetes.yaml").write_text("config:\n  railyard:clusterStack: laptop\n")

    def program():
        with pytest.raises(pulumi.RunError, match="layer_stack: same"):
            deploy("laptop-kubernetes", project)

    _, monitor = under_mocks(program)
    assert monitor.registrations == []


def test_the_provider_and_the_kubeconfig_act_as_the_stack_identity(tmp_path):
    identity = "  aws:profile: ml-platform\n  aws:assumeRoles:\n    - roleArn: arn:aws:iam::111122223333:role/deployer\n"
    project = _stack(tmp_path, "laptop", SAME_STACK, identity)
    result = run_preview(None, "laptop", project)
    (provider,) = result.of_type("pulumi:providers:aws")
    assert provider.inputs["profile"] == "ml-platform"
    assert json.loads(provider.inputs["assumeRoles"]) == [{"roleArn": "arn:aws:iam::111122223333:role/deployer"}]

    def program():
        handles = deploy("laptop", project)
        return pulumi.Output.unsecret(handles.kubeconfig).future()

    (future, _) = under_mocks(program)
    from pulumi.runtime.sync_await import _sync_await

    user = json.loads(_sync_await(future))["users"][0]["user"]["exec"]
    assert user["args"][-2:] == ["--role-arn", "arn:aws:iam::111122223333:role/deployer"]
    assert user["env"] == [{"name": "AWS_PROFILE", "value": "ml-platform"}]


def test_kubeconfig_without_an_identity_uses_the_ambient_credentials():
    config = json.loads(render_kubeconfig("c", "https://x", "Q0E=", "us-east-1", DeployerIdentity()))
    command = config["users"][0]["user"]["exec"]
    assert "--role-arn" not in command["args"] and "env" not in command


def test_with_custom_networking_every_release_waits_for_each_zones_system_group(tmp_path):
    overrides = (
        "    kubernetes: {layer_stack: same, endpoint: {private: true, public_access_cidrs: [203.0.113.0/24]},\n"
        "                 pod_networking: {mode: custom_networking, pods_per_node: 8, pod_cidrs: [100.64.0.0/16]}}\n"
    )
    result = run_preview(None, "laptop", _stack(tmp_path, "laptop", overrides))
    assert result.ok, [finding.message for finding in result.findings if finding.severity == "error"]
    systems = {result.named(f"devbox-dev-system-{zone}").urn for zone in ("us-west-2a", "us-west-2b")}
    for release in result.of_type(RELEASE):
        assert systems <= set(release.dependencies), release.name
