"""EKS managed add-ons, in one of two phases: the ones nodes need to boot, and the ones that need nodes.

The plan (`topology.cluster.addons.plan_addons`) decides which add-ons, at
which versions, in which order; this component emits them. A version the plan
leaves open (AWS publishes no table for it) is EKS's default for the cluster's
Kubernetes version, read at `pulumi up` with `aws.eks.getAddonVersion` and
exported as the `addonVersions` output, so the team can pin it in the
blueprint. The `before` phase's add-ons are what node groups wait for; the
`after` phase waits for the system nodes, since EKS holds a Deployment
add-on's create until its pods run.

An add-on with a service account (the EBS CSI controller) gets an IAM role
that only EKS Pod Identity can assume, with the AWS managed policy EKS
recommends for it, bound to the service account through the add-on's Pod
Identity association. Conflicts with what is already on the cluster (EKS
installs its own vpc-cni, kube-proxy and coredns) are resolved by
overwriting, on create and on update: the blueprint is the source of truth.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Literal

import pulumi
import pulumi_aws as aws

from blueprints.models.kubernetes import PodNetworking
from blueprints.records import record
from components.common import child_of, named_tags, pod_identity_role
from components.plan.cni import cni_configuration, needs_addon
from topology.cluster.addons import AddonPlan


@record
class AddonsArgs:
    """One phase's add-ons and what they attach to."""

    cluster_name: pulumi.Input[str]
    kubernetes_version: str
    phase: Literal["before", "after"]
    addons: tuple[AddonPlan, ...]
    partition: str
    tags: Mapping[str, str]
    # The vpc-cni's configuration values (JSON), when the blueprint's pod networking sets any.
    cni_configuration: pulumi.Input[str] | None = None
    depends_on: Sequence[pulumi.Resource] = field(default_factory=tuple)


def cni_configuration_values(
    networking: PodNetworking, region: str, pod_subnet_ids: Mapping[str, pulumi.Input[str]], security_group_id: pulumi.Input[str]
) -> pulumi.Output[str] | None:
    """The vpc-cni's configuration values as JSON (`components.plan.cni`), or None when the CNI's defaults serve."""
    if not needs_addon(networking):
        return None
    keys = sorted(pod_subnet_ids)
    return pulumi.Output.all(security_group_id, *(pod_subnet_ids[key] for key in keys)).apply(
        lambda resolved: json.dumps(cni_configuration(networking, region, dict(zip(keys, resolved[1:], strict=True)), resolved[0]), sort_keys=True)
    )


class Addons(pulumi.ComponentResource):
    """One phase of the cluster's EKS managed add-ons. Exposes each add-on and its version (pinned or EKS's default)."""

    def __init__(self, name: str, args: AddonsArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("railyard:cluster:Addons", name, None, opts)
        self._name, self._args = name, args
        self.addons: dict[str, aws.eks.Addon] = {}
        self.versions: dict[str, pulumi.Output[str]] = {}
        previous: list[pulumi.Resource] = list(args.depends_on)
        for plan in args.addons:
            version = self._addon_version(plan)
            addon = aws.eks.Addon(
                f"{name}-{plan.name}",
                cluster_name=args.cluster_name,
                addon_name=plan.name,
                addon_version=version,
                configuration_values=args.cni_configuration if plan.name == "vpc-cni" else None,
                pod_identity_associations=self._association(plan),
                resolve_conflicts_on_create="OVERWRITE",
                resolve_conflicts_on_update="OVERWRITE",
                tags=named_tags(args.tags, f"{name}-{plan.name}"),
                # In the plan's order: the Pod Identity agent before the add-ons whose roles it serves.
                opts=child_of(self, depends_on=previous),
            )
            self.addons[plan.name] = addon
            self.versions[plan.name] = addon.addon_version.apply(str)
            previous = [*args.depends_on, addon]
        self.register_outputs({"addonVersions": dict(self.versions)})

    def _addon_version(self, plan: AddonPlan) -> pulumi.Input[str]:
        """The plan's version, or EKS's default for the cluster's Kubernetes version (read at apply)."""
        if plan.version is not None:
            return plan.version
        found = aws.eks.get_addon_version_output(
            addon_name=plan.name,
            kubernetes_version=self._args.kubernetes_version,
            most_recent=False,
            opts=pulumi.InvokeOutputOptions(parent=self),
        )
        return found.version

    def _association(self, plan: AddonPlan) -> list[aws.eks.AddonPodIdentityAssociationArgs] | None:
        """A Pod Identity association for an add-on with a service account: a role with its managed policy."""
        spec = plan.spec
        if spec.service_account is None or spec.managed_policy is None or spec.role is None:
            return None
        arn = pod_identity_role(
            self,
            f"{self._name}-{spec.role}-role",
            f"EKS Pod Identity role of the {plan.name} add-on ({spec.service_account[0]}/{spec.service_account[1]})",
            f"arn:{self._args.partition}:iam::aws:policy/{spec.managed_policy}",
            self._args.tags,
        )
        return [aws.eks.AddonPodIdentityAssociationArgs(role_arn=arn, service_account=spec.service_account[1])]
