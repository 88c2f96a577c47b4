"""A bought Capacity Block is a fact of the account: a diff that resizes, moves or retimes one is an error.

A Capacity Block is bought for a number of instances of one type, in one zone, for one window, and paid
upfront; EC2 has no call that changes any of them: "You can't modify or cancel a Capacity Block"
(CancelCapacityReservation's documentation in botocore 1.44.5's EC2 model). The one change EC2 sells is a later end: an extension,
bought on the same reservation (PurchaseCapacityBlockExtension, botocore's EC2 model), which this rule lets
through (the cost report shows its upfront). So a blueprint that keeps a block's reservation id and edits its
`instance_count`, `start`, `zone` or type, or moves its end earlier, is not a plan AWS can carry out: applied, it
describes capacity the account doesn't have, and the cost report would show an upfront change nobody can buy
that way. `diff` refuses it (`change.block-resized`), naming the reservation and each field before and after,
with the fix: buy another block and add it to a reservation group (`capacity_blocks: true`), or correct the
field to what EC2 states for the block (`validate --online` reads it).

A field left unstated on either side (`None`: read online) is not a change; a group of blocks whose members
are the same reservations is held to the same rule for the fields it states.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from blueprints.findings import Finding, error
from blueprints.models.capacity import CapacityBlock, ReservationGroup, holds_capacity_blocks

if TYPE_CHECKING:
    from railyard.pipeline import Validation

CODES = ("change.block-resized",)
EXPLAIN = {
    "change.block-resized": {
        "fix": "keep the block's fields as EC2 holds them (`validate --online` compares them); for more instances or another window buy "
        "another Capacity Block and put both in a `reservation_group` with `capacity_blocks: true`",
    },
}
FACTS = ("instance_count", "start", "end", "zone", "instance_type")  # what a bought block fixes


def _blocks(validation: Validation) -> dict[tuple[str, ...], tuple[int, Any, dict[str, Any]]]:
    """{reservation identity: (pool index, pool name, the facts it states)} for each pool on Capacity Blocks."""
    blueprint = validation.blueprint
    assert blueprint is not None
    found: dict[tuple[str, ...], tuple[int, Any, dict[str, Any]]] = {}
    for index, pool in enumerate(blueprint.pools):
        capacity = pool.capacity
        if not holds_capacity_blocks(capacity):
            continue
        # An offering not bought yet (`offering_id`, written by `railyard plan`) is no fact of the account: nothing to hold.
        if isinstance(capacity, CapacityBlock):
            members = [capacity.reservation_id] if capacity.reservation_id else []
        elif isinstance(capacity, ReservationGroup):
            members = sorted(capacity.reservation_ids) or ([capacity.group_arn] if capacity.group_arn else [])
        if not members:
            continue
        identity = (capacity.kind, *members)
        facts = {name: getattr(capacity, name, None) for name in FACTS}
        facts["instance_type"] = facts["instance_type"] or pool.instance_type  # the pool's type is the block's (capacity.instance-type)
        found.setdefault(identity, (index, pool.name, facts))
    return found


def _shown(value: Any) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if hasattr(value, "strftime") else str(value)


def _changes(before: dict[str, Any], after: dict[str, Any]) -> Iterator[str]:
    """Each fact both sides state and the change edits, as `name before -> after`; an end moved later on the same start is an
    extension EC2 sells (PurchaseCapacityBlockExtension), not an edit."""
    for name in FACTS:
        was, now = before.get(name), after.get(name)
        if was is None or now is None or was == now:
            continue
        if name == "end" and now > was and before.get("start") == after.get("start"):
            continue
        yield f"{name} {_shown(was)} -> {_shown(now)}"


def bought_block_findings(old: Validation, new: Validation) -> list[Finding]:
    """An error per Capacity Block (or group of the same blocks) whose stated instance count, window, zone or type the change edits."""
    if old.blueprint is None or new.blueprint is None:
        return []
    before = _blocks(old)
    findings = []
    for identity, (index, pool, facts) in sorted(_blocks(new).items(), key=lambda item: item[1][0]):
        if identity not in before:
            continue
        edits = list(_changes(before[identity][2], facts))
        if not edits:
            continue
        kind, *members = identity
        named = "+".join(members)
        what = "Capacity Block" if kind == "capacity_block" else "reservation group of Capacity Blocks"
        message = (
            f"pool {pool}'s {what} {named} is bought and can't change, but this change edits it: {'; '.join(edits)}. EC2 sells a block for "
            "a fixed count of one type in one zone for one window, paid upfront, and has no call that resizes, moves or retimes it"
        )
        hint = (
            f"put back what EC2 holds for {named} (`railyard validate --online` compares them); for more instances or another window buy "
            "another Capacity Block and list both under a reservation_group with capacity_blocks: true "
            f"(reservation_ids: [{', '.join(members)}, <new block>])"
        )
        finding = error("change.block-resized", ("pools", index, "capacity"), message, hint, reservation=named)
        findings.append(new.load.source_map.place(finding))
    return findings
