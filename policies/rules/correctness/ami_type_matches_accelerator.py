"""COR005: a node group's AMI type carries the driver its accelerator needs.

EKS's accelerated AMIs are per accelerator (aws-facts.md 4.4): NVIDIA GPUs
need an `*_NVIDIA` AMI (x86_64 or ARM_64 as the CPU is), Trainium and
Inferentia the `AL2023_x86_64_NEURON` AMI or Bottlerocket's standard x86_64
variant. On a standard AMI the device plugin finds no driver and the node
advertises no accelerators. A node group with a custom AMI (`CUSTOM`, or a
launch template `imageId`) is not checked; one with no `amiType` gets EKS's
standard default, which is reported. Instance types outside the catalog
(the general-purpose system group) are skipped: they have no accelerator.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from policies.facts import InstanceFacts
from policies.facts import instance_types as catalog_facts
from policies.nodes import instance_types, launch_template_of, node_groups
from policies.rule import StackRule
from policies.stack import Stack, value

BOTTLEROCKET = {
    "AL2023_x86_64_NVIDIA": ("BOTTLEROCKET_x86_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA_FIPS"),
    "AL2023_ARM_64_NVIDIA": ("BOTTLEROCKET_ARM_64_NVIDIA", "BOTTLEROCKET_ARM_64_NVIDIA_FIPS"),
    "AL2023_x86_64_NEURON": ("BOTTLEROCKET_x86_64", "BOTTLEROCKET_x86_64_FIPS"),
}


def allowed_ami_types(spec: InstanceFacts) -> tuple[str, ...]:
    """The AMI types that drive `spec`'s accelerator: the catalog's AL2023 type and its Bottlerocket twins."""
    return (spec.ami_type, *BOTTLEROCKET.get(spec.ami_type, ()))


def check(stack: Stack, settings) -> Iterable[tuple[Any, str]]:
    """Each node group's amiType against every accelerated instance type it launches."""
    catalog = catalog_facts()
    for group in node_groups(stack):
        ami_type = value(group.props, "amiType")
        template = launch_template_of(stack, group)
        if ami_type == "CUSTOM" or (template is not None and value(template.props, "imageId")):
            continue
        for name in instance_types(stack, group):
            spec = catalog.get(name)
            if spec is None or spec.accelerator is None:
                continue
            allowed = allowed_ami_types(spec)
            if ami_type not in allowed:
                shown = f"amiType {ami_type}" if ami_type else "no amiType (EKS defaults to a standard AMI)"
                yield group, (f"runs {name} ({spec.accelerator.count}x {spec.accelerator.model}) with {shown}; it needs one of {', '.join(allowed)}")


RULE = StackRule(
    id="COR005",
    name="ami-type-matches-accelerator",
    title="Node group AMI types carry the driver of their accelerator",
    domain="correctness",
    severity="high",
    check=check,
    fix="set the node group's ami_type to the catalog's AMI type for the instance "
    "(`railyard catalog --json` ami_type), e.g. AL2023_x86_64_NVIDIA for p5",
)
