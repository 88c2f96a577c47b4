"""`railyard plan adopt`: the reservations bought take the offerings' place, the file keeps its comments, and only then does it apply.

An unbought design validates (with a note) but `preview` and the Pulumi program refuse it; adopted, it
previews with the policy pack and no mandatory violation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from railyard.cli import main
from railyard.mocked import run_preview
from railyard.plan import plan
from railyard.plan.adopt import AdoptError, adopt_text
from railyard.plan.needs_file import read_needs
from railyard.plan.offerings import read_offerings
from tests.plan.offerings import AT, SAMPLE_NEEDS, SAMPLE_OFFERINGS


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("written")
    offerings, rejected, _ = read_offerings(str(SAMPLE_OFFERINGS))
    result = plan(read_needs(SAMPLE_NEEDS), offerings, rejected, AT, top=3, write=folder)
    return [candidate.blueprint for candidate in result.candidates]


def test_preview_refuses_an_unbought_offering_and_registers_nothing(files):
    result = run_preview(files[0], at=AT)
    errors = [finding for finding in result.findings if finding.severity == "error"]
    assert [(finding.code, finding.path) for finding in errors] == [("capacity.offering-unpurchased", ("pools", 0, "capacity", "offering_id"))]
    assert (
        errors[0].message
        == "pool 'train' runs on Capacity Block offering cb-0e1a000000000001a, not bought yet: so nothing can be applied until it is bought"
    )
    assert result.resources == [] and not result.ok


def test_adopt_swaps_the_reservation_in_keeps_every_comment_and_then_previews_with_the_pack(files, tmp_path, capsys):
    adopted = tmp_path / "adopted.yaml"
    original = Path(files[0]).read_text()
    adopted.write_text(original)
    assert main(["plan", "adopt", str(adopted), "--reservation", "cr-0123456789abcdef0"]) == 0
    assert "cb-0e1a000000000001a -> cr-0123456789abcdef0" in capsys.readouterr().out
    text = adopted.read_text()
    assert "    reservation_id: cr-0123456789abcdef0  # bought from offering cb-0e1a000000000001a\n" in text
    # Only that line changed: the header comments and every other line are as written.
    assert [line for line in original.splitlines() if "offering_id:" not in line] == [
        line for line in text.splitlines() if "reservation_id:" not in line
    ]
    from policies.runner import run_policies

    preview = run_preview(str(adopted), at=AT)
    assert preview.ok
    report = run_policies(preview)
    assert not report.mandatory_failed


def test_adopt_swaps_a_groups_offerings_in_order():
    text = "pools:\n  - name: train\n    capacity:\n      kind: reservation_group\n      offering_ids: [cb-0000000a, cb-0000000b]  # two blocks\n"
    adopted, pairs = adopt_text(text, ["cr-0000000a", "cr-0000000b"])
    assert pairs == [("cb-0000000a", "cr-0000000a"), ("cb-0000000b", "cr-0000000b")]
    assert "offering_ids" not in adopted and "cr-0000000a  # bought from offering cb-0000000a" in adopted


@pytest.mark.parametrize(
    ("reservations", "message"),
    [
        (["cr-0000000a"], "the file names 2 offering(s) (cb-0000000a, cb-0000000b), and 1 reservation(s) were given"),
        (["cb-0000000a", "cr-0000000b"], "cb-0000000a is not a capacity reservation id"),
    ],
)
def test_adopt_refuses_what_doesnt_match_and_writes_nothing(reservations, message):
    text = "pools:\n  - name: train\n    capacity:\n      kind: reservation_group\n      offering_ids: [cb-0000000a, cb-0000000b]\n"
    with pytest.raises(AdoptError, match=message.replace("(", r"\(").replace(")", r"\)")):
        adopt_text(text, reservations)


def test_adopt_of_a_bought_design_says_there_is_nothing_to_adopt(tmp_path, capsys):
    bought = tmp_path / "bought.yaml"
    bought.write_text("pools:\n  - name: train\n    capacity: {kind: capacity_block, reservation_id: cr-0000000a}\n")
    assert main(["plan", "adopt", str(bought), "--reservation", "cr-0000000b"]) == 1
    assert "there is nothing to adopt; nothing was written" in capsys.readouterr().err
