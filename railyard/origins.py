"""Where in the blueprint a compiled resource comes from, so a policy violation can point at the user's own line.

The policy pack sees resources, never the blueprint. railyard names every
resource after the component that made it, and every component after the
part of the blueprint it compiles (`docs/compile.md`, "What is emitted"), so
the offline run can walk a resource's parent chain back to that part:

| resource under | blueprint path |
| --- | --- |
| the node pool `<cluster>-<pool>` (its launch templates, node groups, schedules) | `pools[i]` |
| the placement group `<cluster>-placement-<pool>-<zone>` | `pools[i].placement` |
| the storage tier `<cluster>-storage-<tier>...` (file system, security group, rules, associations) | `storage[j]` |
| the EKS cluster component `<cluster>-eks` (roles, keys, add-ons) | `kubernetes` |
| the Kubernetes layer `<cluster>-k8s`: plugins, FSx volumes, Kueue | `kubernetes.device_plugins`, `storage`, `kubernetes.kueue` |
| the network `<cluster>-network`, the AWS provider `<cluster>-aws` | `cloud` |

The system node group and anything else railyard adds on its own have no line.
A path the blueprint doesn't spell out (a default) is placed at its nearest
written ancestor, as findings are.
"""

from __future__ import annotations

from collections.abc import Mapping

from blueprints.findings import format_path
from blueprints.records import record
from blueprints.rules.names import cluster_name

NODE_POOL_TYPE = "railyard:compute:NodePool"


@record
class Origin:
    """The blueprint path a resource was compiled from, and where that path is written."""

    path: tuple
    file: str
    line: int

    def describe(self) -> str:
        """`file:line (pools[1])`, the way the terminal report shows it."""
        return f"{self.file}:{self.line} ({format_path(self.path)})"

    def as_json(self) -> dict:
        """The `blueprint` entry of a violation in `preview --policies --json`."""
        return {"path": format_path(self.path), "file": self.file, "line": self.line}


def _rules(blueprint) -> tuple[dict, list, list, dict]:
    cluster = cluster_name(blueprint)
    pools = {f"{cluster}-{pool.name}": ("pools", index) for index, pool in enumerate(blueprint.pools)}
    placements = sorted(
        ((f"{cluster}-placement-{pool.name}-", ("pools", index, "placement")) for index, pool in enumerate(blueprint.pools)),
        key=lambda rule: -len(rule[0]),
    )
    tiers = sorted(
        ((f"{cluster}-storage-{tier.name}", ("storage", index)) for index, tier in enumerate(blueprint.storage)), key=lambda rule: -len(rule[0])
    )
    components = {
        f"{cluster}-eks": ("kubernetes",),
        f"{cluster}-network": ("cloud",),
        f"{cluster}-aws": ("cloud", "region"),
        f"{cluster}-k8s-plugins": ("kubernetes", "device_plugins"),
        f"{cluster}-k8s-kueue": ("kubernetes", "kueue"),
        f"{cluster}-k8s-storage": ("storage",),
        f"{cluster}-k8s": ("kubernetes",),
    }
    return pools, placements, tiers, components


def _path_of(resource, by_urn: Mapping, rules) -> tuple | None:
    pools, placements, tiers, components = rules
    node = resource
    while node is not None:
        if node.type == NODE_POOL_TYPE and node.name in pools:
            return pools[node.name]
        for prefix, path in placements:
            if node.name.startswith(prefix):
                return path
        for prefix, path in tiers:
            if node.name == prefix or node.name.startswith(prefix + "-"):
                return path
        if node.name in components:
            return components[node.name]
        node = by_urn.get(node.parent)
    return None


def resource_origins(result) -> dict[str, Origin]:
    """Per URN of a preview's resources (`railyard.mocked.PreviewResult`), the blueprint line it comes from."""
    validation = result.validation
    if validation.blueprint is None:
        return {}
    rules = _rules(validation.blueprint)
    by_urn = {resource.urn: resource for resource in result.resources}
    found = {}
    for resource in result.resources:
        path = _path_of(resource, by_urn, rules)
        if path is None:
            continue
        position = validation.load.source_map.locate(path, prefer_key=True)
        if position is not None:
            found[resource.urn] = Origin(path, position.file, position.line)
    return found
