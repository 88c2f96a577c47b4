"""The standby rule (`blueprints/rules/standby.py`): what a hot-spare pool must share with the pool it serves.

A spare pool is added to the small valid blueprint (tests/blueprints/base.py: `train` is p5.48xlarge on the EFA
fabric and Capacity Block cr-0123456789abcdef0 of 8 instances, in zone za); each case changes one thing of it and
asserts the finding's code, path, message and hint, with the passing case beside it.
"""

from __future__ import annotations

from tests.blueprints.base import load, mutate

BLOCK = (
    "    capacity:\n      kind: capacity_block\n      reservation_id: {id}\n      zone: us-east-1a\n"
    "      instance_type: p5.48xlarge\n      instance_count: {count}\n"
    "      start: 2026-12-01T00:00:00Z\n      end: 2026-12-08T00:00:00Z\n"
)
SAME_BLOCK = BLOCK.format(id="cr-0123456789abcdef0", count="{count}")


def _spare(
    *,
    name: str = "spare",
    target: str = "train",
    instance: str = "p5.48xlarge",
    fabric: str | None = "efa",
    nodes: int = 2,
    domains: str = "[za]",
    share: bool = True,
    capacity: str = "",
) -> str:
    lines = [f"  - name: {name}", f"    instance_type: {instance}", "    role: training", f"    nodes: {nodes}", f"    standby_for: {target}"]
    lines += ["    placement:", f"      domains: {domains}"] + ([] if share else ["      share_with_served: false"])
    lines += [f"    fabric: {fabric}"] if fabric else []
    return "\n".join(lines) + "\n" + capacity


def _with(spare: str) -> str:
    return mutate("storage:\n  - kind: fsx_lustre", spare + "storage:\n  - kind: fsx_lustre")


def _found(text: str, code: str) -> list[tuple[str, tuple[object, ...], str, str]]:
    return [(finding.severity, finding.path, finding.message, finding.hint) for finding in load(text).findings if finding.code == code]


def _all_standby(text: str) -> list[str]:
    return [finding.code for finding in load(text).findings if finding.code.startswith("pool.standby")]


def test_a_spare_naming_no_pool_lists_the_job_pools() -> None:
    assert _found(_with(_spare(target="trian")), "pool.standby-target") == [
        ("error", ("pools", 2, "standby_for"), "standby_for 'trian' is not a pool", "name a pool that runs jobs: serve, train")
    ]


def test_a_spare_of_itself() -> None:
    assert _found(_with(_spare(target="spare")), "pool.standby-target") == [
        ("error", ("pools", 2, "standby_for"), "standby_for 'spare' is the pool itself", "name a pool that runs jobs: serve, train")
    ]


def test_a_spare_of_a_spare() -> None:
    text = _with(_spare() + _spare(name="spare2", target="spare", share=False))
    assert _found(text, "pool.standby-target") == [
        ("error", ("pools", 3, "standby_for"), "standby_for 'spare' is a standby pool itself", "name a pool that runs jobs: serve, train")
    ]


def test_a_spare_of_another_type() -> None:
    text = _with(_spare(instance="p5e.48xlarge", share=False))
    assert _found(text, "pool.standby-target") == [
        (
            "error",
            ("pools", 2, "standby_for"),
            "pool 'spare' (p5e.48xlarge) can't stand in for 'train' (p5.48xlarge): a spare has the same type",
            "make the pool p5.48xlarge",
        )
    ]


def test_a_spare_off_the_served_pools_fabric() -> None:
    assert _found(_with(_spare(fabric=None, share=False)), "pool.standby-target") == [
        (
            "error",
            ("pools", 2, "standby_for"),
            "pool 'spare' is on fabric none, 'train' on efa: a spare joins its pool's fabric",
            "set fabric: efa",
        )
    ]


def test_a_spare_on_a_fabric_its_pool_has_not() -> None:
    text = _with(_spare(target="serve", instance="inf2.48xlarge", domains="[zb]", share=False))
    assert _found(text, "pool.standby-target") == [
        ("error", ("pools", 2, "standby_for"), "pool 'spare' is on fabric efa, 'serve' on none: a spare joins its pool's fabric", "drop the fabric")
    ]


def test_a_matching_spare_apart_from_its_pool_has_no_findings() -> None:
    assert _all_standby(_with(_spare(share=False, domains="[zb]"))) == []


def test_a_sharing_spare_in_another_zone_is_refused() -> None:
    [item] = _found(_with(_spare(domains="[za, zb]", capacity=SAME_BLOCK.format(count=8))), "pool.standby-zone")
    assert item == (
        "error",
        ("pools", 2, "placement", "domains"),
        "spare pool 'spare' is placed in zone 'zb' (us-east-1b), where 'train' has no nodes: a spare shares the placement of the "
        "pool it serves, and a placement group or a reservation stays in one Availability Zone",
        "place the spare in 'train''s zones ['za'], or set placement.share_with_served: false to place the spare apart",
    )


def test_a_sharing_spare_in_another_block_of_the_zone_is_warned_about() -> None:
    text = _with(_spare(domains="[za]", capacity=SAME_BLOCK.format(count=10)))
    block = "          racks: 4\n          hosts_per_rack: 4\n"
    text = text.replace(f"        - name: za-b1\n{block}", f"        - name: za-b1\n{block}        - name: za-b2\n{block}")
    text = text.replace("      domains: [za]\n    fabric: efa\n    storage:", "      domains: [za-b1]\n    fabric: efa\n    storage:")
    assert _found(text, "pool.standby-block") == [
        (
            "warning",
            ("pools", 2, "placement", "domains"),
            "spare pool 'spare' may be placed in blocks ['za-b2'], where 'train' has no hosts: a spare there takes a failed host's "
            "place from behind another spine and other power feeds than the job's",
            "place the spare in 'train''s blocks ['za-b1'], or set placement.share_with_served: false to place the spare apart",
        )
    ]


def test_a_sharing_spare_on_demand_for_a_capacity_block_is_refused() -> None:
    assert _found(_with(_spare()), "pool.standby-capacity") == [
        (
            "error",
            ("pools", 2, "capacity"),
            "spare pool 'spare' can't share the placement of 'train', whose nodes come from Capacity Block cr-0123456789abcdef0: EC2 "
            "places a block's instances together itself and takes no placement group on its launches, so only the same block shares it",
            "put the spare on the same Capacity Block (capacity kind capacity_block, cr-0123456789abcdef0), or set "
            "placement.share_with_served: false to place the spare apart",
        )
    ]


def test_a_sharing_spare_on_another_block_is_refused() -> None:
    other = BLOCK.format(id="cr-0fedcba9876543210", count=2)
    assert [item[1] for item in _found(_with(_spare(capacity=other)), "pool.standby-capacity")] == [("pools", 2, "capacity")]


def test_a_spare_and_its_pool_filling_their_block_exactly_fit() -> None:
    """8 train + 2 spare nodes on a block of 10: no finding; on a block of 9, one node finds no instance."""
    text = _with(_spare(capacity=SAME_BLOCK.format(count=10))).replace("      instance_count: 8\n", "      instance_count: 10\n", 1)
    assert _all_standby(text) == []


def test_a_spare_and_its_pool_past_their_block_are_refused() -> None:
    text = _with(_spare(capacity=SAME_BLOCK.format(count=9)))
    assert _found(text, "pool.standby-capacity") == [
        (
            "error",
            ("pools", 2, "nodes"),
            "spare pool 'spare' (up to 2 nodes) and 'train' (up to 8) share reservation cr-0123456789abcdef0, which holds 9 "
            "instances: 1 of their nodes would find no reserved instance",
            "keep the two within 9 nodes, or reserve 10",
        )
    ]


def test_a_spare_on_its_own_reservation_of_the_same_id_but_another_kind_is_not_counted_against_it() -> None:
    """The room rule compares one reservation: a capacity reservation is not the Capacity Block of the same id."""
    reservation = (
        "    capacity:\n      kind: capacity_reservation\n      reservation_id: cr-0123456789abcdef0\n      zone: us-east-1a\n"
        "      instance_type: p5.48xlarge\n      instance_count: 2\n"
    )
    assert [item[1] for item in _found(_with(_spare(share=False, capacity=reservation)), "pool.standby-capacity")] == []
