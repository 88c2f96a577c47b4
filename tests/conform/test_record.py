"""`railyard conform --record`: the live read, through botocore's Stubber (each request and answer checked against
botocore's model, and any call not stubbed refused) and a fake kubectl on the command line."""

from __future__ import annotations

import dataclasses
import json
import stat
import sys
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from railyard.cli import main
from railyard.conform import CODES, conform
from railyard.online.account import READ_ONLY_CALLS, Account, ReadOnlyViolation
from railyard.online.cluster import CONFORM_CALLS, KUBECTL, _instances, _topology, cluster_role, iam_policy, record_cluster
from railyard.online.evidence import COMMANDS, read_evidence
from railyard.pipeline import validate
from tests.conform.clusters import P5
from tests.conform.folders import documents, write_folder

ROOT = Path(__file__).resolve().parents[2]
BLUEPRINT = ROOT / "blueprints" / "examples" / P5.blueprint


class StubbedSession:
    """A boto3 session whose clients are stubbed: a call nobody expected fails the test."""

    def __init__(self, region: str):
        session = boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name=region)
        self.clients = {service: session.client(service) for service in ("ec2", "eks", "fsx")}
        self.stubs = {service: Stubber(client) for service, client in self.clients.items()}

    def client(self, service: str, region_name: str, config: Any) -> Any:
        return self.clients[service]

    def __enter__(self) -> StubbedSession:
        for stub in self.stubs.values():
            stub.activate()
        return self

    def __exit__(self, *exc: object) -> None:
        for stub in self.stubs.values():
            stub.assert_no_pending_responses()
            stub.deactivate()


def fake_kubectl(tmp_path: Path, source: Path, failing: tuple[str, ...] = ()) -> Path:
    """A kubectl that prints the source folder's file for each `get KIND`, and fails for the kinds in `failing`."""
    files = {arguments[1]: name for name, arguments in KUBECTL.items()}
    script = tmp_path / "kubectl"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nkind = sys.argv[2]\n"
        f"if kind in {failing!r}:\n    sys.stderr.write('error: the server does not have resource type ' + kind)\n    sys.exit(1)\n"
        f"sys.stdout.write(open({str(source)!r} + '/' + {files!r}[kind]).read())\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def stub_p5(session: StubbedSession, answers: dict[str, dict[str, Any]]) -> None:
    """The calls recording the p5 cluster makes, in order, each with the parameters it must send."""
    ec2, eks, fsx = session.stubs["ec2"], session.stubs["eks"], session.stubs["fsx"]
    running = {"Name": "instance-state-name", "Values": ["pending", "running"]}
    tagged = [{"Name": "tag:eks:cluster-name", "Values": ["p5-train-prod"]}, running]
    ec2.add_response("describe_instances", answers["ec2-describe-instances.json"], {"Filters": tagged})
    karpenters = [{"Name": "tag:eks:eks-cluster-name", "Values": ["p5-train-prod"]}, running]
    ec2.add_response("describe_instances", {"Reservations": []}, {"Filters": karpenters})
    ids = sorted(item["InstanceId"] for reservation in answers["ec2-describe-instances.json"]["Reservations"] for item in reservation["Instances"])
    ec2.add_response("describe_instance_topology", answers["ec2-describe-instance-topology.json"], {"InstanceIds": ids})
    reservations = answers["ec2-describe-capacity-reservations.json"]
    ec2.add_response("describe_capacity_reservations", reservations, {"CapacityReservationIds": ["cr-0a1b2c3d4e5f60718"]})
    eks.add_response("describe_cluster", answers["eks-describe-cluster.json"], {"name": "p5-train-prod"})
    nodegroup = answers["eks-describe-nodegroup-train-use1a.json"]
    eks.add_response("describe_nodegroup", nodegroup, {"clusterName": "p5-train-prod", "nodegroupName": "train-use1a"})
    fsx.add_response("describe_file_systems", answers["fsx-describe-file-systems.json"], {})


def test_recording_makes_only_read_calls_and_writes_the_files_the_judge_reads(tmp_path):
    source = write_folder(P5, tmp_path / "source")
    answers = documents(P5)
    recorded = tmp_path / "recorded"
    with StubbedSession("us-east-1") as session:
        stub_p5(session, answers)
        failed = record_cluster(validate(str(BLUEPRINT)).blueprint, recorded, session=session, kubectl=str(fake_kubectl(tmp_path, source)))
    assert failed == []
    written = sorted(path.name for path in recorded.iterdir())
    assert written == sorted(path.name for path in source.iterdir())
    for name in KUBECTL:
        assert (recorded / name).read_bytes() == (source / name).read_bytes()
    for name in set(written) - set(KUBECTL):
        assert json.loads((recorded / name).read_text(encoding="utf-8")) == answers[name], name
    report = conform(validate(str(BLUEPRINT)), read_evidence(recorded))
    assert (report.ok, report.findings) == (True, [])


def test_instance_topology_is_asked_at_most_100_ids_a_call_and_follows_each_page(tmp_path):
    group = dataclasses.replace(P5.groups[0], count=150)
    placed = documents(dataclasses.replace(P5, groups=(group,)))["ec2-describe-instance-topology.json"]["Instances"]
    ids = [item["InstanceId"] for item in placed]
    with StubbedSession("us-east-1") as session:
        ec2 = session.stubs["ec2"]
        ec2.add_response("describe_instance_topology", {"Instances": placed[:60], "NextToken": "page-2"}, {"InstanceIds": ids[:100]})
        ec2.add_response("describe_instance_topology", {"Instances": placed[60:100]}, {"InstanceIds": ids[:100], "NextToken": "page-2"})
        ec2.add_response("describe_instance_topology", {"Instances": placed[100:]}, {"InstanceIds": ids[100:]})
        answer = _topology(Account(session, "us-east-1"), ids)
    assert [item["InstanceId"] for item in answer["Instances"]] == ids


def test_instances_are_found_by_either_cluster_tag_once_each_and_then_by_the_nodes_provider_ids():
    # Karpenter v1 tags its instances eks:eks-cluster-name, a managed node group's carry eks:cluster-name; one
    # instance carrying both is listed once, and a node's instance neither tag found is asked for by id.
    def reservation(*ids: str) -> dict[str, Any]:
        return {"ReservationId": "r-0a1b2c3d4e5f60718", "OwnerId": "111122223333", "Instances": [{"InstanceId": i} for i in ids]}

    running = {"Name": "instance-state-name", "Values": ["pending", "running"]}
    with StubbedSession("us-east-1") as session:
        ec2 = session.stubs["ec2"]
        ec2.add_response(
            "describe_instances",
            {"Reservations": [reservation("i-0a0000000000000a1")]},
            {"Filters": [{"Name": "tag:eks:cluster-name", "Values": ["c"]}, running]},
        )
        karpenter = {"Reservations": [reservation("i-0a0000000000000a1", "i-0a0000000000000b2")]}
        ec2.add_response("describe_instances", karpenter, {"Filters": [{"Name": "tag:eks:eks-cluster-name", "Values": ["c"]}, running]})
        ec2.add_response("describe_instances", {"Reservations": [reservation("i-0a0000000000000c3")]}, {"InstanceIds": ["i-0a0000000000000c3"]})
        answer = _instances(Account(session, "us-east-1"), "c", ["i-0a0000000000000b2", "i-0a0000000000000c3"])
    found = [item["InstanceId"] for reservation in answer["Reservations"] for item in reservation["Instances"]]
    assert found == ["i-0a0000000000000a1", "i-0a0000000000000b2", "i-0a0000000000000c3"]


def test_an_instance_not_yet_running_has_no_network_nodes_and_is_not_a_mismatch(tmp_path):
    def pending(answers: dict[str, dict[str, Any]]) -> None:
        answers["ec2-describe-instance-topology.json"]["Instances"][0]["NetworkNodes"] = []

    report = conform(validate(str(BLUEPRINT)), read_evidence(write_folder(P5, tmp_path, pending)))
    assert report.findings == []


def test_conform_calls_are_all_in_the_read_only_table_and_a_write_is_refused():
    assert {call for call in CONFORM_CALLS if call not in READ_ONLY_CALLS} == set()
    assert {operation for _, operation in CONFORM_CALLS if not operation.startswith("Describe")} == set()
    with pytest.raises(ReadOnlyViolation, match="ec2:TerminateInstances is not a read-only call railyard makes"):
        Account(object(), "us-east-1").call("ec2", "TerminateInstances", InstanceIds=["i-0a000000000000001"])


def test_a_kind_kubectl_cant_read_is_left_out_and_its_checks_say_so(tmp_path):
    source = write_folder(P5, tmp_path / "source")
    recorded = tmp_path / "recorded"
    with StubbedSession("us-east-1") as session:
        stub_p5(session, documents(P5))
        kubectl = fake_kubectl(tmp_path, source, failing=("topologies.kueue.x-k8s.io",))
        failed = record_cluster(validate(str(BLUEPRINT)).blueprint, recorded, session=session, kubectl=str(kubectl))
    assert failed == [f"{kubectl} get topologies.kueue.x-k8s.io -o json: error: the server does not have resource type topologies.kueue.x-k8s.io"]
    report = conform(validate(str(BLUEPRINT)), read_evidence(recorded))
    assert [(finding.code, finding.certificate["files"]) for finding in report.findings] == [("conform.not-checked", ["kubectl-get-topologies.json"])]


def test_an_unreachable_account_records_no_aws_file_and_says_so(tmp_path):
    source = write_folder(P5, tmp_path / "source")
    recorded = tmp_path / "recorded"
    with pytest.MonkeyPatch.context() as patch:
        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
            patch.delenv(name, raising=False)
        patch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
        patch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
        patch.setenv("AWS_EC2_METADATA_DISABLED", "true")
        failed = record_cluster(validate(str(BLUEPRINT)).blueprint, recorded, kubectl=str(fake_kubectl(tmp_path, source)))
    assert len(failed) == 1 and failed[0].startswith("the account could not be reached in us-east-1 (NoCredentials")
    assert sorted(path.name for path in recorded.iterdir()) == sorted(KUBECTL)


def test_docs_give_the_iam_policy_and_the_cluster_role_the_code_needs():
    text = (ROOT / "docs" / "conform.md").read_text(encoding="utf-8")
    assert json.dumps(iam_policy(), indent=2) in text
    assert json.dumps(cluster_role(), indent=2) in text


def test_the_command_records_the_live_cluster_and_judges_what_it_recorded(tmp_path, monkeypatch, capsys):
    import railyard.online.cluster

    source = write_folder(P5, tmp_path / "source")
    with StubbedSession("us-east-1") as session:
        stub_p5(session, documents(P5))
        monkeypatch.setattr(railyard.online.cluster, "open_account", lambda region, profile, given: Account(session, region))
        argv = ["conform", str(BLUEPRINT), "--record", str(tmp_path / "evidence"), "--kubectl", str(fake_kubectl(tmp_path, source)), "--json"]
        assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["ok"], report["findings"], report["evidence"]) == (True, [], str(tmp_path / "evidence"))
    assert sorted(path.name for path in (tmp_path / "evidence").iterdir()) == sorted(path.name for path in source.iterdir())


@pytest.mark.parametrize(("what", "document"), [("iam-policy", iam_policy()), ("cluster-role", cluster_role())])
def test_the_command_prints_the_permissions_the_live_read_needs(what, document, capsys):
    assert main(["conform", "--print", what]) == 0
    assert json.loads(capsys.readouterr().out) == document


def test_from_and_record_together_are_refused(tmp_path, capsys):
    assert main(["conform", str(BLUEPRINT), "--from", str(tmp_path), "--record", str(tmp_path)]) == 2
    assert "not both" in capsys.readouterr().err


def test_the_cluster_role_grants_only_get_and_list_on_what_kubectl_reads():
    role = cluster_role()
    assert {verb for rule in role["rules"] for verb in rule["verbs"]} == {"get", "list"}
    granted = {resource.split(".")[0] for rule in role["rules"] for resource in rule["resources"]}
    assert granted == {arguments[1].split(".")[0] for arguments in KUBECTL.values()}


def test_docs_list_every_file_of_the_folder_with_the_command_that_prints_it():
    text = (ROOT / "docs" / "conform.md").read_text(encoding="utf-8")
    assert [name for name, command in COMMANDS.items() if f"| `{name}` | `{command}` |" not in text] == []
    assert [code for code in CODES if f"`{code}`" not in text] == []
