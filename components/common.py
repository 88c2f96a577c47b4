"""Small helpers every component shares: child options, tags, and the trust policy of Pod Identity roles."""

from __future__ import annotations

import json
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


POD_IDENTITY_SERVICE = "pods.eks.amazonaws.com"


def pod_identity_trust() -> str:
    """The role trust policy EKS Pod Identity needs: its service principal may assume the role and tag the session."""
    statement = {"Effect": "Allow", "Principal": {"Service": POD_IDENTITY_SERVICE}, "Action": ["sts:AssumeRole", "sts:TagSession"]}
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})
