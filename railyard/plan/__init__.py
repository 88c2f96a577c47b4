"""`railyard plan`: from what a job needs to ranked cluster designs, each one already proven by `validate`.

Stages, all pure but the search and the proof: read the needs (`needs_file`), expand them into instance
types and a block duration from the catalog (`expand`), judge and combine the offerings (`combine`),
synthesise each combination as a blueprint on the base (`synthesize`), prove it with `validate`
(`prove`), and rank the survivors. The offerings come from a folder of recorded answers
(`offerings.read_offerings`) or from the account (`railyard.online.capacity_blocks`); either way the
same documents are judged, so `--record` then `--offerings` gives the same result. railyard never buys:
each candidate carries the `aws ec2 purchase-capacity-block` commands that would, and its file names
the offerings until `railyard plan adopt` swaps in the reservations bought (docs/plan.md).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import field
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from blueprints.catalog import Catalog, load_catalog
from blueprints.models.base import is_zone_id
from blueprints.records import record
from railyard.plan.codes import CODES, EXPLAIN
from railyard.plan.combine import Combination, combine
from railyard.plan.expand import Expansion, expand
from railyard.plan.needs_file import NeedsFile
from railyard.plan.offerings import Offering, Rejection
from railyard.plan.prove import prove, quoted
from railyard.plan.synthesize import blueprint_data, blueprint_text, purchase_commands

__all__ = ["CODES", "EXPLAIN", "Candidate", "PlanResult", "plan"]
DEFAULT_TOP = 5


@record
class Candidate:
    """A proven combination: where, what, when, what it costs, and the blueprint that builds it."""

    rank: int
    combination: Combination
    blueprint: str | None
    warnings: int
    notes: int
    validated_upfront_usd: float | None

    def as_json(self) -> dict[str, Any]:
        """The `--json` entry."""
        chosen = self.combination
        return {
            "rank": self.rank,
            "region": chosen.region,
            "zone": chosen.zone,
            "instance_type": chosen.instance_type,
            "nodes": chosen.nodes,
            "accelerators": chosen.accelerators,
            "offering_ids": list(chosen.offering_ids),
            "start": chosen.start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "end": chosen.end.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "upfront_usd": _cents(chosen.upfront_usd),
            "usd_per_accelerator_hour": _cents(chosen.usd_per_accelerator_hour),
            "validated_upfront_usd": self.validated_upfront_usd,
            "findings": {"errors": 0, "warnings": self.warnings, "notes": self.notes},
            "blueprint": self.blueprint,
            "purchase": purchase_commands(chosen),
        }


def _cents(amount: Decimal) -> float:
    return float(amount.quantize(Decimal("0.01")))


@record(frozen=False)
class PlanResult:
    """What `railyard plan` found: what it searched, the candidates ranked, what was rejected and what can't be met."""

    name: str
    quoted_at: datetime
    expansion: Expansion
    offerings: int
    candidates: list[Candidate] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    beyond_top: int = 0
    unread: list[str] = field(default_factory=list)

    @property
    def infeasible(self) -> list[dict[str, str]]:
        """The needs nothing can meet, and the plain "no candidate" when offerings simply don't fit."""
        found = [{"code": code, "message": message} for code, message in self.expansion.infeasible]
        if not found and not self.candidates:
            found.append({"code": "plan.infeasible", "message": f"none of the {self.offerings} offerings makes a candidate (see rejected)"})
        return found

    def as_json(self) -> dict[str, Any]:
        """The `--json` document: byte-identical for the same needs, offerings and `--at`."""
        return {
            "needs": self.name,
            "searched": {
                "quoted_at": self.quoted_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "types": [need.instance_type for need in self.expansion.types],
                "duration_hours": self.expansion.hours,
                "offerings": self.offerings,
                "left_out": [{"instance_type": name, "code": code, "why": why} for name, code, why in self.expansion.left_out],
                "notes": list(self.expansion.notes),
                "unread": self.unread,
            },
            "candidates": [candidate.as_json() for candidate in self.candidates],
            "beyond_top": self.beyond_top,
            "rejected": [rejection.as_json() for rejection in self.rejected],
            "infeasible": self.infeasible,
        }


def rank_key(rank_by: str, combination: Combination) -> tuple[Any, ...]:
    """The order candidates are ranked in: by `rank_by`, then start, then their offering ids."""
    first: Any = {"upfront": combination.upfront_usd, "start": combination.start, "usd_per_accelerator_hour": combination.usd_per_accelerator_hour}[
        rank_by
    ]
    return (first, combination.start, combination.upfront_usd, combination.offering_ids)


def zones_for(read: NeedsFile, combination: Combination, offerings: Sequence[Offering]) -> list[str]:
    """The cluster's zones: the block's first, then one other the needs, the base (same region) or the offerings name."""
    assert read.needs is not None and read.base is not None
    known = list(read.needs.zones.get(combination.region, []))
    cloud = read.base.get("cloud", {})
    if cloud.get("region") == combination.region:
        known += [zone for zone in cloud.get("availability_zones", []) if isinstance(zone, str) and not is_zone_id(zone)]
    known += sorted({offering.zone for offering in offerings if offering.region([combination.region]) == combination.region})
    others = [zone for zone in dict.fromkeys(known) if zone != combination.zone and zone.startswith(combination.region)]
    return [combination.zone, others[0]] if others else [combination.zone]


def plan(
    read: NeedsFile,
    offerings: Sequence[Offering],
    rejected: Sequence[Rejection],
    at: datetime,
    top: int = DEFAULT_TOP,
    write: Path | None = None,
    catalog: Catalog | None = None,
) -> PlanResult:
    """Judge the offerings against the needs, prove the best `top` candidates with `validate`, and rank them (writing each to `write`)."""
    assert read.needs is not None and read.base is not None
    catalog = catalog or load_catalog()
    needs = read.needs
    expansion = expand(needs, catalog)
    combinations, judged = combine(offerings, needs, expansion)
    result = PlanResult(needs.name, at, expansion, len(offerings) + len(rejected), rejected=[*rejected, *judged])
    ordered = sorted(combinations, key=lambda combination: rank_key(needs.rank_by, combination))
    with tempfile.TemporaryDirectory(prefix="railyard-plan-") as scratch:
        for index, combination in enumerate(ordered):
            if len(result.candidates) == top:
                result.beyond_top = len(ordered) - index
                break
            _try(result, read, combination, offerings, catalog, Path(scratch), write)
    result.rejected = sorted(result.rejected, key=lambda one: (one.offering_ids, one.code))
    return result


def _try(
    result: PlanResult, read: NeedsFile, combination: Combination, offerings: Sequence[Offering], catalog: Catalog, scratch: Path, write: Path | None
) -> None:
    """Synthesise one combination, prove it, and keep it as the next candidate or reject it with why."""
    assert read.needs is not None and read.base is not None
    zones = zones_for(read, combination, offerings)
    if len(zones) < 2:
        message = f"only {combination.zone} is known in {combination.region}; an EKS cluster needs subnets in two zones"
        result.rejected.append(Rejection(combination.offering_ids, "plan.zones", message))
        return
    spec = catalog.get(combination.instance_type)
    assert spec is not None  # expand only offers catalog types
    text = blueprint_text(blueprint_data(read.base, read.needs, combination, spec, zones), read.needs, combination, result.quoted_at)
    rank = len(result.candidates) + 1
    name = f"{read.needs.name}-{rank}.yaml"
    trial = scratch / name
    trial.write_text(text, encoding="utf-8")
    proof = prove(trial, result.quoted_at)
    if proof.errors:
        result.rejected.append(Rejection(combination.offering_ids, "plan.not-proven", f"validate: {quoted(proof.first_error)}"))
        return
    written = None
    if write is not None:
        write.mkdir(parents=True, exist_ok=True)
        (write / name).write_text(text, encoding="utf-8")
        written = str(write / name)
    result.candidates.append(Candidate(rank, combination, written, proof.warnings, proof.notes, proof.upfront_usd))
