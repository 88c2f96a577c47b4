"""Seeded random small fabrics of every kind: every figure of the merged graph equals the brute-force answer on the explicit one.

The fixtures cover the shapes we can draw; this sweep covers the combinations
nobody would draw (odd radixes, oversubscribed tiers, two planes, planes joined
at the spines or cores, hosts' in-band ports on the leaves, partial positions
and pods, scale-up domains smaller than a host, pods cut by block boundaries). The seed is fixed, so a failure
reproduces.
"""

from __future__ import annotations

import random

import networkx as nx
import pytest
from pydantic import ValidationError

from tests.topology import reference
from tests.topology.factory import CATALOG, block, blueprint, design, fabric, pool, rule_errors, zone
from topology.bandwidth import _halves, bisection, switch_ports
from topology.blast import switch_outages
from topology.connectivity import pool_components, rail_misalignments
from topology.expand import expand_fabric, expanded_size
from topology.fabric import pool_endpoints
from topology.hops import worst_case_hops

HOSTS = [
    ("p4d.24xlarge", [0.5, 0.25, 0.125]),
    ("g6e.12xlarge", [0.25]),
    ("g6e.8xlarge", [1]),
    ("p5en.48xlarge", [0.5, 1]),
    ("trn2.48xlarge", [0.25, 0.5]),
]


def random_fabric_fields(rng: random.Random, kind: str, joined: bool = False, host_ports: bool = False) -> dict:
    """Random fields for a fabric of `kind`; `joined` puts it on two planes that join at the spines or the cores,
    `host_ports` gives every host one to five ports of its own (in-band, storage) on its leaves."""
    fields = {"nics_per_accelerator": None}
    if kind != "fat_tree":
        fields["oversubscription"] = {"leaf": rng.choice([1.0, 2.0, 3.0]), "spine": rng.choice([1.0, 2.0])}
    planes = 2 if joined else rng.choice([1, 2] if host_ports else [1, 1, 2])  # host ports: their dealing over planes matters
    fields.update(planes=planes, ports_per_nic=planes * rng.choice([1, 2]))
    if kind in ("rail_optimized_clos", "rail_only") and rng.random() < (0.8 if host_ports else 0.5):
        fields["rails"] = rng.choice([1, 2, 4])
    if kind in ("rail_optimized_clos", "tor_clos") and rng.random() < 0.4:
        fields["tiers"] = rng.choice([2, 3])
    if kind == "rail_only" and rng.random() < 0.5:
        fields["tiers"] = rng.choice([1, 2])
    if rng.random() < 0.3:
        fields["scale_up"] = {"kind": rng.choice(["nvlink", "pcie", "neuronlink"]), "domain_size": rng.choice([1, 2, 4])}
    if joined:  # a tier that joins the planes must be built: cores need three tiers, rail-only spines two
        tier = "core" if kind != "rail_only" and rng.random() < 0.4 else "spine"
        fields[tier] = {"planes": 1}
        fields["tiers"] = 3 if tier == "core" else (2 if kind == "rail_only" else fields.get("tiers"))
        if fields["tiers"] == 3 and rng.random() < 0.5:
            fields["blocks_per_pod"] = 1  # pods the design fixes, smaller than the spines could reach
    if host_ports:
        kinds = rng.choice([[("inband", 1)], [("inband", 2)], [("inband", 2), ("storage", rng.randint(1, 3))]])
        fields["host_ports"] = [{"name": name, "ports": ports} for name, ports in kinds]
    return fields


def random_blueprint(rng: random.Random, joined: bool = False, host_ports: bool = False):
    """A random rule-clean blueprint with one or two pools on one small fabric, or None to draw again."""
    kind = rng.choice(["rail_optimized_clos", "rail_only", "tor_clos"] + ([] if joined else ["fat_tree"]))
    instance, nic_choices = rng.choice(HOSTS)
    fields = random_fabric_fields(rng, kind, joined, host_ports)
    fields["nics_per_accelerator"] = rng.choice(nic_choices)
    blocks = [block(f"b{index}", racks=rng.randint(1, 4), hosts_per_rack=rng.randint(1, 3)) for index in range(rng.choice([1, 2]))]
    slots = sum(item["racks"] * item["hosts_per_rack"] for item in blocks)
    if slots < 3:
        return None
    first = rng.randint(2, min(slots - 1, 10))
    pools = [pool("a", instance, first, ["z1"], spread=rng.choice(["packed", "racks", "blocks"]), fabric="f")]
    if rng.random() < 0.4:
        pools.append(pool("b", instance, rng.randint(1, slots - first), ["z1"], fabric="f"))
    try:
        model = blueprint([zone("z1", blocks)], pools, [fabric("f", kind, rng.choice([4, 6, 8, 12, 16]), **fields)])
    except ValidationError:
        return None
    return None if rule_errors(model) else model


def cases(count: int, seed: int = 20251121, joined: bool = False, host_ports: bool = False):
    rng, found = random.Random(seed), []
    while len(found) < count:
        model = random_blueprint(rng, joined, host_ports)
        if model is not None:
            found.append(model)
    return found


def assert_every_host_has_all_its_nic_ports_once(built, explicit: nx.Graph) -> None:
    """Independently of parts and rail blocks: a host's NIC-to-leaf links add up to NICs x ports per NIC."""
    fabric_model = built.plan.fabric
    for _, model in built.pools:
        nics = CATALOG.get(model.instance_type).accelerator_count * fabric_model.nics_per_accelerator
        per_host: dict = {}
        for node, data in explicit.nodes(data=True):
            if data["kind"] == "nic" and data["pool"] == model.name:
                host = (node[1][2], node[2])
                per_host[host] = per_host.get(host, 0) + sum(edge["links"] for edge in explicit[node].values() if "links" in edge)
        assert set(per_host.values()) == {nics * fabric_model.ports_per_nic}


def _host_ports_on(built, explicit: nx.Graph, leaf) -> int:
    """The hosts' own ports (fabric.host_ports) a leaf of the explicit graph takes, by the documented rule, not the code's:
    a host's ports are dealt one per rail leaf of its position from rail 0, then on the next plane, and round again."""
    fabric_model = built.plan.fabric
    ports = sum(kind.ports for kind in fabric_model.host_ports)
    rails, group = built.plan.rails, built.graph.nodes[explicit.nodes[leaf]["group"]]
    rail = explicit.nodes[leaf]["rail"] or 0  # non-rail kinds: every port on "rail 0"
    dealt = sum(1 for port in range(ports) if port % rails == rail and (port // rails) % fabric_model.planes == group["plane"])
    hosts = {(nic[1][1], nic[1][2], nic[2]) for nic in explicit[leaf] if explicit.nodes[nic]["kind"] == "nic"}  # (pool, position, host)
    return len(hosts) * dealt


def assert_figures_match_the_explicit_graph(built) -> None:
    graph = built.graph
    explicit = expand_fabric(graph)
    assert_every_host_has_all_its_nic_ports_once(built, explicit)
    assert expanded_size(graph) == (explicit.number_of_nodes(), explicit.number_of_edges())
    assert rail_misalignments(graph) == []
    members = {item.node: item.total for item in switch_ports(graph)}
    for node, data in explicit.nodes(data=True):
        if data["kind"] == "switch":
            own = _host_ports_on(built, explicit, node) if data["tier"] == "leaf" else 0
            assert sum(edge["links"] for edge in explicit[node].values()) + own == members[data["group"]]
    for _, model in built.pools:
        name = model.name
        view = reference.pool_view(explicit, name)
        islands = [part for part in nx.connected_components(view) if any(view.nodes[node]["kind"] == "accelerator" for node in part)]
        assert (len(pool_components(graph, name)) == 1) == (len(islands) == 1)
        if len(islands) > 1:
            continue
        hops = worst_case_hops(graph, name)
        if hops is not None:
            assert (hops.same_rail, hops.cross_rail) == reference.all_pairs_hops(explicit, name)
        cut = bisection(graph, name)
        if cut is not None:
            first = _halves(graph, pool_endpoints(graph, name))
            assert cut.gbps == pytest.approx(reference.bisection_flow(explicit, name, first))
        outages = switch_outages(graph, name)
        for node, data in explicit.nodes(data=True):
            if data["kind"] == "switch":
                expected = outages.get(data["group"], 0) if graph.nodes[data["group"]]["count"] == 1 else 0
                assert reference.accelerators_down(explicit, name, node) == pytest.approx(expected)


@pytest.mark.parametrize("model", cases(100), ids=lambda model: f"{model.fabrics[0].kind}-{model.pools[0].instance_type}")
def test_random_fabric_figures_equal_the_explicit_graphs(model):
    built = design(model)
    assert len(built.fabrics) == 1, [finding.code for finding in built.findings]
    assert_figures_match_the_explicit_graph(built.fabrics[0])


@pytest.mark.parametrize("model", cases(40, seed=20261124, joined=True), ids=lambda model: f"{model.fabrics[0].kind}-{model.pools[0].instance_type}")
def test_planes_joined_at_the_spines_or_cores_give_the_explicit_graphs_figures(model):
    """Two planes whose spines (or cores) are one shared layer: the merged graph still agrees with the explicit one."""
    built = design(model)
    assert len(built.fabrics) == 1, [finding.code for finding in built.findings]
    fabric_model = built.fabrics[0].plan.fabric
    assert (fabric_model.planes, min(fabric_model.tier_planes(tier) for tier in ("spine", "core"))) == (2, 1)
    assert_figures_match_the_explicit_graph(built.fabrics[0])


@pytest.mark.parametrize(
    "model", cases(40, seed=20261125, host_ports=True), ids=lambda model: f"{model.fabrics[0].kind}-{model.pools[0].instance_type}"
)
def test_hosts_own_ports_take_the_leaf_ports_the_rule_gives_and_carry_no_traffic(model):
    """In-band and storage ports on the leaves: every switch's port count is its NIC links plus the hosts' own ports dealt
    by the documented rule, and hops, bisection and outages, which those ports never carry, still equal the explicit graph's."""
    built = design(model)
    assert len(built.fabrics) == 1, [finding.code for finding in built.findings]
    assert built.fabrics[0].plan.fabric.host_ports
    assert_figures_match_the_explicit_graph(built.fabrics[0])
