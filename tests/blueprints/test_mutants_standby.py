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


# --- the survivors of the first standby run ---------------------------------------------------------------------------

TRAIN_BLOCK = BLOCK.format(id="cr-0123456789abcdef0", count=8)


def _train_on(capacity: str) -> str:
    """BASE with train's Capacity Block replaced by `capacity` (a YAML block at the pool's indentation)."""
    return mutate(TRAIN_BLOCK, capacity)


def _reservation(kind: str = "capacity_reservation", rid: str = "cr-0aaaaaaaaaaaaaaa1", count: int | None = 8, group: str | None = None) -> str:
    lines = ["    capacity:", f"      kind: {kind}"]
    lines += [f"      reservation_id: {rid}"] if kind == "capacity_reservation" else [f"      reservation_ids: [{rid}]"]
    lines += ["      zone: us-east-1a", "      instance_type: p5.48xlarge"]
    lines += [f"      instance_count: {count}"] if count is not None else []
    lines += [f"      placement_group: {group}"] if group else []
    return "\n".join(lines) + "\n"


def test_a_spare_of_itself_with_no_other_pool_says_none_runs_jobs() -> None:
    text = mutate(
        "  - name: serve\n    instance_type: inf2.48xlarge\n", "  - name: xserve\n    instance_type: inf2.48xlarge\n    standby_for: xserve\n"
    )
    text = text.replace("  - name: train\n", "  - name: train\n    standby_for: train\n", 1)
    found = _found(text, "pool.standby-target")
    assert [item[3] for item in found] == ["name a pool that runs jobs: none", "name a pool that runs jobs: none"]


def test_a_spare_after_a_spare_with_a_bad_target_is_still_judged() -> None:
    text = _with(_spare(name="lost", target="trian", share=False) + _spare(name="other", instance="p5e.48xlarge", share=False))
    assert [item[2].split(" ")[0:3] for item in _found(text, "pool.standby-target")] == [
        ["standby_for", "'trian'", "is"],
        ["pool", "'other'", "(p5e.48xlarge)"],
    ]


def test_a_spare_in_two_zones_its_pool_lacks_names_both_and_certifies_them() -> None:
    zc = "    - name: zc\n      availability_zone: us-east-1c\nfabrics:\n"
    text = mutate("fabrics:\n", zc).replace("[us-east-1a, us-east-1b]", "[us-east-1a, us-east-1b, us-east-1c]")
    text = text.replace(
        "storage:\n  - kind: fsx_lustre", _spare(domains="[za, zb, zc]", capacity=SAME_BLOCK.format(count=8)) + "storage:\n  - kind: fsx_lustre"
    )
    [finding] = [finding for finding in load(text).findings if finding.code == "pool.standby-zone"]
    assert finding.message.startswith("spare pool 'spare' is placed in zone 'zb' (us-east-1b), 'zc' (us-east-1c), where 'train' has no nodes")
    assert finding.certificate == {"zones": ["zb", "zc"]}


def test_a_spare_in_another_block_certifies_the_blocks() -> None:
    block = "          racks: 4\n          hosts_per_rack: 4\n"
    text = _with(_spare(domains="[za]", capacity=SAME_BLOCK.format(count=10)))
    text = text.replace(f"        - name: za-b1\n{block}", f"        - name: za-b1\n{block}        - name: za-b2\n{block}")
    text = text.replace("      domains: [za]\n    fabric: efa\n    storage:", "      domains: [za-b1]\n    fabric: efa\n    storage:")
    [finding] = [finding for finding in load(text).findings if finding.code == "pool.standby-block"]
    assert finding.certificate == {"blocks": ["za-b2"]}


def test_a_sharing_spare_of_an_on_demand_pool_has_no_capacity_conflict() -> None:
    text = _with(_spare(target="serve", instance="inf2.48xlarge", fabric=None, domains="[za, zb]"))
    assert _all_standby(text) == []


def test_a_sharing_spare_of_a_reservation_outside_a_placement_group_has_no_capacity_conflict() -> None:
    text = _with(_spare()).replace(TRAIN_BLOCK, _reservation())
    assert _found(text, "pool.standby-capacity") == []


def test_a_sharing_spare_off_its_pools_placement_group_is_refused() -> None:
    text = _with(_spare(capacity=_reservation(rid="cr-0bbbbbbbbbbbbbbb2", count=2, group="pg-b"))).replace(TRAIN_BLOCK, _reservation(group="pg-a"))
    assert _found(text, "pool.standby-capacity") == [
        (
            "error",
            ("pools", 2, "capacity"),
            "spare pool 'spare' can't share the placement of 'train', whose reservation cr-0aaaaaaaaaaaaaaa1 was made in cluster "
            "placement group pg-a: any matching instance launched into that group uses the reservation, so a spare there on other "
            "capacity would take the instances reserved for the pool",
            "reserve the spare's capacity in placement group pg-a (placement_group: pg-a), or set placement.share_with_served: false "
            "to place the spare apart",
        )
    ]


def test_a_sharing_spare_reserved_in_its_pools_placement_group_fits() -> None:
    text = _with(_spare(capacity=_reservation(rid="cr-0bbbbbbbbbbbbbbb2", count=2, group="pg-a"))).replace(TRAIN_BLOCK, _reservation(group="pg-a"))
    assert _found(text, "pool.standby-capacity") == []


def test_a_spare_of_a_reservation_group_of_capacity_blocks_names_the_group() -> None:
    group = _reservation(kind="reservation_group", rid="cr-0cccccccccccccc03").replace("      zone:", "      capacity_blocks: true\n      zone:")
    text = _with(_spare()).replace(TRAIN_BLOCK, group)
    [item] = _found(text, "pool.standby-capacity")
    assert item[2].startswith(
        "spare pool 'spare' can't share the placement of 'train', whose nodes come from reservation group of Capacity Blocks cr-0cccccccccccccc03"
    )
    assert item[3].startswith(
        "put the spare on the same reservation group of Capacity Blocks (capacity kind reservation_group, cr-0cccccccccccccc03)"
    )


def test_a_spare_of_a_reservation_group_of_on_demand_reservations_outside_a_group_fits() -> None:
    text = _with(_spare()).replace(TRAIN_BLOCK, _reservation(kind="reservation_group", rid="cr-0cccccccccccccc03"))
    assert _found(text, "pool.standby-capacity") == []


def test_a_spare_on_its_pools_reservation_counts_the_pools_count_when_it_states_none() -> None:
    group = _reservation(kind="reservation_group", rid="cr-0cccccccccccccc03", count=9)
    spare = _reservation(kind="reservation_group", rid="cr-0cccccccccccccc03", count=None)
    [finding] = [
        finding
        for finding in load(_with(_spare(share=False, capacity=spare)).replace(TRAIN_BLOCK, group)).findings
        if finding.code == "pool.standby-capacity"
    ]
    assert finding.path == ("pools", 2, "nodes")
    assert finding.message.endswith("which holds 9 instances: 1 of their nodes would find no reserved instance")
    assert finding.certificate == {"held": 9, "wanted": 10}
