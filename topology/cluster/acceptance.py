"""The acceptance gate, as decided: which pools hold new nodes, where the checker runs, how long it takes, and its checks.

A pool with `acceptance` starts its nodes labelled and tainted `railyard.dev/acceptance=pending`
(`topology.cluster.labels`); one checker DaemonSet per such pool runs on its pending nodes and,
on a pass, lifts the taint and relabels the node `passed` (acceptance/kube.py), so its pod leaves.
`plan_gates` decides each checker's placement here, from the node groups, exactly as the compiler
(`components.kubernetes.acceptance`) renders it.

The rule `check_gates` proves the gate can open: everything that must run on a node before it is
accepted tolerates the taint (the device plugins are proved by `k8s.untolerated-taint`, since the
taint is one of the pool's; here: the node add-ons, the exporters, the FSx node plugin and the
checker itself), the level does not fight what else runs (DCGM r4 needs the DCGM exporter stopped),
the timeout is not shorter than the level's published duration, and the node group stays within
EKS's 50 taints (CreateNodegroup `taints`, "maximum number of 50").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from blueprints.findings import Finding, Path, error
from blueprints.models import Blueprint, Pool
from blueprints.records import record
from topology.cluster.health import ExporterPlacement
from topology.cluster.labels import ACCEPTANCE_KEY, ACCEPTANCE_PENDING, ACCEPTANCE_TAINT, POOL_LABEL
from topology.cluster.mounts import MountPlacement
from topology.cluster.scheduling import Match, NodeGroupView, Placement, Toleration, tolerations_for

CODES = ("acceptance.untolerated", "acceptance.level-conflict", "acceptance.timeout-short", "acceptance.too-many-taints", "acceptance.node-binding")
# The checker is held to its own node by a ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1, GA in 1.30) on the
# node name the API server puts in its token (ServiceAccountTokenPodNodeInfo, on by default from 1.30, GA in 1.32;
# kubernetes/kubernetes pkg/features/versioned_kube_features.go @ 20b2eef9). components.kubernetes.acceptance_policy.
NODE_BINDING_SINCE = (1, 30)
EKS_MAX_TAINTS = 50
TIMEOUT_MARGIN_MINUTES = 15
# What the reads take (nvidia-smi, fi_info, neuron-ls, dmesg): seconds; counted as one minute.
READS_MINUTES = 1.0


@record
class LevelDuration:
    """How long one level's DCGM diagnostic runs per node: NVIDIA's normal figure, the longest measured, and the sources."""

    dcgm_level: int
    normal_minutes: float
    longest_minutes: float
    source: str


NVIDIA_DIAG = "NVIDIA dcgmi diag reference (docs.nvidia.com/datacenter/dcgm/latest/reference/command-line-reference/dcgmi/dcgmi-diag.html)"
ADT = "awsome-distributed-training health-check README @ 7217859f, measured on AWS"
LEVELS: dict[str, LevelDuration] = {
    "quick": LevelDuration(1, 1.0, 1.0, f"{NVIDIA_DIAG}: r1 'normally lasting seconds' (counted as 1 min)"),
    "standard": LevelDuration(2, 2.0, 10.5, f"{NVIDIA_DIAG}: r2 'approximately two minutes'; {ADT}: 2.5-10.5 min"),
    "long": LevelDuration(3, 15.0, 15.0, f"{NVIDIA_DIAG}: r3 'approximately 15 minutes'"),
    "exhaustive": LevelDuration(4, 45.0, 135.0, f"{ADT}: r4 45 min to 2.25 h (EUD ~20 min and the pulse test)"),
}

# The EKS managed add-ons whose DaemonSets run on every node, and the tolerations their manifests give them: all tolerate
# every taint (`operator: Exists`), so they run on a pending node. railyard sets no add-on tolerations of its own.
EVERY_TAINT = Toleration("", "Exists")
NODE_ADDONS: dict[str, tuple[Toleration, str]] = {
    "vpc_cni": (EVERY_TAINT, "aws/amazon-vpc-cni-k8s charts/aws-vpc-cni/templates/daemonset.yaml: tolerations [operator: Exists]"),
    "kube_proxy": (EVERY_TAINT, "deploy-realism-v3.md 12: EKS's DaemonSet add-ons tolerate all taints (kubernetes/kubernetes#56589)"),
    "pod_identity_agent": (
        EVERY_TAINT,
        "aws/eks-pod-identity-agent charts/eks-pod-identity-agent/values.yaml @ 00bc0581: tolerations [operator: Exists], "
        "rendered into the DaemonSet by templates/daemonset.yaml; pools with on_failure: replace get their credentials through it",
    ),
    "ebs_csi_driver": (EVERY_TAINT, "kubernetes-sigs/aws-ebs-csi-driver charts/aws-ebs-csi-driver/values.yaml: node.tolerateAllTaints true"),
    "node_monitoring_agent": (
        EVERY_TAINT,
        "aws/eks-node-monitoring-agent charts/eks-node-monitoring-agent/values.yaml: nodeAgent.tolerations [operator: Exists]",
    ),
}


@record
class AcceptanceGate:
    """One gated pool: its level, the checker's placement, and what a node's acceptance takes.

    `dcgm_level` is None where no DCGM diagnostic runs (Neuron and CPU pools). `minutes` is the longest a node's
    acceptance takes by the published figures (the diagnostic, the reads and the burn-in); `timeout_minutes` the
    pool's, or that plus a margin; `burn_in_minutes` the pool's burn-in (0: none), which the DCGM init container runs;
    `on_failure` the pool's `taint` or `replace` (a failed node's instance marked Unhealthy for its group to replace).
    """

    pool: str
    pool_index: int
    level: str
    dcgm_level: int | None
    placement: Placement
    minutes: float
    timeout_minutes: int
    max_nodes: int
    accelerators_per_node: int
    efa: bool
    vendor: str | None
    burn_in_minutes: int
    on_failure: str = "taint"

    @property
    def replaces(self) -> bool:
        """True when a failed node's instance is marked Unhealthy, so its Auto Scaling group replaces it."""
        return self.on_failure == "replace"

    @property
    def accelerator_hours(self) -> float:
        """Accelerator-hours the whole pool spends under acceptance, at its largest size."""
        return self.max_nodes * self.accelerators_per_node * self.minutes / 60


def gate_minutes(pool: Pool, vendor: str | None) -> float:
    """The longest one node's acceptance takes by the published figures: the level's diagnostic (NVIDIA), the reads, the burn-in."""
    assert pool.acceptance is not None
    diagnostic = LEVELS[pool.acceptance.level].longest_minutes if vendor == "nvidia" else 0.0
    return diagnostic + READS_MINUTES + (pool.acceptance.burn_in_minutes or 0)


def plan_gates(blueprint: Blueprint, views: Sequence[NodeGroupView]) -> tuple[AcceptanceGate, ...]:
    """One gate per pool with `acceptance`, in blueprint order, placed on the pool's pending nodes and tolerating their taints."""
    gates = []
    for index, pool in enumerate(blueprint.pools):
        served = [view for view in views if view.pool == pool.name]
        if pool.acceptance is None or not served:
            continue
        first = served[0]
        minutes = gate_minutes(pool, first.vendor)
        term = (Match(POOL_LABEL, "In", (pool.name,)), Match(ACCEPTANCE_KEY, "In", (ACCEPTANCE_PENDING,)))
        placement = Placement({}, (term,), tolerations_for(served))
        timeout = pool.acceptance.timeout_minutes or int(-(-(minutes + TIMEOUT_MARGIN_MINUTES) // 1))
        gates.append(
            AcceptanceGate(
                pool.name,
                index,
                pool.acceptance.level,
                LEVELS[pool.acceptance.level].dcgm_level if first.vendor == "nvidia" else None,
                placement,
                minutes,
                timeout,
                pool.max_nodes,
                first.spec.accelerator_count,
                first.efa,
                first.vendor,
                pool.acceptance.burn_in_minutes or 0,
                pool.acceptance.on_failure,
            )
        )
    return tuple(gates)


def _untolerated(who: str, path: Path, view: NodeGroupView, tolerations: Iterable[Toleration]) -> Finding | None:
    """The finding for `who`, which must run on `view`'s nodes before acceptance, when it doesn't tolerate the taint."""
    if any(toleration.tolerates(ACCEPTANCE_TAINT) for toleration in tolerations):
        return None
    taint = f"{ACCEPTANCE_TAINT.key}={ACCEPTANCE_TAINT.value}:{ACCEPTANCE_TAINT.effect}"
    return error(
        "acceptance.untolerated",
        path,
        f"{who} must run on the nodes of pool '{view.pool}' before they are accepted, but doesn't tolerate their taint {taint}: "
        "it never starts there, the checks that need it fail, and the nodes stay tainted for good",
        f"let {who} tolerate {taint} (or drop its own tolerations so railyard derives them), or remove the pool's acceptance",
        node_group=view.name,
        who=who,
    )


def _placed(exporters: Sequence[ExporterPlacement], mounts: MountPlacement) -> list[tuple[str, tuple[str, ...], Placement]]:
    """(who, pools, placement) of each railyard DaemonSet that runs on accelerator nodes before acceptance, device plugins aside."""
    placed = [(f"the {exporter.exporter} exporter", exporter.pools, exporter.placement) for exporter in exporters if exporter.placement is not None]
    if mounts.placement is not None:
        placed.append(("the FSx CSI node plugin", mounts.pools, mounts.placement))
    return placed


def gate_findings(
    blueprint: Blueprint,
    views: Sequence[NodeGroupView],
    gates: Sequence[AcceptanceGate],
    exporters: Sequence[ExporterPlacement],
    mounts: MountPlacement,
) -> Iterable[Finding]:
    """Every acceptance finding for the gated pools of a laid-out Kubernetes layer."""
    gated = {gate.pool: gate for gate in gates}
    placed = _placed(exporters, mounts)
    addons = blueprint.kubernetes.addons
    for view in (view for view in views if view.pool in gated):
        gate = gated[view.pool]
        path: Path = ("pools", gate.pool_index, "acceptance")
        for key, (toleration, _source) in NODE_ADDONS.items():
            if getattr(getattr(addons, key), "enabled", True):
                found = _untolerated(f"the {key} add-on", ("kubernetes", "addons", key), view, (toleration,))
                if found is not None:
                    yield found
        for who, pools, placement in (*placed, ("the acceptance checker", (gate.pool,), gate.placement)):
            if view.pool in pools and placement.selects(view.all_labels()):
                found = _untolerated(who, path, view, placement.tolerations)
                if found is not None:
                    yield found
        if len(view.taints) > EKS_MAX_TAINTS:
            yield error(
                "acceptance.too-many-taints",
                ("pools", gate.pool_index, "taints"),
                f"node group '{view.name}' would carry {len(view.taints)} taints with the acceptance taint; EKS allows {EKS_MAX_TAINTS}",
                f"keep at most {EKS_MAX_TAINTS - len(view.taints) + len(blueprint.pools[gate.pool_index].taints) - 1} taints in pools[].taints",
                taints=len(view.taints),
            )
    yield from _level_findings(blueprint, gates, exporters)
    yield from _binding_findings(blueprint, gates)


def _binding_findings(blueprint: Blueprint, gates: Sequence[AcceptanceGate]) -> Iterable[Finding]:
    """A gate on a cluster older than 1.30 is refused: its API server serves no v1 admission policy and names no node in a
    token, so the policy that binds the checker to its node could be neither applied nor satisfied."""
    version = blueprint.kubernetes.version
    try:
        parts = tuple(int(part) for part in version.split(".")[:2])
    except ValueError:
        return  # the version rule reports a malformed version
    if gates and parts < NODE_BINDING_SINCE:
        since = ".".join(str(part) for part in NODE_BINDING_SINCE)
        yield error(
            "acceptance.node-binding",
            ("kubernetes", "version"),
            f"pools {[gate.pool for gate in gates]} are gated on Kubernetes {version}, but the admission policy that holds the "
            f"checker to its own node needs {since} or later (admissionregistration.k8s.io/v1, and the node name in the checker's token)",
            f"upgrade the cluster to {since} or later, or turn acceptance off on those pools",
            version=version,
        )


def _level_findings(blueprint: Blueprint, gates: Sequence[AcceptanceGate], exporters: Sequence[ExporterPlacement]) -> Iterable[Finding]:
    """r4 beside a running DCGM exporter, and a timeout shorter than the level's published duration."""
    operator = any(plugin.kind == "gpu_operator" for plugin in blueprint.kubernetes.device_plugins)
    for gate in gates:
        pool = blueprint.pools[gate.pool_index]
        assert pool.acceptance is not None
        running = [f"the {exporter.exporter}" for exporter in exporters if exporter.exporter == "dcgm_exporter" and gate.pool in exporter.pools]
        if operator and gate.vendor == "nvidia":
            running.append("the GPU Operator's DCGM exporter")
        if gate.dcgm_level == 4 and running:
            yield error(
                "acceptance.level-conflict",
                ("pools", gate.pool_index, "acceptance", "level"),
                f"pool '{gate.pool}' runs DCGM diagnostics r4 (exhaustive), which needs the DCGM exporter stopped and MIG off, "
                f"but {', '.join(running)} runs on its nodes during acceptance",
                "use level: long (r3), or turn kubernetes.accelerator_metrics off for this cluster",
                exporters=running,
            )
        published = gate.minutes - READS_MINUTES
        if pool.acceptance.timeout_minutes is not None and pool.acceptance.timeout_minutes < published:
            yield error(
                "acceptance.timeout-short",
                ("pools", gate.pool_index, "acceptance", "timeout_minutes"),
                f"pool '{gate.pool}' gives acceptance {pool.acceptance.timeout_minutes} min, but level {gate.level} with "
                f"{pool.acceptance.burn_in_minutes or 0} min of burn-in takes up to {published:g} min ({LEVELS[gate.level].source})",
                f"set timeout_minutes to at least {int(-(-published // 1))}, or remove it to derive one",
                published_minutes=published,
            )
