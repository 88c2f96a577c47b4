"""Typed, frozen view of the accelerator instance catalog.

Two kinds of numbers live here and are kept apart on purpose:

* API facts (vCPUs, memory, accelerators, network cards, EFA, NVMe, placement,
  usage classes) are parsed from AWS's DescribeInstanceTypes entries by
  `api_fields`; nothing in them is typed by hand. The one exception is a
  figure the vendor's documentation corrects (Trainium2's memory): it carries a
  `Fact` too (`accelerator_memory_mib`), and a test holds every other API
  figure to moto's DescribeInstanceTypes dump.
* Non-API facts (accelerator power and speed, scale-up fabric, node power,
  topology layers) come from `accelerator_facts.yaml`. Each carries a `Fact`
  with its source and confidence, reachable through `InstanceType.fact(name)`.

`Catalog` (`blueprints.catalog.collection`) is the read-only collection of these the rest of railyard asks questions of.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, fields, is_dataclass
from typing import Any, Literal

from blueprints.records import record

Confidence = Literal["verified", "secondary", "unsure"]
CONFIDENCES: tuple[str, ...] = ("verified", "secondary", "unsure")
EFA_INTERFACE_TYPES = frozenset({"efa", "efa-only"})


class CatalogError(Exception):
    """The catalog data is malformed or the two data files disagree."""


def family_of(instance_type: str) -> str:
    """The family part of an instance type name: `p6-b200.48xlarge` -> `p6-b200`."""
    return instance_type.split(".", 1)[0]


@record
class Fact:
    """A number the EC2 API does not give, with where it came from."""

    name: str
    value: Any
    source: str
    confidence: Confidence
    note: str = ""


@record
class NetworkCard:
    """One physical network card (`NetworkInfo.NetworkCards[]`)."""

    index: int
    baseline_gbps: float
    peak_gbps: float
    max_interfaces: int
    interface_types: tuple[str, ...]

    @property
    def supports_efa(self) -> bool:
        """True when the card accepts an `efa` or `efa-only` interface."""
        return bool(EFA_INTERFACE_TYPES.intersection(self.interface_types))

    @classmethod
    def from_aws(cls, card: Mapping[str, Any]) -> NetworkCard:
        """Parse one `NetworkCards[]` entry."""
        return cls(
            index=card["NetworkCardIndex"],
            baseline_gbps=float(card["BaselineBandwidthInGbps"]),
            peak_gbps=float(card["PeakBandwidthInGbps"]),
            max_interfaces=card["MaximumNetworkInterfaces"],
            # Required, not defaulted: EFA eligibility is read from it, never guessed.
            interface_types=tuple(card["InterfaceTypes"]),
        )


@record
class Accelerator:
    """The accelerators of one instance type; memory and cores are per device."""

    vendor: Literal["nvidia", "aws"]
    kind: Literal["gpu", "neuron"]
    model: str
    count: int
    memory_mib: int
    neuron_cores: int | None = None
    # Physical NeuronCores the Neuron driver groups into one logical core by default (LNC): 2 on Trainium2, 1 before
    # it (accelerator_facts.yaml, `logical_neuroncore_config`). 1 for GPUs.
    logical_neuroncore_config: int = 1

    @property
    def total_memory_mib(self) -> int:
        """Device memory summed over all accelerators of the instance."""
        return self.memory_mib * self.count

    @property
    def total_neuron_cores(self) -> int | None:
        """Physical NeuronCores on the instance (None for GPUs)."""
        return None if self.neuron_cores is None else self.neuron_cores * self.count

    @property
    def schedulable_neuron_cores(self) -> int | None:
        """NeuronCores the node advertises as `aws.amazon.com/neuroncore`: the logical ones, at the default LNC.

        The Neuron device plugin counts the cores the driver presents, and on Trainium2 the driver presents one
        logical core per two physical ones unless the node is configured otherwise: a trn2.48xlarge offers 64, not 128.
        """
        total = self.total_neuron_cores
        return None if total is None else total // self.logical_neuroncore_config

    @classmethod
    def from_aws(cls, entry: Mapping[str, Any]) -> Accelerator | None:
        """Parse `GpuInfo` or `NeuronInfo`; None when the entry has neither."""
        gpus = entry.get("GpuInfo", {}).get("Gpus", [])
        devices = entry.get("NeuronInfo", {}).get("NeuronDevices", [])
        if len(gpus) + len(devices) > 1:
            raise CatalogError(f"{entry.get('InstanceType')}: mixed accelerator models")
        if gpus:
            gpu = gpus[0]
            if gpu.get("Manufacturer") != "NVIDIA":
                raise CatalogError(f"{entry['InstanceType']}: GPU vendor {gpu.get('Manufacturer')!r} is not supported (only NVIDIA)")
            return cls("nvidia", "gpu", gpu["Name"], gpu["Count"], gpu["MemoryInfo"]["SizeInMiB"])
        if devices:
            device = devices[0]
            return cls(
                "aws",
                "neuron",
                device["Name"],
                device["Count"],
                device["MemoryInfo"]["SizeInMiB"],
                device["CoreInfo"]["Count"],
            )
        return None


@record
class InstanceStore:
    """Local NVMe instance storage (`InstanceStorageInfo`)."""

    disk_count: int
    disk_size_gb: int
    total_gb: int


@record
class ScaleUp:
    """The accelerator-to-accelerator fabric (NVLink, NeuronLink or plain PCIe).

    `domain_size` counts accelerators that share it; it exceeds the instance's
    own count only when `instances_per_domain` > 1 (Trn2 UltraServers).
    Bandwidth is per accelerator, both directions, in gigabits per second.
    """

    kind: Literal["nvlink", "neuronlink", "pcie"]
    domain_size: int
    bandwidth_gbps_per_accelerator: float
    instances_per_domain: int = 1


def advertised_gbps(performance: str) -> float | None:
    """Gbps of a `NetworkPerformance` string: "3200 Gigabit" 3200, "16x 200 Gigabit" 3200; None for "Up to ..." (a burst)."""
    match = re.fullmatch(r"(?:(\d+)x )?(\d+(?:\.\d+)?) Gigabit", performance)
    if match is None:
        return None
    return int(match.group(1) or 1) * float(match.group(2))


def api_fields(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The `InstanceType` fields that come from one DescribeInstanceTypes entry."""
    network = entry["NetworkInfo"]
    cards = sorted(
        (NetworkCard.from_aws(card) for card in network["NetworkCards"]),
        key=lambda card: card.index,
    )
    architectures = entry["ProcessorInfo"]["SupportedArchitectures"]
    storage = entry.get("InstanceStorageInfo")
    store = None
    if storage:
        disks = storage["Disks"]
        store = InstanceStore(
            disk_count=sum(disk["Count"] for disk in disks),
            disk_size_gb=disks[0]["SizeInGB"],
            total_gb=storage["TotalSizeInGB"],
        )
    efa_supported = bool(network.get("EfaSupported", False))
    return {
        "name": entry["InstanceType"],
        "family": family_of(entry["InstanceType"]),
        "accelerator": Accelerator.from_aws(entry),
        "vcpus": entry["VCpuInfo"]["DefaultVCpus"],
        "memory_mib": entry["MemoryInfo"]["SizeInMiB"],
        # An arm64 instance only ever lists arm64; x86 ones may add i386.
        "architecture": "arm64" if "arm64" in architectures else "x86_64",
        "network_cards": tuple(cards),
        "network_performance": network["NetworkPerformance"],
        "efa_supported": efa_supported,
        "max_efa_interfaces": (network.get("EfaInfo", {}).get("MaximumEfaInterfaces", 0) if efa_supported else 0),
        "max_network_interfaces": network["MaximumNetworkInterfaces"],
        "ipv4_per_interface": network["Ipv4AddressesPerInterface"],
        "instance_store": store,
        "placement_strategies": tuple(entry.get("PlacementGroupInfo", {}).get("SupportedStrategies", ())),
        "usage_classes": tuple(entry.get("SupportedUsageClasses", ())),
    }


@record
class InstanceType:
    """One EC2 instance type: AWS's data joined to the hand-entered facts.

    The fields from `name` to `usage_classes` are AWS's; `tdp_watts` (per
    accelerator), `bf16_dense_tflops` (per accelerator), `hbm_bandwidth_tbps`
    (per accelerator), `scale_up`, `typical_node_kw` and `topology_layers` are
    not, and `fact(name)` tells where each came from.
    """

    name: str
    family: str
    accelerator: Accelerator | None
    vcpus: int
    memory_mib: int
    architecture: Literal["x86_64", "arm64"]
    network_cards: tuple[NetworkCard, ...]
    network_performance: str
    efa_supported: bool
    max_efa_interfaces: int
    max_network_interfaces: int
    ipv4_per_interface: int
    instance_store: InstanceStore | None
    placement_strategies: tuple[str, ...]
    usage_classes: tuple[str, ...]
    tdp_watts: float | None
    bf16_dense_tflops: float | None
    hbm_bandwidth_tbps: float | None
    scale_up: ScaleUp | None
    typical_node_kw: float | None
    topology_layers: int
    # The cards AWS's guide puts a node's EFA interfaces on, where it names a subset (p6e-gb200: one card per GPU);
    # empty where every EFA card carries one (accelerator_facts.yaml, `efa_cards`).
    recommended_efa_cards: tuple[int, ...] = ()
    facts: tuple[Fact, ...] = ()

    @property
    def efa_card_indices(self) -> tuple[int, ...]:
        """Indices of the cards that accept EFA interfaces, in index order."""
        return tuple(card.index for card in self.network_cards if card.supports_efa)

    @property
    def efa_layout_cards(self) -> tuple[int, ...]:
        """The cards a node's EFA interfaces go on, one each: the family's `recommended_efa_cards` where AWS names
        them, else every EFA card (card 0 only with a second slot beside the primary interface), at most
        `MaximumEfaInterfaces` of them; none without EFA. The launch template, the policy pack and the node's
        expected EFA devices all read this one list."""
        if not self.efa_supported:
            return ()
        if self.recommended_efa_cards:
            return self.recommended_efa_cards
        usable = [card.index for card in self.network_cards if card.supports_efa and (card.index != 0 or card.max_interfaces >= 2)]
        return tuple(usable[: self.max_efa_interfaces])

    @property
    def efa_devices(self) -> int:
        """EFA devices a node of this type gets when it joins an EFA fabric (the `vpc.amazonaws.com/efa` it advertises)."""
        return len(self.efa_layout_cards)

    @property
    def cards_gbps(self) -> float:
        """Sum of the cards' baseline bandwidths (`NetworkCards[].BaselineBandwidthInGbps`)."""
        return sum(card.baseline_gbps for card in self.network_cards)

    @property
    def network_gbps(self) -> float:
        """The instance's network bandwidth: AWS's own figure for it (`NetworkPerformance`), or the cards' baseline sum
        where that figure is a burst ceiling ("Up to 25 Gigabit"). Where the two differ, `fact("network_gbps")` says why."""
        advertised = advertised_gbps(self.network_performance)
        return self.cards_gbps if advertised is None else advertised

    @property
    def supports_capacity_blocks(self) -> bool:
        """True when EC2 sells this type as Capacity Blocks for ML."""
        return "capacity-block" in self.usage_classes

    @property
    def accelerator_count(self) -> int:
        """Accelerators on one instance (0 when none)."""
        return self.accelerator.count if self.accelerator else 0

    @property
    def accelerator_resource(self) -> str | None:
        """The Kubernetes extended resource the device plugin advertises."""
        if self.accelerator is None:
            return None
        return "nvidia.com/gpu" if self.accelerator.vendor == "nvidia" else "aws.amazon.com/neuron"

    @property
    def ami_type(self) -> str:
        """The EKS AL2023 AMI type for this instance's accelerator and CPU.

        Per aws-facts.md 4.4 (botocore `AMITypes` and the EKS accelerated-AMI
        table): NVIDIA on x86_64 -> AL2023_x86_64_NVIDIA, NVIDIA on arm64 ->
        AL2023_ARM_64_NVIDIA, Trainium/Inferentia -> AL2023_x86_64_NEURON,
        no accelerator -> the STANDARD type of the architecture.
        """
        arm = self.architecture == "arm64"
        if self.accelerator is None:
            return "AL2023_ARM_64_STANDARD" if arm else "AL2023_x86_64_STANDARD"
        if self.accelerator.vendor == "nvidia":
            return "AL2023_ARM_64_NVIDIA" if arm else "AL2023_x86_64_NVIDIA"
        return "AL2023_x86_64_NEURON"

    def fact(self, name: str) -> Fact | None:
        """Provenance of a non-API field (`tdp_watts`, `scale_up`, ...), if any."""
        return next((fact for fact in self.facts if fact.name == name), None)

    def as_dict(self) -> dict[str, Any]:
        """Plain, JSON-ready dict: fields, derived properties and fact sources."""
        data = {f.name: plain(getattr(self, f.name)) for f in fields(self) if f.name != "facts"}
        derived = ("efa_card_indices", "efa_layout_cards", "network_gbps", "supports_capacity_blocks")
        for name in (*derived, "accelerator_count", "accelerator_resource", "ami_type"):
            data[name] = plain(getattr(self, name))
        data["facts"] = {fact.name: plain(fact) for fact in self.facts}
        return data


def plain(value: Any) -> Any:
    """Dataclasses to dicts and tuples to lists, recursively, for JSON."""
    if is_dataclass(value) and not isinstance(value, type):
        return plain(asdict(value))
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value
