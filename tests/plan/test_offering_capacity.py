"""A Capacity Block named by the offering it will be bought from: stated whole, one id at a time, noted by validate, refused by what applies."""

from __future__ import annotations

import pytest

from blueprints.rules.unbought import unbought_findings
from tests.blueprints.base import line_of, load, mutate

RESERVATION = "      reservation_id: cr-0123456789abcdef0\n"
OFFERING = "      offering_id: cb-0123456789abcdef0\n"


def test_an_offering_stated_whole_validates_with_a_note_on_its_id():
    text = mutate(RESERVATION, OFFERING)
    result = load(text)
    assert result.ok
    (note,) = [finding for finding in result.findings if finding.code == "capacity.offering-unpurchased"]
    assert (note.severity, note.path_text, note.line) == ("info", "pools[0].capacity.offering_id", line_of(text, "offering_id: cb-"))
    assert note.message == "pool 'train' runs on Capacity Block offering cb-0123456789abcdef0, not bought yet: it can be checked, not applied"
    assert "aws ec2 purchase-capacity-block --capacity-block-offering-id cb-0123456789abcdef0" in note.hint


def test_what_applies_a_design_gets_the_same_code_as_an_error():
    result = load(mutate(RESERVATION, OFFERING))
    (refusal,) = unbought_findings(result.blueprint, "error")
    assert (refusal.code, refusal.severity, refusal.path) == ("capacity.offering-unpurchased", "error", ("pools", 0, "capacity", "offering_id"))
    assert refusal.message.endswith("not bought yet: so nothing can be applied until it is bought")


@pytest.mark.parametrize(
    ("new", "path", "message"),
    [
        (
            RESERVATION + OFFERING,
            "pools[0].capacity.offering_id",
            "a Capacity Block is named by its reservation_id (cr-...) or, until it is bought, its offering_id (cb-...), not both",
        ),
        ("", "pools[0].capacity.reservation_id", "and this one names neither"),
    ],
)
def test_a_block_is_named_by_its_reservation_or_its_offering_never_both(new, path, message):
    result = load(mutate(RESERVATION, new))
    (finding,) = [finding for finding in result.findings if finding.code == "capacity.block-id"]
    assert finding.path_text == path and message in finding.message and finding.severity == "error"


def test_an_unbought_offering_states_every_fact_of_the_block():
    text = mutate(RESERVATION, OFFERING).replace("      zone: us-east-1a\n", "", 1)
    result = load(text)
    (finding,) = [finding for finding in result.findings if finding.code == "capacity.block-id"]
    assert finding.path_text == "pools[0].capacity.zone"
    assert finding.message == "an offering not bought yet has no facts in the account to read, but this one leaves zone unstated"


GROUP = "      kind: reservation_group\n      capacity_blocks: true\n      offering_ids: [cb-0000000a, cb-0000000b]\n"


def test_a_group_of_offerings_is_noted_and_a_group_naming_offerings_and_reservations_is_refused():
    text = mutate("      kind: capacity_block\n" + RESERVATION, GROUP)
    text = text.replace("      start: 2026-12-01T00:00:00Z\n      end: 2026-12-08T00:00:00Z\n", "")
    result = load(text)
    notes = [finding for finding in result.findings if finding.code == "capacity.offering-unpurchased"]
    assert [(note.severity, note.path_text) for note in notes] == [("info", "pools[0].capacity.offering_ids")]
    assert (
        notes[0].message == "pool 'train' runs on Capacity Block offerings cb-0000000a, cb-0000000b, not bought yet: it can be checked, not applied"
    )
    both = load(text.replace("      offering_ids:", "      reservation_ids: [cr-0000000a]\n      offering_ids:"))
    (finding,) = [finding for finding in both.findings if finding.code == "capacity.group-members"]
    assert "offerings to buy, not both reservation_ids and offering_ids" in finding.message and finding.path_text == "pools[0].capacity.offering_ids"
    unflagged = load(text.replace("      capacity_blocks: true\n", ""))
    (finding,) = [finding for finding in unflagged.findings if finding.code == "capacity.group-members"]
    assert (
        finding.message == "offering_ids are Capacity Block offerings, but capacity_blocks is false"
        and finding.path_text == "pools[0].capacity.capacity_blocks"
    )
