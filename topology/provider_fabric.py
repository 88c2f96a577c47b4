"""AWS's EFA network (`kind: aws_efa`): what railyard knows of it, and what it won't guess.

Nobody designs the network behind EFA on AWS. What EC2 publishes per instance
type is in the catalog (DescribeInstanceTypes): the EFA interfaces a node
carries (`InstanceType.efa_devices`: every EFA card, or the ones AWS's guide
names, four on p6e-gb200), its network bandwidth, and how many network-node layers
DescribeInstanceTopology reports for it (the `topology.k8s.aws/network-node-layer-N`
labels Kubernetes and Kueue see: 3, or 4 on the newest types). Switch radix,
link speed, fan-out and oversubscription are not published, so switch counts,
hops, bisection and a switch's blast radius are not computed; a fabric of
this kind gets a note saying what is known and what is not, never a figure
made from invented numbers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from blueprints.catalog import Catalog
from blueprints.findings import Finding, info
from blueprints.models import Blueprint
from blueprints.models.fabrics import AwsEfa

CODES = ("fabric.provider-managed",)
UNKNOWN = ("switch counts", "oversubscription", "bisection", "switch hops", "a switch's blast radius")


def provider_figures(blueprint: Blueprint, catalog: Catalog, fabric: AwsEfa) -> dict[str, Any]:
    """The fabric's entry in the design figures (`validate --json` `figures.provider_fabrics`): what EC2 publishes, and what is unknown."""
    pools = []
    for pool in blueprint.pools:
        spec = catalog.get(pool.instance_type)
        if pool.fabric != fabric.name or spec is None:
            continue
        pools.append(
            {
                "pool": pool.name,
                "instance_type": spec.name,
                "efa_interfaces": spec.efa_devices,
                "network_gbps": spec.network_gbps,
                "network_node_layers": spec.topology_layers,
            }
        )
    return {"name": fabric.name, "kind": fabric.kind, "pools": pools, "unknown": list(UNKNOWN)}


def provider_managed(blueprint: Blueprint, catalog: Catalog, fabric_index: int, fabric: AwsEfa) -> Iterable[Finding]:
    """One note per `aws_efa` fabric: each pool's published network figures, and the figures left unknown."""
    known = provider_figures(blueprint, catalog, fabric)["pools"]
    described = "; ".join(
        f"{item['pool']}: {item['efa_interfaces']} EFA interfaces, {item['network_gbps']:g} Gbps, {item['network_node_layers']} network-node layers"
        for item in known
    )
    yield info(
        "fabric.provider-managed",
        ("fabrics", fabric_index, "kind"),
        f"fabric '{fabric.name}' is AWS's EFA network: {described or 'no pool joins it'}. AWS publishes no switch radix, "
        f"link speed, fan-out or oversubscription for it, so {', '.join(UNKNOWN)} are not computed",
        "to have them computed, describe a network you design (rail_optimized_clos, fat_tree, rail_only, tor_clos)",
        pools=known,
        unknown=list(UNKNOWN),
    )
