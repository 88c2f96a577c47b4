"""The Pulumi program: a validated blueprint's plan, emitted as components, and the stack's exports.

Two callers run exactly this code. `__main__.py` runs it under the real Pulumi
CLI (`pulumi up --stack dev`) through `deploy`; `railyard.preview` runs it
in-process under Pulumi mocks through `run_program`. Both stop with the
findings before a single resource is registered when the blueprint (or its
plan) has an error.

`build` returns `ClusterHandles`, the small, frozen surface a later layer (the
Kubernetes layer of components/kubernetes/) builds on: cluster name,
endpoint, kubeconfig, OIDC provider, the node-group plans and the file systems.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import pulumi
import pulumi_aws as aws

from blueprints.catalog import load_catalog
from blueprints.findings import Finding, error
from components.cluster import Cluster, ClusterArgs
from components.kubernetes import KubernetesLayer, KubernetesLayerArgs
from components.network import Network, NetworkArgs
from components.node_groups import NodePool, NodePoolArgs
from components.placement import Placement, PlacementArgs
from components.plan import CompilePlan, PlanError, plan_blueprint
from components.plan.node_groups import NodeGroupPlan
from components.plan.placement import PlacementDecision
from components.storage import FileSystemHandle, Storage, StorageArgs
from railyard.pipeline import Validation, validate
from railyard.render import findings_report


@dataclass(frozen=True)
class ClusterHandles:
    """What `build` made, for the layers built on top of the cluster.

    `node_groups` are the plans (pool, domain, instance type, labels, taints,
    min/desired/max, EFA interfaces), `node_group_names` their EKS names by
    plan name, `file_systems` the FSx handles by tier name.
    """

    plan: CompilePlan
    cluster_name: pulumi.Output[str]
    endpoint: pulumi.Output[str]
    certificate_authority: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]
    oidc_provider_arn: pulumi.Output[str]
    oidc_issuer_url: pulumi.Output[str]
    node_groups: tuple[NodeGroupPlan, ...]
    node_group_names: Mapping[str, pulumi.Output[str]]
    file_systems: Mapping[str, FileSystemHandle]
    placements: tuple[PlacementDecision, ...]
    aws_provider: aws.Provider


def plan_validated(validation: Validation) -> tuple[CompilePlan | None, list[Finding]]:
    """The compile plan of a validation, or None and the findings that stop it.

    A plan error (the blueprint validates but can't be compiled as written)
    becomes one more error finding, `compile.plan`.
    """
    findings = list(validation.findings)
    if not validation.ok:
        return None, findings
    try:
        return plan_blueprint(validation.blueprint, load_catalog()), findings
    except PlanError as exc:
        return None, findings + [error("compile.plan", (), str(exc), "change the blueprint so it can be compiled")]


def build(plan: CompilePlan) -> ClusterHandles:
    """Emit every component of `plan`: network, placement, cluster, node pools, storage and the Kubernetes layer.

    Registers resources only (no stack exports; see `export`), so a caller can
    add layers on top of the returned handles.
    """
    name = plan.cluster_name
    provider = aws.Provider(f"{name}-aws", region=plan.region)
    opts = pulumi.ResourceOptions(providers=[provider])
    network = Network(f"{name}-network", NetworkArgs(plan.region, plan.vpc_cidr, plan.availability_zones, plan.subnets,
                                                     plan.needs_efa, plan.tags), opts)
    placement = Placement(f"{name}-placement", PlacementArgs(plan.placements, plan.tags), opts)
    private_subnets = [network.subnet_ids[f"private-{zone}"] for zone in plan.availability_zones]
    cluster = Cluster(f"{name}-eks", ClusterArgs(name, plan.kubernetes_version, plan.region, plan.partition, private_subnets,
                                                plan.endpoint_private, plan.public_access_cidrs, plan.tags), opts)
    node_group_names: dict[str, pulumi.Output[str]] = {}
    node_pools: list[NodePool] = []
    for pool in dict.fromkeys(group.pool for group in plan.node_groups):
        groups = tuple(group for group in plan.node_groups if group.pool == pool)
        node_pool = NodePool(f"{name}-{pool}", NodePoolArgs(
            cluster.cluster_name, cluster.node_role_arn, groups, network.subnet_ids, cluster.security_group_id,
            network.efa_security_group_id, placement.group_names, plan.tags, cluster.volume_key_arn), opts)
        node_group_names.update(node_pool.node_group_names)
        node_pools.append(node_pool)
    storage = Storage(f"{name}-storage", StorageArgs(plan.file_systems, plan.buckets, network.vpc_id, network.subnet_ids,
                                                     cluster.security_group_id, plan.tags), opts)
    # Kueue's controller and the plugins need nodes to run on, so the layer waits for the node pools.
    KubernetesLayer(f"{name}-k8s", KubernetesLayerArgs(plan.kubernetes, kubeconfig=cluster.kubeconfig,
                                                       file_systems=storage.file_systems, depends_on=node_pools))
    return ClusterHandles(plan, cluster.cluster_name, cluster.endpoint, cluster.certificate_authority, cluster.kubeconfig,
                          cluster.oidc_provider_arn, cluster.oidc_issuer_url, plan.node_groups, node_group_names,
                          storage.file_systems, plan.placements, provider)


def export(handles: ClusterHandles) -> None:
    """The stack outputs: cluster name and endpoint, kubeconfig (secret), node groups, file systems, placement."""
    pulumi.export("clusterName", handles.cluster_name)
    pulumi.export("clusterEndpoint", handles.endpoint)
    pulumi.export("kubeconfig", pulumi.Output.secret(handles.kubeconfig))
    pulumi.export("nodeGroupNames", list(handles.node_group_names.values()))
    pulumi.export("fileSystems", {tier: {"dnsName": fs.dns_name, "mountName": fs.mount_name, "mountPath": fs.mount_path}
                                  for tier, fs in handles.file_systems.items()})
    pulumi.export("placement", [decision.as_json() for decision in handles.placements])


def run_program(plan: CompilePlan) -> ClusterHandles:
    """The program body both the CLI and the preview run: build, then export."""
    handles = build(plan)
    export(handles)
    return handles


def deploy(stack: str, project_dir: str | Path) -> ClusterHandles:
    """Under the Pulumi CLI: validate the stack's blueprint, stop on any error, else run the program.

    Stopping raises `pulumi.RunError`, which the CLI prints without a traceback;
    nothing has been registered by then.
    """
    validation = validate(None, stack, project_dir)
    plan, findings = plan_validated(validation)
    if plan is None:
        raise pulumi.RunError(f"blueprint {validation.file} (stack {stack}) has errors; nothing was deployed\n\n"
                              + findings_report(findings, validation.load.source_map))
    return run_program(plan)
