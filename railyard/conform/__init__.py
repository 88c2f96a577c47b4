"""`railyard conform`: is the running cluster what the blueprint says? Judged read-only, from evidence.

The evidence is a folder of recorded answers (`railyard.online.evidence`), read live by
`railyard.online.cluster` (`--record`) or handed in (`--from`). What it is compared with is the plan
`preview` compiles (`topology.cluster.plan_cluster`, planned as the Capacity Blocks run), read as an
`Expectation`; never a second model of the cluster. Every check returns findings in the one Finding
type, placed at the pool's (or the setting's) line in the blueprint; a check whose evidence is
missing says it could not run (`conform.not-checked`, an error), never passes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import TYPE_CHECKING, Any

from blueprints.catalog import load_catalog
from blueprints.findings import Finding, error, has_errors, sort_findings, summarize
from blueprints.records import record
from railyard.conform import cluster, fabric, nodes
from railyard.conform.base import NOT_CHECKED, Judge
from railyard.conform.expected import expect
from railyard.online.evidence import Evidence
from topology.cluster import PlanError, plan_cluster

if TYPE_CHECKING:
    from railyard.pipeline import Validation

CODES = (NOT_CHECKED, *nodes.CODES, *fabric.CODES, *cluster.CODES)
# In the order a report reads: the nodes, where they sit, then what runs on them.
CHECKS: tuple[tuple[str, Callable[[Judge], list[Finding]]], ...] = (
    ("node-count", nodes.check_counts),
    ("instances", nodes.check_instances),
    ("efa-interfaces", nodes.check_efa),
    ("allocatable", nodes.check_allocatable),
    ("topology-labels", fabric.check_labels),
    ("placement", fabric.check_placement),
    ("ultraserver", fabric.check_ultraservers),
    ("cluster", cluster.check_cluster),
    ("node-groups", cluster.check_node_groups),
    ("daemonsets", cluster.check_daemonsets),
    ("kueue", cluster.check_kueue),
    ("storage", cluster.check_storage),
)


@record(frozen=False)
class ConformReport:
    """The verdict on one folder of evidence: the blueprint's findings (if it didn't validate) or the conformance findings."""

    file: str
    stack: str | None
    folder: str
    cluster: str | None
    findings: list[Finding] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no finding is an error."""
        return not has_errors(self.findings)

    def as_json(self) -> dict[str, Any]:
        """The `conform --json` document; it holds nothing that changes between two judgements of one folder."""
        return {
            "blueprint": self.file,
            "stack": self.stack,
            "evidence": self.folder,
            "cluster": self.cluster,
            "ok": self.ok,
            "checks": self.checks,
            "findings": [finding.as_json() for finding in self.findings],
            "summary": summarize(self.findings),
        }


def _guarded(name: str, check: Callable[[Judge], list[Finding]], judge: Judge) -> list[Finding]:
    """The check's findings; when a document isn't in the shape the AWS CLI or kubectl prints, the one finding that says so."""
    try:
        return check(judge)
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
        return [
            error(
                NOT_CHECKED,
                ("pools",),
                f"could not check {name}: a file of {judge.evidence.folder} is not in the shape the AWS CLI or kubectl prints "
                f"({type(exc).__name__}: {exc})",
                "record the folder again with `railyard conform --record DIR`, or fix the hand-made file (docs/conform.md lists the shapes)",
                check=name,
            )
        ]


def conform(validation: Validation, evidence: Evidence) -> ConformReport:
    """Judge `evidence` against a validation's blueprint; a blueprint with errors is reported as it is, unjudged."""
    report = ConformReport(validation.file, validation.stack, evidence.folder, None)
    blueprint = validation.blueprint
    if blueprint is None or not validation.ok:
        report.findings = list(validation.findings)
        return report
    catalog = load_catalog()
    try:
        plan = plan_cluster(blueprint, catalog)
    except PlanError as exc:
        planned = error("compile.plan", exc.path, str(exc), "change the blueprint so it can be compiled")
        report.findings = [*validation.findings, validation.load.source_map.place(planned)]
        return report
    judge = Judge(expect(blueprint, catalog, plan), evidence)
    report.cluster = judge.expected.cluster
    found: list[Finding] = []
    for name, check in CHECKS:
        report.checks.append(name)
        found += _guarded(name, check, judge)
    report.findings = sort_findings(validation.load.source_map.place(finding) for finding in found)
    return report
