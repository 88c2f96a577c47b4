"""`railyard conform`: is the running cluster what the blueprint says? Judged read-only, from evidence.

The evidence is a folder of recorded answers (`railyard.online.evidence`), read live by
`railyard.online.cluster` (`--record`) or handed in (`--from`). What it is compared with is the plan
`preview` compiles (`topology.cluster.plan_cluster`, planned as the Capacity Blocks run), read as an
`Expectation`; never a second model of the cluster. Every check returns findings in the one Finding
type, placed at the pool's (or the setting's) line in the blueprint; a check whose evidence is
missing says it could not run (`conform.not-checked`, an error), never passes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import TYPE_CHECKING, Any

from blueprints.catalog import load_catalog
from blueprints.findings import Finding, error, has_errors, sort_findings, summarize
from blueprints.records import record
from railyard.conform import cluster, fabric, nodes, nvlink
from railyard.conform.base import NOT_CHECKED, Judge
from railyard.conform.expected import expect
from railyard.online.evidence import Evidence
from topology.cluster import PlanError, plan_cluster

if TYPE_CHECKING:
    from railyard.pipeline import Validation

CODES = (NOT_CHECKED, *nodes.CODES, *fabric.CODES, *nvlink.CODES, *cluster.CODES)
# What each code means and how to fix it, for `railyard explain` (its messages are built from what was observed).
EXPLAIN: dict[str, dict[str, str]] = {
    NOT_CHECKED: {
        "meaning": "a check could not run: a file of the evidence folder it needs is missing, unreadable, or not in the shape "
        "the AWS CLI or kubectl prints; nothing was judged, so this is not a pass",
        "fix": "record the folder again with `railyard conform --record DIR` (docs/conform.md lists each file and its command)",
    },
    "conform.node-count": {
        "meaning": "a node group has fewer Ready nodes than the plan's desired size (or more than its most); "
        "the instances without a Ready node are named",
        "fix": "look at the node group's health and the instances' console output; a Capacity Block may be short of instances",
    },
    "conform.instance-type": {
        "meaning": "a running instance of a node group is not the pool's instance type, or not in its zone",
        "fix": "find who launched it (its launch template) and replace it with the node group's own",
    },
    "conform.capacity": {
        "meaning": "a running instance is outside the Capacity Block or reservation its pool names",
        "fix": "move it into the reservation (its launch template's capacity reservation target) or replace it",
    },
    "conform.market": {
        "meaning": "a running instance is bought on another market than its node group's capacity type (On-Demand, Spot, Capacity Block)",
        "fix": "replace the instance from the node group's launch template",
    },
    "conform.efa-interfaces": {
        "meaning": "a running instance's EFA interfaces (type and network card) differ from the launch template's layout",
        "fix": "replace the instance; if every instance shows it, compare the launch template with the plan",
    },
    "conform.allocatable": {
        "meaning": "a Ready node advertises another count of GPUs, Neuron devices or cores, or EFA devices than the catalog and layout give",
        "fix": "see the device plugin's pod log on the node; replace the node if its devices are gone",
    },
    "conform.topology-labels": {
        "meaning": "a node lacks its network-node-layer labels, or they differ from DescribeInstanceTopology's network nodes",
        "fix": "cordon the node and relabel or replace it; upgrade the AWS cloud controller (kubernetes/cloud-provider-aws#1100)",
    },
    "conform.placement": {
        "meaning": "two of a pool's instances are more switches apart, in the network tree DescribeInstanceTopology reports, than the fabric allows",
        "fix": "relaunch the stragglers in the pool's placement group or Capacity Block, or raise the fabric's max_switch_hops",
    },
    "conform.ultraserver": {
        "meaning": "an UltraServer domain holds another number of the pool's instances than the type's domain, or its interconnect is not ok",
        "fix": "bring the missing instances back into the block; for an impaired interconnect, open a case with AWS",
    },
    "conform.clique-missing": {
        "meaning": "a Ready node of a pool whose NVLink domain spans instances carries no nvidia.com/gpu.clique label (GPU feature "
        "discovery sets it from the node's fabric), so no NVLink-bound job or ComputeDomain reaches it",
        "fix": "see the gpu-feature-discovery pod and `nvidia-smi -q` (Fabric) on the node; replace a node whose fabric never comes up",
    },
    "conform.clique-split": {
        "meaning": "an UltraServer's nodes (one CapacityBlockId in DescribeInstanceTopology) carry several NVLink cliques, or one "
        "clique spans several UltraServers: a job kept to one clique would get nodes with no NVLink between them",
        "fix": "compare `nvidia-smi -q` (Fabric: ClusterUUID, CliqueId) on the nodes; open a case with AWS for a degraded UltraServer",
    },
    "conform.dra-plugin": {
        "meaning": "NVIDIA's DRA driver's kubelet plugin DaemonSet is absent, or has no Ready pod on some node of a pool whose "
        "NVLink domain spans instances, so a ComputeDomain's IMEX daemon can't start there",
        "fix": "run `pulumi up` on the Kubernetes layer; read the plugin pod's log on the named nodes (a host nvidia-imex service is a known cause)",
    },
    "conform.dra-controller": {
        "meaning": "NVIDIA's DRA driver's ComputeDomain controller Deployment is absent or not Ready: ComputeDomains get no IMEX "
        "DaemonSet, no channel ResourceClaimTemplate and no status, so no job spanning an NVLink pool's instances can start",
        "fix": "run `pulumi up` on the Kubernetes layer; read the controller pod's events and log",
    },
    "conform.compute-domain": {
        "meaning": "a ComputeDomain railyard emits for an NVLink pool is absent, has no status (NVIDIA's DRA driver's controller "
        "never reconciled it), or reports status NotReady: an IMEX daemon on some node is not Ready, so a job spanning the "
        "pool's instances can't share GPU memory over NVLink",
        "fix": "run `pulumi up` on the Kubernetes layer; read the driver controller's log, and the IMEX daemon pods' logs on the nodes named",
    },
    "conform.cluster": {"meaning": "the EKS cluster is not ACTIVE, or runs another Kubernetes version than the blueprint", "fix": "run `pulumi up`"},
    "conform.nodegroup": {
        "meaning": "a managed node group's status, labels, taints, capacity type, size, version or node repair differs from what was compiled",
        "fix": "run `pulumi up` (or `pulumi refresh` to see who changed it)",
    },
    "conform.daemonset": {
        "meaning": "a DaemonSet the design places (device plugin, exporter, FSx node plugin, node monitoring agent) is absent, "
        "not Ready on some of its pools' nodes, or runs outside them",
        "fix": "run `pulumi up` on the Kubernetes layer's stack; see the pods' events on the named nodes",
    },
    "conform.nma-dcgm-conflict": {
        "meaning": "the EKS node monitoring agent runs beside the GPU Operator's own DCGM host engine, so it can't reach DCGM and "
        "auto repair replaces healthy nodes (aws/containers-roadmap#2555)",
        "fix": "turn the GPU Operator's standalone DCGM off, or the agent off",
    },
    "conform.gate-held": {
        "meaning": "a Ready node of a gated pool still carries the gate's taint: what the gate waits for (LNet over EFA) never came up on it",
        "fix": "read the gate's file on the node (/run/railyard/gates/) and the railyard-node-gates pod's log there",
    },
    "conform.kueue": {
        "meaning": "a pool's Kueue ResourceFlavor or Topology is absent or has other levels, or a node lacks a level's label",
        "fix": "run `pulumi up` on the Kubernetes layer's stack; label or replace the named node",
    },
    "conform.fsx": {
        "meaning": "an FSx for Lustre tier's file system is absent or not AVAILABLE, a claim is not Bound, or a volume Failed",
        "fix": "see the file system's FailureDetails, or `kubectl describe pvc` / `pv`",
    },
}
# In the order a report reads: the nodes, where they sit, then what runs on them.
CHECKS: tuple[tuple[str, Callable[[Judge], list[Finding]]], ...] = (
    ("node-count", nodes.check_counts),
    ("instances", nodes.check_instances),
    ("efa-interfaces", nodes.check_efa),
    ("allocatable", nodes.check_allocatable),
    ("topology-labels", fabric.check_labels),
    ("placement", fabric.check_placement),
    ("ultraserver", fabric.check_ultraservers),
    ("nvlink-cliques", nvlink.check_cliques),
    ("cluster", cluster.check_cluster),
    ("node-groups", cluster.check_node_groups),
    ("daemonsets", cluster.check_daemonsets),
    ("dra-plugin", nvlink.check_dra_plugin),
    ("dra-controller", nvlink.check_dra_controller),
    ("compute-domains", nvlink.check_compute_domains),
    ("node-gates", cluster.check_gates),
    ("kueue", cluster.check_kueue),
    ("storage", cluster.check_storage),
)


@record(frozen=False)
class ConformReport:
    """The verdict on one folder of evidence: the blueprint's findings (if it didn't validate) or the conformance findings."""

    file: str
    stack: str | None
    folder: str
    cluster: str | None
    findings: list[Finding] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no finding is an error."""
        return not has_errors(self.findings)

    def as_json(self) -> dict[str, Any]:
        """The `conform --json` document; it holds nothing that changes between two judgements of one folder."""
        return {
            "blueprint": self.file,
            "stack": self.stack,
            "evidence": self.folder,
            "cluster": self.cluster,
            "ok": self.ok,
            "checks": self.checks,
            "findings": [finding.as_json() for finding in self.findings],
            "summary": summarize(self.findings),
        }


def _guarded(name: str, check: Callable[[Judge], list[Finding]], judge: Judge) -> list[Finding]:
    """The check's findings; when a document isn't in the shape the AWS CLI or kubectl prints, the one finding that says so."""
    try:
        return check(judge)
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
        return [
            error(
                NOT_CHECKED,
                ("pools",),
                f"could not check {name}: a file of {judge.evidence.folder} is not in the shape the AWS CLI or kubectl prints "
                f"({type(exc).__name__}: {exc})",
                "record the folder again with `railyard conform --record DIR`, or fix the hand-made file (docs/conform.md lists the shapes)",
                check=name,
            )
        ]


def conform(validation: Validation, evidence: Evidence) -> ConformReport:
    """Judge `evidence` against a validation's blueprint; a blueprint with errors is reported as it is, unjudged."""
    report = ConformReport(validation.file, validation.stack, evidence.folder, None)
    blueprint = validation.blueprint
    if blueprint is None or not validation.ok:
        report.findings = list(validation.findings)
        return report
    catalog = load_catalog()
    try:
        plan = plan_cluster(blueprint, catalog)
    except PlanError as exc:
        planned = error("compile.plan", exc.path, str(exc), "change the blueprint so it can be compiled")
        report.findings = [*validation.findings, validation.load.source_map.place(planned)]
        return report
    judge = Judge(expect(blueprint, catalog, plan), evidence)
    report.cluster = judge.expected.cluster
    found: list[Finding] = []
    for name, check in CHECKS:
        report.checks.append(name)
        found += _guarded(name, check, judge)
    report.findings = sort_findings(validation.load.source_map.place(finding) for finding in found)
    return report
