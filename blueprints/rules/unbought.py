"""Capacity Blocks named by an offering not bought yet: a design to check, never one to apply.

`railyard plan` writes each candidate with its block named by the offering it would be bought from
(`offering_id: cb-...`), because railyard never buys: the user runs `aws ec2 purchase-capacity-block`
and then `railyard plan adopt FILE --reservation cr-...`. Until then the design validates in full
(the offering states every fact of the block: zone, type, count, window) and `validate` says, with a
note, that it isn't bought. `preview` and the Pulumi program refuse it as an error, with the same
code: a node group can target only a reservation that exists (EKS CreateNodegroup's launch template
`CapacityReservationSpecification` names a `cr-` id), so an unbought design can't be applied.
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.findings import Finding, Severity, error, info
from blueprints.models import Blueprint
from blueprints.models.capacity import CapacityBlock, ReservationGroup
from blueprints.rules.context import Context

CODES = ("capacity.offering-unpurchased",)
EXPLAIN = {
    "capacity.offering-unpurchased": {
        "meaning": "a pool's Capacity Block is named by an offering (cb-...) that hasn't been bought: `validate` notes it, "
        "`preview` and `pulumi up` refuse it",
        "fix": "buy the offering (`aws ec2 purchase-capacity-block --capacity-block-offering-id cb-... --instance-platform Linux/UNIX`), "
        "then `railyard plan adopt FILE --reservation cr-...`",
    },
}


def unbought(blueprint: Blueprint) -> list[tuple[int, str, tuple[str, ...]]]:
    """(pool index, pool name, offering ids) of every pool whose capacity names offerings instead of reservations."""
    found: list[tuple[int, str, tuple[str, ...]]] = []
    for index, pool in enumerate(blueprint.pools):
        source = pool.capacity
        if isinstance(source, CapacityBlock) and source.offering_id is not None:
            found.append((index, pool.name, (source.offering_id,)))
        elif isinstance(source, ReservationGroup) and source.offering_ids:
            found.append((index, pool.name, tuple(source.offering_ids)))
    return found


def unbought_findings(blueprint: Blueprint, severity: Severity) -> list[Finding]:
    """One finding per pool on offerings not bought yet: a note for `validate`, an error for what would apply the design."""
    make = error if severity == "error" else info
    findings = []
    for index, name, offerings in unbought(blueprint):
        field = "offering_id" if len(offerings) == 1 and blueprint.pools[index].capacity.kind == "capacity_block" else "offering_ids"
        ids = ", ".join(offerings)
        outcome = "so nothing can be applied until it is bought" if severity == "error" else "it can be checked, not applied"
        findings.append(
            make(
                "capacity.offering-unpurchased",
                ("pools", index, "capacity", field),
                f"pool '{name}' runs on Capacity Block offering{'s' if len(offerings) > 1 else ''} {ids}, not bought yet: {outcome}",
                f"buy it (aws ec2 purchase-capacity-block --capacity-block-offering-id {offerings[0]} --instance-platform Linux/UNIX), "
                "then `railyard plan adopt FILE --reservation cr-...`",
                offerings=list(offerings),
            )
        )
    return findings


def check(ctx: Context) -> Iterable[Finding]:
    """A note for each pool whose Capacity Block is an offering not bought yet."""
    return unbought_findings(ctx.blueprint, "info")
