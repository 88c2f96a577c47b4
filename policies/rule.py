"""What a rule is: declarative metadata, a predicate, and its CrossGuard policy.

Three kinds, one per module under `policies/rules/<domain>/`:

* `SchemaRule` - one resource, constrained by a Cerberus schema per resource
  type (data a reviewer reads, see `policies.schema`);
* `ResourceRule` - one resource, a predicate in code (parsing an IAM document,
  looking an instance type up in the catalog);
* `StackRule` - several resources at once (a stack-level policy).

A predicate only answers *what is wrong*, as short phrases ("metadataOptions.
httpTokens is 'optional'"); the rule adds who (the resource's kind and name)
and the fix, so every message reads `<Kind> '<name>': <problem>. Fix: <fix>`.
A predicate raises `NotApplicable(reason)` when the rule does not concern the
resource or stack. `Rule.policy()` wraps the same predicate in a
`ResourceValidationPolicy` or `StackValidationPolicy`; the pack and the
offline runner both call that policy's `validate`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pulumi_policy import (
    EnforcementLevel,
    Policy,
    PolicyConfigSchema,
    PolicyResource,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)

from policies import schema as schemas
from policies.config import Knob, config_schema_properties, settings_for
from policies.stack import Stack

Domain = Literal["security", "correctness", "governance"]
Settings = Mapping[str, Any]
Schema = Mapping[str, Any]
SchemaSource = Schema | Callable[[Settings], Schema]


class NotApplicable(Exception):
    """Raised by a predicate: the rule does not concern this resource (or stack); says why."""


def kind_of(resource_type: str) -> str:
    """`aws:ec2/launchTemplate:LaunchTemplate` -> `LaunchTemplate`."""
    return resource_type.rsplit(":", 1)[-1]


def describe(resource_type: str, name: str) -> str:
    """How messages name a resource: `LaunchTemplate 'p5-train-lt'`."""
    return f"{kind_of(resource_type)} '{name}'"


@dataclass(frozen=True, kw_only=True)
class Rule(ABC):
    """Metadata every rule declares: identity, wording, default enforcement, knobs."""

    id: str
    name: str
    title: str
    domain: Domain
    fix: str
    enforcement: Literal["advisory", "mandatory"] = "mandatory"
    severity: Literal["low", "medium", "high", "critical"] = "high"
    knobs: tuple[Knob, ...] = ()
    kind: ClassVar[str]

    @property
    def description(self) -> str:
        """The CrossGuard description; the engine prefixes every violation with it."""
        return f"{self.id}: {self.title}"

    @property
    def implementation(self) -> str:
        """`cerberus` or `code`, for the catalog table."""
        return "code"

    def message(self, subject: str, problem: str) -> str:
        """A violation's text: the resource, what is wrong, and the fix."""
        return f"{subject}: {problem}. Fix: {self.fix}"

    def _policy_arguments(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "enforcement_level": EnforcementLevel(self.enforcement),
            "config_schema": PolicyConfigSchema(config_schema_properties(self.knobs)) if self.knobs else None,
            "display_name": f"{self.id} {self.name}",
            "severity": Severity(self.severity),
            "tags": [self.domain, self.id],
            "remediation_steps": self.fix,
        }

    @abstractmethod
    def policy(self) -> Policy:
        """This rule as a CrossGuard policy object (constructing one starts nothing)."""


@dataclass(frozen=True, kw_only=True)
class ResourceRule(Rule):
    """A rule over one resource's props at a time; `check(props, settings)` yields problems."""

    resource_types: tuple[str, ...]
    check: Callable[[Mapping[str, Any], Settings], Iterable[str]]
    kind: ClassVar[str] = "resource"

    def problems(self, resource_type: str, props: Mapping[str, Any], settings: Settings) -> list[str]:
        """What is wrong with one resource of a type this rule covers (may raise NotApplicable)."""
        return list(self.check(props, settings))

    def validate(self, args: ResourceValidationArgs, report_violation: Callable[[str, str | None], None]) -> None:
        """The CrossGuard resource validation: the same predicate, reported through the engine."""
        if args.resource_type not in self.resource_types:
            return
        settings = settings_for(self.knobs, args.get_config())
        try:
            found = self.problems(args.resource_type, args.props, settings)
        except NotApplicable as reason:
            args.not_applicable(str(reason))
            return
        subject = describe(args.resource_type, args.name)
        for problem in found:
            report_violation(self.message(subject, problem), None)

    def policy(self) -> ResourceValidationPolicy:
        """A `ResourceValidationPolicy` calling `validate`."""
        return ResourceValidationPolicy(validate=self.validate, **self._policy_arguments())


def _no_check(props: Mapping[str, Any], settings: Settings) -> Iterable[str]:
    return ()


@dataclass(frozen=True, kw_only=True)
class SchemaRule(ResourceRule):
    """A resource rule written as data: one Cerberus schema per resource type.

    `schemas` maps a type token to a schema, or to a function of the rule's
    settings returning one (for allow-lists from the pack config). A type in
    `applies_when` is checked only when its props match that schema (or any
    of a tuple of schemas); otherwise the rule is not applicable, for
    `not_applicable_reason`.
    """

    schemas: Mapping[str, SchemaSource]
    applies_when: Mapping[str, Schema | tuple[Schema, ...]] = field(default_factory=dict)
    not_applicable_reason: str = ""
    resource_types: tuple[str, ...] = ()
    check: Callable[[Mapping[str, Any], Settings], Iterable[str]] = _no_check

    def __post_init__(self):
        if not self.resource_types:
            object.__setattr__(self, "resource_types", tuple(self.schemas))

    @property
    def implementation(self) -> str:
        """`cerberus`."""
        return "cerberus"

    def schema_for(self, resource_type: str, settings: Settings) -> Schema:
        """The schema a resource of `resource_type` must obey under `settings`."""
        source = self.schemas[resource_type]
        return source(settings) if callable(source) else source

    def problems(self, resource_type: str, props: Mapping[str, Any], settings: Settings) -> list[str]:
        """Schema violations as phrases; NotApplicable when `applies_when` does not match."""
        conditions = self.applies_when.get(resource_type)
        if isinstance(conditions, Mapping):
            conditions = (conditions,)
        if conditions is not None and not any(schemas.matches(props, condition) for condition in conditions):
            raise NotApplicable(self.not_applicable_reason)
        return schemas.problems(props, self.schema_for(resource_type, settings))


Finding = tuple[PolicyResource | None, str]


@dataclass(frozen=True, kw_only=True)
class StackRule(Rule):
    """A rule over the whole stack; `check(stack, settings)` yields (resource or None, problem)."""

    check: Callable[[Stack, Settings], Iterable[Finding]]
    kind: ClassVar[str] = "stack"

    def problems(self, resources: list[PolicyResource], settings: Settings) -> list[Finding]:
        """What is wrong across `resources` (may raise NotApplicable)."""
        return list(self.check(Stack(resources), settings))

    def validate(self, args: StackValidationArgs, report_violation: Callable[[str, str | None], None]) -> None:
        """The CrossGuard stack validation: each problem reported against its resource's URN."""
        settings = settings_for(self.knobs, args.get_config())
        try:
            found = self.problems(args.resources, settings)
        except NotApplicable as reason:
            args.not_applicable(str(reason))
            return
        for resource, problem in found:
            subject = describe(resource.resource_type, resource.name) if resource is not None else "stack"
            report_violation(self.message(subject, problem), resource.urn if resource is not None else None)

    def policy(self) -> StackValidationPolicy:
        """A `StackValidationPolicy` calling `validate`."""
        return StackValidationPolicy(validate=self.validate, **self._policy_arguments())
