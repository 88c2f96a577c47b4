"""The Kubernetes layer a blueprint asks for: version, device plugins, storage mounts, Kueue.

Every plugin is placed for you: it runs on exactly the pools that have its
device, with exactly their taints tolerated. The optional `pools`,
`node_selector` and `tolerations` fields narrow or replace that placement; the
cross-layer check (`topology/cluster/kubernetes_checks.py`) then proves the result
still reaches every pool that needs the plugin and no pool that doesn't.
Kueue flavors are derived per pool the same way; a `kueue.flavors` entry
states what you expect (labels, quota, topology levels) and the check holds
the cluster to it.
"""

from typing import Annotated, Any, Literal, Self

from pydantic import Field, StringConstraints, model_validator

from blueprints.catalog.pins import DEFAULT_KUBERNETES_VERSION
from blueprints.models.addons import Addons
from blueprints.models.base import Cidr, Model, Name, check_secondary_blocks, from_defaults, no_entries, no_items, violation
from blueprints.models.pools import LabelKey, LabelValue

HOSTNAME_LEVEL = "kubernetes.io/hostname"
# What `railyard explain` says for the code `check_secondary_blocks` raises with a code it is handed.
EXPLAIN = {
    "network.pod-cidr-size": {
        "meaning": "a pod CIDR (kubernetes.pod_networking.pod_cidrs) is not a /16 to /28, the sizes a VPC's secondary CIDR block may have",
        "why": "each pod CIDR becomes a secondary CIDR block of the VPC, which AWS takes only from /16 to /28 "
        "(Amazon VPC User Guide, VPC CIDR blocks); another size fails when the VPC is updated, after the cluster exists",
        "fix": "split it into /16 blocks, such as 100.64.0.0/16 and 100.65.0.0/16",
    },
}
PolicyArn = Annotated[
    str,
    StringConstraints(pattern=r"^arn:aws[a-z-]*:iam::(aws|[0-9]{12}):policy/[A-Za-z0-9+=,.@_/-]{1,512}$"),
    Field(description="A managed policy ARN, such as arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore."),
]


class Toleration(Model):
    """A toleration, in Kubernetes terms, carried by a plugin's pods."""

    key: LabelKey = Field(description="The taint key tolerated, such as nvidia.com/gpu.")
    operator: Literal["Equal", "Exists"] = Field(default="Equal", description="`Equal` matches key and value; `Exists` matches any value of the key.")
    value: LabelValue = Field(default="", description="The taint value matched by `Equal` (empty with `Exists`).")
    effect: Literal["NoSchedule", "NoExecute", "PreferNoSchedule"] | None = Field(
        default=None, description="The taint effect matched; none = every effect."
    )

    @model_validator(mode="after")
    def _exists_has_no_value(self) -> Self:
        if self.operator == "Exists" and self.value:
            raise violation(
                "k8s.toleration-value",
                f"toleration for '{self.key}' uses operator Exists with value '{self.value}'; Exists matches any value",
                "drop the value, or use operator: Equal",
                field="value",
            )
        return self


class _PlacedPlugin(Model):
    """Placement overrides shared by the plugins that run as one DaemonSet per device."""

    pools: list[Name] | None = Field(default=None, description="The pools the plugin runs on; none = every pool that has its device (recommended).")
    node_selector: dict[LabelKey, LabelValue] = Field(
        default_factory=no_entries,
        description="Extra node labels the plugin's pods require, on top of its pools; each must be set on every node of those pools.",
    )
    tolerations: list[Toleration] | None = Field(
        default=None, description="Replaces the plugin's tolerations; none = exactly the taints of its pools (recommended)."
    )


class NvidiaDevicePlugin(_PlacedPlugin):
    """NVIDIA's k8s-device-plugin Helm chart: advertises `nvidia.com/gpu`."""

    kind: Literal["nvidia_device_plugin"] = Field(description="The NVIDIA k8s-device-plugin chart.")


class GpuOperator(Model):
    """NVIDIA's GPU Operator, with driver and toolkit off (EKS NVIDIA AMIs ship both).

    The operator finds GPU nodes by their PCI devices (node-feature-discovery),
    so it has no pool selector; only its tolerations can be replaced.
    """

    kind: Literal["gpu_operator"] = Field(description="The NVIDIA GPU Operator chart.")
    tolerations: list[Toleration] | None = Field(
        default=None, description="Replaces the operands' tolerations; none = exactly the taints of the GPU pools (recommended)."
    )


class EfaDevicePlugin(_PlacedPlugin):
    """AWS's EFA device plugin: advertises `vpc.amazonaws.com/efa` on pools that join an EFA fabric."""

    kind: Literal["efa_device_plugin"] = Field(description="The AWS EFA k8s device plugin chart.")


class NeuronDevicePlugin(_PlacedPlugin):
    """AWS's Neuron device plugin: advertises `aws.amazon.com/neuron` and neuron cores."""

    kind: Literal["neuron_device_plugin"] = Field(description="The AWS Neuron Helm chart's device plugin.")
    scheduler_extension: bool = Field(default=False, description="Also deploy the Neuron scheduler extension (contiguous core allocation).")


DevicePlugin = Annotated[
    NvidiaDevicePlugin | GpuOperator | EfaDevicePlugin | NeuronDevicePlugin,
    Field(discriminator="kind", description="A device plugin to install."),
]


class KueueFlavor(Model):
    """What you expect of one pool's Kueue ResourceFlavor; every field left out is derived."""

    pool: Name = Field(description="The pool this flavor stands for.")
    node_labels: dict[LabelKey, LabelValue] | None = Field(
        default=None,
        max_length=8,
        description="Node labels that select the pool's nodes (Kueue allows 8); none = {railyard.dev/pool: <pool>}.",
    )
    accelerator_quota: int | None = Field(
        default=None,
        ge=0,
        description="Accelerators the ClusterQueue grants on this flavor; none = the pool's maximum nodes x accelerators per node.",
    )
    topology_levels: list[LabelKey] | None = Field(
        default=None,
        min_length=1,
        max_length=16,
        description="Kueue Topology levels, broadest first; none = zone, failure domain, the instance type's AWS network layers, hostname.",
    )

    @model_validator(mode="after")
    def _levels_well_formed(self) -> Self:
        levels = self.topology_levels or []
        if len(set(levels)) != len(levels):
            repeated = sorted({level for level in levels if levels.count(level) > 1})
            raise violation("k8s.topology-levels", f"topology_levels repeats {repeated}", "list each label once", field="topology_levels")
        if HOSTNAME_LEVEL in levels[:-1]:
            raise violation(
                "k8s.topology-levels",
                f"'{HOSTNAME_LEVEL}' is level {levels.index(HOSTNAME_LEVEL) + 1} of {len(levels)}; Kueue allows it only as the last level",
                f"move '{HOSTNAME_LEVEL}' to the end of topology_levels",
                field="topology_levels",
            )
        return self


class Kueue(Model):
    """The Kueue objects generated when `topology_aware_scheduling` is on."""

    cluster_queue: Name | None = Field(default=None, description="The ClusterQueue's (and LocalQueue's) name; none = the blueprint's metadata.name.")
    flavors: list[KueueFlavor] = Field(
        default_factory=no_items, description="Expectations for some pools' flavors; pools not listed get derived flavors."
    )

    @model_validator(mode="after")
    def _one_entry_per_pool(self) -> Self:
        pools = [flavor.pool for flavor in self.flavors]
        repeated = sorted({pool for pool in pools if pools.count(pool) > 1})
        if repeated:
            raise violation(
                "k8s.duplicate-flavor", f"kueue.flavors lists pool(s) {repeated} more than once", "keep one entry per pool", field="flavors"
            )
        return self


class Endpoint(Model):
    """How the EKS API server is reached, by the nodes and by whoever runs `pulumi up` for the Kubernetes layer.

    The layer (device plugins, FSx volumes, Kueue) is applied through the API
    server, so the machine that applies it must reach the endpoint: through
    the public endpoint, restricted to `public_access_cidrs`, or from inside
    the VPC or a connected network through the private endpoint, allowed by
    `private_access_cidrs` (docs/endpoint-access.md).
    """

    private: bool = Field(default=True, description="Reachable from inside the VPC (the nodes always use it when it is on).")
    public_access_cidrs: list[Cidr] = Field(
        default_factory=no_items,
        max_length=40,
        description="CIDRs allowed to reach a public endpoint (EKS allows 40); empty = no public endpoint at all.",
    )
    private_access_cidrs: list[Cidr] = Field(
        default_factory=no_items,
        max_length=40,
        description="CIDRs inside the VPC or a connected network (a CI runner, a VPN) allowed to reach the private "
        "endpoint on TCP 443; each becomes an ingress rule on the cluster security group. Left out while a separate "
        "layer stack has no public endpoint: the VPC's own block (cloud.vpc_cidr), a runner in this VPC.",
    )


class PodNetworking(Model):
    """How the VPC CNI gives pods addresses, which decides how many addresses each node takes from its subnet.

    `secondary_ips` (the CNI's default): pods get secondary IPs of the ENIs
    the CNI attaches on network card 0; without warm targets it keeps a whole
    spare ENI's addresses (WARM_ENI_TARGET=1), so a node may hold every
    address of every ENI card 0 has room for. `warm_ip_target` and
    `minimum_ip_target` make it hold only what its pods use plus a few.
    `prefix_delegation`: /28 prefixes instead of single addresses (16 pods a
    slot; subnets need free contiguous /28 blocks). `custom_networking`: pods
    take addresses from subnets carved out of `pod_cidrs`, secondary VPC
    blocks (usually 100.64.0.0/10), one per node group, and the node's own
    subnet keeps one address a node. Set through the `vpc-cni` EKS add-on's
    configuration (docs/scale.md).
    """

    mode: Literal["secondary_ips", "prefix_delegation", "custom_networking"] = Field(
        default="secondary_ips", description="How pods get addresses (see the model's description)."
    )
    pods_per_node: int | None = Field(
        default=None,
        ge=1,
        le=737,
        description="Pods with VPC addresses per node (host-network pods don't count); none = as many as the CNI allows.",
    )
    warm_ip_target: int | None = Field(default=None, ge=0, le=64, description="Free addresses the CNI keeps per node (WARM_IP_TARGET).")
    minimum_ip_target: int | None = Field(default=None, ge=0, le=737, description="Addresses the CNI holds per node from boot (MINIMUM_IP_TARGET).")
    pod_cidrs: list[Cidr] = Field(
        default_factory=no_items,
        max_length=49,
        description="custom_networking: secondary VPC CIDR blocks (/16 to /28) pods' subnets are carved from.",
    )

    @model_validator(mode="after")
    def _cidrs_only_for_custom_networking(self) -> Self:
        if self.pod_cidrs and self.mode != "custom_networking":
            raise violation(
                "network.pod-cidrs-unused",
                f"pod_cidrs is set, but mode is {self.mode}; only custom_networking uses them",
                "set mode: custom_networking, or drop pod_cidrs",
                field="pod_cidrs",
            )
        if self.mode == "custom_networking" and not self.pod_cidrs:
            raise violation(
                "network.pod-cidrs-missing",
                "custom_networking needs pod_cidrs, the secondary VPC blocks pods' subnets come from",
                "add pod_cidrs: [100.64.0.0/16]",
                field="pod_cidrs",
            )
        check_secondary_blocks(self.pod_cidrs, "network.pod-cidr-size", "pod CIDR", "pod_cidrs")
        return self


class SystemNodes(Model):
    """The untainted node group the cluster's controllers run on, across every zone."""

    instance_type: Annotated[str, StringConstraints(pattern=r"^[a-z0-9-]+\.[a-z0-9]+$")] = Field(
        default="m7i.xlarge", description="A general-purpose, compute or memory type (`railyard catalog --system` lists them)."
    )
    min: int = Field(default=2, ge=1, le=100, description="Fewest nodes (at least one: CoreDNS and the controllers need somewhere to run).")
    desired: int = Field(default=2, ge=1, le=100, description="Nodes at creation.")
    max: int = Field(default=4, ge=1, le=100, description="Most nodes.")
    root_volume_gib: int = Field(default=50, ge=20, le=65_536, description="Root volume size (gp3, encrypted).")

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if not self.min <= self.desired <= self.max:
            raise violation(
                "k8s.system-node-range",
                f"system nodes min {self.min}, desired {self.desired}, max {self.max} are not in order",
                "set min <= desired <= max",
                field="desired",
            )
        return self


class Kubernetes(Model):
    """The EKS cluster's Kubernetes layer."""

    version: Annotated[str, StringConstraints(pattern=r"^1\.[0-9]{2}$")] = Field(
        default=DEFAULT_KUBERNETES_VERSION,
        description=f'The EKS Kubernetes version, quoted ("{DEFAULT_KUBERNETES_VERSION}"); the default is the newest in EKS\'s '
        "release calendar (blueprints/catalog/pins.yaml).",
    )
    device_plugins: list[DevicePlugin] = Field(
        default_factory=no_items,
        description="Device plugins to install; left out = the plugin each pool's devices need (NVIDIA GPUs, Neuron, EFA; "
        "blueprints/device_defaults.py); `[]` = none installed.",
    )
    topology_aware_scheduling: bool = Field(
        default=True, description="Generate Kueue Topology, ResourceFlavors and a ClusterQueue from the blueprint."
    )
    compute_domains: bool | None = Field(
        default=None,
        description="Install NVIDIA's DRA driver for GPUs with ComputeDomains (chart nvidia-dra-driver-gpu, "
        "blueprints/catalog/pins.yaml), so a job spanning the instances of an NVLink domain (a GB200 NVL72 UltraServer) "
        "gets an IMEX domain, and give each such pool a ComputeDomain in the workload namespace; none = on when a pool's "
        'NVLink domain spans instances (the EKS user guide: "DRA is a requirement to use the P6e-GB200 UltraServers").',
    )
    kueue: Kueue = Field(default_factory=from_defaults(), description="Names and expectations for the generated Kueue objects.")
    workload_namespace: Name = Field(default="default", description="The namespace for the Kueue LocalQueue and the FSx PersistentVolumeClaims.")
    endpoint: Endpoint = Field(default_factory=from_defaults(), description="API server endpoint access.")
    control_plane_tier: Literal["auto", "standard", "tier-xl", "tier-2xl", "tier-4xl", "tier-8xl"] = Field(
        default="auto",
        description="EKS control-plane scaling tier; `auto` = the smallest whose node range holds the cluster's nodes at their "
        "largest (standard to 1,000, tier-xl to 2,500, tier-2xl to 5,000, tier-4xl to 10,000, tier-8xl beyond; docs/scale.md).",
    )
    pod_networking: PodNetworking = Field(default_factory=from_defaults(), description="How the VPC CNI addresses pods.")
    addons: Addons = Field(default_factory=from_defaults(), description="The EKS managed add-ons and their versions.")
    system_nodes: SystemNodes = Field(default_factory=from_defaults(), description="The system node group's type and size.")
    accelerator_metrics: bool = Field(
        default=True,
        description="Scrape-ready accelerator metrics: the NVIDIA DCGM exporter on GPU pools (the GPU Operator's own when it is "
        "listed) and neuron-monitor on Neuron pools, annotated for Prometheus.",
    )
    node_iam_policies: list[PolicyArn] = Field(
        default_factory=no_items,
        max_length=18,
        description="Extra IAM policies for the nodes' role (SSM, CloudWatch agent, ...), by ARN; railyard attaches 3 of its own, "
        "and IAM allows 20 managed policies per role (IAM quotas).",
    )
    node_auto_repair: bool = Field(
        default=True,
        description="EKS node auto repair on every node group: replaces or reboots nodes whose kubelet, GPU or Neuron devices fail "
        "(GPU and Neuron faults are reported by addons.node_monitoring_agent).",
    )
    layer_stack: Literal["same", "separate"] = Field(
        default="separate",
        description="`same`: the cluster's stack also applies the Kubernetes layer, so `pulumi up` must reach the API server "
        "(public_access_cidrs); `separate`: a second stack, run from inside the VPC or a connected network, applies it and "
        "reads the cluster through a StackReference (docs/endpoint-access.md). Left out: `same` when "
        "endpoint.public_access_cidrs lists the deployers, else `separate` (a private endpoint nothing outside can reach).",
    )

    @model_validator(mode="before")
    @classmethod
    def _layer_stack_follows_the_endpoint(cls, data: Any) -> Any:
        # Left out, the layer goes where `pulumi up` can reach the API server: the cluster's own stack when the
        # public endpoint admits the deployers, else a stack run from inside the VPC. Either way the defaults form
        # a design `validate` accepts (endpoint.unreachable can only follow an explicit `layer_stack: same`).
        if not isinstance(data, dict) or "layer_stack" in data:
            return data
        endpoint = data.get("endpoint")
        public = endpoint.get("public_access_cidrs") if isinstance(endpoint, dict) else getattr(endpoint, "public_access_cidrs", None)
        return {**data, "layer_stack": "same" if public else "separate"}

    @model_validator(mode="after")
    def _plugins_distinct(self) -> Self:
        kinds = [plugin.kind for plugin in self.device_plugins]
        repeated = sorted({kind for kind in kinds if kinds.count(kind) > 1})
        if repeated:
            raise violation(
                "k8s.duplicate-plugin", f"device_plugins lists {repeated} more than once", "keep one entry per kind", field="device_plugins"
            )
        if {"nvidia_device_plugin", "gpu_operator"} <= set(kinds):
            raise violation(
                "k8s.plugin-conflict",
                "device_plugins lists both nvidia_device_plugin and gpu_operator; the operator runs its own "
                "device plugin and the two fight over nvidia.com/gpu",
                "keep one of them: nvidia_device_plugin (lighter) or gpu_operator (adds DCGM, GFD, MIG manager)",
                field="device_plugins",
            )
        return self

    @model_validator(mode="after")
    def _flavors_need_kueue(self) -> Self:
        if self.kueue.flavors and not self.topology_aware_scheduling:
            raise violation(
                "k8s.kueue-disabled",
                f"kueue.flavors describes {len(self.kueue.flavors)} flavor(s), but topology_aware_scheduling is false, so no Kueue object is made",
                "set topology_aware_scheduling: true, or remove kueue.flavors",
                field="kueue",
            )
        return self
