"""NVLink across instances, held after apply: every UltraServer node labelled with its one clique, and the DRA plugin Ready.

NVIDIA's GPU feature discovery labels each node with its NVLink clique (`nvidia.com/gpu.clique`); the
EKS user guide (ml-eks-nvidia-ultraserver @00e3293d): "Nodes within the same `nvidia.com/gpu.clique` have
multi-node NVLink-reachability", and the DRA driver "uses a clique ID label (`nvidia.com/gpu.clique`)
applied by NVIDIA GFD that relays the knowledge of the network topology and NVLink domain". Kueue's
topology has the clique as a level, so a node without it is one no NVLink-bound job lands on, and a
clique that doesn't match the UltraServer (DescribeInstanceTopology's `CapacityBlockId`, one per
UltraServer) sends a job's pods to nodes with no NVLink between them. The DRA driver's kubelet plugin
(DaemonSet `nvidia-dra-driver-gpu-kubelet-plugin`, chart nvidia-dra-driver-gpu v25.12.0
templates/kubeletplugin.yaml) is what starts a node's IMEX daemon for a ComputeDomain: a node without it
Ready can't join one.

The chart's ComputeDomain controller (Deployment `nvidia-dra-driver-gpu-controller`, templates/controller.yaml, one
replica) makes each domain's IMEX DaemonSet and channel ResourceClaimTemplate and writes its status: it must exist
with its replica Ready. Each ComputeDomain railyard emits must exist and report `status.status: Ready`. The CRD at v25.12.0
(crds/resource.nvidia.com_computedomains.yaml) gives `status.status` (Ready, NotReady) and
`status.nodes[]` (name, ipAddress, cliqueID, index, status: the IMEX daemon's readiness on that node).
The controller (cmd/compute-domain-controller/computedomain.go, `calculateGlobalStatus`) sets Ready
when `status.nodes` holds at least `spec.numNodes` entries and none is NotReady; with railyard's
`numNodes: 0` an idle domain is Ready (daemonset.go sets it when its IMEX DaemonSet's ready count equals
`numNodes`). A domain with no status at all is one the controller never reconciled
(kubernetes-sigs/dra-driver-nvidia-gpu#767 shows one), so no job's pods can be released into it.
"""

from __future__ import annotations

from blueprints.findings import Finding, error
from railyard.conform import observed
from railyard.conform.base import Judge, listed
from railyard.online.evidence import COMPUTE_DOMAINS, DAEMONSETS, DEPLOYMENTS, NODES, PODS, TOPOLOGY
from topology.cluster.compute_domains import ComputeDomainLayout
from topology.cluster.labels import NVLINK_CLIQUE_LABEL

CODES = ("conform.clique-missing", "conform.clique-split", "conform.dra-plugin", "conform.dra-controller", "conform.compute-domain")
DRA_NAMESPACE = "nvidia-dra-driver-gpu"
DRA_KUBELET_PLUGIN = "nvidia-dra-driver-gpu-kubelet-plugin"
# The chart's controller Deployment (templates/controller.yaml: `<chart name>-controller`, `replicas: 1`), which makes each
# domain's IMEX DaemonSet and channel template and writes its status.
DRA_CONTROLLER = "nvidia-dra-driver-gpu-controller"
READY = "Ready"


def _clique_pools(judge: Judge) -> set[str]:
    """The pools whose nodes GPU feature discovery labels with an NVLink clique (their NVLink domain spans instances)."""
    return {view.pool for view in judge.expected.plan.kubernetes.nodes if NVLINK_CLIQUE_LABEL in view.scale_up_levels()}


def _clique_nodes(judge: Judge, pools: set[str]) -> dict[str, list[observed.Node]]:
    """The Ready nodes of each of `pools`, by pool, by name."""
    found: dict[str, list[observed.Node]] = {}
    for node in sorted(judge.nodes.values(), key=lambda node: node.name):
        group = judge.group_of_node(node) if node.ready else None
        if group is not None and group.pool in pools:
            found.setdefault(group.pool, []).append(node)
    return found


def check_cliques(judge: Judge) -> list[Finding]:
    """Each Ready node of an NVLink pool carries a clique; each UltraServer is one clique, and each clique one UltraServer."""
    pools = _clique_pools(judge)
    if not pools:
        return []
    found = judge.not_checked("the NVLink cliques", [NODES, TOPOLOGY])
    if found:
        return found
    for pool, nodes in _clique_nodes(judge, pools).items():
        path = judge.expected.path(pool)
        missing = [node.name for node in nodes if not node.labels.get(NVLINK_CLIQUE_LABEL)]
        if missing:
            found.append(
                error(
                    "conform.clique-missing",
                    path,
                    f"pool '{pool}': {len(missing)} Ready node(s) carry no {NVLINK_CLIQUE_LABEL} label: {listed(missing)}; no job "
                    "bound to an NVLink domain lands there, and the DRA driver can't place them in an IMEX domain",
                    "see the GPU feature discovery pod on those nodes (the GPU Operator's gpu-feature-discovery) and the node's "
                    "fabric state (`nvidia-smi -q`, Fabric); replace a node whose fabric never comes up",
                    pool=pool,
                    nodes=sorted(missing),
                )
            )
        found += _splits(judge, pool, path, [node for node in nodes if node.labels.get(NVLINK_CLIQUE_LABEL)])
    return found


def _splits(judge: Judge, pool: str, path: tuple[str | int, ...], nodes: list[observed.Node]) -> list[Finding]:
    """An error per UltraServer whose nodes carry several cliques, and per clique over several UltraServers."""
    cliques_of: dict[str, set[str]] = {}
    blocks_of: dict[str, set[str]] = {}
    for node in nodes:
        placed = judge.placed.get(node.instance_id or "")
        if placed is None or placed.capacity_block_id is None:
            continue  # conform.ultraserver says an instance has no CapacityBlockId yet
        clique = node.labels[NVLINK_CLIQUE_LABEL]
        cliques_of.setdefault(placed.capacity_block_id, set()).add(clique)
        blocks_of.setdefault(clique, set()).add(placed.capacity_block_id)
    found = []
    for block, cliques in sorted(cliques_of.items()):
        if len(cliques) > 1:
            message = f"pool '{pool}': the nodes of UltraServer {block} carry {len(cliques)} NVLink cliques ({listed(cliques)}), not one"
            found.append(_split(path, message, pool=pool, capacity_block=block, cliques=sorted(cliques)))
    for clique, blocks in sorted(blocks_of.items()):
        if len(blocks) > 1:
            message = f"pool '{pool}': NVLink clique {clique} spans {len(blocks)} UltraServers ({listed(blocks)}), which share no NVLink"
            found.append(_split(path, message, pool=pool, clique=clique, capacity_blocks=sorted(blocks)))
    return found


def _split(path: tuple[str | int, ...], message: str, **facts: object) -> Finding:
    """The finding for a clique that doesn't match an UltraServer."""
    return error(
        "conform.clique-split",
        path,
        message + ": Kueue and the DRA driver would put a job's pods on nodes with no NVLink between them",
        "compare `nvidia-smi -q` (Fabric: ClusterUUID, CliqueId) on the named nodes; an UltraServer whose fabric reports "
        "several cliques is degraded: open a case with AWS for its Capacity Block",
        **facts,
    )


def _objects(judge: Judge, file: str) -> dict[tuple[str, str], dict]:
    """The objects of a `kubectl get ... -o json` list in the evidence, by (namespace, name)."""
    found = {}
    for item in (judge.evidence.get(file) or {}).get("items") or []:
        metadata = item.get("metadata") or {}
        found[(str(metadata.get("namespace")), str(metadata.get("name")))] = item
    return found


def check_dra_plugin(judge: Judge) -> list[Finding]:
    """Where railyard installs the DRA driver, its kubelet plugin DaemonSet exists and is Ready on every Ready node of the NVLink pools."""
    layout, found = _installed(judge, "the DRA driver's kubelet plugin", [NODES, DAEMONSETS, PODS])
    if layout is None or found:
        return found
    present = set(_objects(judge, DAEMONSETS))
    pools = sorted(layout.pools)
    if (DRA_NAMESPACE, DRA_KUBELET_PLUGIN) not in present:
        message = (
            f"the DRA driver's kubelet plugin DaemonSet {DRA_NAMESPACE}/{DRA_KUBELET_PLUGIN} is absent: pool(s) {pools} can't join a ComputeDomain"
        )
        return [error("conform.dra-plugin", judge.expected.path(pools[0]), message, "run `pulumi up` on the Kubernetes layer's stack", pools=pools)]
    ready = observed.ready_pods(judge.evidence.get(PODS) or {}).get((DRA_NAMESPACE, DRA_KUBELET_PLUGIN), set())
    served = [node for node in judge.nodes.values() if node.ready and (group := judge.group_of_node(node)) is not None and group.pool in pools]
    lacking = sorted(node.name for node in served if node.name not in ready)
    if not lacking:
        return []
    return [
        error(
            "conform.dra-plugin",
            judge.expected.path(pools[0]),
            f"the DRA driver's kubelet plugin has no Ready pod on {len(lacking)} node(s) of pool(s) {pools}: {listed(lacking)}; "
            "a job's ComputeDomain claim can't be prepared there, so its pods stay ContainerCreating",
            "see the plugin pod's log on those nodes (`kubectl logs -n nvidia-dra-driver-gpu <pod> -c compute-domains`); a host "
            "nvidia-imex service holding the IMEX channels is a known cause (kubernetes-sigs/dra-driver-nvidia-gpu#524)",
            pools=pools,
            nodes=sorted(lacking),
        )
    ]


def _installed(judge: Judge, check: str, files: list[str]) -> tuple[ComputeDomainLayout | None, list[Finding]]:
    """The DRA driver's layout (None where railyard doesn't install it), and the errors for `files` missing where it does."""
    layout = judge.expected.plan.kubernetes.compute_domains
    if layout is None:
        return None, []
    return layout, judge.not_checked(check, files, ("kubernetes", "compute_domains"))


def check_dra_controller(judge: Judge) -> list[Finding]:
    """Where railyard installs the DRA driver, its ComputeDomain controller Deployment exists with every replica Ready."""
    layout, found = _installed(judge, "the DRA driver's ComputeDomain controller", [DEPLOYMENTS])
    if layout is None or found:
        return found
    controller = _objects(judge, DEPLOYMENTS).get((DRA_NAMESPACE, DRA_CONTROLLER))
    pools = sorted(layout.pools)
    where = f"the DRA driver's ComputeDomain controller Deployment {DRA_NAMESPACE}/{DRA_CONTROLLER}"
    if controller is None:
        message = f"{where} is absent: no ComputeDomain of pool(s) {pools} gets its IMEX daemons or channel template"
        return [
            error("conform.dra-controller", judge.expected.path(pools[0]), message, "run `pulumi up` on the Kubernetes layer's stack", pools=pools)
        ]
    wanted = (controller.get("spec") or {}).get("replicas", 1)
    ready = (controller.get("status") or {}).get("readyReplicas", 0)  # the API leaves out a count of 0
    if ready >= wanted:
        return []
    message = f"{where} has {ready} of {wanted} replica(s) Ready: new ComputeDomains of pool(s) {pools} are not reconciled and get no status"
    fix = f"see the controller pod's events and log (`kubectl -n {DRA_NAMESPACE} describe deployment/{DRA_CONTROLLER}`, `kubectl logs`)"
    return [error("conform.dra-controller", judge.expected.path(pools[0]), message, fix, pools=pools, ready=ready, replicas=wanted)]


def check_compute_domains(judge: Judge) -> list[Finding]:
    """Each ComputeDomain railyard emits exists, and its status (written by the driver's controller) is Ready."""
    layout, found = _installed(judge, "the ComputeDomains", [COMPUTE_DOMAINS])
    if layout is None or found:
        return found
    present = _objects(judge, COMPUTE_DOMAINS)
    for domain in layout.domains:
        item = present.get((domain.namespace, domain.name))
        where = f"pool '{domain.pool}': ComputeDomain {domain.namespace}/{domain.name}"
        if item is None:
            message = f"{where} is absent: no ResourceClaimTemplate {domain.channel_template} is made, so no job can claim the pool's NVLink"
            found.append(_domain_error(judge, domain.pool, message, "run `pulumi up` on the Kubernetes layer's stack", domain.name))
        else:
            found += _domain_status(judge, domain.pool, where, domain.name, item)
    return found


def _domain_status(judge: Judge, pool: str, where: str, name: str, item: dict) -> list[Finding]:
    """The error for a ComputeDomain whose status is missing or not Ready, naming the nodes whose IMEX daemon is NotReady."""
    status = item.get("status")
    if not isinstance(status, dict) or not status.get("status"):
        controller = f"{DRA_NAMESPACE}/{DRA_CONTROLLER}"
        message = f"{where} has no status: the driver's controller ({controller}) never reconciled it, so no job's pods are released into it"
        fix = f"see the controller's log (`kubectl logs -n {DRA_NAMESPACE} deployment/{DRA_CONTROLLER}`) and that its pod is Ready"
        return [_domain_error(judge, pool, message, fix, name)]
    if status["status"] == READY:
        return []
    lagging = sorted(str(node.get("name")) for node in status.get("nodes") or [] if node.get("status") != READY)
    wanted = (item.get("spec") or {}).get("numNodes")
    if lagging:
        why = f"the IMEX daemon is not Ready on {len(lagging)} node(s): {listed(lagging)}"
    else:
        why = f"{len(status.get('nodes') or [])} node(s) joined of the {wanted} its spec.numNodes asks"
    message = f"{where} is {status['status']}, not Ready: {why}; a job's pods on those nodes can't share GPU memory over NVLink"
    fix = (
        f"read the IMEX daemon pods' logs on those nodes (namespace {DRA_NAMESPACE}, label resource.nvidia.com/computeDomain=<the domain's uid>) "
        "and `nvidia-smi -q` (Fabric) there; a node whose fabric is degraded can't join"
    )
    return [_domain_error(judge, pool, message, fix, name, nodes=lagging)]


def _domain_error(judge: Judge, pool: str, message: str, fix: str, name: str, **facts: object) -> Finding:
    """The finding for one ComputeDomain, at its pool's line."""
    return error("conform.compute-domain", judge.expected.path(pool), message, fix, pool=pool, compute_domain=name, **facts)
