"""The pack's configuration knobs: defaults, JSON schemas, and how a rule reads them.

CrossGuard configures each policy separately, keyed by the policy's name
(`pulumi preview --policy-pack policies --policy-pack-config cfg.json`):

    {
      "all": "mandatory",
      "instance-type-allowed": {"allowedInstanceTypes": ["p5.48xlarge"]},
      "accelerator-ceiling": {"enforcementLevel": "advisory", "maxAcceleratorsPerStack": 4096}
    }

A rule names the knobs it reads; its `config_schema` is built from them here,
and `settings_for` fills in the defaults for the knobs the file leaves out (the
CLI validates values against the schema, but railyard never relies on it
filling defaults). `policies.runner.run_policies(config=...)` takes the same
document, so one file drives both the offline run and `pulumi preview`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

ENFORCEMENT_LEVELS = ("advisory", "mandatory", "disabled")


@dataclass(frozen=True)
class Knob:
    """One configuration property: its camelCase key, JSON schema, default and meaning."""

    key: str
    schema: Mapping[str, Any]
    default: Any
    description: str

    def json_schema(self) -> dict[str, Any]:
        """The property's JSON schema for `PolicyConfigSchema`, with its description and default."""
        return {**self.schema, "description": self.description, "default": self.default}


# Current-generation training and inference types, every size of g6e for dev boxes,
# and the general-purpose type of railyard's system node group. Older generations
# (p4d/p4de, g5, g6, trn1) and anything not listed need an explicit allow: they are
# slower per dollar and their capacity is scarce.
DEFAULT_INSTANCE_TYPES = (
    "m7i.large",
    "m7i.xlarge",
    "m7i.2xlarge",
    "g6e.xlarge",
    "g6e.2xlarge",
    "g6e.4xlarge",
    "g6e.8xlarge",
    "g6e.12xlarge",
    "g6e.16xlarge",
    "g6e.24xlarge",
    "g6e.48xlarge",
    "inf2.xlarge",
    "inf2.8xlarge",
    "inf2.24xlarge",
    "inf2.48xlarge",
    "p5.4xlarge",
    "p5.48xlarge",
    "p5e.48xlarge",
    "p5en.48xlarge",
    "p6-b200.48xlarge",
    "p6-b300.48xlarge",
    "p6e-gb200.36xlarge",
    "trn2.3xlarge",
    "trn2.48xlarge",
    "trn2u.48xlarge",
)

ALLOWED_INSTANCE_TYPES = Knob(
    "allowedInstanceTypes",
    {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    list(DEFAULT_INSTANCE_TYPES),
    "EC2 instance types node groups and launch templates may use.",
)
SPOT_ALLOWED_ROLES = Knob(
    "spotAllowedRoles",
    {"type": "array", "items": {"type": "string", "enum": ["training", "inference", "dev"]}, "uniqueItems": True},
    ["dev"],
    "Pool roles (node label railyard.dev/role) that may run on spot capacity.",
)
REQUIRED_TAGS = Knob(
    "requiredTags",
    {"type": "array", "items": {"type": "string", "minLength": 1}, "uniqueItems": True},
    ["owner", "cost-center", "environment"],
    "Tags every taggable resource must carry with a non-empty value.",
)
MAX_ACCELERATORS = Knob(
    "maxAcceleratorsPerStack",
    {"type": "integer", "minimum": 0},
    131072,
    "The most accelerators (GPUs or Neuron devices) one stack may scale to, summed over node groups at max size.",
)
MAX_HOURLY_COST = Knob(
    "maxHourlyCostPerStack",
    {"type": "number", "minimum": 0},
    2_500_000,
    "The most USD per hour one stack's node groups may cost at max size (On-Demand or Capacity Block rates; "
    "default: about 131,072 B300 GPUs On-Demand, the accelerator ceiling's default). Set it per environment.",
)
PRICING_REGION = Knob(
    "pricingRegion",
    {"type": "string", "pattern": "^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]$"},
    "us-east-1",
    "The AWS region whose prices GOV005 uses when no AWS provider in the stack names its region.",
)
EKS_PUBLIC_CIDRS = Knob(
    "eksPublicAccessCidrs",
    {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    [],
    "CIDRs a public EKS API endpoint may be opened to; empty = the endpoint must be private.",
)

CLUSTER_LOG_TYPES = Knob(
    "requiredClusterLogTypes",
    {"type": "array", "items": {"type": "string", "enum": ["api", "audit", "authenticator", "controllerManager", "scheduler"]}, "uniqueItems": True},
    ["api", "audit", "authenticator"],
    "EKS control-plane log types every cluster must send to CloudWatch (CIS EKS 2.1.1 asks audit; Checkov CKV_AWS_37 all five).",
)
MAX_METADATA_HOP_LIMIT = Knob(
    "maxMetadataHopLimit",
    {"type": "integer", "minimum": 1, "maximum": 64},
    2,
    "The largest IMDS response hop limit a launch template may set: 2 lets pods reach the node's metadata (the EKS "
    "user guide's setting for pods that need it), 1 keeps it to host-network processes (Checkov CKV_AWS_341).",
)
BROAD_MANAGED_POLICIES = Knob(
    "forbiddenManagedPolicies",
    {"type": "array", "items": {"type": "string", "minLength": 1}, "uniqueItems": True},
    ["AdministratorAccess", "PowerUserAccess", "IAMFullAccess"],
    "AWS managed policies (by name) no role of the stack may have attached.",
)

KNOBS: tuple[Knob, ...] = (
    ALLOWED_INSTANCE_TYPES,
    SPOT_ALLOWED_ROLES,
    REQUIRED_TAGS,
    MAX_ACCELERATORS,
    MAX_HOURLY_COST,
    PRICING_REGION,
    EKS_PUBLIC_CIDRS,
    CLUSTER_LOG_TYPES,
    MAX_METADATA_HOP_LIMIT,
    BROAD_MANAGED_POLICIES,
)


def config_schema_properties(knobs: tuple[Knob, ...]) -> dict[str, dict[str, Any]]:
    """The `PolicyConfigSchema.properties` of a rule reading `knobs`."""
    return {knob.key: knob.json_schema() for knob in knobs}


def settings_for(knobs: tuple[Knob, ...], policy_config: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """The knob values one rule sees: its policy config over the knobs' defaults.

    Keys the rule does not declare (and `enforcementLevel`) are ignored, so a
    typo in a config file never silently changes another rule.
    """
    given = dict(policy_config or {})
    return MappingProxyType({knob.key: given.get(knob.key, knob.default) for knob in knobs})


def policy_entry(config: Mapping[str, Any] | None, policy_name: str) -> tuple[str | None, dict[str, Any]]:
    """(enforcement level or None, properties) for one policy from a pack config document.

    Understands the CLI's file format: a policy's value is either a level
    string or an object with an optional `enforcementLevel` and properties; the
    key `all` sets the level of every policy that has none of its own.
    """
    config = config or {}
    entry = config.get(policy_name)
    level = config.get("all") if isinstance(config.get("all"), str) else None
    properties: dict[str, Any] = {}
    if isinstance(entry, str):
        level = entry
    elif isinstance(entry, Mapping):
        properties = {key: value for key, value in entry.items() if key != "enforcementLevel"}
        level = entry.get("enforcementLevel", level)
    if level is not None and level not in ENFORCEMENT_LEVELS:
        raise ValueError(f"policy config for '{policy_name}': enforcement level {level!r} is not one of {ENFORCEMENT_LEVELS}")
    return level, properties
