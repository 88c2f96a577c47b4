"""`railyard acceptance fabric`: an nccl-tests MPIJob for a pool, placed and sized from its design.

Two Kubeflow MPIJobs (`kubeflow.org/v2beta1`, the CRD of kubeflow/mpi-operator v0.8.0,
manifests/base/kubeflow.org_mpijobs.yaml) running `all_reduce_perf -b 8 -e 16G -f 2 -g 1 -c 1`:
one with NCCL's default algorithm (what an application sees) and one with `NCCL_ALGO=Ring` (the only
one that measures the network, acceptance-conformance.md section 3); both with `NCCL_DEBUG=INFO`, so
`railyard acceptance judge` can read the transport NCCL used. Each worker is one node: the pool's
node selector, its taints tolerated (the acceptance and node-gate taints left out: a fabric test runs on
nodes already let in), every GPU and every EFA interface the plan gives a node requested, `/dev/shm` in memory.
`--scope` chooses where Kueue's topology-aware scheduling must keep the workers: one node
(`kubernetes.io/hostname`), one network-node layer-3 domain (`topology.k8s.aws/network-node-layer-3`), or
one NVLink domain (`nvidia.com/gpu.clique`, on a pool whose domain spans instances), or anywhere in the pool
(no constraint); the job goes to the cluster's LocalQueue when Kueue is on. On a pool with a ComputeDomain
(a GB200 NVL72 pool) every worker claims its channel, so NCCL reaches the other instances' GPUs over NVLink
inside the domain; a `--scope clique` run is judged against the NVLink line (`railyard.expectations`),
any other against the EFA line.

The image is the nccl-tests image AWS publishes (pins.yaml `nccl_tests`); mpirun's flags are the ones
AWS's EFA examples use (Open MPI's TCP byte-transfer layer for its own control traffic, NCCL over EFA).

A Neuron pool (trn1, trn2, trn2u) gets one MPIJob instead, running Neuron's collective benchmark
(`nccom-test -r RANKS -N NODES -b 8 -e 16G -f 2 -n 50 -w 5 -d fp32 allr --hosts ...`, the command line of
aws-neuron/aws-neuron-sdk tools/neuron-sys-tools/nccom-test.rst @0f75c1e0, whose multi-instance example runs
from one of the nodes with `NEURON_RT_ROOT_COMM_ID=<its address>:<port>`): the launcher runs as a worker
(`runLauncherAsWorker`), so nccom-test starts on a Neuron node, and lists the hostfile mpi-operator writes.
Neuron has no NCCL_ALGO to force, so there is one run. The image is a Neuron deep learning container that
ships aws-neuronx-tools (pins.yaml `neuron_collectives`).
"""

from __future__ import annotations

from typing import Any

from blueprints.catalog import Catalog
from blueprints.catalog.pins import load_pins
from blueprints.models import Blueprint
from railyard.expectations import ExpectationNeeds, fabric_line
from topology.cluster.kubernetes import lay_out_kubernetes
from topology.cluster.labels import ACCEPTANCE_KEY, GATE_TAINT_KEYS, HOSTNAME_LABEL, NETWORK_LAYER_LABEL, NVLINK_CLIQUE_LABEL, POOL_LABEL
from topology.cluster.scheduling import NodeGroupView

API_VERSION = "kubeflow.org/v2beta1"
# Taints a job never tolerates: the node gates' and acceptance's (a fabric test runs on nodes already let in).
HELD = GATE_TAINT_KEYS | {ACCEPTANCE_KEY}
SCOPES: dict[str, str | None] = {"node": HOSTNAME_LABEL, "layer3": NETWORK_LAYER_LABEL.format(3), "clique": NVLINK_CLIQUE_LABEL, "pool": None}
# The pod's name for its claim on the pool's ComputeDomain channel (the EKS guide's and ADT's GB200 jobs name theirs likewise).
CHANNEL_CLAIM = "compute-domain-channel"
REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
# PodSets sharing a group are placed together (kubernetes-sigs/kueue keps/2724-topology-aware-scheduling,
# "Cross-PodSet Topology Aware scheduling"): a Neuron launcher is a worker and must land in the workers' domain.
PODSET_GROUP = "kueue.x-k8s.io/podset-group-name"
SWEEP = ("-b", "8", "-e", "16G", "-f", "2", "-g", "1", "-c", "1", "-n", "100")
MPIRUN = "/opt/amazon/openmpi/bin/mpirun"
ALL_REDUCE = "/opt/nccl-tests/build/all_reduce_perf"
NCCOM_TEST = "/opt/aws/neuron/bin/nccom-test"
NCCOM_SWEEP = "-b 8 -e 16G -f 2 -n 50 -w 5 -d fp32 allr"
# nccom-test's root rank listens here; the multi-instance example uses this port (nccom-test.rst @0f75c1e0).
ROOT_PORT = 45654
# The resource each vendor's device plugin advertises, and the image that carries its benchmark.
DEVICES = {"nvidia": ("nvidia.com/gpu", "nccl_tests"), "aws": ("aws.amazon.com/neuron", "neuron_collectives")}


def _views(blueprint: Blueprint, catalog: Catalog, pool: str) -> tuple[list[NodeGroupView], Any]:
    """The pool's node groups as Kubernetes sees them, and the layout (for its Kueue queue)."""
    layout = lay_out_kubernetes(blueprint, catalog)
    views = [view for view in layout.nodes if view.pool == pool]
    return views, layout


def _check(view: NodeGroupView, max_nodes: int, nodes: int, scope: str) -> None:
    """Refuse a job the design can't run: no GPU or Neuron device, more nodes than the pool, a scope the nodes have no label for."""
    if view.vendor not in DEVICES:
        raise ExpectationNeeds(f"pool {view.pool!r} ({view.spec.name}) has no NVIDIA GPU or Neuron device: there is no collective to test")
    if not 1 <= nodes <= max_nodes:
        raise ExpectationNeeds(f"--nodes {nodes}: pool {view.pool!r} has at most {max_nodes} nodes")
    if scope == "node" and nodes != 1:
        raise ExpectationNeeds(f"--scope node keeps the job on one node, but --nodes is {nodes}")
    if scope == "clique" and NVLINK_CLIQUE_LABEL not in view.scale_up_levels():
        raise ExpectationNeeds(
            f"--scope clique: pool {view.pool!r} ({view.spec.name}) has no NVLink clique label (no NVLink domain across instances)"
        )
    if scope == "clique" and view.spec.scale_up is not None and nodes > view.spec.scale_up.instances_per_domain:
        raise ExpectationNeeds(
            f"--scope clique keeps the job in one NVLink domain of {view.spec.scale_up.instances_per_domain} instances, but --nodes is {nodes}"
        )
    if scope == "layer3" and view.spec.topology_layers < 3:
        raise ExpectationNeeds(f"--scope layer3: AWS labels {view.spec.name} with {view.spec.topology_layers} network-node layer(s), not 3")


def _mpirun(nodes: int, gpus: int, ring: bool, nvlink: bool = False) -> list[str]:
    """The launcher's command: one rank per GPU, NCCL's log on, Ring forced for the network-bound run; in a ComputeDomain,
    NCCL's multi-node NVLink (and NVLink SHARP) on, as AWS's GB200 nccl-tests job sets them (awsome-distributed-training
    micro-benchmarks/nccl-tests/kubernetes/nccl-tests-gb200.yaml @02cfa27b)."""
    env = ["-x", "PATH", "-x", "LD_LIBRARY_PATH", "-x", "NCCL_DEBUG=INFO", "-x", "FI_PROVIDER=efa"]
    if nvlink:
        env += ["-x", "NCCL_MNNVL_ENABLE=1", "-x", "NCCL_NVLS_ENABLE=1"]
    if ring:
        env += ["-x", "NCCL_ALGO=Ring"]
    mca = ["--mca", "pml", "^ucx", "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_exclude", "lo,docker0,veth_def_agent"]
    return [
        MPIRUN,
        "--allow-run-as-root",
        "--tag-output",
        "-np",
        str(nodes * gpus),
        "-N",
        str(gpus),
        "--bind-to",
        "none",
        *env,
        *mca,
        ALL_REDUCE,
        *SWEEP,
    ]


def _nccom(nodes: int, ranks: int) -> list[str]:
    """The Neuron launcher's command: the hostfile's hosts (this node first), the root rank's address, one rank per NeuronCore."""
    script = (
        "set -e; hosts=$(cut -d' ' -f1 /etc/mpi/hostfile | tr '\\n' ' '); "
        f"export NEURON_RT_ROOT_COMM_ID=$(hostname -i):{ROOT_PORT}; "
        f"exec {NCCOM_TEST} -r {nodes * ranks} -N {nodes} {NCCOM_SWEEP} --hosts $hosts"
    )
    return ["/bin/bash", "-c", script]


def _worker(view: NodeGroupView, scope: str, command: list[str] | None = None, channel: str | None = None) -> dict[str, Any]:
    """A pod template on the pool's accepted nodes: every accelerator and EFA interface requested, /dev/shm in memory; with
    `channel`, the pool's ComputeDomain channel claimed (its ResourceClaimTemplate), so the node's IMEX daemon serves it."""
    resource, image = DEVICES[view.vendor or ""]
    requests = {resource: str(view.spec.accelerator_count)}
    if view.efa_interfaces:
        requests["vpc.amazonaws.com/efa"] = str(view.efa_interfaces)
    tolerations = [
        {"key": taint.key, "operator": "Equal", "value": taint.value, "effect": taint.effect} for taint in view.taints if taint.key not in HELD
    ]
    container: dict[str, Any] = {
        "name": "launcher" if command else "worker",
        "image": load_pins().image(image).reference,
        "resources": {"requests": requests, "limits": requests},
        "volumeMounts": [{"name": "shm", "mountPath": "/dev/shm"}],
    }
    if command:
        container["command"] = command
    if channel is not None:
        container["resources"]["claims"] = [{"name": CHANNEL_CLAIM}]
    metadata: dict[str, Any] = {}
    if SCOPES[scope] is not None:
        metadata["annotations"] = {REQUIRED_TOPOLOGY: SCOPES[scope]}
    spec = {
        "nodeSelector": {POOL_LABEL: view.pool},
        "tolerations": tolerations,
        "containers": [container],
        "volumes": [{"name": "shm", "emptyDir": {"medium": "Memory"}}],
    }
    if channel is not None:
        spec["resourceClaims"] = [{"name": CHANNEL_CLAIM, "resourceClaimTemplateName": channel}]
    return {"metadata": metadata, "spec": spec}


def fabric_jobs(blueprint: Blueprint, catalog: Catalog, pool: str, nodes: int | None = None, scope: str = "pool") -> list[dict[str, Any]]:
    """The pool's fabric test: two MPIJobs (default algorithm, then Ring) on NVIDIA, one nccom-test MPIJob on Neuron."""
    fabric_line(blueprint, catalog, pool)  # refuses a pool without EFA (and an unknown pool) with the reason
    views, layout = _views(blueprint, catalog, pool)
    spec = next(p for p in blueprint.pools if p.name == pool)
    count = nodes if nodes is not None else (1 if scope == "node" else min(2, spec.max_nodes))
    _check(views[0], spec.max_nodes, count, scope)
    if views[0].vendor == "aws":
        return [_neuron_job(views[0], layout, pool, count, scope)]
    gpus = views[0].spec.accelerator_count
    domains = layout.compute_domains.domains if layout.compute_domains is not None else ()
    channel = next((domain.channel_template for domain in domains if domain.pool == pool), None)
    jobs = []
    for run, ring in (("default", False), ("ring", True)):
        command = _mpirun(count, gpus, ring, nvlink=channel is not None)
        launcher = {"spec": {"containers": [{"name": "launcher", "image": load_pins().image("nccl_tests").reference, "command": command}]}}
        jobs.append(_mpijob(_metadata(f"nccl-{pool}-{run}", layout), gpus, launcher, count, _worker(views[0], scope, channel=channel)))
    return jobs


def _metadata(name: str, layout: Any) -> dict[str, Any]:
    """The job's name, and the cluster's LocalQueue when Kueue is on."""
    metadata: dict[str, Any] = {"name": name}
    if layout.kueue is not None:
        # The LocalQueue railyard makes is named after the ClusterQueue, in the workload namespace.
        metadata |= {"namespace": layout.kueue.namespace, "labels": {QUEUE_LABEL: layout.kueue.cluster_queue}}
    return metadata


def _mpijob(metadata: dict[str, Any], slots: int, launcher: dict[str, Any], workers: int, worker: dict[str, Any], **spec: Any) -> dict[str, Any]:
    """One MPIJob: a launcher, `workers` worker pods, `slots` ranks each, nothing restarted (a failed test is a result)."""
    return {
        "apiVersion": API_VERSION,
        "kind": "MPIJob",
        "metadata": metadata,
        "spec": {
            "slotsPerWorker": slots,
            **spec,
            "runPolicy": {"cleanPodPolicy": "Running", "backoffLimit": 0},
            "mpiImplementation": "OpenMPI",
            "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "restartPolicy": "Never", "template": launcher},
                "Worker": {"replicas": workers, "restartPolicy": "Never", "template": worker},
            },
        },
    }


def _neuron_job(view: NodeGroupView, layout: Any, pool: str, nodes: int, scope: str) -> dict[str, Any]:
    """The nccom-test MPIJob: the launcher is the first node (it runs nccom-test there), the other nodes are workers.

    Ranks per node are the node's NeuronCores as EC2 counts them (NeuronInfo); `NEURON_LOGICAL_NC_CONFIG=1`
    keeps the runtime's logical cores equal to them on Trainium2, whose default groups two into one.
    """
    accelerator = view.spec.accelerator
    assert accelerator is not None, "_check lets through only pools with a Neuron device"
    ranks = accelerator.count * (accelerator.neuron_cores or 1)
    launcher = _worker(view, scope, _nccom(nodes, ranks))
    worker = _worker(view, scope)
    for template in (launcher, worker):
        # FI_PROVIDER=efa: libfabric fails rather than falls back to TCP on a node whose EFA is missing.
        template["spec"]["containers"][0]["env"] = [{"name": "NEURON_LOGICAL_NC_CONFIG", "value": "1"}, {"name": "FI_PROVIDER", "value": "efa"}]
        if SCOPES[scope] is not None:
            template["metadata"]["annotations"][PODSET_GROUP] = f"nccom-{pool}"
    return _mpijob(_metadata(f"nccom-{pool}", layout), ranks, launcher, nodes - 1, worker, runLauncherAsWorker=True)
