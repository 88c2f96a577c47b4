"""Topology-aware scheduling with Kueue, decided: Topologies, a ResourceFlavor per pool, one ClusterQueue.

Topology levels run broadest first: the zone and the blueprint failure domain
(both labels every railyard node carries), then the network-node layers AWS
labels that instance type with (three on p4d/p5/trn1/trn2/g6e, four on
p6-b200/p6-b300, none on g5/inf2; aws-facts.md 4.6), then the hostname. Pools
whose types share a level list share one Topology. Each pool gets a flavor
selecting its nodes by the pool label and tolerating its taints; the
ClusterQueue's nominal quota per flavor is the pool's maximum nodes times
what one node has (accelerators, cpu, memory, EFA devices, ephemeral
storage, and the 2 MiB huge pages the EFA driver reserves), so quota equals
capacity. Kueue's default `BlockUndeclared` check leaves any pod that asks for
a resource the ClusterQueue doesn't cover pending forever, and EFA jobs ask for
`hugepages-2Mi` (EKS's NCCL example: 5120Mi) and often `ephemeral-storage`,
so both are covered. The compiler (`components.kubernetes.kueue`) installs
Kueue and makes these objects in `kueue.x-k8s.io/v1beta2`.

Kueue's CRDs make a ResourceFlavor's nodeLabels, tolerations and topologyName,
and a Topology's levels, immutable once set, and its `resource-in-use`
finalizer holds a flavor while a ClusterQueue names it. So a flavor's (and a
declared Topology's) name carries a digest of its spec: a change makes a new
object, the ClusterQueue moves to it, and Pulumi deletes the old one last,
once nothing refers to it. Updating in place would be refused by the API
server; deleting first would wait forever on the finalizer.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from blueprints.models import Blueprint
from blueprints.models.kubernetes import KueueFlavor
from blueprints.records import record
from topology.cluster.labels import (
    ACCEPTANCE_KEY,
    DOMAIN_LABEL,
    GATE_TAINT_KEYS,
    HOSTNAME_LABEL,
    NETWORK_LAYER_LABEL,
    NVLINK_CLIQUE_LABEL,
    POOL_LABEL,
    ULTRASERVER_LABEL,
    ZONE_LABEL,
)
from topology.cluster.scheduling import NodeGroupView, Toleration, tolerations_for

EFA_RESOURCE = "vpc.amazonaws.com/efa"
NEURONCORE_RESOURCE = "aws.amazon.com/neuroncore"
EPHEMERAL_RESOURCE = "ephemeral-storage"
HUGEPAGES_RESOURCE = "hugepages-2Mi"
# The EFA driver reserves 5128 huge pages of 2 MiB on every EFA node (EKS user guide, node-efa; aws-facts.md 2.5).
EFA_HUGEPAGES_MIB = 5128 * 2
# Covered resources in this order; each flavor lists all of them (Kueue requires it).
RESOURCE_ORDER = (
    "cpu",
    "memory",
    EPHEMERAL_RESOURCE,
    HUGEPAGES_RESOURCE,
    "nvidia.com/gpu",
    "aws.amazon.com/neuron",
    NEURONCORE_RESOURCE,
    EFA_RESOURCE,
)
UNITS = {"memory": "Mi", HUGEPAGES_RESOURCE: "Mi", EPHEMERAL_RESOURCE: "Gi"}


def derived_levels(views: Sequence[NodeGroupView]) -> tuple[str, ...]:
    """A pool's Topology levels: its failure-domain levels, AWS's network-node layers, its scale-up domain, hostname.

    The zone level comes first when the pool spans more than one zone, and the
    railyard failure-domain level when it spans more domains than zones (blocks
    of one zone); a level on which every node of the pool has the same value
    tells Kueue nothing. Then the network-node layers AWS sets for the instance
    type (broadest first: three on p5, four on p6-b200, none on inf2;
    aws-facts.md 4.6), then the labels of a scale-up domain that spans hosts
    (a Trn2 UltraServer's 4-node and 2-node ids, a GB200 UltraServer's NVLink
    clique), then hostname. So a one-zone
    p5 pool gets exactly layers 1-3 and hostname, the shape EKS documents for
    topology-aware scheduling, and a job can ask for one UltraServer
    (`kueue.x-k8s.io/podset-required-topology:
    neuron.amazonaws.com/ultraserver-server-id-4`, or `nvidia.com/gpu.clique`).

    Kueue names a domain by the values of every level down to it, so the
    UltraServer level under the network layers counts an UltraServer whole only
    if its four hosts share their bottom network node. AWS doesn't document
    that (it is what the NeuronLink cabling of one UltraServer's hosts suggests);
    a team that finds otherwise declares `topology_levels` without the layers.
    """
    zones = {view.availability_zone for view in views}
    domains = {view.domain for view in views}
    head = ((ZONE_LABEL,) if len(zones) > 1 else ()) + ((DOMAIN_LABEL,) if len(domains) > len(zones) else ())
    layers = tuple(NETWORK_LAYER_LABEL.format(layer) for layer in range(1, views[0].spec.topology_layers + 1))
    return (*head, *layers, *views[0].scale_up_levels(), HOSTNAME_LABEL)


@record
class TopologyPlan:
    """A Kueue Topology: its name and node-label levels."""

    name: str
    levels: tuple[str, ...]

    def spec(self) -> dict[str, Any]:
        """The Topology's `spec`."""
        return {"levels": [{"nodeLabel": level} for level in self.levels]}


@record
class FlavorPlan:
    """One pool's ResourceFlavor and ClusterQueue quotas; `entry` is its `kueue.flavors` index, `declared` what that entry set."""

    pool: str
    pool_index: int
    entry: int | None
    node_labels: Mapping[str, str]
    tolerations: tuple[Toleration, ...]
    topology: TopologyPlan
    quotas: Mapping[str, int]
    accelerator_resource: str | None
    declared: frozenset[str] = frozenset()

    @property
    def name(self) -> str:
        """The flavor's name: the pool's, and a digest of its immutable spec (see the module docstring)."""
        return f"{self.pool}-{spec_digest(self.spec())}"

    @property
    def accelerator_quota(self) -> int:
        """Accelerators this flavor grants."""
        return self.quotas.get(self.accelerator_resource, 0) if self.accelerator_resource else 0

    def spec(self) -> dict[str, Any]:
        """The ResourceFlavor's `spec`."""
        spec: dict[str, Any] = {"nodeLabels": dict(self.node_labels), "topologyName": self.topology.name}
        if self.tolerations:
            spec["tolerations"] = [toleration.as_k8s() for toleration in self.tolerations]
        return spec


@record
class KueuePlan:
    """Everything Kueue is told: the Topologies, the flavors, and the queues' names (the chart is the compiler's)."""

    topologies: tuple[TopologyPlan, ...]
    flavors: tuple[FlavorPlan, ...]
    cluster_queue: str
    namespace: str

    @property
    def covered_resources(self) -> tuple[str, ...]:
        """The resources the ClusterQueue covers: those some flavor has."""
        present = {resource for flavor in self.flavors for resource, amount in flavor.quotas.items() if amount}
        return tuple(resource for resource in RESOURCE_ORDER if resource in present)

    def cluster_queue_spec(self) -> dict[str, Any]:
        """The ClusterQueue's `spec`: one resource group, every flavor, quota = capacity."""
        covered = self.covered_resources
        flavors = [
            {
                "name": flavor.name,
                "resources": [{"name": resource, "nominalQuota": _quantity(resource, flavor.quotas.get(resource, 0))} for resource in covered],
            }
            for flavor in self.flavors
        ]
        return {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": list(covered), "flavors": flavors}]}


def _quantity(resource: str, amount: int) -> str:
    """A Kubernetes quantity string (memory and huge pages are counted in MiB, ephemeral storage in GiB)."""
    return f"{amount}{UNITS.get(resource, '')}"


def spec_digest(spec: dict[str, Any]) -> str:
    """Eight hex characters of a spec's canonical JSON: the suffix that makes an immutable object's name change with it."""
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:8]


def _capacity(views: Sequence[NodeGroupView]) -> dict[str, int]:
    """What a pool's node groups hold at their maximum size, per resource."""
    nodes = sum(view.max_nodes for view in views)
    spec = views[0].spec
    quotas = {
        "cpu": nodes * spec.vcpus,
        "memory": nodes * spec.memory_mib,
        EPHEMERAL_RESOURCE: sum(view.max_nodes * view.ephemeral_gib for view in views),
        HUGEPAGES_RESOURCE: sum(view.max_nodes * EFA_HUGEPAGES_MIB for view in views if view.efa),
    }
    if spec.accelerator_resource:
        quotas[spec.accelerator_resource] = nodes * spec.accelerator_count
    if spec.accelerator and spec.accelerator.schedulable_neuron_cores:
        # What the Neuron device plugin advertises: logical cores at the default LNC (64 on a trn2.48xlarge, not 128).
        quotas[NEURONCORE_RESOURCE] = nodes * spec.accelerator.schedulable_neuron_cores
    quotas[EFA_RESOURCE] = sum(view.max_nodes * view.efa_interfaces for view in views)
    return quotas


def _topology(levels: tuple[str, ...], pool: str, custom: bool) -> TopologyPlan:
    """Name a level list (`aws-network-3`, `zone-aws-network-3`, `aws-network-3-ultraserver`, `aws-network-3-clique`, `zone-hostname`), or
    `<pool>-levels` when declared. A derived name stands for one level list, so a Topology's levels (immutable) never
    change under its name."""
    if custom:
        return TopologyPlan(f"{pool}-levels-{spec_digest({'levels': list(levels)})}", levels)
    layers = sum(1 for level in levels if level.startswith(NETWORK_LAYER_LABEL.format("")))
    prefix = [word for word, label in (("zone", ZONE_LABEL), ("domain", DOMAIN_LABEL)) if label in levels]
    suffix = ["ultraserver"] if any(level.startswith(ULTRASERVER_LABEL.format("")) for level in levels) else []
    suffix += ["clique"] if NVLINK_CLIQUE_LABEL in levels else []
    return TopologyPlan("-".join([*prefix, f"aws-network-{layers}" if layers else "hostname", *suffix]), levels)


def _flavor(pool: str, views: Sequence[NodeGroupView], entries: Mapping[str, tuple[int, KueueFlavor]]) -> FlavorPlan:
    """One pool's flavor: derived, then whatever its `kueue.flavors` entry states instead."""
    index, entry = entries.get(pool, (None, None))
    quotas = _capacity(views)
    resource = views[0].spec.accelerator_resource
    if entry is not None and entry.accelerator_quota is not None and resource:
        quotas[resource] = entry.accelerator_quota
    labels = entry.node_labels if entry is not None and entry.node_labels is not None else {POOL_LABEL: pool}
    declared = entry is not None and entry.topology_levels is not None
    derived = derived_levels(views)
    levels = tuple(entry.topology_levels) if entry is not None and entry.topology_levels is not None else derived  # if declared
    topology = _topology(levels, pool, declared and levels != derived)
    declared_fields = frozenset(
        key for key in ("node_labels", "accelerator_quota", "topology_levels") if entry is not None and getattr(entry, key) is not None
    )
    # A flavor's tolerations go onto every admitted pod: a gate's taint and the acceptance taint are left out, so no job
    # lands on a node still held.
    held = GATE_TAINT_KEYS | {ACCEPTANCE_KEY}
    tolerations = tuple(toleration for toleration in tolerations_for(list(views)) if toleration.key not in held)
    return FlavorPlan(pool, views[0].pool_index, index, dict(labels), tolerations, topology, quotas, resource, declared_fields)


def plan_kueue(blueprint: Blueprint, views: Sequence[NodeGroupView]) -> KueuePlan | None:
    """The Kueue plan, or None when `topology_aware_scheduling` is off or there are no node groups."""
    settings = blueprint.kubernetes
    if not settings.topology_aware_scheduling or not views:
        return None
    entries = {entry.pool: (index, entry) for index, entry in enumerate(settings.kueue.flavors)}
    standby = {pool.name for pool in blueprint.pools if pool.standby_for is not None}  # spares: no quota until brought in
    by_pool: dict[str, list[NodeGroupView]] = {}
    for view in views:
        if view.pool not in standby:
            by_pool.setdefault(view.pool, []).append(view)
    flavors = tuple(_flavor(pool, pool_views, entries) for pool, pool_views in by_pool.items())
    topologies = tuple({flavor.topology.name: flavor.topology for flavor in flavors}.values())
    queue = settings.kueue.cluster_queue or blueprint.metadata.name
    return KueuePlan(topologies, flavors, queue, settings.workload_namespace)
