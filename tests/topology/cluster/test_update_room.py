"""A vCPU quota must hold the nodes a node-group update launches before it drains (EKS's scale-up phase)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from blueprints.catalog import load_catalog
from railyard.pipeline import validate
from tests.yaml_text import replace_once
from topology.cluster.node_groups import plan_node_groups
from topology.cluster.update_room import update_surge

ROOT = Path(__file__).resolve().parents[3]
RAIL = ROOT / "blueprints" / "examples" / "rail-131k.yaml"


def test_the_surge_is_the_larger_of_twice_the_zones_and_a_tenth_of_the_group_capped_at_100():
    blueprint = validate(str(RAIL)).blueprint
    sample = plan_node_groups(blueprint, load_catalog())[-1]
    one_zone = (sample.availability_zones[0],)
    assert update_surge(replace(sample, max_size=1024, availability_zones=one_zone)) == 100
    assert update_surge(replace(sample, max_size=64, availability_zones=one_zone)) == 7
    assert update_surge(replace(sample, max_size=5, availability_zones=one_zone + ("us-west-2b", "us-west-2c"))) == 6
    assert update_surge(replace(sample, max_size=1024, update_strategy="MINIMAL")) == 0


def test_a_quota_declared_at_exactly_the_need_warns_with_the_value_that_leaves_room(tmp_path):
    path = tmp_path / "rail.yaml"
    path.write_text(replace_once(RAIL.read_text(), "L-417A185B: 3452928", "L-417A185B: 3145728"))
    result = validate(str(path))
    [finding] = [f for f in result.findings if f.code == "quota.no-update-room"]
    assert finding.severity == "warning" and finding.path_text == "quotas.L-417A185B"
    # 16 groups of 1,024 p5en: each launches min(100, 103) = 100 nodes of 192 vCPUs ahead of draining.
    assert finding.certificate == {"quota": "L-417A185B", "needed": 3145728, "surge": 16 * 100 * 192, "available": 3145728}
    assert finding.hint.startswith("raise the quota to 3452928")


def test_the_example_that_declares_the_room_gets_no_warning():
    assert [f for f in validate(str(RAIL)).findings if f.code == "quota.no-update-room"] == []
