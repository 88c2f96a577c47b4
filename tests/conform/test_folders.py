"""The test folders' own guard: every AWS file a test writes is checked against botocore's model of its operation."""

from __future__ import annotations

from tests.conform.clusters import P5
from tests.conform.folders import CHECKED_ENDS, CHECKED_WHOLE, documents, model_errors


def _instances(count: int) -> dict:
    """An answer of DescribeInstances with `count` instances, copies of P5's first."""
    [first, *_] = (item for reservation in documents(P5)["ec2-describe-instances.json"]["Reservations"] for item in reservation["Instances"])
    return {"Reservations": [{"ReservationId": "r-0123456789abcdef0", "OwnerId": "123456789012", "Instances": [dict(first) for _ in range(count)]}]}


def test_a_conforming_folder_passes_botocores_check():
    assert {name: model_errors(name, document) for name, document in documents(P5).items() if model_errors(name, document)} == {}


def test_a_wrong_member_is_found_anywhere_in_a_list_checked_whole():
    answer = _instances(CHECKED_WHOLE)
    answer["Reservations"][0]["Instances"][CHECKED_WHOLE // 2]["InstanceType"] = 5
    assert "Invalid type for parameter Reservations[0].Instances[128].InstanceType, value: 5" in model_errors("ec2-describe-instances.json", answer)


def test_a_longer_list_is_checked_by_its_ends_both_of_them():
    for index in (0, CHECKED_ENDS - 1, -CHECKED_ENDS, -1):
        answer = _instances(CHECKED_WHOLE + 1)
        answer["Reservations"][0]["Instances"][index]["InstanceType"] = 5
        assert "InstanceType, value: 5" in model_errors("ec2-describe-instances.json", answer), index
    # A member between the two ends is not read: what the check costs on rail-131k's 16,384 instances.
    answer = _instances(CHECKED_WHOLE + 1)
    answer["Reservations"][0]["Instances"][CHECKED_ENDS]["InstanceType"] = 5
    assert model_errors("ec2-describe-instances.json", answer) == ""


def test_a_file_no_aws_operation_answers_is_not_checked():
    assert model_errors("kubectl-get-nodes.json", {"items": "anything"}) == ""
