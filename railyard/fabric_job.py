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
anywhere in the pool (no constraint); the job goes to the cluster's LocalQueue when Kueue is on.

The image is the nccl-tests image AWS publishes (pins.yaml `nccl_tests`); mpirun's flags are the ones
AWS's EFA examples use (Open MPI's TCP byte-transfer layer for its own control traffic, NCCL over EFA).
"""

from __future__ import annotations

from typing import Any

from blueprints.catalog import Catalog
from blueprints.catalog.pins import load_pins
from blueprints.models import Blueprint
from railyard.expectations import ExpectationNeeds, fabric_line
from topology.cluster.kubernetes import lay_out_kubernetes
from topology.cluster.labels import ACCEPTANCE_KEY, GATE_TAINT_KEYS, HOSTNAME_LABEL, NETWORK_LAYER_LABEL, POOL_LABEL
from topology.cluster.scheduling import NodeGroupView

API_VERSION = "kubeflow.org/v2beta1"
# Taints a job never tolerates: the node gates' and acceptance's (a fabric test runs on nodes already let in).
HELD = GATE_TAINT_KEYS | {ACCEPTANCE_KEY}
SCOPES: dict[str, str | None] = {"node": HOSTNAME_LABEL, "layer3": NETWORK_LAYER_LABEL.format(3), "pool": None}
REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
SWEEP = ("-b", "8", "-e", "16G", "-f", "2", "-g", "1", "-c", "1", "-n", "100")
MPIRUN = "/opt/amazon/openmpi/bin/mpirun"
ALL_REDUCE = "/opt/nccl-tests/build/all_reduce_perf"


def _views(blueprint: Blueprint, catalog: Catalog, pool: str) -> tuple[list[NodeGroupView], Any]:
    """The pool's node groups as Kubernetes sees them, and the layout (for its Kueue queue)."""
    layout = lay_out_kubernetes(blueprint, catalog)
    views = [view for view in layout.nodes if view.pool == pool]
    return views, layout


def _check(view: NodeGroupView, max_nodes: int, nodes: int, scope: str) -> None:
    """Refuse a job the design can't run: not NVIDIA, more nodes than the pool, a scope the nodes have no label for."""
    if view.vendor != "nvidia":
        raise ExpectationNeeds(
            f"pool {view.pool!r} ({view.spec.name}) has no NVIDIA GPU: nccl-tests needs one (a Neuron nccom-test job is not built yet)"
        )
    if not 1 <= nodes <= max_nodes:
        raise ExpectationNeeds(f"--nodes {nodes}: pool {view.pool!r} has at most {max_nodes} nodes")
    if scope == "node" and nodes != 1:
        raise ExpectationNeeds(f"--scope node keeps the job on one node, but --nodes is {nodes}")
    if scope == "layer3" and view.spec.topology_layers < 3:
        raise ExpectationNeeds(f"--scope layer3: AWS labels {view.spec.name} with {view.spec.topology_layers} network-node layer(s), not 3")


def _mpirun(nodes: int, gpus: int, ring: bool) -> list[str]:
    """The launcher's command: one rank per GPU, NCCL's log on, Ring forced for the network-bound run."""
    env = ["-x", "PATH", "-x", "LD_LIBRARY_PATH", "-x", "NCCL_DEBUG=INFO", "-x", "FI_PROVIDER=efa"]
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


def _worker(view: NodeGroupView, scope: str) -> dict[str, Any]:
    """The worker pod template: on the pool's accepted nodes, every GPU and EFA interface requested, /dev/shm in memory."""
    requests = {"nvidia.com/gpu": str(view.spec.accelerator_count)}
    if view.efa_interfaces:
        requests["vpc.amazonaws.com/efa"] = str(view.efa_interfaces)
    tolerations = [
        {"key": taint.key, "operator": "Equal", "value": taint.value, "effect": taint.effect} for taint in view.taints if taint.key not in HELD
    ]
    container = {
        "name": "worker",
        "image": load_pins().image("nccl_tests").reference,
        "resources": {"requests": requests, "limits": requests},
        "volumeMounts": [{"name": "shm", "mountPath": "/dev/shm"}],
    }
    metadata: dict[str, Any] = {}
    if SCOPES[scope] is not None:
        metadata["annotations"] = {REQUIRED_TOPOLOGY: SCOPES[scope]}
    spec = {
        "nodeSelector": {POOL_LABEL: view.pool},
        "tolerations": tolerations,
        "containers": [container],
        "volumes": [{"name": "shm", "emptyDir": {"medium": "Memory"}}],
    }
    return {"metadata": metadata, "spec": spec}


def fabric_jobs(blueprint: Blueprint, catalog: Catalog, pool: str, nodes: int | None = None, scope: str = "pool") -> list[dict[str, Any]]:
    """The two MPIJobs (default algorithm, then Ring) of the pool's fabric test; `ExpectationNeeds` when the design can't run it."""
    fabric_line(blueprint, catalog, pool)  # refuses a pool without EFA (and an unknown pool) with the reason
    views, layout = _views(blueprint, catalog, pool)
    spec = next(p for p in blueprint.pools if p.name == pool)
    count = nodes if nodes is not None else (1 if scope == "node" else min(2, spec.max_nodes))
    _check(views[0], spec.max_nodes, count, scope)
    gpus = views[0].spec.accelerator_count
    kueue = layout.kueue
    jobs = []
    for run, ring in (("default", False), ("ring", True)):
        launcher = {
            "spec": {"containers": [{"name": "launcher", "image": load_pins().image("nccl_tests").reference, "command": _mpirun(count, gpus, ring)}]}
        }
        metadata: dict[str, Any] = {"name": f"nccl-{pool}-{run}"}
        if kueue is not None:
            # The LocalQueue railyard makes is named after the ClusterQueue, in the workload namespace.
            metadata |= {"namespace": kueue.namespace, "labels": {QUEUE_LABEL: kueue.cluster_queue}}
        jobs.append(
            {
                "apiVersion": API_VERSION,
                "kind": "MPIJob",
                "metadata": metadata,
                "spec": {
                    "slotsPerWorker": gpus,
                    "runPolicy": {"cleanPodPolicy": "Running", "backoffLimit": 0},
                    "mpiImplementation": "OpenMPI",
                    "mpiReplicaSpecs": {
                        "Launcher": {"replicas": 1, "restartPolicy": "Never", "template": launcher},
                        "Worker": {"replicas": count, "restartPolicy": "Never", "template": _worker(views[0], scope)},
                    },
                },
            }
        )
    return jobs
