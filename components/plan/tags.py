"""The tags every AWS resource of a cluster carries: the blueprint's owner, cost center and environment, its own tags, and the cluster's name."""

from __future__ import annotations

from blueprints.models import Blueprint

CLUSTER_NAME_TAG = "railyard:cluster"


def cluster_tags(blueprint: Blueprint, cluster_name: str) -> dict[str, str]:
    """The tags of every resource railyard makes for `blueprint` (and of the nodes Karpenter launches for it)."""
    metadata = blueprint.metadata
    tags = {"owner": metadata.owner, "cost-center": metadata.cost_center, "environment": metadata.environment}
    tags.update(metadata.tags)
    tags[CLUSTER_NAME_TAG] = cluster_name
    return tags
