"""Small helpers every component shares: child options and tags."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

import pulumi

T = TypeVar("T")


def child_of(parent: pulumi.Resource, **options) -> pulumi.ResourceOptions:
    """Options for a child resource: parented to `parent` (and so using its providers)."""
    return pulumi.ResourceOptions(parent=parent, **options)


def computed(value: T | None, what: str) -> T:
    """A computed output pulumi-aws types Optional but AWS always sets on a created resource.

    Under the engine an unknown value never reaches an `apply`; a known None would mean AWS answered
    without the field, which is an error to say, not a None to pass on to the next resource.
    """
    if value is None:
        raise ValueError(f"AWS returned no {what}")
    return value


def named_tags(tags: Mapping[str, str], name: str) -> dict[str, str]:
    """The blueprint's tags plus a `Name` tag, which the EC2 console shows."""
    return {**tags, "Name": name}
