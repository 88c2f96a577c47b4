"""The checker's command line (acceptance/__main__.py) run in-process, where mutation testing found it unheld: each
action's and option's help words, the exit status and output of `check` on a passing and a failing folder (text and
JSON), what `record` and `run` say of each file, each refusal with its message and status 2 (an expectation that
can't be read or parsed, a missing folder, `--replace-on-failure` without `--publish`, publishing outside a pod), and
`rdma-devices` reading the sysfs it is given."""

from __future__ import annotations

import json
import os
import re

import pytest

from acceptance import __main__ as checker
from acceptance.kube import ApiError
from acceptance.replace import Replacement
from tests.acceptance.evidence import real_folder

XID = "NVRM: Xid (PCI:0000:00:06): 79, pid=1, GPU has fallen off the bus.\n"


def _help(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as stopped:
        checker.main([*argv, "--help"])
    assert stopped.value.code == 0
    return re.sub(r"\s+", " ", capsys.readouterr().out)


def test_each_action_and_option_is_described_in_the_help(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    top = _help(capsys)
    assert "usage: python -m acceptance [-h] {record,check,run,rdma-devices} ..." in top
    assert "Accept a node against its pool's design." in top
    for action, words in (
        ("record", "run the commands and write their output into a folder"),
        ("check", "judge a folder of recorded outputs"),
        ("run", "record, then judge"),
        ("rdma-devices", "list the RDMA devices in sysfs and the driver bound to each (the EFA evidence)"),
    ):
        assert f"{action} {words}" in top
    check = _help(capsys, "check")
    for option in (
        "--expect FILE the expectation JSON",
        "--from DIR the evidence folder",
        "--json print the report as JSON",
        "--publish NODE write the verdict on this node (in-cluster service account)",
        "--lift-taint with --publish: remove the acceptance taint when the node passed",
        "--replace-on-failure with --publish: mark a failed node's instance Unhealthy in its Auto Scaling group",
        "--autoscaling-endpoint URL Auto Scaling's endpoint (default: the region's, from AWS_REGION)",
    ):
        assert option in check
    record = _help(capsys, "record")
    assert "--into DIR the evidence folder" in record
    assert "--publish" not in record
    assert "--into DIR" in _help(capsys, "run")
    devices = _help(capsys, "rdma-devices")
    assert "--sys DIR the sysfs to read (default: /host/sys where the checker pod mounts the host's, else /sys)" in devices


def test_check_exits_0_on_a_passing_folder_1_on_a_failing_one_printing_the_report_as_text_or_json(tmp_path, capsys):
    folder = real_folder(tmp_path)
    expect = str(folder / "expectation.json")
    assert checker.main(["check", "--expect", expect, "--from", str(folder)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "ACCEPTED"
    (folder / "dmesg.txt").write_text(XID, encoding="utf-8")
    assert checker.main(["check", "--expect", expect, "--from", str(folder), "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert (document["passed"], document["failed"]) == (False, ["gpu.xid"])


def test_record_writes_each_files_outcome_and_run_then_judges_the_folder(tmp_path, capsys, monkeypatch):
    folder = real_folder(tmp_path)
    expect = str(folder / "expectation.json")
    asked = []

    def record(expectation, into):
        asked.append((expectation.pool, into))
        return {"nvidia-smi-q.xml": "written (exit status 0)", "dmesg.txt": "not written: dmesg could not run (Permission denied)"}

    monkeypatch.setattr(checker, "record", record)
    assert checker.main(["record", "--expect", expect, "--into", str(folder)]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        "nvidia-smi-q.xml: written (exit status 0)",
        "dmesg.txt: not written: dmesg could not run (Permission denied)",
    ]
    assert captured.out == ""
    assert checker.main(["run", "--expect", expect, "--into", str(folder)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "ACCEPTED"
    assert [into for _, into in asked] == [folder, folder]


def test_each_refusal_says_why_and_exits_2(tmp_path, capsys, monkeypatch):
    folder = real_folder(tmp_path)
    absent = tmp_path / "absent.json"
    assert checker.main(["check", "--expect", str(absent), "--from", str(folder)]) == 2
    assert capsys.readouterr().err == f"{absent}: can't read the expectation: No such file or directory\n"
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    assert checker.main(["check", "--expect", str(broken), "--from", str(folder)]) == 2
    assert capsys.readouterr().err == f"{broken}: not JSON: Expecting property name enclosed in double quotes at line 1 column 2\n"
    assert checker.main(["check", "--expect", str(folder / "expectation.json"), "--from", str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err == f"{tmp_path / 'nowhere'}: no such folder\n"
    with pytest.raises(SystemExit) as stopped:
        checker.main(["check", "--expect", str(folder / "expectation.json"), "--from", str(folder), "--replace-on-failure"])
    assert stopped.value.code == 2
    assert "--replace-on-failure needs --publish NODE: the verdict goes on the node before its instance is replaced" in capsys.readouterr().err
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    assert checker.main(["check", "--expect", str(folder / "expectation.json"), "--from", str(folder), "--publish", "ip-10-0-0-1"]) == 2
    assert capsys.readouterr().err == (
        "can't publish the verdict on node ip-10-0-0-1: not in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are unset\n"
    )


def test_rdma_devices_lists_the_sysfs_it_is_given(tmp_path, capsys):
    device = tmp_path / "class" / "infiniband" / "rdmap16s27" / "device"
    device.mkdir(parents=True)
    (device / "driver").symlink_to("../../../bus/pci/drivers/efa")
    assert checker.main(["rdma-devices", "--sys", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"# {tmp_path}/class/infiniband: each RDMA device and the kernel driver bound to it\nrdmap16s27 efa\n"


def test_a_failed_published_node_asked_to_be_replaced_exits_1_when_requested_and_3_when_not(tmp_path, capsys, monkeypatch):
    folder = real_folder(tmp_path)
    (folder / "dmesg.txt").write_text(XID, encoding="utf-8")
    argv = ["check", "--expect", str(folder / "expectation.json"), "--from", str(folder), "--publish", "n1", "--replace-on-failure"]
    outcomes = [Replacement("i-0123456789abcdef0", True), Replacement(None, False, "AWS_REGION is unset")]
    asked = []

    def replace_node(api, node, report, environ, endpoint):
        asked.append((api, node, report.failed, endpoint))
        return outcomes.pop(0)

    monkeypatch.setattr(checker.NodeApi, "in_cluster", classmethod(lambda cls: "api"))
    monkeypatch.setattr(checker, "publish", lambda report, node, api, lift: False)
    monkeypatch.setattr(checker, "replace_node", replace_node)
    assert checker.main([*argv, "--autoscaling-endpoint", "http://as.local/"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "published on node n1",
        "node n1: instance i-0123456789abcdef0 marked Unhealthy: its Auto Scaling group replaces it",
    ]
    assert checker.main(argv) == 3
    assert capsys.readouterr().err.splitlines()[-1] == "node n1: replacement not requested: AWS_REGION is unset"
    assert asked == [("api", "n1", ("gpu.xid",), "http://as.local/"), ("api", "n1", ("gpu.xid",), None)]

    def unwritable(api, node, report, environ, endpoint):
        raise ApiError("PATCH", "/api/v1/nodes/n1", 403, "forbidden")

    monkeypatch.setattr(checker, "replace_node", unwritable)
    assert checker.main(argv) == 3
    assert capsys.readouterr().err.splitlines()[-1] == (
        "node n1 failed, but the replacement's outcome can't be written on it: PATCH /api/v1/nodes/n1: HTTP 403: forbidden"
    )


def test_a_passed_node_is_published_with_its_taint_lifted_and_never_replaced(tmp_path, capsys, monkeypatch):
    folder = real_folder(tmp_path)
    argv = ["check", "--expect", str(folder / "expectation.json"), "--from", str(folder), "--publish", "n1", "--lift-taint", "--replace-on-failure"]
    lifts = []
    monkeypatch.setattr(checker.NodeApi, "in_cluster", classmethod(lambda cls: "api"))
    monkeypatch.setattr(checker, "publish", lambda report, node, api, lift: lifts.append(lift) or True)
    monkeypatch.setattr(checker, "replace_node", lambda *args: pytest.fail("a passed node is never replaced"))
    assert checker.main(argv) == 0
    assert capsys.readouterr().err == "published on node n1; taint lifted\n"
    assert lifts == [True]


def test_the_help_opens_with_the_checkers_purpose_word_for_word(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert " {record,check,run,rdma-devices} ... Accept a node against its pool's design. positional arguments: " in _help(capsys)


def _refused(capsys, argv: list[str]) -> str:
    """The last line argparse prints when it refuses `argv` (exit status 2)."""
    with pytest.raises(SystemExit) as stopped:
        checker.main(argv)
    assert stopped.value.code == 2
    return capsys.readouterr().err.splitlines()[-1]


def test_an_action_its_expectation_and_its_folder_are_each_required(tmp_path, capsys):
    expect, folder = str(tmp_path / "expectation.json"), str(tmp_path)
    assert _refused(capsys, []) == "python -m acceptance: error: the following arguments are required: action"
    assert _refused(capsys, ["check", "--from", folder]) == "python -m acceptance check: error: the following arguments are required: --expect"
    assert _refused(capsys, ["check", "--expect", expect]) == "python -m acceptance check: error: the following arguments are required: --from"
    assert _refused(capsys, ["record", "--expect", expect]) == "python -m acceptance record: error: the following arguments are required: --into"
    assert _refused(capsys, ["run", "--into", folder]) == "python -m acceptance run: error: the following arguments are required: --expect"


def test_replace_on_failure_without_publish_is_refused_in_these_words(tmp_path, capsys):
    folder = real_folder(tmp_path)
    argv = ["check", "--expect", str(folder / "expectation.json"), "--from", str(folder), "--replace-on-failure"]
    assert _refused(capsys, argv) == (
        "python -m acceptance: error: --replace-on-failure needs --publish NODE: the verdict goes on the node before its instance is replaced"
    )


def test_rdma_devices_without_sys_reads_the_default_sysfs(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(checker, "default_sys_root", lambda: tmp_path)
    assert checker.main(["rdma-devices"]) == 0
    assert capsys.readouterr().out.startswith(f"# {tmp_path}/class/infiniband: ")


def test_the_verdict_is_published_on_the_named_node_with_the_pods_client_and_the_replacement_reads_the_pods_environment(
    tmp_path, capsys, monkeypatch
):
    folder = real_folder(tmp_path)
    (folder / "dmesg.txt").write_text(XID, encoding="utf-8")
    published, environments = [], []

    def replace_node(api, node, report, environ, endpoint):
        environments.append(environ)
        return Replacement("i-0123456789abcdef0", True)

    monkeypatch.setattr(checker.NodeApi, "in_cluster", classmethod(lambda cls: "api"))
    monkeypatch.setattr(checker, "publish", lambda report, node, api, lift: published.append((report.failed, node, api, lift)) or False)
    monkeypatch.setattr(checker, "replace_node", replace_node)
    argv = ["check", "--expect", str(folder / "expectation.json"), "--from", str(folder), "--publish", "n1", "--replace-on-failure"]
    assert checker.main(argv) == 1
    assert published == [(("gpu.xid",), "n1", "api", False)]
    assert environments == [os.environ]
    assert environments[0] is os.environ
