"""The offline policy run: every rule over a preview's resources, as the engine would run it.

`run_policies(preview_result, config=None)` takes what `railyard.mocked.
run_preview` returns and hands each rule's CrossGuard policy the same
objects `pulumi preview --policy-pack policies` would:

* props are round-tripped through a protobuf `Struct` and pulumi-policy's
  own deserializer, then wrapped in its unknown-checking proxy, which is
  the engine's path (camelCase keys, every number a float, secrets
  unwrapped, unknowns raising `UnknownValueError` when read);
* resource rules get a real `ResourceValidationArgs`, stack rules a real
  `StackValidationArgs` of `PolicyResource`s with parents (and dependencies,
  when the preview records them) linked by URN;
* `config` is a policy-pack config document (`policies.config`), so one
  JSON file drives both runs.

As in the engine, a rule that reads an unknown value is reported as an
advisory "can't run during preview" entry, and a rule that raises anything
else is a rule error (which fails the run, as it fails `pulumi preview`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from google.protobuf import json_format, struct_pb2
from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    StackValidationArgs,
)
from pulumi_policy.deserialize import deserialize_properties
from pulumi_policy.policy import _NotApplicableError
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError, unknown_checking_proxy

from policies.config import policy_entry
from policies.registry import RULES
from policies.rule import ResourceRule, Rule, StackRule

PACK_NAME = "railyard"


@dataclass(frozen=True)
class Violation:
    """One reported violation: which rule, how enforced, on what, and what to do."""

    rule_id: str
    policy_name: str
    enforcement: str
    urn: str | None
    message: str

    def as_json(self) -> dict[str, Any]:
        """The violation as `preview --policies --json` prints it."""
        return asdict(self)


@dataclass
class PolicyReport:
    """The outcome of one offline run: violations, unverifiable checks, rule errors."""

    violations: list[Violation] = field(default_factory=list)
    unverified: list[Violation] = field(default_factory=list)
    errors: list[Violation] = field(default_factory=list)
    not_applicable: int = 0
    rules_run: int = 0
    resources: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def mandatory_failed(self) -> bool:
        """True when a mandatory rule is violated or a rule crashed (both stop `pulumi preview`)."""
        return bool(self.errors) or any(v.enforcement == "mandatory" for v in self.violations)

    def rule_ids(self, enforcement: str | None = None) -> set[str]:
        """Ids of the rules with violations (only those at `enforcement`, when given)."""
        return {v.rule_id for v in self.violations if enforcement in (None, v.enforcement)}

    def summary(self) -> dict[str, int]:
        """Counts for the JSON summary and the text footer."""
        count = lambda level: sum(1 for v in self.violations if v.enforcement == level)  # noqa: E731
        return {
            "rules": self.rules_run,
            "resources": self.resources,
            "mandatory": count("mandatory"),
            "advisory": count("advisory"),
            "unverified": len(self.unverified),
            "errors": len(self.errors),
            "not_applicable": self.not_applicable,
        }

    def as_json(self) -> dict[str, Any]:
        """The report as one JSON-ready document."""
        return {
            "ok": not self.mandatory_failed,
            "summary": self.summary(),
            "violations": [v.as_json() for v in self.violations],
            "unverified": [v.as_json() for v in self.unverified],
            "errors": [v.as_json() for v in self.errors],
            "notes": list(self.notes),
        }


def _wire(value: Any) -> Any:
    """A preview input as JSON-able wire data (the SDK's Unknown becomes the engine's sentinel)."""
    if isinstance(value, Mapping):
        return {str(key): _wire(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_wire(item) for item in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if type(value).__name__ == "Unknown":
        return UNKNOWN_STRING_VALUE
    raise TypeError(f"preview input of type {type(value).__name__} can't be sent to a policy pack")


def engine_props(inputs: Mapping[str, Any]) -> Mapping[str, Any]:
    """Inputs exactly as the engine gives them to a policy: Struct round trip, deserialized, proxied."""
    struct = struct_pb2.Struct()
    struct.update(_wire(inputs))
    return unknown_checking_proxy(deserialize_properties(json_format.MessageToDict(struct)))


def _options(parent: str | None) -> PolicyResourceOptions:
    return PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [], parent)


def stack_props(resource: Any) -> Mapping[str, Any]:
    """What a stack policy sees of a preview resource: its inputs plus its `id`.

    The engine hands stack policies each resource's outputs, which for
    pulumi-aws carry the `id` other resources refer to it by; the mocked
    preview's outputs are its inputs plus made-up computed values, so inputs
    and id are the faithful part.
    """
    resource_id = getattr(resource, "id", None)
    return engine_props({**resource.inputs, "id": resource_id} if resource_id else resource.inputs)


def policy_resources(preview_resources: list[Any]) -> list[PolicyResource]:
    """`PolicyResource`s for a preview's resources, parents and dependencies linked by URN."""
    resources = [PolicyResource(r.type, stack_props(r), r.urn, r.name, _options(r.parent), None, None, [], {}) for r in preview_resources]
    by_urn = {resource.urn: resource for resource in resources}
    for source, resource in zip(preview_resources, resources, strict=True):
        resource.parent = by_urn.get(source.parent) if source.parent else None
        resource.dependencies = [by_urn[urn] for urn in getattr(source, "dependencies", None) or () if urn in by_urn]
        for prop, urns in (getattr(source, "property_dependencies", None) or {}).items():
            resource.property_dependencies[prop] = [by_urn[urn] for urn in urns if urn in by_urn]
    return resources


class _Collector:
    """Runs one rule's policy the way the analyzer does and files what it reports."""

    def __init__(self, report: PolicyReport, rule: Rule, enforcement: str):
        self.report, self.rule, self.enforcement = report, rule, enforcement

    def _entry(self, message: str, urn: str | None, enforcement: str) -> Violation:
        return Violation(self.rule.id, self.rule.name, enforcement, urn, message)

    def run(self, validate, args, urn: str | None) -> None:
        """Call `validate(args, report_violation)`; file violations, unknowns, not-applicables and crashes."""

        def report_violation(message: str, violating_urn: str | None = None) -> None:
            self.report.violations.append(self._entry(message, violating_urn or urn, self.enforcement))

        try:
            validate(args, report_violation)
        except UnknownValueError as unknown:
            self.report.unverified.append(self._entry(f"can't run policy '{self.rule.name}' during preview: {unknown.message}", urn, "advisory"))
        except _NotApplicableError:
            self.report.not_applicable += 1
        except Exception as error:  # noqa: BLE001 - the runner boundary: a crash becomes a rule error
            self.report.errors.append(self._entry(f"rule {self.rule.id} crashed: {type(error).__name__}: {error}", urn, "mandatory"))


def run_policies(preview_result: Any, config: Mapping[str, Any] | None = None, rules: Iterable[Rule] = RULES) -> PolicyReport:
    """Run every rule over `preview_result.resources` and return the report.

    `config` is a policy-pack config document (see `policies.config`); a
    rule whose level it sets to `disabled` does not run.
    """
    preview_resources = list(preview_result.resources)
    report = PolicyReport(resources=len(preview_resources))
    if preview_resources and not any(getattr(resource, "id", None) for resource in preview_resources):
        report.notes.append("the preview records no resource ids: stack rules can't follow references between resources")
    stack_resources = policy_resources(preview_resources)
    inputs = [engine_props(resource.inputs) for resource in preview_resources]
    for rule in rules:
        level, properties = policy_entry(config, rule.name)
        level = level or rule.enforcement
        if level == "disabled":
            continue
        report.rules_run += 1
        collector = _Collector(report, rule, level)
        if isinstance(rule, StackRule):  # rule.kind == "stack"
            collector.run(rule.policy().validate, StackValidationArgs(stack_resources, properties or None), None)
            continue
        assert isinstance(rule, ResourceRule), "a rule is a StackRule or a ResourceRule"
        policy = rule.policy()
        for resource, props in zip(stack_resources, inputs, strict=True):
            if resource.resource_type not in rule.resource_types:
                continue
            args = ResourceValidationArgs(resource.resource_type, props, resource.urn, resource.name, resource.opts, None, properties or None)
            collector.run(policy.validate, args, resource.urn)
    order = {rule.id: index for index, rule in enumerate(RULES)}
    report.violations.sort(key=lambda v: (v.enforcement != "mandatory", order.get(v.rule_id, len(order)), v.urn or ""))
    return report


def render_text(report: PolicyReport, origins: Mapping[str, str] | None = None) -> str:
    """The report for a terminal: violations grouped by rule, mandatory first, then a verdict line.

    `origins`, when the caller knows them, maps a resource's URN to where the user wrote what
    produced it (railyard's offline run passes `file:line (path)` of the blueprint).
    """
    origins = origins or {}
    lines: list[str] = []
    current = None
    for violation in report.violations + report.errors + report.unverified:
        heading = (violation.enforcement, violation.rule_id, violation.policy_name)
        if heading != current:
            current = heading
            lines.append(f"{violation.enforcement:<9} {violation.rule_id} {violation.policy_name}")
        lines.append(f"    {violation.message}")
        if violation.urn:
            lines.append(f"        {violation.urn}")
        if violation.urn is not None and violation.urn in origins:
            lines.append(f"        from {origins[violation.urn]}")
    counts = report.summary()
    lines += [f"note: {note}" for note in report.notes]
    lines.append(
        f"policies: {counts['rules']} rules over {counts['resources']} resources: "
        f"{counts['mandatory']} mandatory, {counts['advisory']} advisory violation(s), "
        f"{counts['unverified']} unverifiable, {counts['errors']} rule error(s)"
    )
    lines.append("FAILED: mandatory policy violations" if report.mandatory_failed else "ok: no mandatory violations")
    return "\n".join(lines)


def report_json(report: PolicyReport) -> str:
    """`report.as_json()` as indented, key-sorted JSON text."""
    return json.dumps(report.as_json(), indent=2, sort_keys=True)
