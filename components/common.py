"""Small helpers every component shares: child options, tags, and the roles EKS Pod Identity hands to pods."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TypeVar

import pulumi
import pulumi_aws as aws

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


def pod_identity_role(parent: pulumi.Resource, name: str, description: str, policy_arn: str, tags: Mapping[str, str]) -> pulumi.Output[str]:
    """A role only EKS Pod Identity may assume, with one managed policy: its ARN, resolved once the policy is attached,
    so whatever is bound to it never runs without its permissions."""
    role = aws.iam.Role(name, assume_role_policy=pod_identity_trust(), description=description, tags=named_tags(tags, name), opts=child_of(parent))
    attachment = aws.iam.RolePolicyAttachment(f"{name}-policy", role=role.name, policy_arn=policy_arn, opts=child_of(parent))
    return pulumi.Output.all(role.arn, attachment.id).apply(lambda values: str(values[0]))
