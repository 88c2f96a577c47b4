"""The NVLink domain checks (acceptance/fabric.py) called on built GPU records, where mutation testing found them
unheld: each fault's words with its value missing (`N/A`), several faults on one GPU together, a cluster UUID that is
all zeros and dashes against one with a single non-zero digit, "Not Supported" health as healthy, two GPUs in
different domains, and C2C's words, each check with its exact expectation."""

from __future__ import annotations

import dataclasses

import pytest

from acceptance.expectation import Expectation
from acceptance.fabric import fabric_checks, fabric_fault
from acceptance.report import Checks
from acceptance.smi import Gpu

CLUSTER = "7d3a1c52-0c2e-4b8f-9f4e-3b1a2c6d8e90"
JOINED = Gpu(
    "00000009:01:00.0",
    "NVIDIA GB200",
    189471,
    True,
    0,
    False,
    False,
    False,
    1200.0,
    None,
    None,
    c2c_mode="Enabled",
    fabric_state="Completed",
    fabric_status="Success",
    clique_id="4026",
    cluster_uuid=CLUSTER,
    fabric_health="Healthy",
)
GB200 = Expectation(pool="gb", instance_type="p6e-gb200.36xlarge", accelerator_kind="gpu", nvlink_fabric=True, c2c=True)
FABRIC = "every GPU's fabric Completed with Success, a non-zero clique and cluster, not Unhealthy, one domain for all"


def _made(*gpus: Gpu) -> list[tuple[str, bool, str, str]]:
    checks = Checks(source="nvidia-smi -q")
    fabric_checks(GB200, list(enumerate(gpus)), checks)
    return [(c.name, c.passed, c.expected, c.observed) for c in checks.made]


def test_a_joined_healthy_gpu_passes_both_checks_in_these_words():
    assert _made(JOINED, JOINED) == [
        ("gpu.fabric", True, FABRIC, "Completed, clique 4026 on 2 GPUs"),
        ("gpu.c2c", True, "GPU C2C Mode Enabled on every GPU", "C2C Enabled on 2 GPUs"),
    ]


@pytest.mark.parametrize(
    ("change", "fault"),
    [
        ({"fabric_state": None}, "state N/A"),
        ({"fabric_status": None}, "status N/A"),
        ({"clique_id": None}, "clique N/A"),
        ({"clique_id": "0"}, "clique 0"),
        ({"cluster_uuid": None}, "cluster N/A"),
        ({"cluster_uuid": "00000000-0000-0000-0000-000000000000"}, "cluster 00000000-0000-0000-0000-000000000000"),
        ({"fabric_health": "Degraded Bandwidth"}, "health Degraded Bandwidth"),
        (
            {"fabric_state": "In Progress", "clique_id": "0", "cluster_uuid": None, "fabric_health": "Unhealthy"},
            "state In Progress, clique 0, cluster N/A, health Unhealthy",
        ),
    ],
)
def test_each_fault_is_named_in_its_words_and_several_on_one_gpu_together(change, fault):
    assert fabric_fault(dataclasses.replace(JOINED, **change)) == fault


@pytest.mark.parametrize("health", [None, "Healthy", "Not Supported"])
def test_a_cluster_with_one_non_zero_digit_and_a_health_not_reported_or_not_supported_are_no_fault(health):
    assert fabric_fault(dataclasses.replace(JOINED, cluster_uuid="00000000-0000-0000-0000-000000000001", fabric_health=health)) == ""


def test_two_gpus_joined_to_different_domains_fail_showing_each_gpus_clique_and_cluster():
    other = dataclasses.replace(JOINED, bus_id="00000019:01:00.0", clique_id="4027")
    assert _made(JOINED, other)[0] == (
        "gpu.fabric",
        False,
        FABRIC,
        f"2 NVLink domains: GPU 0 (00000009:01:00.0): clique 4026 of {CLUSTER}; GPU 1 (00000019:01:00.0): clique 4027 of {CLUSTER}",
    )


def test_a_gpu_that_never_joined_beside_one_that_did_is_named_as_a_fault_not_as_a_second_domain():
    lost = dataclasses.replace(JOINED, bus_id="00000019:01:00.0", fabric_state="Not Started", clique_id=None, cluster_uuid=None)
    assert _made(JOINED, lost)[0][1:] == (False, FABRIC, "GPU 1 (00000019:01:00.0): state Not Started, clique N/A, cluster N/A")


def test_c2c_disabled_or_unreported_fails_naming_the_gpu():
    assert _made(JOINED, dataclasses.replace(JOINED, bus_id="00000019:01:00.0", c2c_mode=None))[1] == (
        "gpu.c2c",
        False,
        "GPU C2C Mode Enabled on every GPU",
        "GPU 1 (00000019:01:00.0): C2C N/A",
    )
