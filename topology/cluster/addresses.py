"""How many VPC addresses a node takes, from the instance type's network cards and the VPC CNI's behaviour.

The VPC CNI gives pods secondary addresses of the ENIs it attaches on network
card 0 only (its README: "The CNI plugin by default only manages network card
0"; misc/eni-max-pods.txt: limits "calculated only against the default
network card at index (0)"), and `efa-only` interfaces hold no address. So a
node's CNI ENIs are card 0's interface slots less the `efa-only` interfaces
the launch template puts there: 1 on p5 and trn2 (2 slots, one taken), 3 on
p5en (4 slots). Then, per `kubernetes.pod_networking.mode`:

* secondary IPs with the defaults (WARM_ENI_TARGET=1): ipamd keeps a whole
  spare ENI's addresses, so a node can hold every address of every CNI ENI:
  ENIs x IPv4 per interface (50 on p5, p5en, trn2);
* with `warm_ip_target` / `minimum_ip_target`: the addresses its pods use
  plus the warm ones (at least the minimum), and one primary address per ENI
  that carries them;
* prefix delegation: /28 prefixes (16 addresses) for pods plus one spare
  prefix (WARM_PREFIX_TARGET=1), and each ENI's primary address;
* custom networking: the node's subnet keeps its primary address only; pods'
  addresses, computed as above over the ENIs after the primary, come from
  the node group's pod subnet.

Pods per node default to the CNI's maximum: ENIs x (IPv4 per interface - 1)
+ 2, the formula of misc/eni-max-pods.txt (x 16 with prefixes, capped at 110
up to 30 vCPUs and 250 above, as the EKS AMI's max-pods calculator does). The
"+ 2" stands for the host-network pods (aws-node, kube-proxy), which take no
pod address but count against the kubelet's limit; so when a blueprint states
`pods_per_node` (pods with VPC addresses), the kubelet's limit is that plus 2.

What a node gets when nothing sets its limit is another figure
(`default_max_pods`): the EKS AMI, EKS's own NodeConfig on a managed node
group, nodeadm and Karpenter all size it from the instance type alone, as
eni-max-pods.txt does, over *every* card-0 slot: p5.48xlarge 100,
trn2.48xlarge 100, p5en.48xlarge 198 (aws/amazon-vpc-cni-k8s
misc/eni-max-pods.txt @ b52188387f2e). Where the launch template puts an
`efa-only` interface in one of those slots, that figure counts an ENI the
CNI can never attach: p5 and trn2 address 49 pods, p5en 147.
"""

from __future__ import annotations

from math import ceil

from blueprints.models.kubernetes import PodNetworking
from blueprints.records import record

PREFIX_ADDRESSES = 16
HOST_NETWORK_PODS = 2  # the "+ 2" of the CNI's max-pods formula
PREFIX_POD_CAPS = ((30, 110), (None, 250))  # (most vCPUs, most pods): the EKS AMI max-pods calculator


@record
class NodeAddresses:
    """Addresses one node takes: in its own subnet, and (custom networking) in its pod subnet; and its pods."""

    node: int
    pods_subnet: int
    pods: int
    kubelet_max_pods: int = 0
    pod_enis: int = 1  # ENIs whose addresses pods may take (custom networking: all but the primary)
    cni_pods: int = 0  # pods with VPC addresses the CNI can give a node in this mode (its max-pods less the host-network pods)
    default_max_pods: int = 0  # the kubelet's limit when nothing sets it: eni-max-pods.txt's figure over every card-0 slot


def default_max_pods(card_zero_interfaces: int, ipv4_per_interface: int, vcpus: int, mode: str) -> int:
    """The maxPods a node gets from its instance type alone (eni-max-pods.txt; with prefixes, the calculator's capped figure).

    EKS, nodeadm and Karpenter know nothing of the `efa-only` interface a
    launch template puts on card 0, so they count every card-0 slot; custom
    networking is not known to them either, so it counts as secondary IPs.
    """
    return max_pods(card_zero_interfaces, ipv4_per_interface, vcpus, "prefix_delegation" if mode == "prefix_delegation" else "secondary_ips")


def cni_enis(card_zero_interfaces: int, efa_only_on_card_zero: int) -> int:
    """ENIs the CNI can use for pods: card 0's slots less its efa-only interfaces (the primary included)."""
    return max(1, card_zero_interfaces - efa_only_on_card_zero)


def max_pods(enis: int, ipv4_per_interface: int, vcpus: int, mode: str) -> int:
    """The CNI's pod limit per node (misc/eni-max-pods.txt; prefixes: the EKS AMI calculator, capped)."""
    usable = enis - 1 if mode == "custom_networking" else enis
    if mode == "prefix_delegation":
        cap = next(most for limit, most in PREFIX_POD_CAPS if limit is None or vcpus <= limit)
        return min(cap, usable * (ipv4_per_interface - 1) * PREFIX_ADDRESSES + 2)
    return usable * (ipv4_per_interface - 1) + 2


def _held(pods: int, networking: PodNetworking, capacity: int) -> int:
    """Secondary addresses the CNI holds for `pods` pods under warm targets, within what the ENIs hold."""
    wanted = max(networking.minimum_ip_target or 0, pods + (networking.warm_ip_target or 0))
    return min(capacity, wanted)


def node_addresses(
    enis: int, ipv4_per_interface: int, vcpus: int, networking: PodNetworking, card_zero_interfaces: int | None = None
) -> NodeAddresses:
    """The addresses a node takes (see the module docstring); `card_zero_interfaces` is card 0's slot count (default: `enis`)."""
    mode = networking.mode
    limit = max_pods(enis, ipv4_per_interface, vcpus, mode)
    pods = networking.pods_per_node or limit
    kubelet = networking.pods_per_node + HOST_NETWORK_PODS if networking.pods_per_node else limit
    per_eni = ipv4_per_interface - 1
    pod_enis = enis - 1 if mode == "custom_networking" else enis
    limits = {
        "pod_enis": pod_enis,
        "cni_pods": max(0, limit - HOST_NETWORK_PODS),
        "default_max_pods": default_max_pods(card_zero_interfaces or enis, ipv4_per_interface, vcpus, mode),
    }
    warm = networking.warm_ip_target is not None or networking.minimum_ip_target is not None
    if mode == "prefix_delegation":
        prefixes = ceil(pods / PREFIX_ADDRESSES) + (0 if warm else 1)
        if warm:
            prefixes = ceil(_held(pods, networking, enis * per_eni * PREFIX_ADDRESSES) / PREFIX_ADDRESSES)
        used_enis = min(enis, max(1, ceil(prefixes / per_eni)))
        return NodeAddresses(used_enis + prefixes * PREFIX_ADDRESSES, 0, pods, kubelet, **limits)
    if warm:
        held = _held(pods, networking, pod_enis * per_eni)
        pod_addresses = held + ceil(held / per_eni)
    else:
        pod_addresses = pod_enis * ipv4_per_interface
    if mode == "custom_networking":
        return NodeAddresses(1, pod_addresses, pods, kubelet, **limits)
    return NodeAddresses(max(1, pod_addresses), 0, pods, kubelet, **limits)
