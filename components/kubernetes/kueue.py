"""Kueue in the cluster: its chart, then the Topologies, ResourceFlavors, ClusterQueue and LocalQueue.

What those objects say is decided in `topology.cluster.kueue` (levels,
flavors, quotas, names); here they are emitted. Kueue's CRDs make a
ResourceFlavor's nodeLabels, tolerations and topologyName, and a Topology's
levels, immutable once set, so those two kinds are replaced, never updated
(their names carry a digest of their spec; see that module). Kueue's API is
`kueue.x-k8s.io/v1beta2` (see charts.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import pulumi
import pulumi_kubernetes as k8s

from components.kubernetes import charts
from components.kubernetes.releases import ReleasePlan, emit_release
from topology.cluster.kueue import KueuePlan

IMMUTABLE_KINDS = ("ResourceFlavor", "Topology")
KUEUE_RELEASE = ReleasePlan("kueue", "kueue", charts.KUEUE, {})


class KueueScheduling(pulumi.ComponentResource):
    """Kueue, its Topologies, ResourceFlavors, ClusterQueue and LocalQueue (`railyard:kubernetes:KueueScheduling`)."""

    def __init__(
        self,
        name: str,
        plan: KueuePlan,
        provider: pulumi.ProviderResource,
        depends_on: Sequence[pulumi.Resource] = (),
        opts: pulumi.ResourceOptions | None = None,
        system_nodes: Sequence[pulumi.Resource] = (),
    ):
        super().__init__("railyard:kubernetes:KueueScheduling", name, None, opts)
        self.release = emit_release(name, self, KUEUE_RELEASE, provider, system_nodes)
        # Kueue's CRDs and webhooks come with the release; every object waits for it.
        after = pulumi.ResourceOptions(parent=self, provider=provider, depends_on=[self.release, *depends_on])
        topologies = {
            topology.name: self._object(f"{name}-topology-{topology.name}", "Topology", {"name": topology.name}, topology.spec(), after)
            for topology in plan.topologies
        }
        # Logical names stay per pool, so a changed flavor is a replacement (new name first, old one deleted last).
        flavors = [
            self._object(
                f"{name}-flavor-{flavor.pool}",
                "ResourceFlavor",
                {"name": flavor.name},
                flavor.spec(),
                pulumi.ResourceOptions.merge(after, pulumi.ResourceOptions(depends_on=[topologies[flavor.topology.name]])),
            )
            for flavor in plan.flavors
        ]
        queue_after = pulumi.ResourceOptions.merge(after, pulumi.ResourceOptions(depends_on=flavors))
        self.cluster_queue = self._object(
            f"{name}-cluster-queue", "ClusterQueue", {"name": plan.cluster_queue}, plan.cluster_queue_spec(), queue_after
        )
        local = {"name": plan.cluster_queue, "namespace": plan.namespace}
        self.local_queue = self._object(
            f"{name}-local-queue",
            "LocalQueue",
            local,
            {"clusterQueue": plan.cluster_queue},
            pulumi.ResourceOptions.merge(queue_after, pulumi.ResourceOptions(depends_on=[self.cluster_queue])),
        )
        self.register_outputs({"cluster_queue": plan.cluster_queue, "local_queue": f"{plan.namespace}/{plan.cluster_queue}"})

    @staticmethod
    def _object(name: str, kind: str, metadata: dict, spec: dict, opts: pulumi.ResourceOptions) -> k8s.apiextensions.CustomResource:
        """One Kueue object of `kind`."""
        if kind in IMMUTABLE_KINDS:
            opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(replace_on_changes=["spec"]))
        return k8s.apiextensions.CustomResource(name, api_version=charts.KUEUE_API_VERSION, kind=kind, metadata=metadata, spec=spec, opts=opts)
