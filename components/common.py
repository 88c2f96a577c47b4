"""Small helpers every component shares: child options and tags."""

from __future__ import annotations

from collections.abc import Mapping

import pulumi


def child_of(parent: pulumi.Resource, **options) -> pulumi.ResourceOptions:
    """Options for a child resource: parented to `parent` (and so using its providers)."""
    return pulumi.ResourceOptions(parent=parent, **options)


def named_tags(tags: Mapping[str, str], name: str) -> dict[str, str]:
    """The blueprint's tags plus a `Name` tag, which the EC2 console shows."""
    return {**tags, "Name": name}
