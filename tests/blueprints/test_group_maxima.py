"""A pool's node groups never add up to more than the pool's max.

Each failure domain a pool lists becomes a node group of its own, and EKS holds every node group's max to at least 1
(botocore's eks model: NodegroupScalingConfig maxSize, min 1). A pool with `max: 1` placed in two zones once compiled
two groups of max 1 each: 2 nodes, past the max the cost, quota and power checks read. Leaving a domain out would
break the placement the user asked for (the pool spread over both zones), so railyard refuses the blueprint instead
and says which figure to change. The system nodes under custom networking (a group per zone) are held the same way.
"""

from __future__ import annotations

import pytest

from blueprints.catalog import load_catalog
from tests.blueprints.base import BASE, line_of, load, mutate
from topology.cluster.node_groups import plan_node_groups

SERVE = "nodes: {min: 1, max: 4}"


def _maxima(text: str) -> dict[str, int]:
    """Each node group's max, by name, of a blueprint that validates."""
    result = load(text)
    assert result.blueprint is not None
    assert [finding.code for finding in result.findings if finding.severity == "error"] == []
    return {group.name: group.max_size for group in plan_node_groups(result.blueprint, load_catalog())}


@pytest.mark.parametrize("nodes", ["nodes: {min: 0, max: 1}", "nodes: {min: 1, max: 1}", "nodes: 1"])
def test_a_pool_with_fewer_nodes_than_domains_is_refused(nodes: str) -> None:
    text = mutate(SERVE, nodes)
    [finding] = [finding for finding in load(text).findings if finding.severity == "error"]
    assert finding.code == "placement.max-below-domains"
    assert finding.path == ("pools", 1, "nodes")
    assert finding.line == line_of(text, nodes)
    assert finding.message == (
        "pool 'serve' may have at most 1 node, but it is placed in 2 failure domains (za, zb): each gets a node group of "
        "its own, whose max EKS holds to at least 1, so together they could grow to 2 nodes"
    )
    assert finding.hint == "raise the pool's max to at least 2, or place it in at most 1 of those domains"


def test_three_blocks_and_two_nodes_name_the_plural() -> None:
    """Blocks count as domains too (each is a node group): 2 nodes over 3 blocks is one short."""
    text = mutate("      blocks:\n        - name: za-b1\n          racks: 4\n          hosts_per_rack: 4\n", ZA_BLOCKS)
    text = replace_serve(text, "nodes: {min: 0, max: 2}", "domains: [za-b1, za-b2, zb]")
    [finding] = [finding for finding in load(text).findings if finding.severity == "error"]
    assert (finding.code, finding.path) == ("placement.max-below-domains", ("pools", 1, "nodes"))
    assert finding.message.startswith("pool 'serve' may have at most 2 nodes, but it is placed in 3 failure domains (za-b1, za-b2, zb)")
    assert finding.hint == "raise the pool's max to at least 3, or place it in at most 2 of those domains"


def test_a_max_equal_to_the_domains_compiles_one_node_per_group() -> None:
    """The boundary: max 2 over 2 zones is allowed, and the groups' maxima add up to exactly 2."""
    maxima = _maxima(mutate(SERVE, "nodes: {min: 0, max: 2}"))
    assert (maxima["serve-za"], maxima["serve-zb"]) == (1, 1)


def test_an_odd_max_splits_larger_share_first_and_sums_to_the_max() -> None:
    maxima = _maxima(mutate(SERVE, "nodes: {min: 1, max: 3}"))
    assert (maxima["serve-za"], maxima["serve-zb"]) == (2, 1)


def test_a_pool_in_one_domain_with_one_node_is_fine() -> None:
    maxima = _maxima(replace_serve(BASE, "nodes: 1", "domains: [zb]"))
    assert maxima["serve-zb"] == 1


CUSTOM = "  layer_stack: separate\n  pod_networking: {mode: custom_networking, pod_cidrs: [100.64.0.0/16]}\n"


def test_custom_networking_system_nodes_with_a_max_below_the_zones_are_refused() -> None:
    text = mutate("  layer_stack: separate\n", CUSTOM + "  system_nodes: {min: 1, desired: 1, max: 1}\n")
    [finding] = [finding for finding in load(text).findings if finding.severity == "error"]
    assert finding.code == "k8s.system-max-below-zones"
    assert finding.path == ("kubernetes", "system_nodes", "max")
    assert finding.line == line_of(text, "system_nodes:")
    assert finding.message == (
        "system nodes max 1 is below the 2 availability zones: custom networking gives each zone a system node group of "
        "its own, whose max EKS holds to at least 1, so together they could grow to 2 nodes"
    )
    assert finding.hint == "set kubernetes.system_nodes.max to at least 2"


def test_system_nodes_at_the_zone_count_split_one_per_zone() -> None:
    maxima = _maxima(mutate("  layer_stack: separate\n", CUSTOM + "  system_nodes: {min: 1, desired: 1, max: 2}\n"))
    assert {name: size for name, size in maxima.items() if name.startswith("system")} == {"system-us-east-1a": 1, "system-us-east-1b": 1}


def test_one_system_group_over_every_zone_takes_a_max_of_one() -> None:
    """Without custom networking the system nodes are one group across the zones: max 1 is that group's max."""
    maxima = _maxima(mutate("  layer_stack: separate\n", "  layer_stack: separate\n  system_nodes: {min: 1, desired: 1, max: 1}\n"))
    assert maxima["system"] == 1


ZA_BLOCKS = (
    "      blocks:\n        - name: za-b1\n          racks: 4\n          hosts_per_rack: 4\n"
    "        - name: za-b2\n          racks: 4\n          hosts_per_rack: 4\n"
)


def replace_serve(text: str, nodes: str, domains: str) -> str:
    """`text` with the serve pool's nodes and domains replaced."""
    return text.replace(SERVE, nodes, 1).replace("      domains: [za, zb]\n      spread: zones", f"      {domains}", 1)
