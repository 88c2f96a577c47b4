"""`railyard acceptance fabric` on a GB200 NVL72 pool: nccl-tests inside the pool's ComputeDomain, judged to an NVLink line.

The workers claim the ComputeDomain's channel (its ResourceClaimTemplate, `nvl72-nvlink-channel`) as the EKS guide's and AWS's
GB200 nccl-tests jobs do, with NCCL's multi-node NVLink on; `--scope clique` keeps them in one NVLink domain. The line inside a
domain is RING_FRACTION of one direction of a GPU's NVLink bandwidth (the catalog's 14,400 Gbps both ways: 0.8 x 900 = 720 GB/s).
"""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from blueprints.loader import load_blueprint
from railyard.cli import main
from railyard.expectations import ExpectationNeeds, fabric_line, nvlink_line
from tests.kubernetes.fixtures import EXAMPLES
from tests.kubernetes.k8s_types import conforms
from tests.kubernetes.test_fabric_job import CATALOG, P5, SCHEMA, closed, jobs

GB200 = str(EXAMPLES / "p6e-gb200-nvl72.yaml")


def test_each_worker_claims_the_pools_compute_domain_channel_and_nccl_uses_multi_node_nvlink():
    default, ring = jobs("nvl72", GB200, scope="clique", nodes=18)
    for job in (default, ring):
        jsonschema.validate(job, closed(SCHEMA))
        worker = job["spec"]["mpiReplicaSpecs"]["Worker"]
        pod = worker["template"]["spec"]
        assert pod["resourceClaims"] == [{"name": "compute-domain-channel", "resourceClaimTemplateName": "nvl72-nvlink-channel"}]
        assert pod["containers"][0]["resources"]["claims"] == [{"name": "compute-domain-channel"}]
        assert worker["replicas"] == 18
        assert worker["template"]["metadata"]["annotations"] == {"kueue.x-k8s.io/podset-required-topology": "nvidia.com/gpu.clique"}
        assert conforms(worker["template"], "core", "v1", "PodTemplateSpecArgsDict") == []
        command = job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"]
        assert "NCCL_MNNVL_ENABLE=1" in command and "NCCL_NVLS_ENABLE=1" in command
        assert command[command.index("-np") + 1] == "72" and command[command.index("-N") + 1] == "4"


def test_a_pool_without_a_compute_domain_claims_nothing_and_keeps_nccls_defaults():
    worker = jobs(scope="layer3")[0]["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
    assert "resourceClaims" not in worker and "claims" not in worker["containers"][0]["resources"]
    command = jobs(scope="layer3")[0]["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"]
    assert "NCCL_MNNVL_ENABLE=1" not in command


@pytest.mark.parametrize(
    ("pool", "example", "options", "message"),
    [
        ("nvl72", GB200, {"scope": "clique", "nodes": 19}, "--scope clique keeps the job in one NVLink domain of 18 instances, but --nodes is 19"),
        ("train", P5, {"scope": "clique"}, "--scope clique: pool 'train' \\(p5.48xlarge\\) has no NVLink clique label"),
    ],
)
def test_a_clique_run_the_design_cant_hold_is_refused(pool, example, options, message):
    with pytest.raises(ExpectationNeeds, match=message):
        jobs(pool, example, **options)


def test_the_nvlink_line_is_the_fraction_of_one_direction_of_a_gpus_nvlink_and_the_efa_line_stays_for_other_runs():
    blueprint = load_blueprint(GB200).blueprint
    line = nvlink_line(blueprint, CATALOG, "nvl72")
    assert (line.nvlink_gbps, line.fraction, line.line_gbs) == (14_400, 0.8, 720.0)
    assert line.header() == (
        "pool nvl72: line 720.0 GB/s = 0.8 x 14400 Gbps of NVLink per GPU / 2 directions / 8 (one NVLink domain; to calibrate on hardware)"
    )
    # Across domains the traffic between instances is EFA's: 4 x 400 Gbps.
    assert fabric_line(blueprint, CATALOG, "nvl72").line_gbs == 0.8 * 1600 / 8
    with pytest.raises(ExpectationNeeds, match="has no NVLink domain across instances"):
        nvlink_line(load_blueprint(P5).blueprint, CATALOG, "train")


@pytest.mark.parametrize(
    ("scope", "status", "header"),
    [
        ("clique", 1, "pool nvl72: line 720.0 GB/s = 0.8 x 14400 Gbps of NVLink per GPU / 2 directions / 8"),
        ("pool", 0, "pool nvl72: line 160.0 GB/s = 0.8 x 1600 Gbps of EFA / 8 (to calibrate on hardware)"),
    ],
)
def test_judge_holds_a_clique_run_to_the_nvlink_line_and_any_other_to_the_efa_line(capsys, scope, status, header):
    # A two-node p5 run's 437.79 GB/s clears GB200's EFA line and falls short of its NVLink one.
    log = Path(__file__).resolve().parents[1] / "acceptance" / "fixtures" / "nccl" / "p5-two-nodes-efa.log"
    assert main(["acceptance", "judge", str(log), GB200, "--pool", "nvl72", "--scope", scope]) == status
    assert capsys.readouterr().out.splitlines()[0].startswith(header)
