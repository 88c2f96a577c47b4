"""Mistakes the peer tools catch that railyard used to let through, each a finding at its line."""

from __future__ import annotations

from pathlib import Path

from blueprints.loader import load_text

ROOT = Path(__file__).resolve().parents[2]
P5 = (ROOT / "blueprints" / "examples" / "p5-capacity-block.yaml").read_text()
DEV = (ROOT / "blueprints" / "examples" / "dev-g6e.yaml").read_text()


def errors(text: str) -> list:
    return [finding for finding in load_text(text, "b.yaml").findings if finding.is_error]


def test_spot_on_a_type_aws_never_sells_as_spot_is_refused():
    # trn2u is sold on demand and as Capacity Blocks only (DescribeInstanceTypes SupportedUsageClasses).
    text = DEV.replace("instance_type: g6e.xlarge\n", "instance_type: trn2u.48xlarge\n    capacity: {kind: spot}\n")
    assert "trn2u.48xlarge" in text and "kind: spot" in text
    found = [finding for finding in errors(text) if finding.code == "capacity.spot-unsupported-type"]
    assert len(found) == 1 and found[0].path[-2:] == ("capacity", "kind")
    assert "['capacity-block', 'on-demand']" in found[0].message


def test_spot_on_a_type_sold_as_spot_is_not_refused_for_it():
    text = DEV.replace("instance_type: g6e.xlarge\n", "instance_type: g6e.xlarge\n    capacity: {kind: spot}\n")
    assert "kind: spot" in text
    assert not [finding for finding in errors(text) if finding.code == "capacity.spot-unsupported-type"]


def test_an_extra_tag_may_not_replace_the_owner_or_the_cluster_tag():
    text = P5.replace("    project: llm-pretraining\n", "    project: llm-pretraining\n    owner: someone-else\n    railyard:cluster: other\n", 1)
    assert "someone-else" in text
    found = sorted((finding.path, finding.code) for finding in errors(text) if finding.code == "names.tag-overrides-railyard")
    assert found == [
        (("metadata", "tags", "owner"), "names.tag-overrides-railyard"),
        (("metadata", "tags", "railyard:cluster"), "names.tag-overrides-railyard"),
    ]
