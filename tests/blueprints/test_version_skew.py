"""A pool held at its own Kubernetes version stays within the kubelet's skew, and node groups carry their version."""

from blueprints.catalog import load_catalog
from tests.blueprints.base import BASE, load
from topology.cluster.node_groups import plan_node_groups

POOL = "  - name: train\n"


def _held(cluster: str, pool: str | None) -> list:
    text = BASE.replace("kubernetes:\n", f'kubernetes:\n  version: "{cluster}"\n')
    if pool is not None:
        text = text.replace(POOL, f'{POOL}    kubernetes_version: "{pool}"\n', 1)
    return load(text).findings


def _skew(findings) -> list[str]:
    return [finding.message for finding in findings if finding.code == "k8s.version-skew"]


def test_a_pool_may_lag_the_control_plane_by_up_to_three_minor_versions():
    assert _skew(_held("1.35", "1.35")) == []
    assert _skew(_held("1.35", "1.32")) == []


def test_a_pool_newer_than_the_control_plane_or_four_behind_is_refused():
    (newer,) = _skew(_held("1.34", "1.35"))
    assert "holds its nodes at Kubernetes 1.35 under a 1.34 control plane" in newer
    (older,) = _skew(_held("1.35", "1.31"))
    assert "nor more than 3 minor versions older" in older


def test_node_groups_follow_the_cluster_or_the_pools_held_version():
    result = load(BASE.replace("kubernetes:\n", 'kubernetes:\n  version: "1.35"\n'))
    assert result.blueprint is not None
    groups = plan_node_groups(result.blueprint, load_catalog())
    assert {group.kubernetes_version for group in groups} == {"1.35"}
    held = load(BASE.replace("kubernetes:\n", 'kubernetes:\n  version: "1.35"\n').replace(POOL, f'{POOL}    kubernetes_version: "1.34"\n', 1))
    assert held.blueprint is not None
    by_pool = {group.pool: group.kubernetes_version for group in plan_node_groups(held.blueprint, load_catalog())}
    assert by_pool == {"system": "1.35", "train": "1.34", "serve": "1.35"}


def test_a_held_pool_is_warned_that_eks_creates_groups_only_at_the_clusters_version():
    findings = _held("1.35", "1.34")
    [held] = [finding for finding in findings if finding.code == "k8s.held-version-new-group"]
    assert held.severity == "warning"
    assert held.path == ("pools", 0, "kubernetes_version")
    assert "EKS creates node groups only at the cluster's version" in held.message
    assert "change.held-group-created" in held.hint
    assert [finding for finding in _held("1.35", "1.35") if finding.code == "k8s.held-version-new-group"] == []
    assert [finding for finding in _held("1.35", None) if finding.code == "k8s.held-version-new-group"] == []
