"""Kueue's Topology names a Trn2 UltraServer: the Neuron device plugin's ids sit between AWS's network layers and the host.

A trn2u.48xlarge is one of an UltraServer's 4 hosts (catalog: 64 Trainium2 on 4 instances). The Neuron
device plugin (2.30.0.0 and later; the pinned chart runs 2.31.0.0) labels its nodes with the UltraServer's
4-node id and its 2-node half's id (aws-neuron-sdk deploy/eks/ultraserver.rst). These tests hold that the
derived Topology asks for exactly those, only where they are set, and never shares its name with a Topology
of other levels (a Topology's levels are immutable, so a name must stand for one level list).
"""

from __future__ import annotations

import dataclasses

from blueprints.catalog import load_catalog
from blueprints.loader import load_text
from tests.kubernetes.fixtures import EXAMPLES, example
from topology.cluster.kubernetes import lay_out_kubernetes
from topology.cluster.kubernetes_checks import check_kubernetes
from topology.cluster.kueue import derived_levels
from topology.cluster.labels import HOSTNAME_LABEL

CATALOG = load_catalog()
LAYERS = [f"topology.k8s.aws/network-node-layer-{n}" for n in (1, 2, 3)]
ULTRASERVER = ["neuron.amazonaws.com/ultraserver-server-id-4", "neuron.amazonaws.com/ultraserver-server-id-2"]


def test_a_trn2u_pool_schedules_by_network_layer_then_ultraserver_then_its_half_then_host():
    plan = lay_out_kubernetes(example("trn2-ultraserver"), CATALOG)
    (flavor,) = plan.kueue.flavors
    assert list(flavor.topology.levels) == [*LAYERS, *ULTRASERVER, HOSTNAME_LABEL]
    assert flavor.topology.name == "aws-network-3-ultraserver"
    assert flavor.topology.spec()["levels"][3] == {"nodeLabel": ULTRASERVER[0]}


def test_every_derived_level_is_a_label_the_nodes_carry():
    blueprint = example("trn2-ultraserver")
    assert [finding.code for finding in check_kubernetes(blueprint, CATALOG) if finding.code == "k8s.label-not-set"] == []
    for view in lay_out_kubernetes(blueprint, CATALOG).nodes:
        assert set(ULTRASERVER) <= set(view.all_labels())


def test_without_the_neuron_device_plugin_no_node_carries_an_ultraserver_id_and_no_level_asks_for_one():
    views = lay_out_kubernetes(example("trn2-ultraserver"), CATALOG).nodes
    unplugged = [dataclasses.replace(view, neuron_plugin=False) for view in views]
    assert not set(ULTRASERVER) & set(unplugged[0].all_labels())
    assert list(derived_levels(unplugged)) == [*LAYERS, HOSTNAME_LABEL]


def test_a_one_host_trn2_pool_gets_no_ultraserver_level():
    plan = lay_out_kubernetes(example("heterogeneous"), CATALOG)
    trainium = [view for view in plan.nodes if view.pool == "trainium"]
    assert trainium[0].spec.name == "trn2.48xlarge" and trainium[0].neuron_plugin
    assert trainium[0].scale_up_levels() == ()
    flavors = {flavor.pool: flavor for flavor in plan.kueue.flavors}
    assert list(flavors["trainium"].topology.levels) == [*LAYERS, HOSTNAME_LABEL]


def test_a_trn2u_pool_beside_a_p5en_pool_gets_a_topology_of_its_own():
    # Trn2 UltraServers are sold as Capacity Blocks, not On-Demand (validate refuses an On-Demand trn2u pool in us-east-2).
    block = "instance_type: trn2u.48xlarge\n    capacity: {kind: capacity_block, reservation_id: cr-0a1b2c3d4e5f60718}"
    text = (EXAMPLES / "heterogeneous.yaml").read_text().replace("instance_type: trn2.48xlarge", block)
    loaded = load_text(text, "heterogeneous-trn2u.yaml")
    assert loaded.ok, [finding.as_json() for finding in loaded.findings]
    plan = lay_out_kubernetes(loaded.blueprint, CATALOG)
    flavors = {flavor.pool: flavor for flavor in plan.kueue.flavors}
    assert flavors["h200"].topology.name == "aws-network-3"
    assert flavors["trainium"].topology.name == "aws-network-3-ultraserver"
    assert {topology.name: list(topology.levels) for topology in plan.kueue.topologies} == {
        "aws-network-3": [*LAYERS, HOSTNAME_LABEL],
        "aws-network-3-ultraserver": [*LAYERS, *ULTRASERVER, HOSTNAME_LABEL],
        "zone-hostname": ["topology.kubernetes.io/zone", HOSTNAME_LABEL],
    }


def test_a_neuron_plugin_kept_to_other_pools_labels_no_ultraserver_node():
    text = (
        (EXAMPLES / "trn2-ultraserver.yaml")
        .read_text()
        .replace("    - kind: neuron_device_plugin\n", "    - kind: neuron_device_plugin\n      pools: []\n")
    )
    loaded = load_text(text, "trn2-ultraserver-unserved.yaml")
    assert loaded.blueprint is not None
    views = lay_out_kubernetes(loaded.blueprint, CATALOG).nodes
    assert [view.neuron_plugin for view in views] == [False] * len(views)
    assert views[0].scale_up_levels() == ()


# A GB200 NVL72 UltraServer: 18 p6e-gb200.36xlarge share one NVLink domain (catalog), and GPU feature discovery, which
# the GPU Operator deploys, labels each node with the domain's clique: "Nodes within the same `nvidia.com/gpu.clique`
# have multi-node NVLink-reachability" (EKS user guide, ml-eks-nvidia-ultraserver).
CLIQUE = "nvidia.com/gpu.clique"


def test_a_gb200_pool_schedules_by_network_layer_then_nvlink_clique_then_host():
    blueprint = example("p6e-gb200-nvl72")
    plan = lay_out_kubernetes(blueprint, CATALOG)
    (flavor,) = plan.kueue.flavors
    assert list(flavor.topology.levels) == [*LAYERS, CLIQUE, HOSTNAME_LABEL]
    assert flavor.topology.name == "aws-network-3-clique"
    # Quota is what the nodes hold: 36 nodes of 4 GPUs and AWS's 4 EFA devices each.
    assert (flavor.quotas["nvidia.com/gpu"], flavor.quotas["vpc.amazonaws.com/efa"]) == (144, 144)
    assert [finding.code for finding in check_kubernetes(blueprint, CATALOG) if finding.code == "k8s.label-not-set"] == []


def test_without_the_gpu_operator_no_gb200_node_carries_a_clique_and_a_declared_clique_level_is_refused():
    text = (EXAMPLES / "p6e-gb200-nvl72.yaml").read_text().replace("    - kind: gpu_operator\n", "    - kind: nvidia_device_plugin\n")
    loaded = load_text(text, "p6e-gb200-plugin-only.yaml")
    assert loaded.blueprint is not None
    plan = lay_out_kubernetes(loaded.blueprint, CATALOG)
    assert CLIQUE not in plan.nodes[0].all_labels()
    assert list(plan.kueue.flavors[0].topology.levels) == [*LAYERS, HOSTNAME_LABEL]
    declared = text.replace("  topology_aware_scheduling: true\n", "  topology_aware_scheduling: true\n  kueue:\n    flavors:\n")
    declared += f"      - pool: nvl72\n        topology_levels: [{', '.join(LAYERS)}, {CLIQUE}, {HOSTNAME_LABEL}]\n"
    refused = load_text(declared, "p6e-gb200-declared-clique.yaml")
    assert refused.blueprint is not None
    [finding] = [finding for finding in check_kubernetes(refused.blueprint, CATALOG) if finding.code == "k8s.label-not-set"]
    assert "NVIDIA's GPU feature discovery sets the NVLink clique, and it isn't deployed (kubernetes.device_plugins: gpu_operator)" in finding.message


def test_a_one_host_nvlink_pool_gets_no_clique_level_even_with_the_gpu_operator():
    plan = lay_out_kubernetes(example("ai-on-eks"), CATALOG)
    train = next(view for view in plan.nodes if view.pool == "train")
    assert train.feature_discovery and train.scale_up_levels() == ()
