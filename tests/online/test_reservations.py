"""`validate --online` holds each reservation the blueprint names to the one in the account (moto)."""

from __future__ import annotations

from railyard.pipeline import validate
from tests.online.conftest import BEFORE, BLOCK_END, BLOCK_ID, BLOCK_START, HETEROGENEOUS, P5, added, checked, variant
from tests.online.moto_account import capacity_block, odcr
from tests.yaml_text import line_of


def test_a_matching_active_block_adds_no_reservation_finding_and_keeps_every_offline_finding(p5_account):
    offline, online = checked(p5_account)
    assert set(offline.findings) <= set(online.findings)
    assert [code for code, _, _ in added(offline, online) if code.startswith("online.reservation")] == []
    [fact] = online.online.reservations
    assert (fact.reservation_id, fact.state, fact.kind, fact.zone, fact.total) == (BLOCK_ID, "active", "capacity-block", "us-east-1a", 64)
    assert (fact.start, fact.end) == (BLOCK_START, BLOCK_END)


def test_a_reservation_the_account_does_not_have_is_an_error_at_its_id_line(us_east_1):
    offline, online = checked(us_east_1)
    [finding] = [f for f in online.findings if f.code == "online.reservation-missing"]
    assert (finding.severity, finding.path_text) == ("error", "pools[0].capacity.reservation_id")
    assert finding.line == line_of(P5.read_text(), f"reservation_id: {BLOCK_ID}")
    assert BLOCK_ID in finding.message and "us-east-1" in finding.message
    assert not online.ok and offline.ok


def test_a_block_in_another_zone_for_another_type_and_size_is_reported_field_by_field(us_east_1):
    us_east_1.reserve(capacity_block(BLOCK_ID, "p5e.48xlarge", "us-east-1b", 32, BLOCK_START, BLOCK_END))
    offline, online = checked(us_east_1)
    mismatches = {f.path_text: f for f in online.findings if f.code == "online.reservation-mismatch"}
    assert set(mismatches) == {"pools[0].capacity.zone", "pools[0].capacity.instance_type", "pools[0].capacity.instance_count"}
    assert mismatches["pools[0].capacity.zone"].hint == "set zone: us-east-1b"
    assert mismatches["pools[0].capacity.instance_count"].hint == "set instance_count: 32"
    assert mismatches["pools[0].capacity.zone"].line == line_of(P5.read_text(), "      zone: us-east-1a")


def test_a_block_whose_window_differs_says_the_accounts_start_and_end(us_east_1):
    us_east_1.reserve(capacity_block(BLOCK_ID, "p5.48xlarge", "us-east-1a", 64, BLOCK_START.replace(day=2), BLOCK_END.replace(day=16)))
    _, online = checked(us_east_1)
    hints = sorted(f.hint for f in online.findings if f.code == "online.reservation-mismatch")
    assert hints == ["set end: 2026-12-16T11:30:00Z", "set start: 2026-12-02T11:30:00Z"]


def test_an_on_demand_reservation_named_as_a_capacity_block_is_the_wrong_kind(us_east_1):
    us_east_1.reserve(odcr(BLOCK_ID, "p5.48xlarge", "us-east-1a", 64))
    _, online = checked(us_east_1)
    [kind] = [f for f in online.findings if f.path_text == "pools[0].capacity.kind"]
    assert (kind.code, kind.hint) == ("online.reservation-mismatch", "set kind: capacity_reservation")


def test_a_block_that_has_not_started_warns_with_its_start(us_east_1):
    us_east_1.reserve(capacity_block(BLOCK_ID, "p5.48xlarge", "us-east-1a", 64, BLOCK_START, BLOCK_END, state="scheduled"))
    _, online = checked(us_east_1, now=BEFORE)
    [finding] = [f for f in online.findings if f.code.startswith("online.reservation")]
    assert (finding.code, finding.severity) == ("online.reservation-not-started", "warning")
    assert "scheduled" in finding.message and "2026-12-01T11:30:00+00:00" in finding.message


def test_an_expired_block_is_an_error_that_says_when_it_ended(us_east_1):
    us_east_1.reserve(capacity_block(BLOCK_ID, "p5.48xlarge", "us-east-1a", 64, BLOCK_START, BLOCK_END, state="expired"))
    _, online = checked(us_east_1, now=BLOCK_END.replace(day=20))
    [finding] = [f for f in online.findings if f.code.startswith("online.reservation")]
    assert (finding.code, finding.severity) == ("online.reservation-state", "error")
    assert "expired (it ended 2026-12-15T11:30:00+00:00)" in finding.message


def test_a_reservation_mostly_used_by_others_warns_that_the_pool_will_not_start(us_east_2):
    us_east_2.reserve(odcr("cr-0123456789abcdef0", "p5en.48xlarge", "us-east-2a", 32, available=4))
    offline, online = checked(us_east_2, HETEROGENEOUS)
    [finding] = [f for f in online.findings if f.code.startswith("online.reservation")]
    assert (finding.code, finding.severity) == ("online.reservation-in-use", "warning")
    assert "4 of 32 instances free" in finding.message
    assert finding.certificate == {"available": 4, "desired": offline.blueprint.pools[finding.path[1]].desired_nodes}


BARE_BLOCK = (
    "      zone: us-east-1a\n      instance_type: p5.48xlarge\n      instance_count: 64\n"
    "      start: 2026-12-01T11:30:00Z\n      end: 2026-12-15T11:30:00Z\n",
    "",
)


def test_a_block_named_by_id_alone_validates_offline_and_says_what_only_the_account_can_check(tmp_path):
    offline = validate(str(variant(tmp_path, P5, BARE_BLOCK)))
    assert offline.ok
    [note] = [f for f in offline.findings if f.code == "capacity.block-unstated"]
    assert (note.severity, note.path_text) == ("info", "pools[0].capacity.reservation_id")
    assert note.certificate["unstated"] == ["zone", "instance_type", "instance_count", "start", "end"]


def test_the_accounts_values_for_an_unstated_block_are_held_to_the_pool(us_east_1, tmp_path):
    # The block is in another zone, for 32 instances, ending after Kubernetes 1.35's standard support: the
    # checks the unstated fields skipped offline run on the account's values.
    us_east_1.reserve(capacity_block(BLOCK_ID, "p5.48xlarge", "us-east-1b", 32, BLOCK_START, BLOCK_END.replace(year=2028)))
    offline, online = checked(us_east_1, variant(tmp_path, P5, BARE_BLOCK))
    found = {f.code: f for f in online.findings if f not in set(offline.findings)}
    assert {"capacity.zone-mismatch", "capacity.too-small"} <= set(found)
    assert "online.reservation-mismatch" not in found  # nothing stated, so nothing contradicts the account
    assert "us-east-1b" in found["capacity.zone-mismatch"].message
    assert "the account's zone, instance_type, instance_count, start, end" in found["capacity.zone-mismatch"].message
    # The zone has no line of its own: the finding points at the capacity mapping that would hold it.
    assert found["capacity.zone-mismatch"].line == line_of(P5.read_text(), "      kind: capacity_block")


def test_an_unstated_block_that_matches_the_pool_adds_nothing(p5_account, tmp_path):
    offline, online = checked(p5_account, variant(tmp_path, P5, BARE_BLOCK))
    assert [code for code, _, _ in added(offline, online) if not code.startswith("online.quota")] == []


GROUPED = (
    "      kind: capacity_reservation\n      reservation_id: cr-0123456789abcdef0\n      zone: us-east-2a\n"
    "      instance_type: p5en.48xlarge\n      instance_count: 32\n",
    "      kind: reservation_group\n      reservation_ids: [cr-0123456789abcdef0, cr-0123456789abcdef1]\n",
)


def test_each_member_of_a_reservation_group_is_looked_up_at_its_own_line(us_east_2, tmp_path):
    us_east_2.reserve(odcr("cr-0123456789abcdef0", "p5en.48xlarge", "us-east-2a", 16))
    _, online = checked(us_east_2, variant(tmp_path, HETEROGENEOUS, GROUPED))
    [missing] = [f for f in online.findings if f.code == "online.reservation-missing"]
    assert missing.path_text == "pools[0].capacity.reservation_ids[1]" and "cr-0123456789abcdef1" in missing.message


def test_a_groups_members_together_are_held_to_the_pools_size(us_east_2, tmp_path):
    us_east_2.reserve(odcr("cr-0123456789abcdef0", "p5en.48xlarge", "us-east-2a", 16))
    us_east_2.reserve(odcr("cr-0123456789abcdef1", "p5en.48xlarge", "us-east-2a", 8))
    offline, online = checked(us_east_2, variant(tmp_path, HETEROGENEOUS, GROUPED))
    found = {f.code: f for f in online.findings if f not in set(offline.findings)}
    assert "holds 24 instances" in found["capacity.too-small"].message  # 16 + 8 for a pool of 32
    assert "the account's zone, instance_type, instance_count," in found["capacity.too-small"].message
    assert "online.reservation-missing" not in found and "online.reservation-mismatch" not in found
