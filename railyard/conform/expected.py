"""What the design says the running cluster holds, read off the plan `preview` compiles.

Nothing here decides anything: the node groups, interface layouts, labels, taints, device-plugin
and exporter placements, Kueue Topologies and FSx mounts are `topology.cluster.plan_cluster`'s,
the same values the compiler emits. What this module adds is only the names the running objects
carry that the plan leaves to the charts and to EKS (a DaemonSet's name, a Helm release's), each
with its source.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field

from blueprints.catalog import Catalog
from blueprints.catalog.pins import load_pins
from blueprints.models import Blueprint
from blueprints.models.fabrics import AwsEfa
from blueprints.records import record
from blueprints.rules.names import cluster_name
from topology.cluster.node_groups import NodeGroupPlan
from topology.cluster.plan import ClusterPlan

NEURONCORE = "aws.amazon.com/neuroncore"
EFA = "vpc.amazonaws.com/efa"
# The Helm chart pin of each device plugin kind; its release is named after its chart (components.kubernetes.device_plugins).
PLUGIN_PINS = {"nvidia_device_plugin": "nvidia_device_plugin", "efa_device_plugin": "efa_device_plugin", "neuron_device_plugin": "neuron"}
# DaemonSets made by an operator or an EKS add-on rather than a Helm release, by their documented names:
# the GPU Operator's operands (NVIDIA GPU Operator docs, "Verify the installation": nvidia-device-plugin-daemonset,
# nvidia-dcgm-exporter, nvidia-dcgm), the node monitoring agent add-on (EKS user guide, node-health), the FSx
# CSI node plugin (aws-fsx-csi-driver chart, templates/node-daemonset.yaml: fsx-csi-node), and railyard's own
# neuron-monitor (components.kubernetes.metrics).
OPERATOR_DEVICE_PLUGIN = "nvidia-device-plugin-daemonset"
OPERATOR_DCGM_EXPORTER = "nvidia-dcgm-exporter"
OPERATOR_HOST_ENGINE = "nvidia-dcgm"
NODE_MONITORING_AGENT = "eks-node-monitoring-agent"
FSX_NODE = "fsx-csi-node"
NEURON_MONITOR = "neuron-monitor"
# The DaemonSet of a release that makes more than one, by the plugin kind: the NVIDIA chart also renders
# `<fullname>-mps-control-daemon`, which runs only on nodes labelled nvidia.com/mps.capable=true, so on none of
# railyard's (NVIDIA/k8s-device-plugin deployments/helm/nvidia-device-plugin/templates/daemonset-device-plugin.yml
# and daemonset-mps-control-daemon.yml; the fullname is the release's name, which contains the chart's).
RELEASE_DAEMONSET = {"nvidia_device_plugin": "nvidia-device-plugin"}
# railyard's own DaemonSet that lifts a node gate's taint (components.kubernetes.node_gates).
GATE_KEEPER = "railyard-node-gates"


@record
class DaemonSetWant:
    """One DaemonSet the design places: how to find it (its Helm release, its name, or both), and the pools it must run on."""

    label: str
    namespace: str
    pools: tuple[str, ...]
    release: str | None = None
    name: str | None = None
    # False for what runs on every node (the node monitoring agent): only its absence from a pool's node counts.
    exact: bool = True

    def matches(self, namespace: str, name: str, annotations: Mapping[str, str]) -> bool:
        """True for the DaemonSet this wants: its namespace, and its Helm release and name where the want names them."""
        if namespace != self.namespace:
            return False
        if self.release is not None and annotations.get("meta.helm.sh/release-name") != self.release:
            return False
        return self.name is None or name == self.name


@record
class Expectation:
    """The design as the running cluster should show it."""

    blueprint: Blueprint
    catalog: Catalog
    plan: ClusterPlan
    cluster: str
    pool_index: Mapping[str, int] = field(hash=False)

    @property
    def groups(self) -> tuple[NodeGroupPlan, ...]:
        """The pools' node groups (the system group is not judged: it runs no accelerator)."""
        return tuple(group for group in self.plan.node_groups if not group.system)

    def path(self, pool: str) -> tuple[str | int, ...]:
        """The blueprint path of a pool."""
        return ("pools", self.pool_index[pool]) if pool in self.pool_index else ("pools",)

    def allocatable(self, group: NodeGroupPlan) -> dict[str, int]:
        """What each node of `group` must advertise: the devices of the plugins that serve its pool, from the catalog."""
        spec = self.catalog.get(group.instance_type)
        assert spec is not None, "a planned node group's type is in the catalog"
        wanted: dict[str, int] = {}
        for placed in self.plan.kubernetes.plugins:
            if group.pool not in placed.pools:
                continue
            if placed.resource == EFA:
                wanted[EFA] = group.efa_interfaces
            elif spec.accelerator_resource:
                wanted[spec.accelerator_resource] = spec.accelerator_count
                if spec.accelerator is not None and spec.accelerator.schedulable_neuron_cores:
                    wanted[NEURONCORE] = spec.accelerator.schedulable_neuron_cores
        return dict(sorted(wanted.items()))

    def hop_bound(self, pool: str) -> int | None:
        """The most switches two of the pool's nodes may be apart (its fabric's same-rail bound); None: unbounded."""
        found = next((candidate for candidate in self.blueprint.pools if candidate.name == pool), None)
        fabric = next((item for item in self.blueprint.fabrics if found is not None and item.name == found.fabric), None)
        if fabric is None or isinstance(fabric, AwsEfa):
            return None
        return fabric.max_switch_hops.same_rail

    def daemonsets(self) -> tuple[DaemonSetWant, ...]:
        """Every DaemonSet the design places on the pools, and the pools each must run on."""
        pins = load_pins()
        layout = self.plan.kubernetes
        wants: list[DaemonSetWant] = []
        for placed in layout.plugins:
            if not placed.pools:
                continue
            if placed.kind == "gpu_operator":
                wants.append(
                    DaemonSetWant(
                        "NVIDIA device plugin (GPU Operator)", pins.chart("gpu_operator").namespace, placed.pools, name=OPERATOR_DEVICE_PLUGIN
                    )
                )
                continue
            pin = pins.chart(PLUGIN_PINS[placed.kind])
            release, name = pin.chart.rsplit("/", 1)[-1], RELEASE_DAEMONSET.get(placed.kind)
            wants.append(DaemonSetWant(placed.kind.replace("_", " "), pin.namespace, placed.pools, release=release, name=name))
        for exporter in layout.exporters:
            if exporter.exporter == "dcgm_exporter":
                pin = pins.chart("dcgm_exporter")
                wants.append(DaemonSetWant("DCGM exporter", pin.namespace, exporter.pools, release=pin.chart))
            elif exporter.exporter == "gpu_operator_dcgm":
                wants.append(
                    DaemonSetWant("DCGM exporter (GPU Operator)", pins.chart("gpu_operator").namespace, exporter.pools, name=OPERATOR_DCGM_EXPORTER)
                )
            else:
                wants.append(DaemonSetWant("neuron-monitor", "kube-system", exporter.pools, name=NEURON_MONITOR))
        if layout.gates.pools:
            wants.append(DaemonSetWant("node gate keeper", "kube-system", layout.gates.pools, name=GATE_KEEPER))
        if layout.mounts.pools:
            wants.append(DaemonSetWant("FSx CSI node plugin", "kube-system", layout.mounts.pools, name=FSX_NODE))
        if self.blueprint.kubernetes.addons.node_monitoring_agent.enabled:
            pools = tuple(dict.fromkeys(group.pool for group in self.groups))
            wants.append(DaemonSetWant("EKS node monitoring agent", "kube-system", pools, name=NODE_MONITORING_AGENT, exact=False))
        return tuple(wants)


def expect(blueprint: Blueprint, catalog: Catalog, plan: ClusterPlan) -> Expectation:
    """The expectation of a validated blueprint's plan."""
    return Expectation(blueprint, catalog, plan, cluster_name(blueprint), {pool.name: index for index, pool in enumerate(blueprint.pools)})
