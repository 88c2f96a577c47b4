"""The Kubernetes layout on the examples: where each plugin lands, Kueue's levels, flavors and quotas."""

from __future__ import annotations

from pathlib import Path

import pytest

from blueprints.catalog import load_catalog
from blueprints.loader import load_text
from tests.kubernetes.fixtures import FABRIC, example, example_path, load, mutate, p6_b200_text
from topology.cluster.device_plugins import CRITICAL_ADDONS_ONLY, needs
from topology.cluster.kubernetes import lay_out_kubernetes
from topology.cluster.labels import DOMAIN_LABEL, HOSTNAME_LABEL, POOL_LABEL, ZONE_LABEL
from topology.cluster.scheduling import Toleration

CATALOG = load_catalog()
LAYERS = [f"topology.k8s.aws/network-node-layer-{n}" for n in (1, 2, 3, 4)]


def layout_of(name: str):
    return lay_out_kubernetes(example(name), CATALOG)


@pytest.mark.parametrize("name", ["heterogeneous", "dev-g6e", "p5-capacity-block"])
def test_every_plugin_lands_on_exactly_the_node_groups_with_its_device(name):
    plan = layout_of(name)
    for plugin in plan.plugins:
        landed = {view.name for view in plan.nodes if plugin.placement.lands_on(view)}
        wanted = {view.name for view in plan.nodes if needs(plugin.kind, view)}
        assert landed == wanted, plugin.kind


@pytest.mark.parametrize("name", ["heterogeneous", "dev-g6e", "p5-capacity-block"])
def test_every_plugin_tolerates_exactly_the_taints_of_its_pools(name):
    plan = layout_of(name)
    for plugin in plan.plugins:
        taints = {Toleration.of_taint(taint) for view in plan.nodes if view.pool in plugin.pools for taint in view.taints}
        extra = {CRITICAL_ADDONS_ONLY} if plugin.kind == "efa_device_plugin" else set()
        assert set(plugin.placement.tolerations) == taints | extra, plugin.kind


def test_p5_topology_is_three_network_layers_then_hostname():
    flavor = layout_of("p5-capacity-block").kueue.flavors[0]
    assert list(flavor.topology.levels) == [*LAYERS[:3], HOSTNAME_LABEL]
    assert flavor.topology.name == "aws-network-3"


def test_p6_b200_topology_has_four_network_layers_and_quota_equals_its_gpus():
    loaded = load_text(p6_b200_text(), "p6-b200.yaml")
    assert loaded.ok, [finding.as_json() for finding in loaded.findings]
    plan = lay_out_kubernetes(loaded.blueprint, CATALOG)
    flavor = plan.kueue.flavors[0]
    assert plan.nodes[0].spec.name == "p6-b200.48xlarge"
    assert list(flavor.topology.levels) == [*LAYERS, HOSTNAME_LABEL]
    assert flavor.accelerator_quota == 64 * 8


def test_inf2_pool_topology_has_no_network_layers():
    flavors = {flavor.pool: flavor for flavor in layout_of("heterogeneous").kueue.flavors}
    assert list(flavors["serve"].topology.levels) == [ZONE_LABEL, HOSTNAME_LABEL]
    assert flavors["serve"].topology.name == "zone-hostname"
    assert flavors["trainium"].topology.name == flavors["h200"].topology.name == "aws-network-3"


@pytest.mark.parametrize(
    "name, expected",
    [
        (
            "heterogeneous",
            {"h200": ("nvidia.com/gpu", 32 * 8), "trainium": ("aws.amazon.com/neuron", 16 * 16), "serve": ("aws.amazon.com/neuron", 16 * 12)},
        ),
        ("p5-capacity-block", {"train": ("nvidia.com/gpu", 64 * 8)}),
        ("dev-g6e", {"dev": ("nvidia.com/gpu", 1)}),
    ],
)
def test_quota_equals_the_accelerators_provisioned(name, expected):
    plan = layout_of(name)
    assert {flavor.pool: (flavor.accelerator_resource, flavor.accelerator_quota) for flavor in plan.kueue.flavors} == expected
    for flavor in plan.kueue.flavors:
        held = sum(view.max_nodes * view.spec.accelerator_count for view in plan.nodes if view.pool == flavor.pool)
        assert flavor.accelerator_quota == held


def test_cluster_queue_lists_every_covered_resource_for_every_flavor_in_one_group():
    plan = layout_of("heterogeneous").kueue
    spec = plan.cluster_queue_spec()
    assert spec["namespaceSelector"] == {}
    (group,) = spec["resourceGroups"]
    assert group["coveredResources"] == [
        "cpu",
        "memory",
        "ephemeral-storage",
        "hugepages-2Mi",
        "nvidia.com/gpu",
        "aws.amazon.com/neuron",
        "aws.amazon.com/neuroncore",
        "vpc.amazonaws.com/efa",
    ]
    quotas = {flavor["name"].rsplit("-", 1)[0]: {r["name"]: r["nominalQuota"] for r in flavor["resources"]} for flavor in group["flavors"]}
    assert all(list(resources) == group["coveredResources"] for resources in quotas.values())
    assert quotas["h200"]["nvidia.com/gpu"] == "256" and quotas["h200"]["aws.amazon.com/neuron"] == "0"
    assert quotas["h200"]["vpc.amazonaws.com/efa"] == str(32 * 16)
    assert quotas["serve"]["aws.amazon.com/neuroncore"] == str(16 * 12 * 2)
    assert quotas["h200"]["memory"].endswith("Mi")


def test_efa_jobs_fit_the_queue_huge_pages_and_ephemeral_storage_are_covered_at_capacity():
    # Kueue's default BlockUndeclared check leaves a pod asking for an uncovered resource pending forever;
    # EKS's NCCL example asks for hugepages-2Mi: 5120Mi on every EFA node.
    plan = layout_of("heterogeneous")
    (group,) = plan.kueue.cluster_queue_spec()["resourceGroups"]
    quotas = {flavor["name"].rsplit("-", 1)[0]: {r["name"]: r["nominalQuota"] for r in flavor["resources"]} for flavor in group["flavors"]}
    catalog = load_catalog()
    for pool in ("h200", "trainium", "serve"):
        views = [view for view in plan.nodes if view.pool == pool]
        nodes = sum(view.max_nodes for view in views)
        store = catalog.get(views[0].spec.name).instance_store
        per_node_gib = store.total_gb * 10**9 // 2**30 if store else 200
        assert quotas[pool]["ephemeral-storage"] == f"{nodes * per_node_gib}Gi"
        huge = nodes * 5128 * 2 if views[0].efa else 0
        assert quotas[pool]["hugepages-2Mi"] == f"{huge}Mi"
    assert quotas["h200"]["hugepages-2Mi"] != "0Mi" and quotas["serve"]["hugepages-2Mi"] == "0Mi"


def test_flavor_and_declared_topology_names_change_with_their_immutable_spec():
    # Kueue refuses in-place changes to a flavor's labels, tolerations and topology and to a Topology's levels,
    # and holds a flavor a ClusterQueue names: a new name makes the change a create-then-delete replacement.
    base = layout_of("heterogeneous").kueue
    text = Path(example_path("heterogeneous")).read_text()
    changed = text.replace(
        "  - name: h200\n    instance_type: p5en.48xlarge\n",
        "  - name: h200\n    taints: [{key: team, value: research, effect: NoSchedule}]\n    instance_type: p5en.48xlarge\n",
        1,
    )
    assert changed != text
    after = lay_out_kubernetes(load_text(changed, "h.yaml").blueprint, CATALOG).kueue
    before_names = {flavor.pool: flavor.name for flavor in base.flavors}
    after_names = {flavor.pool: flavor.name for flavor in after.flavors}
    moved = {pool for pool in before_names if before_names[pool] != after_names[pool]}
    assert len(moved) == 1 and all(name.startswith(f"{pool}-") for pool, name in after_names.items())
    assert base.cluster_queue_spec() != after.cluster_queue_spec()


def test_flavors_select_their_pool_and_tolerate_its_taints():
    for flavor in layout_of("heterogeneous").kueue.flavors:
        assert flavor.spec()["nodeLabels"] == {POOL_LABEL: flavor.pool}
        key = "nvidia.com/gpu" if flavor.pool == "h200" else "aws.amazon.com/neuron"
        assert flavor.spec()["tolerations"] == [{"key": key, "operator": "Equal", "value": "true", "effect": "NoSchedule"}]


def test_gpu_operator_lands_where_feature_discovery_finds_nvidia_devices():
    blueprint = load(mutate("    - kind: nvidia_device_plugin\n", "    - kind: gpu_operator\n", FABRIC)).blueprint
    plan = lay_out_kubernetes(blueprint, CATALOG)
    (operator,) = [plugin for plugin in plan.plugins if plugin.kind == "gpu_operator"]
    assert {view.name for view in plan.nodes if operator.placement.lands_on(view)} == {"gpu/za-gpu"}
    assert operator.pools == ("gpu",)


def test_pool_over_two_blocks_of_one_zone_gets_the_failure_domain_level_but_no_zone_level():
    text = mutate("      domains: [za-inf]\n", "      domains: [za-inf, za-gpu]\n")
    loaded = load_text(text, "two-blocks.yaml")
    assert loaded.ok, [finding.as_json() for finding in loaded.findings]
    flavors = {flavor.pool: flavor for flavor in lay_out_kubernetes(loaded.blueprint, CATALOG).kueue.flavors}
    assert list(flavors["inf"].topology.levels) == [DOMAIN_LABEL, HOSTNAME_LABEL]
    assert flavors["inf"].topology.name == "domain-hostname"
    assert list(flavors["gpu"].topology.levels) == [*LAYERS[:3], HOSTNAME_LABEL]  # one block: no domain level


def test_standby_nodes_are_tainted_for_the_pool_they_serve_and_kueue_gives_their_pool_no_quota():
    # HPN's backup hosts (standby_for: train): ready (the device plugin runs there) but never scheduled until brought in.
    layout = layout_of("alibaba-hpn-pod")
    backup = [view for view in layout.nodes if view.pool == "backup"]
    assert backup and all(("railyard.dev/standby-for", "train", "NoSchedule") in {(t.key, t.value, t.effect) for t in view.taints} for view in backup)
    assert layout.kueue is not None and [flavor.pool for flavor in layout.kueue.flavors] == ["train"]
    plugin = next(plugin for plugin in layout.plugins if plugin.kind == "nvidia_device_plugin")
    assert all(not plugin.placement.untolerated(view.taints) for view in backup)


def test_a_kueue_flavor_for_a_standby_pool_is_refused():
    from topology.cluster.kueue_checks import check_flavor_pools

    flavors = "  layer_stack: separate\n  kueue:\n    flavors:\n      - pool: backup\n"
    text = Path(example_path("alibaba-hpn-pod")).read_text().replace("  layer_stack: separate\n", flavors)
    loaded = load_text(text, "hpn.yaml")
    assert loaded.blueprint is not None
    [finding] = check_flavor_pools(loaded.blueprint, lay_out_kubernetes(loaded.blueprint, CATALOG))
    assert finding.code == "k8s.standby-flavor" and "stands by for 'train'" in finding.message
