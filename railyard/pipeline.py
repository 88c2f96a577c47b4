"""The pipeline's first two stages, end to end: load a blueprint (with a stack's overrides) and check it.

`validate` is what `railyard validate`, `railyard preview` and the Pulumi
program all call first. It never raises for a bad blueprint; it returns every
finding from the schema, the cross-field rules and the topology checker, each
placed at its file and line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blueprints.catalog import Catalog, load_catalog
from blueprints.catalog.prices import load_prices
from blueprints.findings import Finding, error, has_errors, sort_findings, summarize
from blueprints.loader import LoadResult, Overrides, load_blueprint
from blueprints.models import Blueprint
from blueprints.records import record
from blueprints.source import SourceError
from railyard.collector import fewer_collections
from railyard.progress import stage
from railyard.stack import read_stack
from topology import DesignReport, check_design
from topology.acceptance_cost import acceptance_cost_findings, acceptance_costs
from topology.cluster import PlanError, plan_cluster
from topology.cluster.acceptance import plan_gates
from topology.cluster.addons import addon_findings
from topology.cluster.kubernetes_checks import check_kubernetes, plannable
from topology.cluster.node_groups import NodeGroupPlan, plan_node_groups
from topology.cluster.pod_limits import pod_limit_findings
from topology.cluster.quotas import QuotaNeed, quota_findings, quota_plan
from topology.cluster.scale import cluster_size_findings, scale_findings
from topology.cluster.scheduling import node_groups as scheduled_node_groups
from topology.cluster.spare_placement import standby_findings
from topology.cluster.subnets import moved_pins, unlocked_plan, unused_pins
from topology.cluster.update_room import update_room_findings
from topology.cost import cost_findings, cost_report
from topology.cost_prices import declared_findings
from topology.cost_report import CostReport

if TYPE_CHECKING:
    from railyard.online.report import OnlineReport


QUOTA_STATUS: dict[bool | None, str] = {True: "ok", False: "OVER", None: "check"}
"""How a quota need reads: within what is available, over it, or to check (the account sets it)."""


@record(frozen=False)
class Validation:
    """Everything validation learnt about one blueprint (and stack)."""

    file: str
    stack: str | None
    load: LoadResult
    design: DesignReport | None
    findings: list[Finding] = field(default_factory=list)
    quotas: list[QuotaNeed] = field(default_factory=list)
    control_plane: dict | None = None
    # What the plan costs (None when the blueprint can't be planned).
    cost: CostReport | None = None
    # Set by `validate --online` (railyard.online): what the account said; its findings are in `findings`.
    online: OnlineReport | None = None

    @property
    def ok(self) -> bool:
        """True when the blueprint is valid and no finding is an error."""
        return self.load.blueprint is not None and not has_errors(self.findings)

    @property
    def blueprint(self):
        """The validated blueprint, or None when it did not validate."""
        return self.load.blueprint

    def as_json(self) -> dict:
        """The `validate --json` document: blueprint, ok, findings, summary, and the design figures."""
        document = {
            "blueprint": self.file,
            "stack": self.stack,
            "ok": self.ok,
            "findings": [finding.as_json() for finding in self.findings],
            "summary": {**summarize(self.findings), **self._sizes()},
        }
        if self.design is not None:
            document.update(self.design.as_json())
        document["quotas"] = [need.as_json() for need in self.quotas]
        document["control_plane"] = self.control_plane
        document["cost"] = None if self.cost is None else self.cost.as_json()
        if self.online is not None:
            document["online"] = self.online.as_json()
        return document

    def quota_table(self) -> tuple[str, list[str], list[list]]:
        """The quota plan as a human table: (title, headers, rows)."""
        rows = [
            [
                need.code,
                need.name,
                f"{need.needed:,}",
                "-" if need.available is None else f"{need.available:,}",
                "declared" if need.declared is not None else "AWS default" if need.default is not None else "per account",
                QUOTA_STATUS[need.ok],
            ]
            for need in self.quotas
        ]
        if self.control_plane is not None:
            plane = self.control_plane
            rows.append(
                [
                    "-",
                    f"EKS control plane tier, {plane['nodes']:,} nodes at their largest",
                    plane["tier"],
                    "-",
                    "railyard's node thresholds (docs/scale.md)",
                    "declared" if plane["declared"] else "derived",
                ]
            )
        return "quota plan", ["code", "quota", "needed", "available", "from", "status"], rows

    def _sizes(self) -> dict:
        blueprint = self.load.blueprint
        if blueprint is None:
            return {}
        catalog = load_catalog()
        accelerators = 0
        for pool in blueprint.pools:
            spec = catalog.get(pool.instance_type)
            accelerators += pool.max_nodes * (spec.accelerator_count if spec else 0)
        return {"pools": len(blueprint.pools), "nodes": sum(p.max_nodes for p in blueprint.pools), "accelerators": accelerators}


def resolve_input(path: str | None, stack: str | None, project_dir: str | Path = ".") -> tuple[str, Overrides | None]:
    """The blueprint file and overrides for a (path, stack) request; raises `SourceError`.

    A Kubernetes-layer stack (`railyard:clusterStack`) renders its cluster stack's blueprint and overrides.
    """
    if stack is None:
        if path is None:
            raise SourceError("name a blueprint file, or a stack with --stack", "<command line>")
        return path, None
    settings = read_stack(project_dir, stack)
    if settings.cluster_stack is not None:
        settings = read_stack(project_dir, settings.cluster_stack.rsplit("/", 1)[-1])
    chosen = path or settings.blueprint
    if chosen is None:
        raise SourceError(f"{settings.file} sets no 'railyard:blueprint' and no file was given", settings.file)
    return chosen, settings.overrides


@record
class Pack:
    """Ask for the policy pack's verdict on what the blueprint decides (`railyard.preflight`), under `config`
    (a pack config document; None: the pack's defaults)."""

    config: Mapping[str, Any] | None = None


def validate(
    path: str | None = None, stack: str | None = None, project_dir: str | Path = ".", pack: Pack | None = None, at: datetime | None = None
) -> Validation:
    """Load and check a blueprint (with `pack`, also against the policy pack), pricing its plan as of `at` (default: now:
    the day decides the EKS support the control plane bills); raises `SourceError` only for unreadable input."""
    with fewer_collections():
        return _validate(path, stack, project_dir, pack, (at or datetime.now(UTC)).astimezone(UTC))


def _validate(path: str | None, stack: str | None, project_dir: str | Path, pack: Pack | None, at: datetime) -> Validation:
    file, overrides = resolve_input(path, stack, project_dir)
    stage("loading the blueprint and checking its rules")
    catalog = load_catalog()
    loaded = load_blueprint(file, overrides, catalog)
    design = None
    findings = list(loaded.findings)
    needs: list[QuotaNeed] = []
    plane = None
    cost = None
    if loaded.blueprint is not None and not has_errors(loaded.findings):
        blueprint = loaded.blueprint
        stage("checking the topology")
        design = check_design(blueprint, catalog)
        findings += [loaded.source_map.place(finding) for finding in design.findings]
        stage("planning node groups and checking Kubernetes")
        node_groups = plan_node_groups(blueprint, catalog) if plannable(blueprint, catalog) else None
        if node_groups is not None:
            findings += [loaded.source_map.place(finding) for finding in check_kubernetes(blueprint, catalog, node_groups)]
            findings += [loaded.source_map.place(finding) for finding in addon_findings(blueprint, node_groups)]
            findings += [loaded.source_map.place(finding) for finding in pod_limit_findings(blueprint, node_groups)]
        if node_groups is not None and not has_errors(findings):
            stage("planning quotas")
            needs, quota_notes, plane = check_quotas(blueprint, catalog, node_groups)
            findings += [loaded.source_map.place(finding) for finding in quota_notes]
        if node_groups is not None and not has_errors(findings):
            stage("pricing the plan")
            tier = plane["tier"] if plane is not None else "standard"
            cost = cost_report(blueprint, node_groups, tier, load_prices(), at.date())
            findings += [loaded.source_map.place(finding) for finding in cost_findings(cost) + declared_findings(blueprint, node_groups)]
            findings += [loaded.source_map.place(finding) for finding in _acceptance_findings(blueprint, catalog, node_groups)]
        if node_groups is not None and pack is not None:
            from railyard.preflight import preflight  # the pack's settings: read only when the CLI asks

            findings += [loaded.source_map.place(finding) for finding in preflight(blueprint, node_groups, catalog, pack.config)]
    return Validation(file, stack, loaded, design, sort_findings(findings), needs, plane, cost)


def _acceptance_findings(blueprint: Blueprint, catalog: Catalog, node_groups: Sequence[NodeGroupPlan]) -> list[Finding]:
    """What each gated pool's acceptance costs (`topology.acceptance_cost`); nothing when no pool has `acceptance`."""
    if all(pool.acceptance is None for pool in blueprint.pools):
        return []
    gates = plan_gates(blueprint, scheduled_node_groups(blueprint, catalog, node_groups))
    return acceptance_cost_findings(blueprint, gates, acceptance_costs(blueprint, gates, load_prices()))


def check_quotas(blueprint, catalog, node_groups) -> tuple[list[QuotaNeed], list[Finding], dict | None]:
    """The quota plan of a blueprint that checks clean (on its planned node groups), its findings, and its
    control-plane tier; a plan error as a finding."""
    try:
        plan = plan_cluster(blueprint, catalog, node_groups=node_groups)
    except PlanError as exc:
        beyond = [
            finding for finding in cluster_size_findings(sum(pool.max_nodes for pool in blueprint.pools), "standard") if finding.severity == "error"
        ]
        return [], [error("compile.plan", exc.path, str(exc), "change the blueprint so it can be compiled"), *beyond], None
    needs = quota_plan(blueprint, catalog, plan)
    pool_paths: dict[str, tuple[str | int, ...]] = {pool.name: ("pools", index) for index, pool in enumerate(blueprint.pools)}
    nodes = plan.nodes
    plane = {"nodes": nodes, "tier": plan.control_plane_tier, "default": "standard", "declared": blueprint.kubernetes.control_plane_tier != "auto"}
    findings = quota_findings(blueprint, needs) + update_room_findings(needs, plan.node_groups, catalog)
    findings += unused_pins(blueprint.cloud.pinned_ranges, plan.subnets) + moved_pins(blueprint.cloud.pinned_zones, plan.subnets)
    if blueprint.cloud.existing_vpc is None:  # the team's own VPC: its subnets are not railyard's to lay out
        findings += unlocked_plan(blueprint.cloud.pinned_ranges, plan.subnets)
    findings += standby_findings(blueprint.pools, plan.placements, pool_paths)
    return needs, findings + scale_findings(nodes, plan.control_plane_tier, plan.placements, pool_paths), plane
