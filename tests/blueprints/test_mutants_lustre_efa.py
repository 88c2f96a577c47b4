"""EFA-enabled FSx for Lustre and its clients (`blueprints/rules/lustre_efa.py`).

`fsx.efa-client-over-tcp`: a pool mounting an EFA tier that can't run LNet over EFA (no EFA fabric, an ENA fabric, a
trn2); `fsx.efa-without-efa-clients`: an EFA tier none of whose pools can. And the FSx guide's LNet interface counts:
8 on the five families it names, 2 with several network cards, 1 with one. Each case builds its blueprint in memory.
"""

from __future__ import annotations

import pytest

from blueprints.rules import lustre_efa
from blueprints.rules.context import Context
from tests.topology.factory import CATALOG, blueprint, fabric, pool

ZONES = [{"name": "za", "availability_zone": "us-east-1a"}]
FABRICS = [fabric("rails", "rail_optimized_clos", 64, nics_per_accelerator=4), fabric("tcp", "fat_tree", 64, transport="ena")]
LUSTRE = {"kind": "fsx_lustre", "name": "lustre", "deployment_type": "PERSISTENT_2", "capacity_gib": 2400, "throughput_mbps_per_tib": 250}
CLASS = {"kind": "fsx_lustre_class", "name": "lustre", "deployment_type": "PERSISTENT_2", "throughput_mbps_per_tib": 250}
EFA_LUSTRE = LUSTRE | {"efa": True, "metadata": {"mode": "automatic"}}
MOUNT = {"storage": [{"tier": "lustre"}]}
OVER_TCP = "mount the tier from EFA pools only, or accept TCP for this pool"


def _found(pools: list[dict], storage: list[dict]) -> list[tuple[object, ...]]:
    model = blueprint(ZONES, pools, FABRICS, [{"kind": "s3", "name": "data"}, *storage])
    return [(f.code, f.severity, f.path, f.message, f.hint) for f in lustre_efa.check(Context(blueprint=model, catalog=CATALOG))]


@pytest.mark.parametrize(
    ("instance_type", "interfaces"),
    [
        ("p5.48xlarge", 8),
        ("p5e.48xlarge", 8),
        ("p5en.48xlarge", 8),
        ("p6-b200.48xlarge", 8),
        ("p6e-gb200.36xlarge", 8),
        ("p4d.24xlarge", 2),
        ("trn1.32xlarge", 2),
        ("g6e.24xlarge", 2),
        ("g5.48xlarge", 1),
    ],
)
def test_lnet_uses_eight_interfaces_on_the_guides_five_families_else_two_with_several_cards_else_one(instance_type: str, interfaces: int) -> None:
    spec = CATALOG.get(instance_type)
    assert spec is not None and lustre_efa.lnet_interfaces(spec) == interfaces


def test_the_card_counts_at_the_boundary_are_the_catalogs() -> None:
    assert [len(CATALOG.get(name).network_cards) for name in ("g6e.24xlarge", "g5.48xlarge")] == [2, 1]


@pytest.mark.parametrize(
    ("instance_type", "supported"), [("p5.48xlarge", True), ("trn1.32xlarge", True), ("trn2.48xlarge", False), ("g5.xlarge", False)]
)
def test_efa_clients_are_the_efa_types_but_trn2(instance_type: str, supported: bool) -> None:
    assert lustre_efa.supports_lustre_efa(CATALOG.get(instance_type)) is supported


def test_a_pool_off_any_fabric_mounting_an_efa_tier_mounts_over_tcp_and_the_tier_has_no_efa_client() -> None:
    pools = [pool("web", "m5.large", 2, ["za"]), pool("train", "p5.48xlarge", 2, ["za"], **MOUNT)]
    assert _found(pools, [EFA_LUSTRE]) == [
        (
            "fsx.efa-client-over-tcp",
            "warning",
            ("pools", 1, "storage"),
            "pool 'train' mounts EFA-enabled FSx tier 'lustre', but it has no EFA interfaces (no EFA fabric), "
            "so its nodes mount over TCP at ENA speed",
            OVER_TCP,
        ),
        (
            "fsx.efa-without-efa-clients",
            "error",
            ("storage", 1, "efa"),
            "FSx tier 'lustre' is EFA-enabled, but none of the 1 pool(s) that mount it can use EFA",
            "set efa: false on the tier, or mount it from a pool on an EFA fabric",
        ),
    ]


def test_an_ena_fabric_and_a_type_without_efa_are_no_efa_fabric_either() -> None:
    pools = [pool("ena", "p5.48xlarge", 2, ["za"], fabric="tcp", **MOUNT), pool("g5", "g5.xlarge", 2, ["za"], fabric="rails", **MOUNT)]
    found = _found(pools, [EFA_LUSTRE])
    assert [(code, path) for code, _, path, _, _ in found] == [
        ("fsx.efa-client-over-tcp", ("pools", 0, "storage")),
        ("fsx.efa-client-over-tcp", ("pools", 1, "storage")),
        ("fsx.efa-without-efa-clients", ("storage", 1, "efa")),
    ]
    assert all("it has no EFA interfaces (no EFA fabric)" in message for _, _, _, message, _ in found[:2])
    assert found[2][3] == "FSx tier 'lustre' is EFA-enabled, but none of the 2 pool(s) that mount it can use EFA"


def test_a_trn2_on_an_efa_fabric_is_not_among_the_guides_clients() -> None:
    pools = [pool("trn", "trn2.48xlarge", 2, ["za"], fabric="rails", **MOUNT)]
    [(code, _, _, message, _), (last, *_)] = _found(pools, [EFA_LUSTRE])
    assert code == "fsx.efa-client-over-tcp" and last == "fsx.efa-without-efa-clients"
    assert message == (
        "pool 'trn' mounts EFA-enabled FSx tier 'lustre', but the FSx for Lustre guide does not list trn2 among EFA clients, "
        "so its nodes mount over TCP at ENA speed"
    )


def test_one_efa_client_is_enough_for_the_tier_and_the_others_still_warn() -> None:
    pools = [pool("tcp", "p5.48xlarge", 2, ["za"], **MOUNT), pool("efa", "p5.48xlarge", 2, ["za"], fabric="rails", **MOUNT)]
    assert [(code, path) for code, _, path, _, _ in _found(pools, [EFA_LUSTRE])] == [("fsx.efa-client-over-tcp", ("pools", 0, "storage"))]
    assert _found([pools[1]], [EFA_LUSTRE]) == []


def test_an_efa_storage_class_is_judged_like_a_file_system() -> None:
    pools = [pool("train", "p5.48xlarge", 2, ["za"], **MOUNT)]
    assert [code for code, *_ in _found(pools, [CLASS | {"efa": True}])] == ["fsx.efa-client-over-tcp", "fsx.efa-without-efa-clients"]


def test_a_tier_without_efa_or_with_no_pool_mounting_it_says_nothing() -> None:
    assert _found([pool("train", "p5.48xlarge", 2, ["za"], **MOUNT)], [LUSTRE]) == []
    assert _found([pool("train", "p5.48xlarge", 2, ["za"], **MOUNT)], [CLASS]) == []
    assert _found([pool("train", "p5.48xlarge", 2, ["za"])], [EFA_LUSTRE]) == []


def test_a_pool_mounting_another_tier_is_not_counted_as_a_client() -> None:
    other = LUSTRE | {"name": "scratch"}
    pools = [pool("a", "p5.48xlarge", 2, ["za"], storage=[{"tier": "scratch"}]), pool("b", "p5.48xlarge", 2, ["za"], **MOUNT)]
    found = _found(pools, [other, EFA_LUSTRE])
    assert [(code, path) for code, _, path, _, _ in found] == [
        ("fsx.efa-client-over-tcp", ("pools", 1, "storage")),
        ("fsx.efa-without-efa-clients", ("storage", 2, "efa")),
    ]
    assert found[1][3] == "FSx tier 'lustre' is EFA-enabled, but none of the 1 pool(s) that mount it can use EFA"


def test_a_pool_over_tcp_after_one_over_efa_is_still_warned() -> None:
    pools = [pool("efa", "p5.48xlarge", 2, ["za"], fabric="rails", **MOUNT), pool("tcp", "p5.48xlarge", 2, ["za"], **MOUNT)]
    assert [(code, path) for code, _, path, _, _ in _found(pools, [EFA_LUSTRE])] == [("fsx.efa-client-over-tcp", ("pools", 1, "storage"))]


def test_two_efa_clients_are_enough_too() -> None:
    pools = [pool("a", "p5.48xlarge", 2, ["za"], fabric="rails", **MOUNT), pool("b", "p5.48xlarge", 2, ["za"], fabric="rails", **MOUNT)]
    assert _found(pools, [EFA_LUSTRE]) == []
