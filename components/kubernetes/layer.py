"""`KubernetesLayer`: everything railyard installs inside the EKS cluster, as one component.

It makes a `pulumi_kubernetes.Provider` from the cluster's kubeconfig (or uses
the one given) and emits a `KubernetesPlan` (from `plan_kubernetes`: the
layout the cross-layer check proved, and the releases that render it) as four children: the device plugins, the
accelerator exporters, the storage (FSx CSI driver, volumes, claims, the gp3 class) and Kueue. Child names
derive from the layer's name: `<name>-provider`, `<name>-plugins`, `<name>-metrics`,
`<name>-storage`, `<name>-kueue`, `<name>-namespace`, `<name>-compute-domains` where a pool's NVLink domain
spans instances, and `<name>-gates` where a pool's nodes register behind
a gate (`components.kubernetes.node_gates`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field

import pulumi
import pulumi_kubernetes as k8s

from blueprints.records import record
from components.kubernetes.acceptance import AcceptanceGates
from components.kubernetes.compute_domains import ComputeDomains
from components.kubernetes.device_plugins import DevicePlugins
from components.kubernetes.karpenter import KarpenterNodes, KarpenterWiring
from components.kubernetes.kueue import KueueScheduling
from components.kubernetes.metrics import AcceleratorMetrics
from components.kubernetes.node_gates import NodeGates
from components.kubernetes.plan import KubernetesPlan
from components.kubernetes.storage import ClassNetworkRef, ClusterStorage, FileSystemRef


@record(frozen=False)
class KubernetesLayerArgs:
    """What the layer needs from the stages before it.

        `plan` is `plan_kubernetes(blueprint, catalog)`. `kubeconfig` is the
        cluster's kubeconfig (a string or Output); `provider`, when given, is used
        instead. `file_systems` maps each FSx tier name to the storage component's
        file system (anything with id, dns_name, mount_name), `class_networks` each
    FSx StorageClass's subnet and security group. `depends_on` holds
        resources the in-cluster objects wait for (the node groups: Kueue's
        controller needs a node to become ready). `system_nodes` holds the
        system node group every Helm release waits for: the charts' controllers
        run there, and Helm waits for them to be ready. A layer applied by its
        own stack after the cluster's leaves both empty.
    """

    plan: KubernetesPlan
    kubeconfig: pulumi.Input[str] | None = None
    provider: pulumi.ProviderResource | None = None
    file_systems: Mapping[str, FileSystemRef] = field(default_factory=dict)
    depends_on: Sequence[pulumi.Resource] = ()
    system_nodes: Sequence[pulumi.Resource] = ()
    # Each FSx StorageClass's subnet and security group (anything with subnet_id, security_group_id).
    class_networks: Mapping[str, ClassNetworkRef] = field(default_factory=dict)
    # What the cluster's stack made for Karpenter, when the plan has Karpenter pools.
    karpenter: KarpenterWiring | None = None


class KubernetesLayer(pulumi.ComponentResource):
    """Device plugins, storage and Kueue for one cluster (`railyard:kubernetes:KubernetesLayer`)."""

    plan: KubernetesPlan

    def __init__(self, name: str, args: KubernetesLayerArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("railyard:kubernetes:KubernetesLayer", name, None, opts)
        if args.provider is None and args.kubeconfig is None:
            raise ValueError("KubernetesLayerArgs needs the cluster's kubeconfig or a kubernetes provider")
        self.plan = args.plan
        self.provider = args.provider or k8s.Provider(f"{name}-provider", kubeconfig=args.kubeconfig, opts=pulumi.ResourceOptions(parent=self))
        child = pulumi.ResourceOptions(parent=self)
        after = list(args.depends_on)
        namespace = self.plan.workload_namespace
        if namespace != "default" and (self.plan.storage.volumes or self.plan.kueue is not None or self.plan.layout.compute_domains is not None):
            after.append(
                k8s.core.v1.Namespace(
                    f"{name}-namespace",
                    metadata=k8s.meta.v1.ObjectMetaArgs(name=namespace),
                    opts=pulumi.ResourceOptions(parent=self, provider=self.provider),
                )
            )
        system = list(args.system_nodes)
        self.plugins = DevicePlugins(f"{name}-plugins", self.plan.plugin_releases, self.provider, child, system)
        self.metrics = AcceleratorMetrics(f"{name}-metrics", self.plan.metrics, self.provider, child, system)
        self.storage = ClusterStorage(
            f"{name}-storage", self.plan.storage, args.file_systems, self.provider, after, child, system, args.class_networks
        )
        self.karpenter = None
        if self.plan.karpenter is not None:
            if args.karpenter is None:
                raise ValueError("the plan has Karpenter pools: pass the cluster stack's KarpenterWiring")
            self.karpenter = KarpenterNodes(f"{name}-karpenter", self.plan.karpenter, args.karpenter, self.provider, child, system)
        gates = self.plan.layout.gates
        self.gates = NodeGates(f"{name}-gates", gates, self.provider, child) if gates.placement is not None else None
        self.acceptance = None
        if self.plan.layout.acceptance:
            if self.plan.checker_bundle is None:
                raise ValueError("the plan gates pools on acceptance: give it the checker bundle (railyard.checker_bundle)")
            self.acceptance = AcceptanceGates(f"{name}-acceptance", self.plan.layout.acceptance, self.plan.checker_bundle, self.provider, child)
        domains = self.plan.layout.compute_domains
        self.compute_domains = ComputeDomains(f"{name}-compute-domains", domains, self.provider, after, child, system) if domains else None
        self.kueue = KueueScheduling(f"{name}-kueue", self.plan.kueue, self.provider, after, child, system) if self.plan.kueue is not None else None
        self.register_outputs(
            {
                "device_plugins": sorted(self.plugins.releases),
                "claims": sorted(self.storage.claims),
                "cluster_queue": self.plan.kueue.cluster_queue if self.plan.kueue else None,
            }
        )
