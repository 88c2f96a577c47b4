"""The placement rule (`blueprints/rules/placement.py`): pools fit their domains' host slots and can spread as asked.

The small valid blueprint (tests/blueprints/base.py) has two zones of one 4 x 4 block each (16 host slots a zone);
`serve` (inf2.48xlarge, min 1, max 4) is spread over both zones. Each case asserts code, path, message and hint, at
each limit and one past it, and each half of each condition.
"""

from __future__ import annotations

import pytest

from tests.blueprints.base import BASE, load, mutate

SERVE = "    nodes: {min: 1, max: 4}\n"
ZB_BLOCK = "      blocks:\n        - name: zb-b1\n          racks: 4\n          hosts_per_rack: 4\n          power_feeds: 2\n"
UNRACKED_WORDS = "rack and feed power, a rack's or a feed's blast radius, hosts per rack"


def _found(text: str, code: str) -> list[tuple[str, tuple[object, ...], str, str]]:
    return [(finding.severity, finding.path, finding.message, finding.hint) for finding in load(text).findings if finding.code == code]


def test_the_base_blueprint_has_no_placement_findings() -> None:
    assert [finding.code for finding in load(BASE).findings if finding.code.startswith("placement.")] == []


def test_a_pool_filling_its_domains_host_slots_fits() -> None:
    assert _found(mutate(SERVE, "    nodes: {min: 1, max: 32}\n"), "placement.over-capacity") == []


def test_a_pool_one_past_its_domains_host_slots_is_refused() -> None:
    assert _found(mutate(SERVE, "    nodes: {min: 1, max: 33}\n"), "placement.over-capacity") == [
        (
            "error",
            ("pools", 1, "nodes"),
            "pool 'serve' may have 33 nodes, but its failure domains ['za', 'zb'] hold 32 hosts",
            "add racks or blocks to those domains, or place the pool in more of them",
        )
    ]


def test_slots_count_whole_scale_up_domains() -> None:
    """A GB200 NVL72 domain is 18 hosts: a block of 4 x 8 = 32 slots holds one domain, so 18 hosts fit and 19 don't."""
    gb200 = (
        "  - name: rack\n    instance_type: p6e-gb200.36xlarge\n    role: training\n    nodes: {n}\n"
        "    placement: {{domains: [zb]}}\nstorage:\n  - kind: fsx_lustre"
    )
    base = mutate(
        "          racks: 4\n          hosts_per_rack: 4\n          power_feeds: 2\n",
        "          racks: 4\n          hosts_per_rack: 8\n          power_feeds: 2\n",
    )
    base = base.replace("      domains: [za, zb]\n      spread: zones\n", "      domains: [za]\n")
    fits = base.replace("storage:\n  - kind: fsx_lustre", gb200.format(n=18), 1)
    over = base.replace("storage:\n  - kind: fsx_lustre", gb200.format(n=19), 1)
    assert _found(fits, "placement.over-capacity") == []
    [item] = _found(over, "placement.over-capacity")
    assert item[2] == "pool 'rack' may have 19 nodes, but its failure domains ['zb'] hold 18 hosts"


def test_a_zone_without_blocks_holds_any_number_and_gets_a_note() -> None:
    text = mutate(ZB_BLOCK, "").replace(SERVE, "    nodes: {min: 1, max: 400}\n")
    assert _found(text, "placement.over-capacity") == []
    assert _found(text, "placement.racks-unstated") == [
        (
            "info",
            ("failure_domains", "zones", 1),
            f"zone 'zb' (no blocks) states no racks, so it holds any number of hosts and {UNRACKED_WORDS} are not computed "
            "for it; block and zone power, capacity from the reservations and the fabric figures still are",
            "state racks and hosts_per_rack (with rack_budget_kw) where you know them, as in your own data centre",
        )
    ]


def test_an_unracked_block_is_noted_at_its_own_path() -> None:
    text = mutate("          racks: 4\n          hosts_per_rack: 4\n          power_feeds: 2\n", "          power_feeds: 2\n")
    [item] = _found(text, "placement.racks-unstated")
    assert item[1] == ("failure_domains", "zones", 1, "blocks", 0)
    assert item[2].startswith("block 'zb-b1' states no racks, so it holds any number of hosts")


def test_an_unracked_zone_no_pool_uses_gets_no_note() -> None:
    text = mutate(ZB_BLOCK, "").replace("      domains: [za, zb]\n      spread: zones\n", "      domains: [za]\n")
    assert _found(text, "placement.racks-unstated") == []


def test_spreading_over_racks_of_an_unracked_zone_is_refused() -> None:
    text = mutate(ZB_BLOCK, "").replace("      spread: zones\n", "      spread: racks\n")
    assert _found(text, "placement.cannot-spread") == [
        (
            "error",
            ("pools", 1, "placement", "spread"),
            "pool 'serve' must spread across racks, but zone 'zb' (no blocks) states no racks to spread over",
            "state racks and hosts_per_rack for those blocks, or spread across blocks or zones",
        )
    ]


@pytest.mark.parametrize(
    ("spread", "domains", "unit"),
    [("zones", "[za]", "zone"), ("blocks", "[za]", "block"), ("racks", "[za-b1]", "rack")],
)
def test_spreading_over_fewer_than_two_units_is_refused(spread: str, domains: str, unit: str) -> None:
    text = mutate("      domains: [za, zb]\n      spread: zones\n", f"      domains: {domains}\n      spread: {spread}\n")
    if spread == "racks":
        text = text.replace(
            "      blocks:\n        - name: za-b1\n          racks: 4\n", "      blocks:\n        - name: za-b1\n          racks: 1\n"
        )
        text = text.replace(SERVE, "    nodes: {min: 1, max: 2}\n")
    assert _found(text, "placement.cannot-spread") == [
        (
            "error",
            ("pools", 1, "placement", "spread"),
            f"pool 'serve' must spread across {spread}, but its domains ['{domains[1:-1]}'] have only one {unit}",
            f"place the pool in at least two {spread}, or relax spread",
        )
    ]


@pytest.mark.parametrize(("spread", "domains"), [("zones", "[za, zb]"), ("blocks", "[za, zb]"), ("racks", "[za-b1]")])
def test_spreading_over_two_units_is_allowed(spread: str, domains: str) -> None:
    text = mutate("      domains: [za, zb]\n      spread: zones\n", f"      domains: {domains}\n      spread: {spread}\n")
    text = text.replace("      blocks:\n        - name: za-b1\n          racks: 4\n", "      blocks:\n        - name: za-b1\n          racks: 2\n")
    assert _found(text, "placement.cannot-spread") == []


TOR = "    kind: rail_optimized_clos\n"


def test_a_tor_clos_fabric_needs_racks() -> None:
    text = mutate(TOR, "    kind: tor_clos\n").replace(ZB_BLOCK, "").replace("domains: [za]\n    fabric: efa", "domains: [zb]\n    fabric: efa")
    found = _found(text, "placement.tor-needs-racks")
    assert found == [
        (
            "error",
            ("pools", 0, "fabric"),
            "pool 'train' joins tor_clos fabric 'efa', which puts a leaf in every rack, but zone 'zb' (no blocks) states no racks",
            "state racks and hosts_per_rack for those blocks, or use a rail_optimized_clos or fat_tree fabric",
        )
    ]


def test_a_tor_clos_fabric_on_racked_blocks_and_another_fabric_on_unracked_ones_pass() -> None:
    assert _found(mutate(TOR, "    kind: tor_clos\n"), "placement.tor-needs-racks") == []
    unracked = mutate(ZB_BLOCK, "").replace("domains: [za]\n    fabric: efa", "domains: [zb]\n    fabric: efa")
    assert _found(unracked, "placement.tor-needs-racks") == []


def test_a_pool_in_unknown_domains_is_left_to_the_references_rule() -> None:
    text = mutate("      domains: [za, zb]\n", "      domains: [zq]\n")
    assert [finding.code for finding in load(text).findings if finding.code.startswith("placement.")] == []


def test_an_unracked_block_after_a_racked_one_in_the_zone_is_noted_and_certified() -> None:
    text = mutate(ZB_BLOCK, ZB_BLOCK + "        - name: zb-b2\n")
    [finding] = [finding for finding in load(text).findings if finding.code == "placement.racks-unstated"]
    assert finding.path == ("failure_domains", "zones", 1, "blocks", 1)
    assert finding.certificate == {"unknown": ["rack and feed power", "a rack's or a feed's blast radius", "hosts per rack"]}


def test_a_pool_after_one_in_unknown_domains_is_still_judged() -> None:
    text = mutate("      domains: [za]\n", "      domains: [zq]\n").replace(SERVE, "    nodes: {min: 1, max: 33}\n")
    assert [item[1] for item in _found(text, "placement.over-capacity")] == [("pools", 1, "nodes")]


def test_an_over_capacity_finding_certifies_the_slots() -> None:
    [finding] = [finding for finding in load(mutate(SERVE, "    nodes: {min: 1, max: 33}\n")).findings if finding.code == "placement.over-capacity"]
    assert finding.certificate == {"slots": 32}


ZA_BLOCK = "      blocks:\n        - name: za-b1\n          racks: 4\n          hosts_per_rack: 4\n"


def test_spreading_racks_over_two_unracked_sites_names_both() -> None:
    text = mutate(ZB_BLOCK, "").replace(ZA_BLOCK, "").replace("      spread: zones\n", "      spread: racks\n")
    [item] = [item for item in _found(text, "placement.cannot-spread") if item[1] == ("pools", 1, "placement", "spread")]
    assert item[2] == "pool 'serve' must spread across racks, but zone 'za' (no blocks), zone 'zb' (no blocks) states no racks to spread over"


def test_spreading_racks_over_an_unracked_block_names_the_block() -> None:
    text = mutate(ZA_BLOCK, "      blocks:\n        - name: za-b1\n").replace("      spread: zones\n", "      spread: racks\n")
    [item] = _found(text, "placement.cannot-spread")
    assert item[2] == "pool 'serve' must spread across racks, but block 'za-b1' states no racks to spread over"


def test_a_pool_after_one_that_cannot_spread_over_racks_is_still_judged() -> None:
    text = mutate(ZA_BLOCK, "").replace("      domains: [za]\n", "      domains: [za]\n      spread: racks\n")
    text = text.replace("      domains: [za, zb]\n      spread: zones\n", "      domains: [zb]\n      spread: zones\n")
    assert [item[1] for item in _found(text, "placement.cannot-spread")] == [("pools", 0, "placement", "spread"), ("pools", 1, "placement", "spread")]


def test_a_tor_clos_fabric_over_two_unracked_sites_names_both() -> None:
    text = (
        mutate(TOR, "    kind: tor_clos\n")
        .replace(ZB_BLOCK, "")
        .replace(ZA_BLOCK, "")
        .replace("domains: [za]\n    fabric: efa", "domains: [za, zb]\n    fabric: efa")
    )
    [item] = _found(text, "placement.tor-needs-racks")
    assert item[2].endswith("which puts a leaf in every rack, but zone 'za' (no blocks), zone 'zb' (no blocks) states no racks")


def test_a_tor_clos_fabric_over_an_unracked_block_names_the_block() -> None:
    text = mutate(TOR, "    kind: tor_clos\n").replace(ZA_BLOCK, "      blocks:\n        - name: za-b1\n")
    [item] = _found(text, "placement.tor-needs-racks")
    assert item[2].endswith("which puts a leaf in every rack, but block 'za-b1' states no racks")
