"""Hot spares share the placement of the pool they serve (`placement.share_with_served`), and `validate` refuses what can't.

Every case edits one or two snippets of `fixtures/spares.yaml` (its header draws it): `train`, 12 p5 on demand
in zone use1a on AWS's EFA network, and `backup`, 2 spares standing by for it in the same zone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from blueprints.catalog import load_catalog
from blueprints.loader import load_blueprint
from blueprints.models.capacity import OnDemand
from blueprints.models.pools import Placement, Pool
from railyard.pipeline import validate
from tests.yaml_text import edited_copy, line_of
from topology.cluster import plan_cluster
from topology.cluster.placement_groups import PlacementDecision, decide_placement
from topology.cluster.scale import scale_findings
from topology.cluster.spare_placement import share_served_groups

FIXTURE = Path(__file__).parent / "fixtures" / "spares.yaml"
TRAIN_PLACEMENT = "      domains: [use1a]\n      spread: blocks\n    fabric: efa\n  - name: backup"
SPARE_PLACEMENT = "      domains: [use1a]\n      spread: blocks\n    fabric: efa\n    standby_for"
SPARE_NODES = "    nodes: 2\n"
TRAIN_NODES = "    nodes: 12\n"
BLOCK = (
    "    capacity:\n      kind: capacity_block\n      reservation_id: cr-0a1b2c3d4e5f60718\n      zone: us-east-1a\n"
    "      instance_type: p5.48xlarge\n      instance_count: {count}\n      start: 2026-12-01T11:30:00Z\n      end: 2026-12-15T11:30:00Z\n"
)
RESERVATION = (
    "    capacity:\n      kind: capacity_reservation\n      reservation_id: {id}\n      zone: us-east-1a\n"
    "      instance_type: p5.48xlarge\n      instance_count: {count}\n"
)
IN_GROUP = "      placement_group: train-pg\n"
APART = (SPARE_PLACEMENT, SPARE_PLACEMENT.replace("spread: blocks\n", "spread: blocks\n      share_with_served: false\n"))
SPREAD_SIX = ((TRAIN_NODES, "    nodes: 6\n"), (TRAIN_PLACEMENT, TRAIN_PLACEMENT.replace("blocks", "racks")))


def _blueprint(tmp_path: Path, *edits: tuple[str, str]):
    loaded = load_blueprint(str(edited_copy(FIXTURE, tmp_path, *edits)), catalog=load_catalog())
    assert loaded.blueprint is not None, [finding.message for finding in loaded.findings]
    return loaded.blueprint


def _decisions(tmp_path: Path, *edits: tuple[str, str]) -> dict[str, PlacementDecision]:
    plan = plan_cluster(_blueprint(tmp_path, *edits), load_catalog())
    return {decision.key: decision for decision in plan.placements}


def _findings(tmp_path: Path, code: str, *edits: tuple[str, str]):
    return [finding for finding in validate(str(edited_copy(FIXTURE, tmp_path, *edits))).findings if finding.code == code]


# --- the plan --------------------------------------------------------------------------------------------------------


def test_a_spare_launches_into_its_served_pools_cluster_group_and_the_served_decision_is_unchanged(tmp_path):
    decisions = _decisions(tmp_path)
    train, backup = decisions["train-use1a"], decisions["backup-use1a"]
    assert (train.strategy, train.shares_group_of, train.nodes, train.group_key) == ("cluster", None, 12, "train-use1a")
    assert train.reason == "EFA training pool on on-demand capacity: a cluster group keeps its 12 node(s) on one low-latency network segment"
    assert (backup.strategy, backup.shares_group_of, backup.nodes, backup.group_key) == ("cluster", "train-use1a", 2, "train-use1a")
    assert backup.reason == (
        "hot spare of 'train': launches into its cluster placement group here (the same low-latency network segment as the hosts it stands in for)"
    )
    assert backup.as_json()["sharesGroupOf"] == "train-use1a" and "sharesGroupOf" not in train.as_json()


def test_share_with_served_false_keeps_the_spares_own_cluster_group(tmp_path):
    decisions = _decisions(tmp_path, APART)
    backup = decisions["backup-use1a"]
    assert (backup.strategy, backup.shares_group_of, backup.group_key) == ("cluster", None, "backup-use1a")
    assert backup.reason == "EFA training pool on on-demand capacity: a cluster group keeps its 2 node(s) on one low-latency network segment"
    assert decisions["train-use1a"] == _decisions(tmp_path)["train-use1a"]


def test_a_spare_joins_a_partition_group_with_its_partition_count(tmp_path):
    racks = TRAIN_PLACEMENT.replace("spread: blocks\n", "spread: racks\n      max_failure_share: 0.25\n")
    decisions = _decisions(tmp_path, (TRAIN_PLACEMENT, racks))
    train, backup = decisions["train-use1a"], decisions["backup-use1a"]
    assert (train.strategy, train.partition_count) == ("partition", 4)
    assert (backup.strategy, backup.partition_count, backup.spread_level, backup.shares_group_of) == ("partition", 4, None, "train-use1a")
    assert backup.reason == (
        "hot spare of 'train': launches into its partition placement group here "
        "(EC2 spreads its nodes over the group's 4 partitions, as it does the pool's)"
    )


def test_a_spare_joins_a_spread_group_while_ec2s_seven_instances_fit(tmp_path):
    decisions = _decisions(tmp_path, *SPREAD_SIX, (SPARE_NODES, "    nodes: 1\n"))
    backup = decisions["backup-use1a"]
    assert (decisions["train-use1a"].strategy, decisions["train-use1a"].nodes) == ("spread", 6)
    assert (backup.strategy, backup.spread_level, backup.shares_group_of) == ("spread", "rack", "train-use1a")
    assert backup.reason.endswith("(each node on a rack of its own; the group holds 7 of EC2's 7 instances per zone)")


def test_a_full_spread_group_leaves_the_spare_its_own_placement_and_the_reason_says_why(tmp_path):
    decisions = _decisions(tmp_path, *SPREAD_SIX)
    backup = decisions["backup-use1a"]
    assert (backup.strategy, backup.shares_group_of) == ("cluster", None)
    assert backup.reason == (
        "hot spare of 'train', whose rack-level spread group here already holds 6 of EC2's 7 instances per zone: the spare's 2 "
        "don't fit, so it is placed apart: EFA training pool on on-demand capacity: a cluster group keeps its 2 node(s) on one "
        "low-latency network segment"
    )


def test_two_spares_of_one_spread_group_share_its_seven_places_in_order():
    def pool(name: str, nodes: int, standby: str | None = None) -> Pool:
        placement = Placement(domains=["use1a"], spread="racks")
        return Pool(name=name, instance_type="p5.48xlarge", role="training", nodes=nodes, placement=placement, standby_for=standby)

    pools = [pool("train", 5), pool("spare-a", 2, "train"), pool("spare-b", 1, "train")]
    own = [decide_placement(each, "use1a", "us-east-1a", True, each.max_nodes) for each in pools]
    shared = share_served_groups(pools, own)
    assert [(decision.pool, decision.strategy, decision.shares_group_of) for decision in shared] == [
        ("train", "spread", None),
        ("spare-a", "spread", "train-use1a"),
        ("spare-b", "spread", None),
    ]
    assert shared[2].reason.startswith("hot spare of 'train', whose rack-level spread group here already holds 7 of EC2's 7")


def test_a_spare_listed_before_its_served_pool_still_shares_its_group():
    spare = Pool(
        name="backup",
        instance_type="p5.48xlarge",
        role="training",
        nodes=2,
        placement=Placement(domains=["use1a"]),
        standby_for="train",
        capacity=OnDemand(kind="on_demand"),
    )
    train = Pool(name="train", instance_type="p5.48xlarge", role="training", nodes=12, placement=Placement(domains=["use1a"]))
    own = [decide_placement(each, "use1a", "us-east-1a", True, each.max_nodes) for each in (spare, train)]
    shared = share_served_groups([spare, train], own)
    assert [(decision.key, decision.shares_group_of) for decision in shared] == [("backup-use1a", "train-use1a"), ("train-use1a", None)]


def test_spares_on_the_served_pools_capacity_block_share_it_with_no_placement_group(tmp_path):
    block = BLOCK.format(count=14)
    decisions = _decisions(tmp_path, (TRAIN_NODES, TRAIN_NODES + block), (SPARE_NODES, SPARE_NODES + block))
    assert {key: (decision.strategy, decision.shares_group_of) for key, decision in decisions.items()} == {
        "train-use1a": (None, None),
        "backup-use1a": (None, None),
    }


def test_a_spare_reserved_in_the_served_pools_placement_group_launches_into_it(tmp_path):
    train = RESERVATION.format(id="cr-0123456789abcdef0", count=12) + IN_GROUP
    spare = RESERVATION.format(id="cr-0123456789abcdef1", count=2) + IN_GROUP
    plan = plan_cluster(_blueprint(tmp_path, (TRAIN_NODES, TRAIN_NODES + train), (SPARE_NODES, SPARE_NODES + spare)), load_catalog())
    groups = {group.pool: group.reservation_placement_group for group in plan.node_groups if not group.system}
    assert groups == {"train": "train-pg", "backup": "train-pg"}
    assert {decision.key: decision.strategy for decision in plan.placements} == {"train-use1a": None, "backup-use1a": None}


def test_a_cluster_group_too_big_to_launch_at_once_counts_its_spares():
    def decision(pool: str, nodes: int, shares: str | None = None) -> PlacementDecision:
        return PlacementDecision(pool, "use1a", "us-east-1a", "cluster", "r", nodes=nodes, shares_group_of=shares)

    paths = {"train": ("pools", 0), "backup": ("pools", 1)}
    [finding] = scale_findings(300, "standard", [decision("train", 250), decision("backup", 10, "train-use1a")], paths)
    assert (finding.code, finding.path) == ("scale.cluster-placement-group", ("pools", 0, "capacity"))
    assert finding.message.startswith(
        "pool 'train' puts 260 on-demand or spot nodes (250 of its own and 10 of its spares ['backup']) in one cluster placement group in us-east-1a"
    )
    assert scale_findings(300, "standard", [decision("train", 250), decision("backup", 10)], paths) == []


# --- validate ----------------------------------------------------------------------------------------------------------


def test_the_fixture_validates_with_no_warning_or_error():
    findings = validate(str(FIXTURE)).findings
    assert [(finding.code, finding.severity) for finding in findings if finding.severity != "info"] == []


def test_a_spare_in_a_zone_without_its_served_pool_is_refused(tmp_path):
    spare = SPARE_PLACEMENT.replace("[use1a]", "[use1a, use1b]")
    [finding] = _findings(tmp_path, "pool.standby-zone", (SPARE_PLACEMENT, spare))
    assert (finding.severity, finding.path_text) == ("error", "pools[1].placement.domains")
    assert finding.message == (
        "spare pool 'backup' is placed in zone 'use1b' (us-east-1b), where 'train' has no nodes: a spare shares the placement "
        "of the pool it serves, and a placement group or a reservation stays in one Availability Zone"
    )
    assert finding.hint == "place the spare in 'train''s zones ['use1a'], or set placement.share_with_served: false to place the spare apart"
    assert finding.line == line_of(edited_copy(FIXTURE, tmp_path, (SPARE_PLACEMENT, spare)).read_text(), "[use1a, use1b]")


def test_a_spare_apart_may_sit_in_another_zone(tmp_path):
    spare = SPARE_PLACEMENT.replace("[use1a]", "[use1a, use1b]").replace("spread: blocks\n", "spread: blocks\n      share_with_served: false\n")
    assert _findings(tmp_path, "pool.standby-zone", (SPARE_PLACEMENT, spare)) == []


def test_a_spare_in_another_block_of_the_zone_is_warned_about(tmp_path):
    train = TRAIN_PLACEMENT.replace("[use1a]", "[b1]").replace("spread: blocks", "spread: packed")
    [finding] = _findings(tmp_path, "pool.standby-block", (TRAIN_PLACEMENT, train))
    assert (finding.severity, finding.path_text, finding.certificate["blocks"]) == ("warning", "pools[1].placement.domains", ["b2"])
    assert finding.message == (
        "spare pool 'backup' may be placed in blocks ['b2'], where 'train' has no hosts: a spare there takes a failed host's place "
        "from behind another spine and other power feeds than the job's"
    )


def test_a_spare_on_demand_for_a_pool_on_a_capacity_block_is_refused(tmp_path):
    [finding] = _findings(tmp_path, "pool.standby-capacity", (TRAIN_NODES, TRAIN_NODES + BLOCK.format(count=12)))
    assert (finding.severity, finding.path_text) == ("error", "pools[1].capacity")
    assert finding.message == (
        "spare pool 'backup' can't share the placement of 'train', whose nodes come from Capacity Block cr-0a1b2c3d4e5f60718: EC2 "
        "places a block's instances together itself and takes no placement group on its launches, so only the same block shares it"
    )
    assert finding.hint == (
        "put the spare on the same Capacity Block (capacity kind capacity_block, cr-0a1b2c3d4e5f60718), "
        "or set placement.share_with_served: false to place the spare apart"
    )


def test_spares_on_the_served_pools_block_must_fit_in_it_beside_the_pool(tmp_path):
    block = BLOCK.format(count=13)
    [finding] = _findings(tmp_path, "pool.standby-capacity", (TRAIN_NODES, TRAIN_NODES + block), (SPARE_NODES, SPARE_NODES + block))
    assert (finding.severity, finding.path_text, finding.certificate) == ("error", "pools[1].nodes", {"held": 13, "wanted": 14})
    assert finding.message == (
        "spare pool 'backup' (up to 2 nodes) and 'train' (up to 12) share reservation cr-0a1b2c3d4e5f60718, which holds 13 "
        "instances: 1 of their nodes would find no reserved instance"
    )
    fits = BLOCK.format(count=14)
    assert _findings(tmp_path, "pool.standby-capacity", (TRAIN_NODES, TRAIN_NODES + fits), (SPARE_NODES, SPARE_NODES + fits)) == []


def test_a_spare_on_demand_for_a_reservation_in_a_placement_group_is_refused(tmp_path):
    train = RESERVATION.format(id="cr-0123456789abcdef0", count=12) + IN_GROUP
    [finding] = _findings(tmp_path, "pool.standby-capacity", (TRAIN_NODES, TRAIN_NODES + train))
    assert (finding.severity, finding.path_text) == ("error", "pools[1].capacity")
    assert finding.message == (
        "spare pool 'backup' can't share the placement of 'train', whose reservation cr-0123456789abcdef0 was made in cluster "
        "placement group train-pg: any matching instance launched into that group uses the reservation, so a spare there on other "
        "capacity would take the instances reserved for the pool"
    )
    assert finding.hint.startswith("reserve the spare's capacity in placement group train-pg (placement_group: train-pg)")


def test_a_reserved_spare_of_a_pool_in_railyards_cluster_group_is_refused(tmp_path):
    spare = RESERVATION.format(id="cr-0123456789abcdef1", count=2)
    [finding] = _findings(tmp_path, "placement.standby-reserved", (SPARE_NODES, SPARE_NODES + spare))
    assert (finding.severity, finding.path_text, finding.certificate) == ("error", "pools[1].capacity", {"group": "train-use1a"})
    assert finding.message == (
        "spare pool 'backup' is on capacity reservation cr-0123456789abcdef1, so it can't join 'train''s cluster placement group in "
        "zone 'use1a': reserved instances launch only into the placement group their reservation was made in, and a launch naming "
        "another is a known cause of failed launches"
    )
    assert finding.hint == (
        "put the spare on on-demand or spot capacity, as 'train' is, or set placement.share_with_served: false to keep the spare apart"
    )


def test_a_spare_that_overfills_a_spread_group_is_warned_about(tmp_path):
    [finding] = _findings(tmp_path, "placement.standby-spread-full", *SPREAD_SIX)
    assert (finding.severity, finding.path_text) == ("warning", "pools[1].nodes")
    assert finding.message == (
        "spare pool 'backup' can't join 'train''s spread placement group in zone 'use1a': 6 of its nodes and the spare's 2 pass "
        "EC2's 7 running instances per zone in a spread group, so the spare gets a placement of its own"
    )


@pytest.mark.parametrize("value", ["true", "false"])
def test_share_with_served_on_a_pool_that_serves_none_is_refused(tmp_path, value):
    train = TRAIN_PLACEMENT.replace("spread: blocks\n", f"spread: blocks\n      share_with_served: {value}\n")
    [finding] = _findings(tmp_path, "pool.share-without-standby", (TRAIN_PLACEMENT, train))
    assert (finding.severity, finding.path_text) == ("error", "pools[0].placement.share_with_served")
    assert finding.message == (
        f"pool 'train' sets placement.share_with_served {value}, but it serves no pool: the setting is for hot spares (standby_for)"
    )


def test_the_blueprint_in_docs_spares_validates_and_shares_one_group(tmp_path):
    text = (Path(__file__).resolve().parents[3] / "docs" / "spares.md").read_text()
    blueprint = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "spares.yaml"
    path.write_text(blueprint)
    assert [(finding.code, finding.severity) for finding in validate(str(path)).findings if finding.severity != "info"] == []
    loaded = load_blueprint(str(path), catalog=load_catalog())
    assert loaded.blueprint is not None
    placements = plan_cluster(loaded.blueprint, load_catalog()).placements
    assert [(decision.key, decision.strategy, decision.group_key) for decision in placements] == [
        ("train-use1a", "cluster", "train-use1a"),
        ("backup-use1a", "cluster", "train-use1a"),
    ]


def test_docs_spares_names_every_code_a_spare_can_get():
    from blueprints.rules import standby
    from topology.cluster import spare_placement

    text = (Path(__file__).resolve().parents[3] / "docs" / "spares.md").read_text()
    codes = {*standby.CODES, *spare_placement.CODES, "pool.share-without-standby", "k8s.standby-flavor", "scale.cluster-placement-group"}
    assert {code for code in codes if f"`{code}`" not in text} == set()
