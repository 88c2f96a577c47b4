"""The subnet plan's verdicts at their edges: a pin whose subnet is gone, sizes exactly at a subnet's limits and one
past them, and two demands sharing one existing subnet (issue 53's survivors of topology/cluster/subnets.py)."""

from __future__ import annotations

from ipaddress import IPv4Network

from railyard.pipeline import validate
from tests.blueprints.base import BASE
from tests.yaml_text import replace_once
from topology.cluster.subnets import unused_pins


def test_a_pin_for_a_subnet_the_plan_no_longer_has_is_a_warning_at_the_pin(tmp_path):
    path = tmp_path / "testbed.yaml"
    path.write_text(replace_once(BASE, "  vpc_cidr: 10.0.0.0/16\n", "  vpc_cidr: 10.0.0.0/16\n  subnet_cidrs: {private-retired: 10.0.240.0/24}\n"))
    (finding,) = [f for f in validate(str(path)).findings if f.code == "compile.pin-unused"]
    assert (finding.severity, finding.path) == ("warning", ("cloud", "subnet_cidrs", "private-retired"))
    assert (
        finding.message
        == "subnet_cidrs pins 'private-retired' at 10.0.240.0/24, but the plan has no such subnet: nothing uses it any more, so it is deleted"
    )
    assert finding.hint.startswith("drop the pin once the subnet is gone (`railyard lock --write` rewrites the pins); planned subnets: ")


def test_a_pin_the_plan_still_has_is_not_unused():
    assert unused_pins({}, []) == []
    (finding,) = unused_pins({"private-a": IPv4Network("10.0.0.0/24"), "private-b": IPv4Network("10.0.1.0/24")}, [_Plan("private-a")])
    assert finding.path == ("cloud", "subnet_cidrs", "private-b")
    assert finding.hint.endswith("planned subnets: private-a")


class _Plan:
    def __init__(self, key: str) -> None:
        self.key = key
