"""Which EKS add-ons a cluster gets, at which versions, in which order, and the mistakes around them."""

from __future__ import annotations

from blueprints.catalog import load_catalog
from blueprints.catalog.pins import load_pins
from tests.blueprints.base import BASE, load
from topology.cluster.addons import addon_findings, plan_addons
from topology.cluster.node_groups import plan_node_groups

# Every cluster's add-ons, in installation order.
SEVEN = ("eks-pod-identity-agent", "vpc-cni", "kube-proxy", "coredns", "aws-ebs-csi-driver", "metrics-server", "eks-node-monitoring-agent")


def planned(text: str) -> dict[str, tuple[str | None, str]]:
    blueprint = load(text).blueprint
    assert blueprint is not None
    return {addon.name: (addon.version, addon.pinned_by) for addon in plan_addons(blueprint)}


def findings(text: str) -> list:
    blueprint = load(text).blueprint
    assert blueprint is not None
    return list(addon_findings(blueprint, plan_node_groups(blueprint, load_catalog())))


def test_every_cluster_gets_seven_add_ons_pinned_where_aws_publishes_a_version_table():
    versions = planned(BASE)
    kubernetes = load(BASE).blueprint.kubernetes.version
    assert list(versions) == list(SEVEN)
    pins = load_pins()
    for name in ("vpc-cni", "kube-proxy", "coredns"):
        assert versions[name] == (pins.addon(name).versions[kubernetes], "railyard")
    for name in ("eks-pod-identity-agent", "aws-ebs-csi-driver", "metrics-server", "eks-node-monitoring-agent"):
        assert versions[name] == (None, "eks-default")


def test_the_pins_follow_the_clusters_kubernetes_version():
    text = BASE.replace("kubernetes:\n", 'kubernetes:\n  version: "1.32"\n', 1)
    versions = planned(text)
    assert versions["kube-proxy"] == ("v1.32.13-eksbuild.16", "railyard")
    assert versions["coredns"] == ("v1.11.4-eksbuild.40", "railyard")


def test_a_version_in_the_blueprint_wins_and_a_turned_off_add_on_is_left_out():
    text = BASE.replace(
        "kubernetes:\n",
        "kubernetes:\n  addons:\n    vpc_cni: {version: v1.19.0-eksbuild.1}\n    metrics_server: {enabled: false}\n",
        1,
    )
    versions = planned(text)
    assert versions["vpc-cni"] == ("v1.19.0-eksbuild.1", "blueprint")
    assert "metrics-server" not in versions


def test_only_the_add_ons_nodes_need_go_in_before_the_node_groups():
    blueprint = load(BASE).blueprint
    before = [addon.name for addon in plan_addons(blueprint) if addon.spec.before_nodes]
    assert before == ["eks-pod-identity-agent", "vpc-cni", "kube-proxy"]


def test_a_cni_older_than_1_18_5_on_a_cluster_with_efa_only_interfaces_is_refused():
    text = BASE.replace("kubernetes:\n", "kubernetes:\n  addons:\n    vpc_cni: {version: v1.18.3-eksbuild.2}\n", 1)
    [finding] = findings(text)
    assert (finding.code, finding.severity) == ("addon.cni-too-old-for-efa", "error")
    assert finding.path == ("kubernetes", "addons", "vpc_cni", "version") and "1.18.5" in finding.message
    assert findings(text.replace("v1.18.3-eksbuild.2", "v1.18.5-eksbuild.1")) == []


def test_the_ebs_driver_without_the_pod_identity_agent_is_refused():
    text = BASE.replace("kubernetes:\n", "kubernetes:\n  addons:\n    pod_identity_agent: {enabled: false}\n", 1)
    assert [(f.code, f.severity) for f in findings(text)] == [("addon.pod-identity-agent-off", "error")]


def test_repair_without_the_monitoring_agent_warns_that_gpu_faults_go_unrepaired():
    text = BASE.replace("kubernetes:\n", "kubernetes:\n  addons:\n    node_monitoring_agent: {enabled: false}\n", 1)
    [finding] = findings(text)
    assert (finding.code, finding.severity) == ("addon.repair-without-monitoring", "warning")
    assert findings(text.replace("kubernetes:\n", "kubernetes:\n  node_auto_repair: false\n", 1)) == []


def test_an_add_on_version_that_is_not_an_eks_build_is_a_schema_finding():
    text = BASE.replace("kubernetes:\n", "kubernetes:\n  addons:\n    coredns: {version: latest}\n", 1)
    assert [f.code for f in load(text).findings if f.is_error] == ["schema.bad-format"]
