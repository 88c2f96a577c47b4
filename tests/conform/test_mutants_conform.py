"""railyard/conform/__init__.py: what `railyard conform` does around the checks. A blueprint with errors (or none) is
reported as it is and nothing is judged; one that can't be planned gives `compile.plan` at its line; otherwise every
check runs, in the report's order, each finding placed at its blueprint line; a document in another shape than the AWS
CLI's or kubectl's is one `conform.not-checked` naming the check and the error, for each kind of error a reader raises,
and any other error is not hidden; the verdict is ok while no finding is an error."""

from __future__ import annotations

import dataclasses

import pytest

import railyard.conform as conform_module
from blueprints.findings import error, info, warning
from railyard.conform import CHECKS, ConformReport, _guarded, conform
from railyard.online.evidence import Evidence
from railyard.pipeline import validate
from tests.conform.judges import EXAMPLES, judge, planned
from topology.cluster import PlanError

P5 = str(EXAMPLES / "p5-capacity-block.yaml")
VALIDATION = validate(P5)
NAMES = [
    "node-count",
    "instances",
    "efa-interfaces",
    "allocatable",
    "topology-labels",
    "placement",
    "ultraserver",
    "nvlink-cliques",
    "cluster",
    "node-groups",
    "daemonsets",
    "dra-plugin",
    "dra-controller",
    "compute-domains",
    "node-gates",
    "kueue",
    "storage",
]


def test_every_check_runs_in_the_reports_order_and_its_findings_are_placed_at_their_lines():
    report = conform(VALIDATION, Evidence("empty", {}))
    assert (report.file, report.stack, report.folder, report.cluster) == (P5, None, "empty", "p5-train-prod")
    assert report.checks == NAMES == [name for name, _ in CHECKS]
    # Placed at the blueprint's lines (pools: 39, storage: 62, kubernetes: 88, its Kueue setting: 100) and sorted by them.
    assert [(finding.certificate["check"], finding.line) for finding in report.findings] == [
        ("the EFA interfaces", 39),
        ("the instances' type, capacity and market", 39),
        ("the node count", 39),
        ("the node gates", 39),
        ("the nodes' allocatable devices", 39),
        ("the placement", 39),
        ("the topology labels", 39),
        ("node group train-use1a", 39),
        ("the file systems", 62),
        ("the DaemonSets", 88),
        ("the EKS cluster", 88),
        ("Kueue's Topologies", 100),
    ]
    assert {finding.code for finding in report.findings} == {"conform.not-checked"}
    assert not report.ok


def test_a_blueprint_with_errors_is_reported_as_it_is_and_nothing_is_judged():
    refused = error("pool.nodes", ("pools", 0), "the pool is wrong")
    invalid = dataclasses.replace(VALIDATION, findings=[refused])
    report = conform(invalid, Evidence("empty", {}))
    assert (report.findings, report.checks, report.cluster) == ([refused], [], None)


def test_a_blueprint_that_did_not_load_is_reported_as_it_is():
    notes = [info("x.note", ("pools",), "a note")]
    unloaded = dataclasses.replace(VALIDATION, load=dataclasses.replace(VALIDATION.load, blueprint=None), findings=notes)
    report = conform(unloaded, Evidence("empty", {}))
    assert (report.findings, report.checks, report.cluster) == (notes, [], None)


def test_a_blueprint_that_cannot_be_planned_gives_compile_plan_at_its_line(monkeypatch):
    def refuse(blueprint, catalog):
        raise PlanError("the VPC is too small for the pools", ("cloud", "vpc_cidr"))

    monkeypatch.setattr(conform_module, "plan_cluster", refuse)
    note = warning("x.note", ("pools",), "a warning")
    report = conform(dataclasses.replace(VALIDATION, findings=[note]), Evidence("empty", {}))
    assert report.checks == [] and report.cluster is None
    first, planned_finding = report.findings
    assert first == note
    assert (planned_finding.code, planned_finding.severity, planned_finding.path) == ("compile.plan", "error", ("cloud", "vpc_cidr"))
    assert (planned_finding.message, planned_finding.hint) == ("the VPC is too small for the pools", "change the blueprint so it can be compiled")
    assert planned_finding.file == P5 and planned_finding.line is not None


@pytest.mark.parametrize(
    ("raised", "words"),
    [
        (KeyError("Reservations"), "KeyError: 'Reservations'"),
        (TypeError("string indices must be integers"), "TypeError: string indices must be integers"),
        (AttributeError("'list' object has no attribute 'get'"), "AttributeError: 'list' object has no attribute 'get'"),
        (ValueError("invalid literal for int()"), "ValueError: invalid literal for int()"),
        (IndexError("list index out of range"), "IndexError: list index out of range"),
    ],
    ids=["key", "type", "attribute", "value", "index"],
)
def test_a_document_in_another_shape_is_one_not_checked_finding_naming_the_check_and_the_error(raised, words):
    def check(_judge):
        raise raised

    (found,) = _guarded("placement", check, judge(planned("p5-capacity-block.yaml"), {}))
    assert found.as_json() == {
        "code": "conform.not-checked",
        "severity": "error",
        "path": "pools",
        "file": None,
        "line": None,
        "column": None,
        "message": f"could not check placement: a file of evidence is not in the shape the AWS CLI or kubectl prints ({words})",
        "hint": "record the folder again with `railyard conform --record DIR`, or fix the hand-made file (docs/conform.md lists the shapes)",
        "certificate": {"check": "placement"},
    }


def test_another_error_of_a_check_is_not_hidden():
    def check(_judge):
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError, match="a bug"):
        _guarded("placement", check, judge(planned("p5-capacity-block.yaml"), {}))


def test_a_check_that_returns_findings_is_passed_through():
    note = info("x.note", ("pools",), "a note")
    assert _guarded("placement", lambda _judge: [note], judge(planned("p5-capacity-block.yaml"), {})) == [note]


def test_the_report_is_ok_until_a_finding_is_an_error_and_its_json_says_so():
    report = ConformReport("b.yaml", "prod", "folder", "c", [warning("x.w", ("pools",), "w"), info("x.i", ("pools",), "i")], ["node-count"])
    assert report.ok
    assert report.as_json() == {
        "blueprint": "b.yaml",
        "stack": "prod",
        "evidence": "folder",
        "cluster": "c",
        "ok": True,
        "checks": ["node-count"],
        "findings": [finding.as_json() for finding in report.findings],
        "summary": {"error": 0, "warning": 1, "info": 1},
    }
    report.findings.append(error("x.e", ("pools",), "e"))
    assert not report.ok and report.as_json()["ok"] is False


def test_the_report_names_the_stack_judged():
    report = conform(dataclasses.replace(VALIDATION, stack="prod"), Evidence("empty", {}))
    assert (report.stack, report.as_json()["stack"]) == ("prod", "prod")


def test_a_check_that_meets_a_document_of_another_shape_is_named_in_the_report(monkeypatch):
    def misread(_judge):
        raise KeyError("InstanceId")

    monkeypatch.setattr(conform_module, "CHECKS", (("instances", misread),))
    report = conform(VALIDATION, Evidence("folder", {}))
    (found,) = report.findings
    assert report.checks == ["instances"]
    assert found.message == "could not check instances: a file of folder is not in the shape the AWS CLI or kubectl prints (KeyError: 'InstanceId')"
    assert (found.certificate, found.line) == ({"check": "instances"}, 39)
