"""The EKS managed add-ons a blueprint's cluster gets, in the order they must go in, and their checks.

Order matters to EKS: an add-on is created when its pods can run, or EKS
waits for it to turn ACTIVE until the create times out. The Pod Identity
agent, the VPC CNI and kube-proxy are DaemonSets the nodes themselves need,
so they go in before any node group (and the node groups wait for them, as
nodes read the CNI's settings when they boot); CoreDNS, the EBS CSI
controller and metrics-server are Deployments, so they go in once the
system nodes are up; the node monitoring agent follows them.

The VPC CNI keeps the node role's AmazonEKS_CNI_Policy (a CNI that waited on
a Pod Identity association would wait on pods it must itself network); the
EBS CSI controller gets its own role through a Pod Identity association, the
reference stacks' choice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from blueprints.catalog.pins import load_pins
from blueprints.findings import Finding, error, warning
from blueprints.models import Blueprint
from blueprints.models.addons import CoreAddon, OptionalAddon
from blueprints.records import record
from topology.cluster.node_groups import NodeGroupPlan

CODES = ("addon.cni-too-old-for-efa", "addon.pod-identity-agent-off", "addon.repair-without-monitoring")
# The VPC CNI version EFA-only interfaces need (EKS user guide, node-efa.adoc).
EFA_ONLY_CNI = (1, 18, 5)
Pinned = Literal["blueprint", "railyard", "eks-default"]


@record
class AddonSpec:
    """What railyard knows of one add-on: its blueprint key, EKS name, when it goes in, and the IAM it needs."""

    key: str
    name: str
    before_nodes: bool
    service_account: tuple[str, str] | None = None
    managed_policy: str | None = None
    # The IAM role is `<cluster>-addons-<role>-role` plus Pulumi's 8: within IAM's 64 for a 33-character cluster name.
    role: str | None = None


# In installation order.
ADDONS = (
    AddonSpec("pod_identity_agent", "eks-pod-identity-agent", before_nodes=True),
    AddonSpec("vpc_cni", "vpc-cni", before_nodes=True),
    AddonSpec("kube_proxy", "kube-proxy", before_nodes=True),
    AddonSpec("coredns", "coredns", before_nodes=False),
    AddonSpec(
        "ebs_csi_driver",
        "aws-ebs-csi-driver",
        before_nodes=False,
        service_account=("kube-system", "ebs-csi-controller-sa"),
        managed_policy="service-role/AmazonEBSCSIDriverPolicy",
        role="ebs-csi",
    ),
    AddonSpec("metrics_server", "metrics-server", before_nodes=False),
    AddonSpec("node_monitoring_agent", "eks-node-monitoring-agent", before_nodes=False),
)


@record
class AddonPlan:
    """One add-on to install: which, at what version (None: EKS's default, resolved at apply), and from whom the version comes."""

    spec: AddonSpec
    version: str | None
    pinned_by: Pinned

    @property
    def name(self) -> str:
        """The EKS add-on name (`vpc-cni`)."""
        return self.spec.name


def _setting(blueprint: Blueprint, key: str) -> CoreAddon | OptionalAddon:
    setting: CoreAddon | OptionalAddon = getattr(blueprint.kubernetes.addons, key)
    return setting


def plan_addons(blueprint: Blueprint) -> tuple[AddonPlan, ...]:
    """The add-ons the cluster gets, in installation order, each with its version and where the version comes from."""
    kubernetes = blueprint.kubernetes.version
    pins = load_pins()
    planned = []
    for spec in ADDONS:
        setting = _setting(blueprint, spec.key)
        if isinstance(setting, OptionalAddon) and not setting.enabled:
            continue
        pinned = pins.addon(spec.name).version(kubernetes)
        if setting.version is not None:
            planned.append(AddonPlan(spec, setting.version, "blueprint"))
        elif pinned is not None:
            planned.append(AddonPlan(spec, pinned, "railyard"))
        else:
            planned.append(AddonPlan(spec, None, "eks-default"))
    return tuple(planned)


def _release(version: str) -> tuple[int, int, int]:
    major, minor, patch = version.lstrip("v").split("-", 1)[0].split(".")
    return int(major), int(minor), int(patch)


def addon_findings(blueprint: Blueprint, node_groups: Sequence[NodeGroupPlan]) -> Iterable[Finding]:
    """A CNI too old for EFA-only interfaces, an add-on role with no Pod Identity agent, GPU repair with nothing to see GPU faults."""
    addons = blueprint.kubernetes.addons
    cni = addons.vpc_cni.version
    efa_only = sorted({group.pool for group in node_groups if any(i.interface_type == "efa-only" for i in group.interfaces)})
    if cni is not None and efa_only and _release(cni) < EFA_ONLY_CNI:
        yield error(
            "addon.cni-too-old-for-efa",
            ("kubernetes", "addons", "vpc_cni", "version"),
            f"vpc-cni {cni} can't run EFA-only interfaces, which pools {efa_only} get; they need 1.18.5 or later (EKS user guide, EFA)",
            "leave the version out (railyard's pin) or choose 1.18.5 or later",
            pools=efa_only,
        )
    if addons.ebs_csi_driver.enabled and not addons.pod_identity_agent.enabled:
        yield error(
            "addon.pod-identity-agent-off",
            ("kubernetes", "addons", "pod_identity_agent", "enabled"),
            "the EBS CSI driver gets its IAM role through a Pod Identity association, which needs the Pod Identity agent",
            "turn pod_identity_agent on, or turn ebs_csi_driver off",
        )
    accelerated = sorted({group.pool for group in node_groups if group.ami_type.endswith(("_NVIDIA", "_NEURON"))})
    if blueprint.kubernetes.node_auto_repair and accelerated and not addons.node_monitoring_agent.enabled:
        yield warning(
            "addon.repair-without-monitoring",
            ("kubernetes", "addons", "node_monitoring_agent", "enabled"),
            f"node auto repair is on, but without the node monitoring agent it sees only kubelet health: GPU and Neuron faults on "
            f"pools {accelerated} go unrepaired (EKS user guide, node health)",
            "turn node_monitoring_agent on",
            pools=accelerated,
        )
