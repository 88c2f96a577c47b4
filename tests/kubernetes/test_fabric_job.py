"""`railyard acceptance fabric`: the pool's nccl-tests MPIJobs, held to the pinned MPIJob CRD and pulumi-kubernetes' pod types."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from blueprints.catalog import load_catalog
from blueprints.loader import load_blueprint
from railyard.cli import main
from railyard.expectations import ExpectationNeeds
from railyard.fabric_job import fabric_jobs
from tests.kubernetes.fixtures import EXAMPLES
from tests.kubernetes.k8s_types import conforms

CATALOG = load_catalog()
SCHEMA = json.loads((Path(__file__).parent / "mpijob_v2beta1.schema.json").read_text(encoding="utf-8"))
P5 = str(EXAMPLES / "p5-capacity-block.yaml")


def closed(schema):
    """The CRD schema with unknown fields refused: the API server would prune them silently, which hides a typo."""
    if isinstance(schema, dict):
        schema = {key: closed(value) for key, value in schema.items()}
        if "properties" in schema and "additionalProperties" not in schema:
            schema["additionalProperties"] = False
    return schema


def jobs(pool="train", example=P5, **options):
    return fabric_jobs(load_blueprint(example).blueprint, CATALOG, pool, **options)


def test_two_runs_default_then_ring_both_logging_nccl_and_only_the_ring_run_forces_the_algorithm():
    default, ring = jobs(scope="layer3")
    assert [default["metadata"]["name"], ring["metadata"]["name"]] == ["nccl-train-default", "nccl-train-ring"]
    commands = [job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"] for job in (default, ring)]
    assert all("NCCL_DEBUG=INFO" in command for command in commands)
    assert ["NCCL_ALGO=Ring" in command for command in commands] == [False, True]
    assert commands[0][commands[0].index("-np") + 1] == "16" and commands[0][commands[0].index("-N") + 1] == "8"


def test_workers_request_every_gpu_and_efa_interface_select_the_pool_tolerate_its_taints_but_not_acceptance():
    worker = jobs(scope="layer3")[0]["spec"]["mpiReplicaSpecs"]["Worker"]
    pod = worker["template"]["spec"]
    assert worker["replicas"] == 2
    assert pod["nodeSelector"] == {"railyard.dev/pool": "train"}
    assert pod["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"}
    assert [toleration["key"] for toleration in pod["tolerations"]] == ["nvidia.com/gpu"]
    assert worker["template"]["metadata"]["annotations"] == {"kueue.x-k8s.io/podset-required-topology": "topology.k8s.aws/network-node-layer-3"}


@pytest.mark.parametrize(("scope", "nodes", "annotation"), [("node", None, "kubernetes.io/hostname"), ("pool", 4, None)])
def test_the_scope_sets_kueues_required_topology(scope, nodes, annotation):
    worker = jobs(scope=scope, nodes=nodes)[1]["spec"]["mpiReplicaSpecs"]["Worker"]
    assert worker["replicas"] == (nodes or 1)
    assert worker["template"]["metadata"].get("annotations", {}).get("kueue.x-k8s.io/podset-required-topology") == annotation


def test_the_jobs_go_to_the_clusters_local_queue():
    metadata = jobs()[0]["metadata"]
    assert metadata == {"name": "nccl-train-default", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "p5-train"}}


def test_every_example_pool_with_efa_gets_jobs_valid_against_the_pinned_crd_and_pod_types():
    checked = 0
    for path in sorted(EXAMPLES.glob("*.yaml")):
        blueprint = load_blueprint(str(path)).blueprint
        for pool in blueprint.pools:
            try:
                made = fabric_jobs(blueprint, CATALOG, pool.name)
            except ExpectationNeeds:
                continue
            for job in made:
                jsonschema.validate(job, closed(SCHEMA))
                for role in ("Launcher", "Worker"):
                    assert conforms(job["spec"]["mpiReplicaSpecs"][role]["template"], "core", "v1", "PodTemplateSpecArgsDict") == [], path.stem
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"nodes": 65}, "--nodes 65: pool 'train' has at most 64 nodes"),
        ({"scope": "node", "nodes": 2}, "--scope node keeps the job on one node, but --nodes is 2"),
    ],
)
def test_a_job_the_design_cant_run_is_refused_with_the_reason(options, message):
    with pytest.raises(ExpectationNeeds, match=message):
        jobs(**options)


def test_a_pool_without_efa_is_refused():
    with pytest.raises(ExpectationNeeds, match="joins no EFA fabric"):
        jobs("gpu-inference", str(EXAMPLES / "ai-on-eks.yaml"))


def test_a_neuron_pool_gets_one_nccom_test_job_launched_from_its_first_node():
    (job,) = jobs("trainium", str(EXAMPLES / "heterogeneous.yaml"), scope="layer3")
    spec = job["spec"]
    assert job["metadata"]["name"] == "nccom-trainium"
    assert (spec["runLauncherAsWorker"], spec["slotsPerWorker"], spec["mpiReplicaSpecs"]["Worker"]["replicas"]) == (True, 128, 1)
    launcher = spec["mpiReplicaSpecs"]["Launcher"]["template"]
    command = launcher["spec"]["containers"][0]["command"][-1]
    assert "NEURON_RT_ROOT_COMM_ID=$(hostname -i):45654" in command
    assert command.endswith("/opt/aws/neuron/bin/nccom-test -r 256 -N 2 -b 8 -e 16G -f 2 -n 50 -w 5 -d fp32 allr --hosts $hosts")


def test_every_neuron_pod_requests_every_device_and_efa_interface_on_the_pool_with_the_scopes_topology():
    (job,) = jobs("ultra", str(EXAMPLES / "trn2-ultraserver.yaml"), scope="layer3")
    for role in ("Launcher", "Worker"):
        template = job["spec"]["mpiReplicaSpecs"][role]["template"]
        container = template["spec"]["containers"][0]
        assert container["image"] == "public.ecr.aws/neuron/pytorch-training-neuronx:2.9.0-neuronx-py312-sdk2.27.1-ubuntu24.04"
        assert container["resources"]["limits"] == {"aws.amazon.com/neuron": "16", "vpc.amazonaws.com/efa": "16"}
        assert container["env"] == [{"name": "NEURON_LOGICAL_NC_CONFIG", "value": "1"}, {"name": "FI_PROVIDER", "value": "efa"}]
        assert template["spec"]["nodeSelector"] == {"railyard.dev/pool": "ultra"}
        assert [toleration["key"] for toleration in template["spec"]["tolerations"]] == ["aws.amazon.com/neuron"]
        assert template["metadata"]["annotations"] == {
            "kueue.x-k8s.io/podset-required-topology": "topology.k8s.aws/network-node-layer-3",
            "kueue.x-k8s.io/podset-group-name": "nccom-ultra",  # the launcher lands in the workers' domain
        }


def test_a_one_node_neuron_test_has_no_worker_besides_the_launcher():
    (job,) = jobs("trainium", str(EXAMPLES / "heterogeneous.yaml"), scope="node")
    assert job["spec"]["mpiReplicaSpecs"]["Worker"]["replicas"] == 0
    assert "kueue.x-k8s.io/podset-group-name" in job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["metadata"]["annotations"]
    (anywhere,) = jobs("trainium", str(EXAMPLES / "heterogeneous.yaml"), scope="pool")
    assert anywhere["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["metadata"] == {}
    assert "-r 128 -N 1 " in job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"][-1]


def test_the_command_prints_the_two_jobs_as_one_yaml_stream(capsys):
    assert main(["acceptance", "fabric", P5, "--pool", "train", "--scope", "layer3"]) == 0
    printed = list(yaml.safe_load_all(capsys.readouterr().out))
    assert [job["metadata"]["name"] for job in printed] == ["nccl-train-default", "nccl-train-ring"]
