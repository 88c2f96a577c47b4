"""`railyard preview FILE [--stack ENV] [--json] [--policies]`: what the Pulumi program would register, offline.

The program runs in-process under Pulumi mocks (see `railyard.mocked`). The
human output groups resources by component, with the properties a reviewer
checks, counts per type and the placement decisions with their reasons;
`--json` prints `{"resources": [...], "outputs": {...}}` with inputs under the
engine's (camelCase) names. An invalid blueprint prints its findings, registers
nothing, and exits 1, like `validate`. `--policies` then runs the CrossGuard
pack's rules over those resources, exactly as `pulumi preview --policy-pack
policies` would, and exits 1 on a mandatory violation.
"""

from __future__ import annotations

import base64
import json
import sys
from collections import Counter
from typing import TYPE_CHECKING

from railyard.collector import fewer_collections
from railyard.commands.arguments import add_blueprint_arguments, add_policy_config_argument, instant, read_policy_config
from railyard.extras import require_policy_pack
from railyard.origins import resource_origins
from railyard.progress import reporting, stage, wanted
from railyard.render import finding_block, findings_report, table

if TYPE_CHECKING:  # the Pulumi SDK loads only when a preview runs, so `railyard validate` never pays for it
    from railyard.mocked import PreviewResource, PreviewResult

NAME = "preview"
HELP = "Preview the resources the Pulumi program would register, offline (Pulumi mocks; no CLI, no credentials)."


def add_arguments(parser) -> None:
    """FILE, --stack, --project-dir, --json, --policies, --policy-config."""
    add_blueprint_arguments(parser)
    parser.add_argument("--policies", action="store_true", help="run the policy pack over the previewed resources; exit 1 on a mandatory violation")
    add_policy_config_argument(parser)
    parser.add_argument(
        "--at",
        metavar="TIME",
        type=instant,
        default=None,
        help="plan as `pulumi up` would at this UTC time (ISO 8601, e.g. 2026-12-01T00:00:00Z; default: now); "
        "it sizes Capacity Block node groups from their window and decides the EKS support its cost counts",
    )


def _policy_report(args, result: PreviewResult):
    """The policy pack's verdict on the previewed resources, or None without --policies."""
    if not (args.policies and result.ok):
        return None
    from policies.runner import run_policies  # the pack is optional for a plain preview

    stage("running the policy pack")
    return run_policies(result, config=read_policy_config(args.policy_config))


UNLOCKED = "compile.unlocked"


def run(args) -> int:
    """Preview (and police) and print; exit 1 on a blueprint error or a mandatory policy violation."""
    if args.policies:
        require_policy_pack("--policies")  # before the preview, not after a minute of it
    with fewer_collections(), reporting(sys.stderr, wanted(sys.stderr, args.json)):
        from railyard.mocked import run_preview  # the Pulumi SDK: imported inside, with the collector paced

        result = run_preview(args.file, args.stack, args.project_dir, at=args.at)
        report = _policy_report(args, result)
    failed = not result.ok or (report is not None and report.mandatory_failed)
    if args.json:
        document = result.as_json()
        if not result.ok:
            document["findings"] = [finding.as_json() for finding in result.findings]
        if report is not None:
            document["policies"] = report.as_json()
            origins = resource_origins(result)
            for entry in (*document["policies"]["violations"], *document["policies"].get("unverified", []), *document["policies"].get("errors", [])):
                if entry.get("urn") in origins:
                    entry["blueprint"] = origins[entry["urn"]].as_json()
        print(json.dumps(document, indent=2, sort_keys=True))
        return 1 if failed else 0
    if not result.ok:
        print(findings_report(result.findings, result.validation.load.source_map))
        print("\nFAILED: fix the errors above; no resource was registered")
        return 1
    print(render(result))
    # What to do before the first deployment (validate says it too): lock the address plan.
    for finding in result.findings:
        if finding.code == UNLOCKED:
            print("\n" + finding_block(finding, result.validation.load.source_map))
    if report is not None:
        from policies.runner import render_text

        described = {urn: origin.describe() for urn, origin in resource_origins(result).items()}
        print("\n" + render_text(report, described))
    return 1 if failed else 0


def short_type(type_token: str) -> str:
    """`aws:ec2/subnet:Subnet` -> `ec2:Subnet`; `railyard:network:Network` stays whole."""
    package, module, kind = type_token.split(":")
    return f"{module.split('/')[0]}:{kind}" if package == "aws" else type_token


def _rules(rules: list[dict], direction: str) -> str:
    parts = []
    for rule in rules:
        ports = "all" if rule.get("protocol") == "-1" else f"{rule.get('protocol')} {rule.get('fromPort')}-{rule.get('toPort')}"
        peers = (["self"] if rule.get("self") else []) + rule.get("securityGroups", []) + rule.get("cidrBlocks", [])
        parts.append(f"{ports} {direction} {'+'.join(peers)}")
    return "; ".join(parts)


def _interfaces(interfaces: list[dict]) -> str:
    efa = [item for item in interfaces if item.get("interfaceType") in ("efa", "efa-only")]
    text = f"{len(interfaces) - len(efa)} interface"
    if efa:
        cards = sorted(item["networkCardIndex"] for item in efa)
        text += f" + {len(efa)} efa-only (cards {cards[0]}-{cards[-1]})"
    return text


def _user_data_parts(encoded: str) -> list[str]:
    """What a launch template's user data does, by MIME part: `nodeadm RAID0`, `LNet over EFA`."""
    text = base64.b64decode(encoded).decode(errors="replace")
    found = ["nodeadm RAID0"] if "application/node.eks.aws" in text else []
    return found + (["LNet over EFA"] if "lnetctl net add --net efa" in text else [])


def _launch_template(inputs: dict) -> str:
    parts = [inputs.get("instanceType", ""), _interfaces(inputs.get("networkInterfaces", []))]
    market = inputs.get("instanceMarketOptions", {}).get("marketType")
    target = inputs.get("capacityReservationSpecification", {}).get("capacityReservationTarget", {})
    if market:
        parts.append(f"market={market}")
    if target:
        parts.append(f"reservation={target.get('capacityReservationId')}")
    if "placement" in inputs:
        parts.append(f"placementGroup={inputs['placement'].get('groupName')}")
    parts.append(f"IMDSv2={inputs.get('metadataOptions', {}).get('httpTokens')}")
    if inputs.get("userData"):
        parts.append("userData=" + "+".join(_user_data_parts(inputs["userData"])))
    return "  ".join(part for part in parts if part)


def _node_group(inputs: dict) -> str:
    scaling = inputs.get("scalingConfig", {})
    taints = ",".join(taint["key"] for taint in inputs.get("taints", [])) or "none"
    return (
        f"{inputs.get('nodeGroupName')}  {inputs.get('capacityType')}  {inputs.get('amiType')}  "
        f"min/desired/max={scaling.get('minSize')}/{scaling.get('desiredSize')}/{scaling.get('maxSize')}  "
        f"subnets={len(inputs.get('subnetIds', []))}  taints={taints}"
    )


def _file_system(inputs: dict) -> str:
    throughput = inputs.get("perUnitStorageThroughput")
    return (
        f"{inputs.get('deploymentType')}  {inputs.get('storageCapacity')} GiB"
        + (f"  {throughput} MB/s/TiB" if throughput else "")
        + f"  efa={bool(inputs.get('efaEnabled'))}  subnet={inputs.get('subnetIds')}"
    )


ACCELERATOR_QUOTAS = ("nvidia.com/gpu", "aws.amazon.com/neuron", "aws.amazon.com/neuroncore", "vpc.amazonaws.com/efa")


def _quotas(spec: dict) -> str:
    """A ClusterQueue's accelerator quotas per flavor (cpu, memory and zero quotas left out)."""
    parts = []
    for group in spec.get("resourceGroups", []):
        for flavor in group.get("flavors", []):
            granted = [
                f"{r['name']}={r['nominalQuota']}"
                for r in flavor.get("resources", [])
                if r["name"] in ACCELERATOR_QUOTAS and str(r.get("nominalQuota")) != "0"
            ]
            parts.append(f"{flavor['name'].rsplit('-', 1)[0]}: {', '.join(granted) or 'none'}")
    return "; ".join(parts)


def _kubernetes(resource: PreviewResource) -> str:
    """One line for a Kubernetes object: chart and version, Kueue levels, labels, quotas, volume binding."""
    inputs, kind = resource.inputs, resource.type.rsplit(":", 1)[-1]
    spec = inputs.get("spec", {})
    if kind == "Release":
        return f"{inputs.get('chart')} {inputs.get('version')} in {inputs.get('namespace')}"
    if kind == "Topology":
        return " > ".join(level["nodeLabel"] for level in spec.get("levels", []))
    if kind == "ResourceFlavor":
        labels = ",".join(f"{key}={value}" for key, value in spec.get("nodeLabels", {}).items())
        tolerates = ",".join(toleration["key"] for toleration in spec.get("tolerations", [])) or "nothing"
        return f"{labels}  topology={spec.get('topologyName')}  tolerates={tolerates}"
    if kind == "ClusterQueue":
        return _quotas(spec)
    if kind == "LocalQueue":
        return f"{inputs.get('metadata', {}).get('namespace')} -> {spec.get('clusterQueue')}"
    if kind == "PersistentVolume":
        return f"{spec.get('csi', {}).get('volumeHandle')}  {spec.get('capacity', {}).get('storage')}"
    if kind == "PersistentVolumeClaim":
        return f"{inputs.get('metadata', {}).get('namespace')}/{inputs.get('metadata', {}).get('name')} -> {spec.get('volumeName')}"
    return ""


def highlights(resource: PreviewResource) -> str:
    """The few properties of a resource a reviewer checks, on one line."""
    inputs = resource.inputs
    if resource.type.startswith("kubernetes:"):
        return _kubernetes(resource)
    describe = {
        "pulumi:providers:aws": lambda: f"region={inputs.get('region')}",
        "aws:ec2/vpc:Vpc": lambda: inputs.get("cidrBlock", ""),
        "aws:ec2/subnet:Subnet": lambda: (
            f"{inputs.get('cidrBlock')}  {inputs.get('availabilityZone')}  publicIp={'yes' if inputs.get('mapPublicIpOnLaunch') else 'no'}"
        ),
        "aws:ec2/securityGroup:SecurityGroup": lambda: f"{_rules(inputs.get('ingress', []), 'from')} | {_rules(inputs.get('egress', []), 'to')}",
        "aws:ec2/launchTemplate:LaunchTemplate": lambda: _launch_template(inputs),
        "aws:eks/nodeGroup:NodeGroup": lambda: _node_group(inputs),
        "aws:eks/cluster:Cluster": lambda: (
            f"{inputs.get('name')}  v{inputs.get('version')}  endpoint "
            f"private={inputs.get('vpcConfig', {}).get('endpointPrivateAccess')} "
            f"public={inputs.get('vpcConfig', {}).get('endpointPublicAccess')}"
        ),
        "aws:ec2/placementGroup:PlacementGroup": lambda: (
            f"{inputs.get('strategy')}" + (f" x{inputs['partitionCount']}" if "partitionCount" in inputs else "")
        ),
        "aws:fsx/lustreFileSystem:LustreFileSystem": lambda: _file_system(inputs),
        "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation": lambda: (
            f"{inputs.get('fileSystemPath')} <-> {inputs.get('dataRepositoryPath')}"
        ),
        "aws:s3/bucket:Bucket": lambda: inputs.get("bucket", ""),
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": lambda: (
            "all public access blocked"
            if all(inputs.get(key) for key in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets"))
            else "PUBLIC ACCESS OPEN"
        ),
        "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": lambda: _rules(
            [
                {
                    "protocol": inputs.get("ipProtocol"),
                    "fromPort": inputs.get("fromPort"),
                    "toPort": inputs.get("toPort"),
                    "securityGroups": [peer for peer in [inputs.get("referencedSecurityGroupId")] if peer],
                    "cidrBlocks": [peer for peer in [inputs.get("cidrIpv4")] if peer],
                }
            ],
            "from",
        ),
    }.get(resource.type)
    return describe() if describe else ""


def _parent_type(resource: PreviewResource) -> str:
    """The type of a resource's parent, read from the parent's URN."""
    return resource.parent.split("::")[2].split("$")[-1]


def _stack_of(resource: PreviewResource) -> str:
    """The stack a resource is registered in, read from its URN (`urn:pulumi:<stack>::...`)."""
    return resource.urn.split("::", 1)[0].split(":", 2)[2]


def render(result: PreviewResult) -> str:
    """The human preview: resources by component, placement decisions, counts per type, outputs."""
    from railyard.mocked import STACK_TYPE

    components = [resource for resource in result.resources if resource.is_component]
    top = [resource for resource in result.resources if not resource.is_component and _parent_type(resource) == STACK_TYPE]
    managed = [resource for resource in result.resources if not resource.is_component]
    stacks = f"stack {result.stack}"
    if result.layer_stack is not None:
        stacks = f"stacks {result.stack} (cluster) and {result.layer_stack['stack']} (Kubernetes layer, kubernetes.layer_stack: separate)"
    parts = [f"preview of {result.validation.file} ({stacks}): {len(managed)} resources in {len(components)} components; nothing was deployed"]
    if top:
        parts.append(table(["type", "name", "properties"], [[short_type(r.type), r.name, highlights(r)] for r in top]))
    for component in components:
        children = result.children(component.urn)
        rows = [[short_type(child.type), child.name, highlights(child)] for child in children]
        body = table(["type", "name", "properties"], rows) if rows else "(no resources)"
        where = f"  [stack {_stack_of(component)}]" if result.layer_stack is not None else ""
        parts.append(f"{component.type}  {component.name}  ({len(children)} resources){where}\n{body}")
    decisions = [[d.pool, d.zone, d.availability_zone, d.strategy or "none", d.reason] for d in result.placements]
    parts.append("placement decisions\n" + table(["pool", "zone", "availability zone", "group", "reason"], decisions))
    counts = Counter(short_type(resource.type) for resource in managed)
    parts.append("resources by type\n" + table(["type", "count"], sorted(counts.items())))
    outputs = [
        [key, json.dumps(value, sort_keys=True) if not isinstance(value, str) else value]
        for key, value in sorted(result.outputs.items())
        if key != "placement"
    ]
    parts.append("outputs\n" + table(["name", "value"], outputs))
    if result.layer_stack is not None:
        layer = [
            [key, json.dumps(value, sort_keys=True) if not isinstance(value, str) else value]
            for key, value in sorted(result.layer_stack["outputs"].items())
        ]
        parts.append(f"outputs of {result.layer_stack['stack']}\n" + table(["name", "value"], layer))
    cost = result.validation.cost
    if cost is not None:
        # Each total says what it leaves out, so a month that omits a block paid upfront never reads as the whole bill.
        parts.append(f"cost ({cost.region}, USD): " + ". ".join(cost.summary()) + ". (`railyard validate` lists every line; docs/cost.md)")
    return "\n\n".join(parts)
