"""A combination of offerings as a complete blueprint: the base, one training pool on the blocks, FSx sized, the quote.

Pure: the base blueprint's data, the needs, the combination and the catalog in; YAML text out. The base
gives metadata, cloud (its region and zones are the block's), kubernetes, storage, power, quotas and cost;
its pools, failure domains and fabrics are replaced by one zone (the block's), AWS's EFA network where
the type has EFA, and one pool of every instance the blocks hold. One block is a `capacity_block`; several
(more than 64 instances, or UltraServers) are a `reservation_group` of Capacity Blocks. Until bought,
each block is named by its offering id. `cost.capacity_block_quotes` holds the offerings' `UpfrontFee`
together, so `validate` prices the file as the offer was made.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import yaml

from blueprints.catalog.model import InstanceType
from blueprints.models.needs import Needs
from blueprints.rules.fsx import legal_capacity
from railyard.plan.combine import Combination
from topology.storage import MEGABYTES_PER_GIB, SCRATCH_MB_PER_TIB

# libyaml's emitter where PyYAML was built with it (as the loader uses libyaml's parser): the pure-Python one took half
# of a plan's time. Both write the same YAML for these plain mappings, lists, strings and numbers.
FAST_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
POOL = "train"
FABRIC = "efa"
# The base's own sections a candidate keeps; the rest (pools, failure domains, fabrics) is the plan's.
KEPT = ("version", "metadata", "cloud", "kubernetes", "storage", "power", "quotas", "cost")


def _time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def capacity_of(combination: Combination) -> dict[str, Any]:
    """The pool's `capacity`: one block by its offering, or a reservation group of the blocks' offerings."""
    offerings = combination.offerings
    if len(offerings) == 1:
        offering = offerings[0]
        return {
            "kind": "capacity_block",
            "offering_id": offering.offering_id,
            "zone": offering.zone,
            "instance_type": offering.instance_type,
            "instance_count": offering.instance_count,
            "start": _time(offering.start),
            "end": _time(offering.end),
        }
    return {
        "kind": "reservation_group",
        "capacity_blocks": True,
        "offering_ids": [offering.offering_id for offering in offerings],
        "zone": combination.zone,
        "instance_type": combination.instance_type,
        "instance_count": combination.nodes,
    }


def sized_lustre(tier: Mapping[str, Any], checkpoint_gib: float, seconds: float) -> dict[str, Any]:
    """An FSx for Lustre tier grown to the smallest legal capacity that writes the checkpoint in time (never shrunk)."""
    sized = dict(tier)
    deployment = str(tier.get("deployment_type", ""))
    throughput = tier.get("throughput_mbps_per_tib")
    per_tib = SCRATCH_MB_PER_TIB if deployment.startswith("SCRATCH") else throughput
    if not isinstance(per_tib, int) or per_tib <= 0:
        return sized
    needed_gib = checkpoint_gib * MEGABYTES_PER_GIB / seconds / per_tib * 1024
    capacity = max(int(tier.get("capacity_gib") or 0), math.ceil(needed_gib), math.ceil(checkpoint_gib))
    storage_type = str(tier.get("storage_type", "SSD"))
    while not legal_capacity(deployment, storage_type, throughput, capacity)[0]:
        capacity += 1200 - capacity % 1200 if capacity % 1200 else 1200
    sized["capacity_gib"] = capacity
    return sized


def _storage(base: Mapping[str, Any], needs: Needs, spec: InstanceType) -> tuple[list[Any], list[dict[str, Any]]]:
    """The base's storage tiers (the checkpoint tier sized) and what the pool mounts: FSx tiers, and local NVMe where the type has it."""
    tiers = copy.deepcopy(list(base.get("storage") or []))
    uses: list[dict[str, Any]] = []
    wanted = needs.storage
    lustre = [tier for tier in tiers if isinstance(tier, dict) and tier.get("kind") == "fsx_lustre" and not tier.get("existing")]
    target = next((tier for tier in lustre if wanted and tier.get("name") == wanted.tier), lustre[0] if lustre else None)
    for index, tier in enumerate(tiers):
        if not isinstance(tier, dict):
            continue
        kind = tier.get("kind")
        if kind in ("fsx_lustre", "fsx_lustre_class"):
            use: dict[str, Any] = {"tier": tier.get("name")}
            if wanted is not None and tier is target:
                tiers[index] = sized_lustre(tier, wanted.checkpoint_gib, wanted.checkpoint_seconds)
                use["checkpoint"] = {"size_gib": wanted.checkpoint_gib, "max_write_seconds": wanted.checkpoint_seconds}
            uses.append(use)
        elif kind == "local_nvme" and spec.instance_store is not None:
            uses.append({"tier": tier.get("name")})
    return tiers, uses


def blueprint_data(base: Mapping[str, Any], needs: Needs, combination: Combination, spec: InstanceType, zones: Sequence[str]) -> dict[str, Any]:
    """The candidate blueprint as data: the base's kept sections, the block's zone and one pool on its blocks."""
    data = {key: copy.deepcopy(base[key]) for key in KEPT if key in base}
    cloud = dict(data.get("cloud") or {})
    cloud["region"] = combination.region
    cloud["availability_zones"] = list(zones)
    data["cloud"] = cloud
    domain = combination.zone
    data["failure_domains"] = {"zones": [{"name": domain, "availability_zone": combination.zone}]}
    if spec.efa_supported:
        data["fabrics"] = [{"name": FABRIC, "kind": "aws_efa"}]
    tiers, uses = _storage(base, needs, spec)
    if tiers:
        data["storage"] = tiers
    pool: dict[str, Any] = {
        "name": POOL,
        "instance_type": combination.instance_type,
        "role": "training",
        "nodes": combination.nodes,
        "capacity": capacity_of(combination),
        "placement": {"domains": [domain]},
    }
    if spec.efa_supported:
        pool["fabric"] = FABRIC
    if uses:
        pool["storage"] = uses
    data["pools"] = [pool]
    cost = dict(data.get("cost") or {})
    quotes = dict(cost.get("capacity_block_quotes") or {})
    quotes[POOL] = {"total_usd": float(combination.upfront_usd)}
    cost["capacity_block_quotes"] = quotes
    data["cost"] = cost
    order = ("version", "metadata", "cloud", "failure_domains", "fabrics", "pools", "storage", "power", "kubernetes", "quotas", "cost")
    return {key: data[key] for key in order if key in data}


def blueprint_text(data: Mapping[str, Any], needs: Needs, combination: Combination, quoted_at: datetime) -> str:
    """The candidate's YAML, with a header naming its offerings, the quote's time and how to buy it."""
    ids = ", ".join(offering.offering_id for offering in combination.offerings)
    header = [
        f"# Planned by `railyard plan` for needs '{needs.name}': {combination.accelerators} accelerators on {combination.nodes} "
        f"{combination.instance_type} in {combination.zone},",
        f"# {_time(combination.start)} to {_time(combination.end)}, ${combination.upfront_usd:,.2f} upfront.",
        f"# Capacity Block offerings {ids}, as quoted at {_time(quoted_at)} (offerings change: plan again before buying).",
        "# Not bought: `validate` notes it, `preview` refuses it. Buy each offering, then adopt the reservations:",
    ]
    header += [f"#   {line}" for line in purchase_commands(combination)]
    header.append("#   railyard plan adopt THIS_FILE --reservation cr-...")
    body = yaml.dump(dict(data), Dumper=FAST_DUMPER, sort_keys=False, default_flow_style=False, width=120, allow_unicode=True)
    return "\n".join(header) + "\n" + body


def purchase_commands(combination: Combination) -> list[str]:
    """The AWS CLI commands that would buy the combination's blocks (railyard never runs them)."""
    return [
        f"aws ec2 purchase-capacity-block --capacity-block-offering-id {offering.offering_id} --instance-platform Linux/UNIX "
        f"--region {combination.region}"
        for offering in combination.offerings
    ]
