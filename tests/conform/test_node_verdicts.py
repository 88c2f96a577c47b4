"""`railyard conform`'s node verdicts (railyard/conform/nodes.py) at their edges, on p5's conforming folder (64 nodes
of 8 GPUs and 32 EFA devices each, desired and at most 64): a device the plugin does not advertise at all as well as
one advertised short, every instance present, exactly the design's count and one past it each way, an instance of
another type, zone or market, and the interfaces a launch gave beside those it lacks."""

from __future__ import annotations

import pytest

from tests.conform.clusters import P5, instance_id, node_name
from tests.conform.folders import find_instance, find_node
from tests.conform.test_judge import Documents, judged

GROUP = P5.groups[0]
WHERE = "pool 'train' (node group train-use1a, us-east-1a)"


def _findings(tmp_path, change, code: str):
    return [f for f in judged(P5, tmp_path, change).findings if f.code == code]


@pytest.mark.parametrize(
    ("advertised", "shown"),
    [(None, "0"), ("7", "7"), ("9", "9"), ("0", "0")],
    ids=["no-gpu-key-at-all", "one-short", "one-over", "zero"],
)
def test_a_node_advertising_other_than_its_8_gpus_is_an_error_naming_it(tmp_path, advertised, shown):
    def change(documents: Documents) -> None:
        allocatable = find_node(documents, node_name(GROUP, 2))["status"]["allocatable"]
        if advertised is None:
            del allocatable["nvidia.com/gpu"]
        else:
            allocatable["nvidia.com/gpu"] = advertised

    (finding,) = _findings(tmp_path, change, "conform.allocatable")
    assert (finding.severity, finding.path) == ("error", ("pools", 0))
    assert finding.message == (
        f"node {node_name(GROUP, 2)} ({instance_id(GROUP, 2)}) of {WHERE} advertises nvidia.com/gpu={shown}, the design expects 8"
    )
    assert (finding.certificate["resource"], finding.certificate["expected"], finding.certificate["observed"]) == ("nvidia.com/gpu", 8, shown)


def test_a_node_without_its_efa_devices_is_named_for_that_resource(tmp_path):
    def change(documents: Documents) -> None:
        del find_node(documents, node_name(GROUP, 4))["status"]["allocatable"]["vpc.amazonaws.com/efa"]

    (finding,) = _findings(tmp_path, change, "conform.allocatable")
    assert finding.certificate["resource"] == "vpc.amazonaws.com/efa" and finding.certificate["observed"] == "0"
    assert "advertises vpc.amazonaws.com/efa=0, the design expects 32" in finding.message


def _not_ready(documents: Documents, index: int) -> None:
    find_node(documents, node_name(GROUP, index))["status"]["conditions"] = [{"type": "Ready", "status": "False"}]


def test_every_node_ready_is_no_count_finding_and_one_not_ready_is_one_short(tmp_path):
    assert _findings(tmp_path / "all", None, "conform.node-count") == []
    (finding,) = _findings(tmp_path / "one", lambda documents: _not_ready(documents, 6), "conform.node-count")
    assert (finding.severity, finding.certificate["expected"], finding.certificate["observed"]) == ("error", 64, 63)
    assert finding.message == (
        f"{WHERE} has 63 Ready nodes, the design plans 64; instances without a Ready node: {instance_id(GROUP, 6)}; not Ready: {node_name(GROUP, 6)}"
    )
    assert finding.certificate["not_ready"] == [node_name(GROUP, 6)] and finding.certificate["instances"] == [instance_id(GROUP, 6)]


def test_a_node_over_the_designs_most_is_a_warning(tmp_path):
    def extra(documents: Documents) -> None:
        import copy

        nodes = documents["kubectl-get-nodes.json"]["items"]
        clone = copy.deepcopy(find_node(documents, node_name(GROUP, 0)))
        clone["metadata"]["name"] = "ip-10-0-99-99.ec2.internal"
        nodes.append(clone)

    (finding,) = _findings(tmp_path, extra, "conform.node-count")
    assert finding.severity == "warning"
    assert finding.message == f"{WHERE} has 65 Ready nodes, above the design's most (64)"
    assert (finding.certificate["expected"], finding.certificate["observed"]) == (64, 65)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("InstanceType", "p5e.48xlarge", "is a p5e.48xlarge, the design says p5.48xlarge"),
        ("Placement", {"AvailabilityZone": "us-east-1b", "AvailabilityZoneId": "use1-az6"}, "runs in us-east-1b, the design says us-east-1a"),
    ],
    ids=["type", "zone"],
)
def test_an_instance_of_another_type_or_zone_is_an_error(tmp_path, key, value, message):
    def change(documents: Documents) -> None:
        find_instance(documents, instance_id(GROUP, 8))[key] = value

    (finding,) = _findings(tmp_path, change, "conform.instance-type")
    assert finding.message == f"instance {instance_id(GROUP, 8)} of {WHERE} {message}"


def test_an_instance_bought_on_demand_in_a_capacity_block_pool_is_a_market_error(tmp_path):
    def change(documents: Documents) -> None:
        del find_instance(documents, instance_id(GROUP, 9))["InstanceLifecycle"]

    (finding,) = _findings(tmp_path, change, "conform.market")
    assert finding.message == f"instance {instance_id(GROUP, 9)} of {WHERE} is bought as on-demand, the design says capacity-block (CAPACITY_BLOCK)"
    assert (finding.certificate["expected"], finding.certificate["observed"]) == ("capacity-block", None)


def test_an_instance_in_no_reservation_is_a_capacity_error(tmp_path):
    def change(documents: Documents) -> None:
        del find_instance(documents, instance_id(GROUP, 10))["CapacityReservationId"]

    (finding,) = _findings(tmp_path, change, "conform.capacity")
    assert finding.message.startswith(f"instance {instance_id(GROUP, 10)} of {WHERE} runs outside its reservation: it is in no reservation")


def test_an_unplanned_efa_interface_is_named_beside_a_missing_one(tmp_path):
    def change(documents: Documents) -> None:
        instance = find_instance(documents, instance_id(GROUP, 12))
        card = next(item for item in instance["NetworkInterfaces"] if item["Attachment"]["NetworkCardIndex"] == 7)
        card["Attachment"]["NetworkCardIndex"] = 40

    (finding,) = _findings(tmp_path, change, "conform.efa-interfaces")
    assert finding.message.endswith(
        "has 32 EFA interfaces, the launch template gives 32; missing on network cards 7 (efa-only); unplanned on network cards 40 (efa-only)"
    )
    assert finding.certificate["missing_cards"] == [7]
