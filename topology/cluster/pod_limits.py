"""Pods a node can address: `kubernetes.pod_networking` against each node group's network cards.

The VPC CNI gives pods addresses of the ENIs it attaches on network card 0
(`topology.cluster.addresses`). Two designs validate on their own and then
leave pods without addresses on the nodes:

* custom networking on an EFA pool whose card 0 has two interface slots (p5,
  p5e, trn2, trn2u): the primary interface and the `efa-only` interface fill
  them, and under custom networking the primary carries no pod addresses, so
  ipamd has no ENI to attach in the ENIConfig subnet and every pod that isn't
  host-network fails sandbox creation (`network.no-pod-eni`; the CNI's README
  @ b52188387f2e: "The CNI plugin by default only manages network card 0");
* `pods_per_node` above what the CNI can address in the chosen mode: the
  kubelet admits them and the ones beyond stay `ContainerCreating`
  (`network.pods-over-cni-limit`).

And one that is AWS's behaviour to state, not a mistake to refuse: on an
EKS-AMI managed node group EKS appends its own NodeConfig, whose maxPods
"takes precedence over any other maxPods configuration" (EKS user guide,
choosing-instance-type, "How maxPods is determined"; eksctl refuses a per-node
pod limit there for the same reason, eksctl-io/eksctl#8037). railyard sets no
maxPods there, and says so where the blueprint asks for a limit
(`pods_per_node`) or where EKS's figure, computed from every card-0 ENI,
counts pods custom networking can't address, or, in every other mode, counts
card 0's `efa-only` slot as a pod ENI (p5 and trn2: 100 where the CNI
addresses 49 pods; p5en 198 where it addresses 147; `network.max-pods-by-eks`).
Where railyard writes the kubelet's configuration (a custom AMI's NodeConfig,
a Karpenter NodePool) it sets the limit the CNI can keep instead.

Both are read off the planned node groups, so they judge exactly the
interfaces the launch templates get.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from blueprints.findings import Finding, error, warning
from blueprints.models import Blueprint
from topology.cluster.addresses import HOST_NETWORK_PODS
from topology.cluster.node_groups import NodeGroupPlan

CODES = ("network.no-pod-eni", "network.pods-over-cni-limit", "network.max-pods-by-eks")
MODE = ("kubernetes", "pod_networking", "mode")
PODS_PER_NODE = ("kubernetes", "pod_networking", "pods_per_node")


def _one_per_pool(node_groups: Sequence[NodeGroupPlan]) -> list[NodeGroupPlan]:
    """The first node group of each pool, in plan order (a pool's groups share one instance type and interface layout)."""
    first: dict[str, NodeGroupPlan] = {}
    for group in node_groups:
        first.setdefault(group.pool, group)
    return list(first.values())


def pod_limit_findings(blueprint: Blueprint, node_groups: Sequence[NodeGroupPlan]) -> Iterable[Finding]:
    """Node groups on which pods can't get addresses, or fewer than `pods_per_node` of them can."""
    firsts = _one_per_pool(node_groups)
    yield from _eks_sets_max_pods(blueprint, firsts)
    networking = blueprint.kubernetes.pod_networking
    for group in firsts:
        addresses = group.addresses
        if networking.mode == "custom_networking" and addresses.pod_enis == 0:
            efa_on_card_zero = sum(1 for i in group.interfaces if i.network_card_index == 0 and i.interface_type == "efa-only")
            yield error(
                "network.no-pod-eni",
                MODE,
                f"network card 0 of pool '{group.pool}' ({group.instance_type}) has {1 + efa_on_card_zero} interface slot(s), "
                f"taken by the primary interface{' and an EFA-only interface' if efa_on_card_zero else ''}; under custom_networking "
                "the primary carries no pod addresses and the VPC CNI uses card 0 only, so no pod on these nodes can get an address",
                "use prefix_delegation or secondary_ips for this cluster (pods then take the primary interface's addresses), "
                f"or take pool '{group.pool}' off its EFA fabric",
                pools=[group.pool],
            )
            continue
        wanted = networking.pods_per_node
        if wanted is not None and wanted > addresses.cni_pods:
            yield error(
                "network.pods-over-cni-limit",
                PODS_PER_NODE,
                f"pods_per_node is {wanted}, but a node of pool '{group.pool}' ({group.instance_type}) can address at most "
                f"{addresses.cni_pods} pods under {networking.mode} ({addresses.pod_enis} ENI(s) on network card 0 for pods); "
                "the kubelet would admit the rest and they would stay ContainerCreating",
                f"set pods_per_node to {addresses.cni_pods} or less"
                + ("" if networking.mode == "prefix_delegation" else ", or use prefix_delegation (16 addresses a slot)"),
                pools=[group.pool],
            )


def overcounted(group: NodeGroupPlan) -> bool:
    """True when the pod limit a node gets by default admits more VPC-addressed pods than the CNI can address.

    The default counts every card-0 slot (eni-max-pods.txt); the `efa-only`
    interface holds one of them, so p5 and trn2 get 100 where the CNI
    addresses 49 pods plus the 2 host-network ones, p5en 198 where it addresses 147.
    """
    return group.addresses.default_max_pods - HOST_NETWORK_PODS > group.addresses.cni_pods


def _overcount_text(groups: Sequence[NodeGroupPlan]) -> str:
    """Each pool's default limit against what its nodes address, with the card-0 arithmetic."""
    return "; ".join(
        f"{group.pool} ({group.instance_type}) gets maxPods {group.addresses.default_max_pods} from eni-max-pods.txt, which counts "
        f"the efa-only slot on card 0, but the CNI addresses {group.addresses.cni_pods} pods there "
        f"(kubelet limit {group.addresses.cni_pods + HOST_NETWORK_PODS} with the 2 host-network pods)"
        for group in groups
    )


def _eks_sets_max_pods(blueprint: Blueprint, firsts: Sequence[NodeGroupPlan]) -> Iterable[Finding]:
    """One warning naming the EKS-AMI managed pools whose pod limit EKS, not the blueprint, decides, when that matters."""
    networking = blueprint.kubernetes.pod_networking
    custom = networking.mode == "custom_networking"
    pools = [group for group in firsts if group.eks_sets_max_pods]
    over = [group for group in pools if overcounted(group)] if not custom else []
    if not pools or (networking.pods_per_node is None and not custom and not over):
        return
    asked = (
        f"pods_per_node {networking.pods_per_node} still sizes the pod addresses, but the kubelet does not hold nodes to it"
        if (networking.pods_per_node is not None)
        else ""
        if over
        else "its figure counts every card-0 ENI"
    )
    addressable = ", ".join(f"{group.pool} {group.addresses.cni_pods}" for group in pools)
    named = over or pools
    yield warning(
        "network.max-pods-by-eks",
        PODS_PER_NODE if networking.pods_per_node is not None else MODE,
        f"on EKS-AMI managed node groups ({', '.join(group.pool for group in named)}) EKS sets the kubelet's maxPods itself "
        f"(at most 110 up to 30 vCPUs, 250 above) and its value takes precedence over a launch template's, so railyard sets none"
        + (f"; {asked}" if asked else "")
        + (
            f"; under custom_networking a node addresses only so many pods ({addressable}), and pods admitted beyond that stay ContainerCreating"
            if custom
            else ""
        )
        + (f"; {_overcount_text(over)}: pods admitted beyond that stay ContainerCreating" if over else ""),
        "give the pool a custom AMI (pools[].ami_id: railyard then writes the NodeConfig with maxPods"
        + (f": {', '.join(f'{group.addresses.cni_pods + HOST_NETWORK_PODS} for {group.pool}' for group in over)}" if over else "")
        + ") or Karpenter (its NodePool sets maxPods), "
        + (
            "or use prefix_delegation (the CNI then addresses at least as many pods as EKS admits), or keep pods per node within "
            + ", ".join(f"{group.addresses.cni_pods} on {group.pool}" for group in over)
            + " through resource requests"
            if over
            else "or keep pods per node within what the nodes address through resource requests"
        ),
        pools=[group.pool for group in named],
    )
