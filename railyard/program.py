"""The Pulumi program: a validated blueprint's plan, emitted as components, and the stack's exports.

Two callers run exactly this code. `__main__.py` runs it under the real Pulumi
CLI (`pulumi up --stack dev`) through `deploy`; `railyard.mocked` runs it
in-process under Pulumi mocks through `run_program`. Both stop with the
findings before a single resource is registered when the blueprint (or its
plan) has an error.

A stack is one of two kinds. A cluster's stack builds the AWS side, and the
Kubernetes layer too when the blueprint says `kubernetes.layer_stack: same`.
A layer stack (`railyard:clusterStack: <stack>` in its file) builds only the
Kubernetes layer of that stack's cluster, reading the cluster's outputs
through a StackReference; it runs where the private endpoint is reachable
(docs/endpoint-access.md).

`build` returns `ClusterHandles`, the small, frozen surface a later layer (the
Kubernetes layer of components/kubernetes/) builds on: cluster name,
endpoint, kubeconfig, OIDC provider, the node-group plans and the file systems.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import field
from datetime import UTC, datetime
from pathlib import Path

import pulumi
import pulumi_aws as aws

from blueprints.catalog import load_catalog
from blueprints.findings import Finding, error, sort_findings
from blueprints.records import record
from blueprints.rules.unbought import unbought_findings
from blueprints.source import SourceError
from components.acceptance_access import AcceptanceAccess, plan_acceptance_access
from components.addons import Addons, AddonsArgs, cni_configuration_values
from components.cluster import Cluster, ClusterArgs
from components.karpenter import KarpenterAccess, KarpenterAccessArgs
from components.kubernetes import KubernetesLayer, KubernetesLayerArgs
from components.kubernetes.karpenter import KarpenterWiring, NodeClassNetwork, NodeClassNetworkRef
from components.network import Network, NetworkArgs
from components.node_groups import NodePool, NodePoolArgs
from components.placement import Placement, PlacementArgs
from components.plan.compile import CompilePlan, PlanError, plan_blueprint
from components.plan.kubeconfig import DeployerIdentity
from components.storage import ClassNetwork, FileSystemHandle, Storage, StorageArgs
from railyard.checker_bundle import checker_bundle
from railyard.deployment import Deployment
from railyard.layer_program import build_layer, in_placement_group
from railyard.pipeline import Validation, validate
from railyard.render import findings_report
from railyard.stack import read_stack
from topology.cluster.local_zones import route_zones, zone_groups
from topology.cluster.node_groups import SYSTEM_GROUP, NodeGroupPlan
from topology.cluster.placement_groups import PlacementDecision


@record
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
    # Each add-on's version, as pinned or as EKS's default read at apply (the `addonVersions` output).
    addon_versions: Mapping[str, pulumi.Output[str]] = field(default_factory=dict)
    # Each FSx StorageClass's subnet and security group (the `fsxClasses` output).
    class_networks: Mapping[str, ClassNetwork] = field(default_factory=dict)
    # What Karpenter's NodePools need from this stack (the `karpenter` output), when a pool uses Karpenter.
    karpenter: KarpenterWiring | None = None


def plan_validated(validation: Validation, now: datetime | None = None) -> tuple[CompilePlan | None, list[Finding]]:
    """The compile plan of a validation, made at `now` (default: this moment), or None and the findings that stop it.

    A plan error (the blueprint validates but can't be compiled as written)
    becomes one more error finding, `compile.plan`; a Capacity Block offering not bought yet (which `validate`
    only notes) becomes an error, `capacity.offering-unpurchased`: a node group can't target a block that doesn't exist.
    """
    now = now or datetime.now(UTC)
    findings = list(validation.findings)
    if not validation.ok:
        return None, findings
    unbought = unbought_findings(validation.blueprint, "error")
    if unbought:
        return None, sort_findings(
            [finding for finding in findings if finding.code != "capacity.offering-unpurchased"]
            + [validation.load.source_map.place(finding) for finding in unbought]
        )
    try:
        catalog = load_catalog()
        plan = plan_blueprint(validation.blueprint, catalog, now)
    except PlanError as exc:
        return None, findings + [
            validation.load.source_map.place(error("compile.plan", exc.path, str(exc), "change the blueprint so it can be compiled"))
        ]
    gates = plan.kubernetes.layout.acceptance
    if gates:
        bundle = checker_bundle(validation.blueprint, catalog, gates)
        plan = dataclasses.replace(plan, kubernetes=dataclasses.replace(plan.kubernetes, checker_bundle=bundle))
    return plan, findings


def _aws_provider(plan: CompilePlan, identity: DeployerIdentity) -> aws.Provider:
    """The explicit AWS provider; explicit providers ignore the stack's `aws:` settings, so they are passed in."""
    assume = [aws.ProviderAssumeRoleArgs(role_arn=identity.role_arn)] if identity.role_arn else None
    return aws.Provider(f"{plan.cluster_name}-aws", region=plan.region, profile=identity.profile, assume_roles=assume)


def build(plan: CompilePlan, deployment: Deployment = Deployment()) -> ClusterHandles:
    """Emit the cluster's stack: network, placement, cluster, node pools, storage, and the Kubernetes layer when it shares the stack.

    Registers resources only (no stack exports; see `export`), so a caller can
    add layers on top of the returned handles.
    """
    name = plan.cluster_name
    provider = _aws_provider(plan, deployment.identity)
    opts = pulumi.ResourceOptions(providers=[provider])
    network = Network(
        f"{name}-network",
        NetworkArgs(
            plan.region,
            plan.vpc_cidr,
            plan.availability_zones,
            plan.subnets,
            plan.needs_efa,
            plan.tags,
            plan.pod_cidrs,
            plan.flow_log_retention_days,
            plan.existing_vpc_id,
            plan.secondary_cidrs,
            zone_groups(plan.subnets),
            route_zones(plan.availability_zones, plan.subnets),
        ),
        opts,
    )
    placement = Placement(f"{name}-placement", PlacementArgs(plan.placements, plan.tags), opts)
    private_subnets = [network.subnet_ids[f"private-{zone}"] for zone in plan.availability_zones]
    cluster = Cluster(
        f"{name}-eks",
        ClusterArgs(
            name,
            plan.kubernetes_version,
            plan.region,
            plan.partition,
            private_subnets,
            plan.endpoint_private,
            plan.public_access_cidrs,
            plan.tags,
            plan.private_access_cidrs,
            deployment.identity,
            plan.control_plane_tier,
            plan.node_policy_arns,
            plan.protect_stateful,
        ),
        opts,
    )
    cni = cni_configuration_values(
        plan.pod_networking, plan.region, {key: network.subnet_ids[key] for key in plan.pod_subnet_keys}, cluster.security_group_id
    )
    node_addons = Addons(
        f"{name}-node-addons",
        AddonsArgs(cluster.cluster_name, plan.kubernetes_version, "before", plan.addons_before_nodes, plan.partition, plan.tags, cni),
        opts,
    )
    node_group_names: dict[str, pulumi.Output[str]] = {}
    node_pools: dict[str, NodePool] = {}
    managed = [group for group in plan.node_groups if group.managed]  # Karpenter's are NodePools in the Kubernetes layer
    for pool in dict.fromkeys(group.pool for group in managed):
        groups = tuple(group for group in managed if group.pool == pool)
        node_pool = NodePool(
            f"{name}-{pool}",
            NodePoolArgs(
                cluster.cluster_name,
                cluster.node_role_arn,
                groups,
                network.subnet_ids,
                cluster.security_group_id,
                network.efa_security_group_id,
                placement.group_names,
                plan.tags,
                cluster.volume_key_arn,
                [node_addons],
                plan.node_auto_repair,
                cluster.endpoint,
                cluster.certificate_authority,
                cluster.service_cidr,
                plan.region,
                plan.partition,
            ),
            opts,
        )
        node_group_names.update(node_pool.node_group_names)
        node_pools[pool] = node_pool
    # Deployments (CoreDNS, the EBS CSI controller, metrics-server) need nodes to run on: the system nodes.
    system = list(node_pools[SYSTEM_GROUP].node_groups.values())  # one group, or one per zone
    cluster_addons = Addons(
        f"{name}-addons",
        AddonsArgs(cluster.cluster_name, plan.kubernetes_version, "after", plan.addons_after_nodes, plan.partition, plan.tags, depends_on=system),
        opts,
    )
    storage = Storage(
        f"{name}-storage",
        StorageArgs(
            plan.file_systems,
            plan.buckets,
            network.vpc_id,
            network.subnet_ids,
            cluster.security_group_id,
            plan.tags,
            plan.fsx_classes,
            cluster.cluster_name,
            plan.partition,
            plan.protect_stateful,
        ),
        opts,
    )
    karpenter = _karpenter(name, plan, cluster, network, placement, opts)
    access = plan_acceptance_access(name, plan.region, plan.partition, plan.kubernetes.layout.acceptance, plan.node_groups, plan.tags)
    # Pools with acceptance.on_failure: replace: the checker's Pod Identity role (components/acceptance_access.py).
    checker_access = [AcceptanceAccess(f"{name}-acceptance", access, cluster.cluster_name, opts)] if access else []
    if plan.layer_stack == "same":
        # Charts with controllers need the system nodes; volumes and Kueue objects wait for every pool,
        # and the gp3 StorageClass for the EBS CSI driver; the checkers wait for their Pod Identity association.
        KubernetesLayer(
            f"{name}-k8s",
            KubernetesLayerArgs(
                plan.kubernetes,
                kubeconfig=cluster.kubeconfig,
                file_systems=storage.file_systems,
                depends_on=[*node_pools.values(), cluster_addons, *checker_access],
                system_nodes=system,
                class_networks=storage.class_networks,
                karpenter=karpenter,
            ),
        )
    return ClusterHandles(
        plan,
        cluster.cluster_name,
        cluster.endpoint,
        cluster.certificate_authority,
        cluster.kubeconfig,
        cluster.oidc_provider_arn,
        cluster.oidc_issuer_url,
        plan.node_groups,
        node_group_names,
        storage.file_systems,
        plan.placements,
        provider,
        {**node_addons.versions, **cluster_addons.versions},
        storage.class_networks,
        karpenter,
    )


def _karpenter(
    name: str, plan: CompilePlan, cluster: Cluster, network: Network, placement: Placement, opts: pulumi.ResourceOptions
) -> KarpenterWiring | None:
    """Karpenter's AWS side and what its NodePools need from the cluster's stack, when a pool uses Karpenter."""
    if plan.kubernetes.karpenter is None:
        return None
    access = KarpenterAccess(
        f"{name}-karpenter",
        KarpenterAccessArgs(cluster.cluster_name, cluster.node_role_arn, plan.region, plan.partition, plan.tags, cluster.volume_key_arn),
        opts,
    )
    networks: dict[str, NodeClassNetworkRef] = {}
    for node_class in plan.kubernetes.karpenter.node_classes:
        group = node_class.group
        groups = [cluster.security_group_id] + ([network.efa_security_group_id] if group.efa_interfaces and network.efa_security_group_id else [])
        placement_group = placement.group_names[group.placement_key] if group.placement_key and in_placement_group(plan, group) else None
        networks[node_class.name] = NodeClassNetwork(network.subnet_ids[group.subnet_keys[0]], groups, placement_group)
    return KarpenterWiring(cluster.cluster_name, access.queue_name, cluster.node_role_name, cluster.volume_key_arn, networks, [access.association])


def export(handles: ClusterHandles) -> None:
    """The stack outputs: cluster name and endpoint, kubeconfig (secret), node groups, file systems, placement, add-on versions."""
    pulumi.export("clusterName", handles.cluster_name)
    pulumi.export("clusterEndpoint", handles.endpoint)
    pulumi.export("certificateAuthority", handles.certificate_authority)
    pulumi.export("kubeconfig", pulumi.Output.secret(handles.kubeconfig))
    pulumi.export("nodeGroupNames", list(handles.node_group_names.values()))
    pulumi.export(
        "fileSystems",
        {
            tier: {"id": fs.id, "dnsName": fs.dns_name, "mountName": fs.mount_name, "mountPath": fs.mount_path}
            for tier, fs in handles.file_systems.items()
        },
    )
    pulumi.export(
        "fsxClasses",
        {name: {"subnetId": network.subnet_id, "securityGroupId": network.security_group_id} for name, network in handles.class_networks.items()},
    )
    if handles.karpenter is not None:
        wiring = handles.karpenter
        pulumi.export(
            "karpenter",
            {
                "queueName": wiring.queue_name,
                "nodeRoleName": wiring.node_role_name,
                "volumeKeyArn": wiring.volume_key_arn,
                "nodeClasses": {
                    name: {"subnetId": found.subnet_id, "securityGroupIds": list(found.security_group_ids)}
                    | ({"placementGroup": found.placement_group} if found.placement_group is not None else {})
                    for name, found in wiring.networks.items()
                },
            },
        )
    pulumi.export("placement", [decision.as_json() for decision in handles.placements])
    pulumi.export("addonVersions", dict(handles.addon_versions))


def run_program(plan: CompilePlan, deployment: Deployment = Deployment()) -> ClusterHandles | KubernetesLayer:
    """The program body both the CLI and the preview run: the cluster's stack (build, then export), or a layer stack."""
    if deployment.cluster_stack is not None:
        return build_layer(plan, deployment)
    handles = build(plan, deployment)
    export(handles)
    return handles


def deployment_of(stack: str, project_dir: str | Path, plan: CompilePlan) -> Deployment:
    """The stack file's deployment settings; raises `SourceError` when a layer stack's blueprint keeps its layer."""
    settings = read_stack(project_dir, stack)
    if settings.cluster_stack is not None and plan.layer_stack != "separate":
        raise SourceError(
            f"stack '{stack}' applies the Kubernetes layer of '{settings.cluster_stack}', but that stack's "
            "blueprint has kubernetes.layer_stack: same, so its own stack applies the layer already; set "
            "layer_stack: separate in the blueprint, or remove this stack",
            settings.file,
        )
    return Deployment(DeployerIdentity(settings.aws_profile, settings.aws_role_arn), settings.cluster_stack)


def deploy(stack: str, project_dir: str | Path) -> ClusterHandles | KubernetesLayer:
    """Under the Pulumi CLI: validate the stack's blueprint, stop on any error, else run the program.

    Stopping raises `pulumi.RunError`, which the CLI prints without a traceback;
    nothing has been registered by then.
    """
    validation = validate(None, stack, project_dir)
    plan, findings = plan_validated(validation)
    if plan is None:
        raise pulumi.RunError(
            f"blueprint {validation.file} (stack {stack}) has errors; nothing was deployed\n\n"
            + findings_report(findings, validation.load.source_map)
        )
    try:
        deployment = deployment_of(stack, project_dir, plan)
    except SourceError as exc:
        raise pulumi.RunError(f"{exc}; nothing was deployed") from None
    return run_program(plan, deployment)
