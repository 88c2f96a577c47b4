"""A pool's acceptance expectation, compiled from the same plan `preview` compiles, and the fabric test's pass line.

The expectation is data for the node checker (`acceptance/`, standard library only): this module
is the one place that reads the blueprint, the plan and the catalog for it. Its figures:

- accelerator count, model and memory: the catalog (EC2 DescribeInstanceTypes, `GpuInfo` / `NeuronInfo`);
  the memory floor is 98% of EC2's figure, because the driver keeps some back (the real H100 80GB HBM3
  capture shows 81,559 MiB of EC2's 81,920, 0.44% less) and a GPU with a whole memory partition
  missing is far below 98%;
- the power limit: the catalog's per-accelerator `tdp_watts` (accelerator_facts.yaml, with its source);
- EFA devices: the interfaces the plan's launch template gives the pool's nodes
  (`topology.cluster.interfaces.interface_layout`), what the EFA device plugin advertises;
- NVLinks per GPU and PCIe generation and width: the two tables below, each figure with its source;
- Neuron cores: the catalog's physical NeuronCores per device times the device count;
- the burn-in (pools with `burn_in_minutes`): its duration, and the floor DCGM's `memory_bandwidth` plugin holds
  each GPU to, `BANDWIDTH_FLOOR` (0.57) of the catalog's `hbm_bandwidth_tbps` in MB/s. NVIDIA's own floor for the
  H100 80GB HBM3 is 1,905,000 MB/s, 0.75 of the ~2,540,000 its `dcgmproftester -t 1005` measures
  (github.com/NVIDIA/DCGM @ 72fa3fea, `nvvs/diag-skus.yaml.in`, SKU 2330); 0.57 of H100's 3.35 TB/s is 1,909,500,
  the same line to 0.3%, derived the same way for every GPU the catalog knows.

The fabric line: a fraction (0.8, `RING_FRACTION`) of the node's EFA bandwidth, the sum of the
`BaselineBandwidthInGbps` of the network cards its EFA interfaces sit on, in GB/s. The fraction is
a starting point to be calibrated on hardware (acceptance-conformance.md section 3, "a first,
calibratable rule"): published two-node p5.48xlarge runs reach 437.79-487.09 GB/s with NCCL's
default algorithm, above the p5 line of 320 GB/s, as a sanity check must.

The NVLink line, for a run kept to one NVLink domain that spans instances (a GB200 NVL72 UltraServer, its
workers in one ComputeDomain: `acceptance fabric --scope clique`): the same fraction of one GPU's NVLink
bandwidth in one direction, the catalog's `bandwidth_gbps_per_accelerator` (both directions; 14,400 Gbps
for GB200, 1.8 TB/s) halved, in GB/s: nccl-tests' bus bandwidth is what each rank moves one way
(nccl-tests doc/PERFORMANCE.md), so its ceiling is one direction of the rank's links. For p6e-gb200,
0.8 x 900 = 720 GB/s, a starting point to calibrate on hardware like the EFA line.
"""

from __future__ import annotations

import difflib
from dataclasses import replace
from typing import Any

from acceptance import Expectation
from blueprints.catalog import Catalog, InstanceType
from blueprints.models import Blueprint
from blueprints.records import record
from topology.cluster.interfaces import InterfaceSpec
from topology.cluster.node_groups import plan_node_groups

CHEATSHEET = "aws-samples/awsome-distributed-training 1.architectures/efa-cheatsheet.md @ 7217859f (pcie.gpu_nvlinks_expected_up)"
# NVLinks each GPU must show up, per instance family. p4d and p5e are not in the cheatsheet: they carry the same GPU and
# NVSwitch board as p4de and p5en, so the same count is derived for them.
NVLINKS_PER_GPU: dict[str, tuple[int, str]] = {
    "p4d": (12, f"derived: the A100 SXM board of p4de (12 links, {CHEATSHEET})"),
    "p4de": (12, CHEATSHEET),
    "p5": (18, CHEATSHEET),
    "p5e": (18, f"derived: the H200 SXM board of p5en (18 links, {CHEATSHEET})"),
    "p5en": (18, CHEATSHEET),
    "p6-b200": (18, CHEATSHEET),
    "p6e-gb200": (
        18,
        "NVIDIA DGX SuperPOD GB200 reference architecture, Network Fabrics (docs.nvidia.com/dgx-superpod/reference-architecture-"
        'scalable-infrastructure-gb200/latest/network-fabrics.html): "Each B200 GPU features 18 NVL5 links"; NVIDIA/k8s-test-infra#371 '
        "shows nvidia-smi nvlink -s listing Link 0-17 per NVIDIA GB200",
    ),
}
# PCIe generation and width each GPU's link trains to, per accelerator (EC2's name for it).
PCIE: dict[str, tuple[int, int, str]] = {
    "H100": (5, 16, "a real H100 80GB HBM3 (acceptance/examples/h100-80gb-hbm3: max_link_gen 5, 16x); NVIDIA H100 datasheet: PCIe Gen5"),
    "H200": (5, 16, "https://www.nvidia.com/en-us/data-center/h200/ (PCIe Gen5: 128 GB/s)"),
    "A100": (4, 16, "https://www.nvidia.com/en-us/data-center/a100/ (PCIe Gen4: 64 GB/s)"),
    "A10G": (4, 16, "https://www.nvidia.com/en-us/data-center/products/a10-gpu/ (PCIe Gen4 x16)"),
    "L4": (4, 16, "https://www.nvidia.com/en-us/data-center/l4/ (PCIe Gen4 x16)"),
    "L40S": (4, 16, "https://www.nvidia.com/en-us/data-center/l40s/ (PCIe Gen4 x16)"),
    "RTX PRO Server 6000": (5, 16, "https://www.nvidia.com/en-us/data-center/rtx-pro-6000-blackwell-server-edition/ (PCIe Gen5 x16)"),
}
# GPUs whose memory is HBM, where ECC is on unless someone turned it off (NVIDIA's data-center HBM parts): acceptance holds
# them to ECC on. On the GDDR parts (A10G, L4, L40S, RTX PRO 6000) ECC is a setting the AMI chooses, so it is not held.
HBM_MODELS = frozenset({"A100", "H100", "H200", "B200", "B300"})
# The word nvidia-smi's product name holds where EC2's name for the GPU differs ("NVIDIA RTX PRO 6000 Blackwell Server Edition").
PRODUCT_WORD = {"RTX PRO Server 6000": "RTX PRO 6000"}
# The whole product name nvidia-smi prints, per instance family, where a real output shows it: the name tells an SXM5
# H100 (`NVIDIA H100 80GB HBM3`) from an `NVIDIA H100 PCIe` or `NVIDIA H100 NVL`, which the word "H100" does not.
PRODUCT_NAMES: dict[str, tuple[str, str]] = {
    "p5": (
        "NVIDIA H100 80GB HBM3",
        "a real H100 SXM5 (acceptance/examples/h100-80gb-hbm3, PCI device 0x2330) and an 8 x H100 node's nvidia-smi -q "
        "(leptonai/gpud components/accelerator/nvidia/query/testdata/nvidia-smi-query.535.183.01.out.0.valid @ a7cdf53d)",
    ),
    # The SXM H200 of p5e and p5en (PCI device 0x2335); an `NVIDIA H200 NVL` is the PCIe card.
    "p5e": ("NVIDIA H200", "a real H200 SXM's nvidia-smi -q, driver 550.90.12, PCI device 0x2335 (thamada/gls gls/H200_smi.py @ c0bed08d)"),
    "p5en": ("NVIDIA H200", "a real H200 SXM's nvidia-smi -q, driver 550.90.12, PCI device 0x2335 (thamada/gls gls/H200_smi.py @ c0bed08d)"),
    "p6e-gb200": (
        "NVIDIA GB200",
        "NVIDIA/k8s-test-infra#371 and #639 (NVIDIA's mock of a GB200 node: `GPU 0: NVIDIA GB200`, `Product Name : NVIDIA GB200`); "
        "leptonai/gpud#1106 (a real GB200 node, reported as NVIDIA-GB200)",
    ),
}
# The word the product name holds, per family, where it is not EC2's name for the GPU: a GB200's GPU is EC2's "B200"
# (the catalog's assumption for p6e-gb200), but nvidia-smi prints `NVIDIA GB200`.
FAMILY_WORD = {"p6e-gb200": "GB200"}
# Families whose GPUs reach their Grace CPU over NVLink-C2C; acceptance holds each GPU to `GPU C2C Mode : Enabled`.
C2C: dict[str, str] = {
    "p6e-gb200": "https://www.nvidia.com/en-us/data-center/gb200-nvl72/ (each GB200 Superchip: two Blackwell GPUs and a Grace CPU "
    "over NVLink-C2C); GPU C2C Mode reads Enabled on a Grace part (a real GH200, driver 550.127.05: thamada/gls "
    "gls/GH200_smi.py @ b2f1cede; NVIDIA/k8s-test-infra#639 for GB200)",
}
MEMORY_FLOOR = 0.98
BANDWIDTH_FLOOR = 0.57
RING_FRACTION = 0.8
# Trainium's nccom-test line, a lower share: the only multi-instance figure AWS publishes (nccom-test.rst @0f75c1e0,
# two trn1 instances, 64 ranks, fp32 all-reduce) peaks at 47.09 GiB/s = 50.56 GB/s at 1 GiB, 0.51 of a trn1.32xlarge's
# 800 Gbps; 0.8 would fail AWS's own example. A starting point to calibrate on hardware, like RING_FRACTION.
NEURON_FRACTION = 0.4


class ExpectationNeeds(ValueError):
    """The expectation can't be compiled as asked (an unknown pool, pools whose node groups disagree); the message says why."""


def _pool_interfaces(blueprint: Blueprint, catalog: Catalog, pool: str) -> tuple[InstanceType, tuple[InterfaceSpec, ...]]:
    """The pool's instance type and the network interfaces the plan gives its nodes (every node group of a pool gets the same)."""
    names = [p.name for p in blueprint.pools]
    if pool not in names:
        near = difflib.get_close_matches(pool, names, n=1)
        raise ExpectationNeeds(f"no pool {pool!r} in the blueprint{f'; did you mean {near[0]!r}?' if near else ''} (pools: {', '.join(names)})")
    layouts = {group.interfaces for group in plan_node_groups(blueprint, catalog) if group.pool == pool}
    if len(layouts) > 1:
        raise ExpectationNeeds(f"the node groups of pool {pool!r} launch different interface layouts: {sorted(map(len, layouts))}")
    spec = catalog.get(next(p.instance_type for p in blueprint.pools if p.name == pool))
    assert spec is not None, "validation refuses an instance type the catalog doesn't have"
    return spec, (layouts.pop() if layouts else ())


def pool_expectation(blueprint: Blueprint, catalog: Catalog, pool: str, level: str = "standard") -> Expectation:
    """What every node of `pool` must show, at `level` (`acceptance.LEVELS`), from the plan and the catalog; `ExpectationNeeds` when it can't."""
    spec, interfaces = _pool_interfaces(blueprint, catalog, pool)
    efa = sum(1 for interface in interfaces if interface.is_efa)
    sources = {"instance_type": "the blueprint", "efa_devices": f"the plan's launch-template interfaces: {efa} EFA on {spec.name}"}
    node = Expectation(pool=pool, instance_type=spec.name, level=level, efa_devices=efa, sources=sources)
    accelerator = spec.accelerator
    if accelerator is None:
        return node
    # A type no DescribeInstanceTypes answer gives (p6e-gb200) has figures typed from AWS's documentation: say so.
    documented = spec.name in catalog.documented()
    origin = "AWS's documentation (blueprints/catalog/documented/)" if documented else "EC2 DescribeInstanceTypes"
    sources["accelerator_count"] = f"{origin}: {accelerator.count} x {accelerator.model}, {accelerator.memory_mib} MiB each"
    if accelerator.kind == "neuron":
        sources["neuron_cores"] = f"EC2 NeuronInfo: {accelerator.neuron_cores} NeuronCores per device"
        cores = accelerator.total_neuron_cores
        return replace(node, accelerator_kind="neuron", accelerator_count=accelerator.count, accelerator_model=accelerator.model, neuron_cores=cores)
    figures = _gpu_figures(spec, sources, "AWS's documented" if documented else "EC2's") | _burn_in(blueprint, pool, spec, sources)
    return replace(node, accelerator_kind="gpu", accelerator_count=accelerator.count, **figures)


def _burn_in(blueprint: Blueprint, pool: str, spec: InstanceType, sources: dict[str, str]) -> dict[str, Any]:
    """The burn-in fields of a GPU pool's expectation (none without `burn_in_minutes`), each source added to `sources`."""
    gate = next(p.acceptance for p in blueprint.pools if p.name == pool)
    if gate is None or not gate.burn_in_minutes:
        return {}
    sources["burn_in_seconds"] = "the pool's acceptance.burn_in_minutes: DCGM's targeted_stress and targeted_power each run that long"
    hbm = spec.hbm_bandwidth_tbps
    floor = round(hbm * BANDWIDTH_FLOOR * 1_000_000) if hbm else None
    if floor is not None:
        fact = spec.fact("hbm_bandwidth_tbps")
        cited = f": {fact.source}" if fact else ""
        sources["memory_bandwidth_floor_mbs"] = f"{BANDWIDTH_FLOOR:g} of accelerator_facts.yaml hbm_bandwidth_tbps {hbm:g}{cited}"
    return {"burn_in_seconds": gate.burn_in_minutes * 60, "memory_bandwidth_floor_mbs": floor}


def _gpu_figures(spec: InstanceType, sources: dict[str, str], whose: str = "EC2's") -> dict[str, Any]:
    """The GPU fields of an expectation (model word, memory floor, ECC, power, PCIe, NVLinks), each source added to `sources`."""
    accelerator = spec.accelerator
    assert accelerator is not None
    # A one-GPU size of an NVLink family (p5.4xlarge) has no peer GPU for a link to reach: no NVLink is expected there.
    links = NVLINKS_PER_GPU.get(spec.family) if accelerator.count > 1 else None
    # A Grace part's GPU reaches its CPU over C2C, not PCIe (a GH200 reads PCIe gen 4 x1): no PCIe line is held there.
    pcie = PCIE.get(accelerator.model) if spec.family not in C2C else None
    product = PRODUCT_NAMES.get(spec.family)
    power = spec.fact("tdp_watts")
    sources["memory_mib_min"] = f"{MEMORY_FLOOR:.0%} of {whose} {accelerator.memory_mib} MiB (the driver keeps some back)"
    if power is not None:
        sources["power_limit_w"] = f"accelerator_facts.yaml tdp_watts ({power.confidence}): {power.source}"
    if links is not None:
        sources["nvlinks_per_gpu"] = links[1]
    if pcie is not None:
        sources["pcie"] = pcie[2]
    if product is not None:
        sources["accelerator_product"] = product[1]
    return {
        "accelerator_model": FAMILY_WORD.get(spec.family, PRODUCT_WORD.get(accelerator.model, accelerator.model)),
        "accelerator_product": product[0] if product else None,
        "memory_mib_min": int(accelerator.memory_mib * MEMORY_FLOOR),
        "ecc": True if accelerator.model in HBM_MODELS else None,
        "power_limit_w": spec.tdp_watts,
        "pcie_generation": pcie[0] if pcie else None,
        "pcie_width": pcie[1] if pcie else None,
        "nvlinks_per_gpu": links[0] if links else None,
    } | _domain_figures(spec, sources)


def _domain_figures(spec: InstanceType, sources: dict[str, str]) -> dict[str, Any]:
    """The fields of a GPU that spans instances: its NVLink fabric joined (a domain over several instances), its C2C up."""
    figures: dict[str, Any] = {}
    scale_up = spec.scale_up
    if scale_up is not None and scale_up.kind == "nvlink" and scale_up.instances_per_domain > 1:
        fact = spec.fact("scale_up")
        figures["nvlink_fabric"] = True
        sources["nvlink_fabric"] = (
            f"the catalog's scale_up: one NVLink domain of {scale_up.domain_size} GPUs over {scale_up.instances_per_domain} instances"
            + (f" ({fact.source})" if fact else "")
        )
    if spec.family in C2C:
        figures["c2c"] = True
        sources["c2c"] = C2C[spec.family]
    return figures


@record
class FabricLine:
    """The pass line of a pool's fabric test: the node's EFA bandwidth, the fraction asked of it, and the line in GB/s."""

    pool: str
    efa_gbps: float
    fraction: float

    @property
    def line_gbs(self) -> float:
        """`fraction` x the EFA bandwidth, in GB/s (10^9 bytes a second, nccl-tests' unit)."""
        return self.fraction * self.efa_gbps / 8

    def header(self) -> str:
        """How `acceptance judge` states the line."""
        return f"pool {self.pool}: line {self.line_gbs:.1f} GB/s = {self.fraction:g} x {self.efa_gbps:g} Gbps of EFA / 8 (to calibrate on hardware)"


@record
class NvlinkLine:
    """The pass line of a run inside one NVLink domain across instances: a GPU's NVLink bandwidth one way, and the fraction."""

    pool: str
    nvlink_gbps: float
    fraction: float

    @property
    def line_gbs(self) -> float:
        """`fraction` x one direction of a GPU's NVLink bandwidth (half the catalog's both-ways figure), in GB/s."""
        return self.fraction * self.nvlink_gbps / 2 / 8

    def header(self) -> str:
        """How `acceptance judge` states the line."""
        return (
            f"pool {self.pool}: line {self.line_gbs:.1f} GB/s = {self.fraction:g} x {self.nvlink_gbps:g} Gbps of NVLink per GPU "
            "/ 2 directions / 8 (one NVLink domain; to calibrate on hardware)"
        )


def nvlink_line(blueprint: Blueprint, catalog: Catalog, pool: str, fraction: float | None = None) -> NvlinkLine:
    """The NVLink line for `pool`; `ExpectationNeeds` when its NVLink domain doesn't span instances (no multi-node NVLink to test)."""
    spec, _ = _pool_interfaces(blueprint, catalog, pool)
    scale_up = spec.scale_up
    if scale_up is None or scale_up.kind != "nvlink" or scale_up.instances_per_domain < 2:
        raise ExpectationNeeds(f"pool {pool!r} ({spec.name}) has no NVLink domain across instances: --scope clique tests none")
    return NvlinkLine(pool, scale_up.bandwidth_gbps_per_accelerator, RING_FRACTION if fraction is None else fraction)


def fabric_line(blueprint: Blueprint, catalog: Catalog, pool: str, fraction: float | None = None) -> FabricLine:
    """The fabric test's line for `pool` (by default NEURON_FRACTION on Neuron, RING_FRACTION elsewhere); `ExpectationNeeds` without EFA."""
    spec, interfaces = _pool_interfaces(blueprint, catalog, pool)
    if fraction is None:
        neuron = spec.accelerator is not None and spec.accelerator.kind == "neuron"
        fraction = NEURON_FRACTION if neuron else RING_FRACTION
    cards = {card.index: card for card in spec.network_cards}
    gbps = sum(cards[interface.network_card_index].baseline_gbps for interface in interfaces if interface.is_efa)
    if not gbps:
        raise ExpectationNeeds(f"pool {pool!r} ({spec.name}) joins no EFA fabric: its nodes have no EFA interface to test")
    return FabricLine(pool, gbps, fraction)
