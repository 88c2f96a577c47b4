"""The offline preview: the Pulumi program run in-process under Pulumi mocks.

No Pulumi CLI, no credentials, no network. `run_preview` validates (stopping
with the findings, and zero resources registered, on any error), then runs
`railyard.program.run_program` against a recording mock monitor. Every
`RegisterResource` request is kept as the engine would receive it: its URN,
type, name, parent URN, and inputs under their wire names (camelCase, nested
objects too), the shape a policy pack sees. The mocks answer with ids and
outputs derived only from the resource's type and name, so the same blueprint
always gives byte-identical `as_json()`.

Other layers' tests build on it:

    result = run_preview("blueprints/examples/p5-capacity-block.yaml")
    templates = result.of_type("aws:ec2/launchTemplate:LaunchTemplate")
"""

from __future__ import annotations

import contextvars
import hashlib
import re
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pulumi
from pulumi.runtime import mocks, rpc, settings
from pulumi.runtime import resource as runtime_resource
from pulumi.runtime.proto import source_pb2
from pulumi.runtime.stack import Stack, wait_for_rpcs
from pulumi.runtime.sync_await import _sync_await

from blueprints.findings import Finding, has_errors
from blueprints.records import record
from railyard.collector import fewer_collections
from railyard.deployment import Deployment
from railyard.pipeline import Validation, validate
from railyard.program import deployment_of, plan_validated, run_program
from railyard.progress import stage
from topology.cluster.placement_groups import PlacementDecision

if TYPE_CHECKING:
    from components.plan.compile import CompilePlan

PROJECT = "railyard"
PREVIEW_STACK = "preview"
MOCK_ACCOUNT = "123456789012"
STACK_TYPE = "pulumi:pulumi:Stack"
STACK_REFERENCE_TYPE = "pulumi:pulumi:StackReference"
LAYER_STACK_SUFFIX = "-kubernetes"
SECRET = "[secret]"
UNKNOWN = "[unknown]"

# EC2-style id prefixes, so mocked ids read like real ones.
_ID_PREFIX = {
    "aws:ec2/vpc:Vpc": "vpc-",
    "aws:ec2/subnet:Subnet": "subnet-",
    "aws:ec2/securityGroup:SecurityGroup": "sg-",
    "aws:ec2/internetGateway:InternetGateway": "igw-",
    "aws:ec2/natGateway:NatGateway": "nat-",
    "aws:ec2/eip:Eip": "eipalloc-",
    "aws:ec2/routeTable:RouteTable": "rtb-",
    "aws:ec2/vpcEndpoint:VpcEndpoint": "vpce-",
    "aws:ec2/launchTemplate:LaunchTemplate": "lt-",
    "aws:ec2/placementGroup:PlacementGroup": "pg-",
    "aws:ec2/routeTableAssociation:RouteTableAssociation": "rtbassoc-",
    "aws:fsx/lustreFileSystem:LustreFileSystem": "fs-",
    "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation": "dra-",
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": "sgr-",
}


@record
class PreviewResource:
    """One registered resource as the engine received it."""

    urn: str
    type: str
    name: str
    parent: str
    inputs: dict = field(hash=False)
    id: str = ""
    dependencies: tuple[str, ...] = ()
    property_dependencies: dict = field(default_factory=dict, hash=False)
    ignore_changes: tuple[str, ...] = ()
    protect: bool = False
    # The engine's customTimeouts option (`create`, `update`, `delete`, Go durations); empty when the program sets none.
    custom_timeouts: dict = field(default_factory=dict, hash=False)
    # What the mocks answered (inputs plus made-up outputs such as a launch template's latestVersion); not in `--json`.
    outputs: dict = field(default_factory=dict, hash=False, compare=False)

    @property
    def is_component(self) -> bool:
        """True for railyard's ComponentResources (which have no provider behind them)."""
        return self.type.startswith(f"{PROJECT}:")

    def as_json(self) -> dict:
        """The resource's `--json` entry."""
        document = {"urn": self.urn, "type": self.type, "name": self.name, "parent": self.parent, "inputs": self.inputs}
        if self.custom_timeouts:
            document["customTimeouts"] = self.custom_timeouts
        return document


@record(frozen=False)
class PreviewResult:
    """A preview: the validation, what would be registered (by stack, then URN), and the stack outputs.

    `layer_stack` is `{"stack", "outputs"}` of the Kubernetes layer's own stack
    when a blueprint file's layer has one; its resources follow the cluster's.
    """

    validation: Validation
    resources: list[PreviewResource]
    outputs: dict
    findings: list[Finding]
    placements: tuple[PlacementDecision, ...] = ()
    stack: str = PREVIEW_STACK
    layer_stack: dict | None = None
    # The compile plan the program ran on (None when a finding stopped it): `railyard diff` reads its Kueue quotas.
    plan: CompilePlan | None = None

    @property
    def ok(self) -> bool:
        """True when nothing stopped the program (no error finding)."""
        return not has_errors(self.findings)

    def of_type(self, type_token: str) -> list[PreviewResource]:
        """The resources of one type, in URN order."""
        return [resource for resource in self.resources if resource.type == type_token]

    def named(self, name: str) -> PreviewResource:
        """The resource with logical name `name`; raises `KeyError` when there is none."""
        for resource in self.resources:
            if resource.name == name:
                return resource
        raise KeyError(name)

    def children(self, parent_urn: str) -> list[PreviewResource]:
        """The resources parented directly to `parent_urn`."""
        return [resource for resource in self.resources if resource.parent == parent_urn]

    def as_json(self) -> dict:
        """`{"resources": [...], "outputs": {...}}`, the `preview --json` document (plus `kubernetesStack` when the layer has its own)."""
        document = {"resources": [resource.as_json() for resource in self.resources], "outputs": self.outputs}
        if self.layer_stack is not None:
            document["kubernetesStack"] = self.layer_stack
        return document


def _plain(value: Any) -> Any:
    """Wire values made JSON-friendly: whole floats as ints, secrets and unknowns as markers."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        if value.get(rpc._special_sig_key) == rpc._special_secret_sig:
            return SECRET
        return {key: _plain(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if value == rpc.UNKNOWN:
        return UNKNOWN
    return value


class RecordingMonitor(mocks.MockMonitor):
    """A mock monitor that keeps every registration request, as the engine would receive it."""

    def __init__(self, mock: mocks.Mocks):
        super().__init__(mock)
        self.registrations: list[PreviewResource] = []

    def RegisterResource(self, request):  # noqa: N802 - the gRPC method's name
        response = super().RegisterResource(request)
        if request.type != STACK_TYPE:
            inputs = _plain(rpc.deserialize_properties(request.object, keep_unknowns=True))
            # Stack policies link resources by id and dependency (node group -> launch template), as the engine does.
            depends = {key: sorted(value.urns) for key, value in sorted(request.propertyDependencies.items())}
            self.registrations.append(
                PreviewResource(
                    response.urn,
                    request.type,
                    request.name,
                    request.parent,
                    inputs,
                    response.id,
                    tuple(sorted(request.dependencies)),
                    depends,
                    tuple(request.ignoreChanges),
                    # RegisterResourceRequest.protect is optional (proto3): unset means the engine's default, unprotected.
                    bool(request.protect),
                    _timeouts(request),
                    _plain(self.resources[response.urn].state) if response.urn in self.resources else {},
                )
            )
        return response


def _timeouts(request) -> dict[str, str]:
    """The request's customTimeouts, the operations it sets only (the engine treats an empty one as the provider's default)."""
    if not request.HasField("customTimeouts"):
        return {}
    timeouts = request.customTimeouts
    return {name: getattr(timeouts, name) for name in ("create", "update", "delete") if getattr(timeouts, name)}


def _digest(type_token: str, name: str, length: int) -> str:
    return hashlib.sha256(f"{type_token}::{name}".encode()).hexdigest()[:length]


def mock_id(type_token: str, name: str) -> str:
    """The id the preview's mocks give a resource: a pure function of its type and logical name."""
    return _ID_PREFIX.get(type_token, f"{name}-") + _digest(type_token, name, 17)


class PreviewMocks(mocks.Mocks):
    """Outputs a real deployment would fill in, made up deterministically from type and name."""

    def __init__(self, region: str, account_roles: tuple[str, ...] = (), referenced_outputs: dict | None = None):
        self.region = region
        self.account_roles = account_roles
        self.referenced_outputs = referenced_outputs or {}

    def new_resource(self, args: mocks.MockResourceArgs) -> tuple[str, dict]:
        """An id and state: the inputs plus the outputs the program reads (a StackReference reads the cluster's preview)."""
        if args.typ == STACK_REFERENCE_TYPE:
            return args.resource_id or args.name, {"name": args.inputs.get("name"), "outputs": self.referenced_outputs, "secretOutputNames": []}
        resource_id = mock_id(args.typ, args.name)
        state = dict(args.inputs)
        state.setdefault("arn", f"arn:aws:mock:{self.region}:{MOCK_ACCOUNT}:{args.name}")
        state.update(self._outputs(args, resource_id, state))
        return resource_id, state

    def _outputs(self, args: mocks.MockResourceArgs, resource_id: str, state: dict) -> dict:
        kind = args.typ
        if kind == "aws:eks/cluster:Cluster":
            digest = _digest(args.typ, args.name, 32).upper()
            return {
                "endpoint": f"https://{digest}.gr7.{self.region}.eks.amazonaws.com",
                "certificateAuthority": {"data": "TU9DSy1DRVJUSUZJQ0FURS1BVVRIT1JJVFk="},
                "identities": [{"oidcs": [{"issuer": f"https://oidc.eks.{self.region}.amazonaws.com/id/{digest}"}]}],
                "vpcConfig": {**state.get("vpcConfig", {}), "clusterSecurityGroupId": "sg-" + _digest(args.typ, args.name, 17)[::-1]},
                # EKS's pick for a VPC in 10.0.0.0/8 (it takes 10.100.0.0/16 otherwise); railyard sets none.
                "kubernetesNetworkConfig": {"ipFamily": "ipv4", "serviceIpv4Cidr": "172.20.0.0/16"},
            }
        if kind == "aws:eks/nodeGroup:NodeGroup":
            group = state.get("nodeGroupName", args.name)
            return {"resources": [{"autoscalingGroups": [{"name": f"eks-{group}-{_digest(args.typ, args.name, 8)}"}]}]}
        if kind == "aws:ec2/launchTemplate:LaunchTemplate":
            return {"latestVersion": 1, "defaultVersion": 1}
        if kind == "aws:fsx/lustreFileSystem:LustreFileSystem":
            return {"dnsName": f"{resource_id}.fsx.{self.region}.amazonaws.com", "mountName": _digest(args.typ, args.name, 8)}
        if kind == "aws:kms/key:Key":
            return {"keyId": _digest(args.typ, args.name, 32)}
        if kind == "aws:s3/bucket:Bucket":
            return {"arn": f"arn:aws:s3:::{state.get('bucket', args.name)}"}
        if kind == "aws:resourcegroups/group:Group":
            return {"arn": f"arn:aws:resource-groups:{self.region}:{MOCK_ACCOUNT}:group/{state.get('name', args.name)}"}
        if kind == "aws:ec2/placementGroup:PlacementGroup":
            return {"name": state.get("name", args.name)}
        if kind == "aws:sqs/queue:Queue":
            # Pulumi names an unnamed queue after the resource (plus a random suffix the preview leaves out).
            name = state.get("name", args.name)
            return {
                "name": name,
                "url": f"https://sqs.{self.region}.amazonaws.com/{MOCK_ACCOUNT}/{name}",
                "arn": f"arn:aws:sqs:{self.region}:{MOCK_ACCOUNT}:{name}",
            }
        if kind == "aws:iam/role:Role":
            return {"name": state.get("name", args.name)}  # Pulumi auto-names a role after the resource
        return {}

    def call(self, args: mocks.MockCallArgs) -> tuple[dict, list]:
        """Answer the provider calls the program makes (the account; its IAM roles; add-on defaults); refuse any other.

        The mocked account is a fresh one: it holds the roles in `account_roles` and no others.
        """
        if args.token == "aws:index/getCallerIdentity:getCallerIdentity":
            return {"accountId": MOCK_ACCOUNT, "arn": f"arn:aws:iam::{MOCK_ACCOUNT}:user/preview", "userId": "PREVIEW", "id": MOCK_ACCOUNT}, []
        if args.token == "aws:iam/getRoles:getRoles":
            pattern = re.compile(args.args.get("nameRegex") or ".*")
            names = sorted(name for name in self.account_roles if pattern.search(name))
            arns = [f"arn:aws:iam::{MOCK_ACCOUNT}:role{args.args.get('pathPrefix') or '/'}{name}" for name in names]
            return {"names": names, "arns": arns, "id": self.region, **dict(args.args)}, []
        if args.token == "aws:eks/getAddonVersion:getAddonVersion":
            # EKS's default version for the cluster's Kubernetes version, which only the account can say: the preview names it.
            name, kubernetes = args.args["addonName"], args.args["kubernetesVersion"]
            return {"version": f"eks-default-for-{kubernetes}", "addonName": name, "kubernetesVersion": kubernetes, "id": name}, []
        raise NotImplementedError(f"the program called {args.token}; offline preview answers only getCallerIdentity, getRoles, getAddonVersion")


async def _resolve(value: Any) -> Any:
    """A stack output as plain data: Outputs awaited, secrets masked."""
    if isinstance(value, pulumi.Output):
        if await value.is_secret():
            return SECRET
        if not await value.is_known():
            return UNKNOWN
        return await _resolve(await value.future())
    if isinstance(value, dict):
        return {key: await _resolve(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [await _resolve(item) for item in value]
    return _plain(value)


@contextmanager
def _without_stack_traces():
    """Skip the program stack the Pulumi runtime walks for every registration (about a tenth of a mocked run).

    It records that stack for the engine's diagnostics (`RegisterResourceRequest.stackTrace` and
    `sourcePosition`); under mocks there is no engine, and railyard reads neither. The runtime's own
    function is restored afterwards, so a real `pulumi up` in the same process is untouched;
    `tests/preview/test_preview_result.py` holds the name to the pinned SDK.
    """
    real = runtime_resource._get_stack_trace
    runtime_resource._get_stack_trace = source_pb2.StackTrace
    try:
        yield
    finally:
        runtime_resource._get_stack_trace = real


def run_mocked(
    program: Callable[[], object],
    region: str,
    stack: str = PREVIEW_STACK,
    account_roles: tuple[str, ...] = (),
    referenced_outputs: dict | None = None,
) -> tuple[list[PreviewResource], dict]:
    """Run any Pulumi program function against fresh mocks of a fresh account in `region`.

    Returns the registrations, in URN order, and the resolved stack outputs.
    Call it inside `contextvars.copy_context().run` to keep the runtime's
    settings of this run apart from the caller's (as `run_preview` does); a
    Pulumi program of your own that builds on railyard's components can be
    previewed offline this way (docs/library.md).
    """
    settings.ROOT.set(None)
    monitor = RecordingMonitor(PreviewMocks(region, account_roles, referenced_outputs))
    mocks.set_mocks(monitor.mocks, project=PROJECT, stack=stack, preview=False, monitor=monitor)
    with _without_stack_traces():
        program()
        _sync_await(wait_for_rpcs())
    root = settings.get_root_resource()
    assert isinstance(root, Stack), "the program registered no stack"  # the Stack resource is made before `program()` runs
    outputs = _sync_await(_resolve(dict(root.outputs)))
    return sorted(monitor.registrations, key=lambda resource: resource.urn), outputs


def _run_mocked(
    plan, stack: str, deployment: Deployment, account_roles: tuple[str, ...], referenced_outputs: dict | None = None
) -> tuple[list[PreviewResource], dict]:
    """Run railyard's program for `plan` against fresh mocks; returns the registrations and resolved outputs."""
    return run_mocked(lambda: run_program(plan, deployment), plan.region, stack, account_roles, referenced_outputs)


def _isolated(plan, stack: str, deployment: Deployment, account_roles: tuple[str, ...], referenced: dict | None = None):
    # A copied context keeps the Pulumi runtime's settings of this run away from the caller's and the next run's.
    return contextvars.copy_context().run(_run_mocked, plan, stack, deployment, account_roles, referenced)


def run_preview(
    path: str | None = None, stack: str | None = None, project_dir: str | Path = ".", account_roles: tuple[str, ...] = (), at: datetime | None = None
) -> PreviewResult:
    """Validate a blueprint (with a stack's overrides) and preview the resources the program would register.

    The mocked account is a fresh one, holding only the IAM roles named in
    `account_roles`. With an error finding nothing is registered and
    `resources` is empty. The plan is made as of `at` (default: now), which
    sizes Capacity Block node groups from their window. A layer stack's preview answers its StackReference
    with the outputs of its cluster stack's preview. A blueprint file whose
    Kubernetes layer has a stack of its own previews both stacks: the
    cluster's, then the layer's as `<stack>-kubernetes` (`layer_stack`).
    Raises `SourceError` only for unreadable input, like `validate`.
    """
    with fewer_collections():
        return _preview(path, stack, project_dir, account_roles, at)


def _preview(path: str | None, stack: str | None, project_dir: str | Path, account_roles: tuple[str, ...], at: datetime | None) -> PreviewResult:
    at = at or datetime.now(UTC)  # one instant for the checks' prices and the plan's Capacity Block sizing
    validation = validate(path, stack, project_dir, at=at)
    stage("compiling the plan")
    plan, findings = plan_validated(validation, at)
    stack_name = stack or PREVIEW_STACK
    if plan is None:
        return PreviewResult(validation, [], {}, findings, (), stack_name)
    deployment = deployment_of(stack, project_dir, plan) if stack else Deployment()
    roles = tuple(account_roles)
    if deployment.cluster_stack is not None:
        cluster_stack = deployment.cluster_stack.rsplit("/", 1)[-1]
        _, cluster_outputs = _isolated(plan, cluster_stack, Deployment(), roles)
        resources, outputs = _isolated(plan, stack_name, deployment, roles, cluster_outputs)
        return PreviewResult(validation, resources, outputs, findings, plan.placements, stack_name, plan=plan)
    stage(f"running the Pulumi program under mocks (stack {stack_name})")
    resources, outputs = _isolated(plan, stack_name, deployment, roles)
    layer = None
    if plan.layer_stack == "separate" and stack is None:
        layer_stack = stack_name + LAYER_STACK_SUFFIX
        stage(f"running the Pulumi program under mocks (stack {layer_stack})")
        layer_resources, layer_outputs = _isolated(plan, layer_stack, Deployment(deployment.identity, stack_name), roles, outputs)
        resources = resources + layer_resources  # the cluster's stack first, each in URN order
        layer = {"stack": layer_stack, "outputs": layer_outputs}
    return PreviewResult(validation, resources, outputs, findings, plan.placements, stack_name, layer, plan)
