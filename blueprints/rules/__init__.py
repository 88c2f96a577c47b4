"""Cross-field rules: a catalog with an explicit registry.

Each rule module has a `check` function and a `CODES` tuple naming every
finding code it can emit. Rules come in three scopes:
- `pool` and `storage` rules look at one object (and the catalog); they also
  run on the pools and tiers that validate when the rest of the file doesn't;
- `blueprint` rules need the whole validated blueprint (references, zones).
To add a rule: write a module with `CODES` and `check`, add it to `RULES`, and
add a firing and a passing case to tests/blueprints/test_rules.py. `railyard explain CODE` reads the rule where it
lives: the docstring of the function that raises the code, the finding's message and hint, the module's docstring
(why) and what it cites (source); where the wording is built at run time, state the code's meaning and fix in an
`EXPLAIN` mapping next to `CODES` (tests/blueprints/test_explain_command.py holds every code to one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Literal, Protocol

from blueprints.catalog import Catalog
from blueprints.findings import Finding, Path
from blueprints.models import Blueprint
from blueprints.models.pools import Pool
from blueprints.models.storage import StorageTier
from blueprints.records import record
from blueprints.rules import (
    capacity,
    compute_domains,
    custom_ami,
    efa,
    endpoint,
    existing,
    fabric_nics,
    fabric_ports,
    fsx,
    instance,
    karpenter,
    kubernetes_version,
    local_zones,
    lustre_efa,
    mounts,
    names,
    offerings,
    placement,
    quota_values,
    references,
    regions,
    reservation_use,
    scale_up,
    standby,
    system_nodes,
    unbought,
    vpc_blocks,
)
from blueprints.rules.context import Context

Scope = Literal["blueprint", "pool", "storage"]


class RuleModule(Protocol):
    """What `_rule` reads from a rule module; `check`'s arguments depend on the scope, so they stay open."""

    @property
    def __name__(self) -> str: ...
    @property
    def CODES(self) -> tuple[str, ...]: ...
    @property
    def check(self) -> Callable[..., Iterable[Finding]]: ...


@record
class Rule:
    """A registered rule: its module name, scope, codes and check function."""

    name: str
    scope: Scope
    codes: tuple[str, ...]
    check: Callable[..., Iterable[Finding]]
    summary: str


def _rule(module: RuleModule, scope: Scope) -> Rule:
    return Rule(module.__name__.rsplit(".", 1)[-1], scope, module.CODES, module.check, (module.check.__doc__ or "").strip())


RULES: tuple[Rule, ...] = (
    _rule(instance, "pool"),
    _rule(custom_ami, "pool"),
    _rule(karpenter, "pool"),
    _rule(fsx, "storage"),
    _rule(references, "blueprint"),
    _rule(efa, "blueprint"),
    _rule(capacity, "blueprint"),
    _rule(reservation_use, "blueprint"),
    _rule(placement, "blueprint"),
    _rule(scale_up, "blueprint"),
    _rule(compute_domains, "blueprint"),
    _rule(fabric_ports, "blueprint"),
    _rule(fabric_nics, "blueprint"),
    _rule(names, "blueprint"),
    _rule(endpoint, "blueprint"),
    _rule(lustre_efa, "blueprint"),
    _rule(kubernetes_version, "blueprint"),
    _rule(mounts, "blueprint"),
    _rule(regions, "blueprint"),
    _rule(offerings, "blueprint"),
    _rule(local_zones, "blueprint"),
    _rule(existing, "blueprint"),
    _rule(system_nodes, "blueprint"),
    _rule(vpc_blocks, "blueprint"),
    _rule(quota_values, "blueprint"),
    _rule(standby, "blueprint"),
    _rule(unbought, "blueprint"),
)


def run_pool_rules(pool: Pool, path: Path, catalog: Catalog) -> list[Finding]:
    """Run every pool-scoped rule on one pool."""
    return [finding for rule in RULES if rule.scope == "pool" for finding in rule.check(pool, path, catalog)]


def run_storage_rules(tier: StorageTier, path: Path, catalog: Catalog) -> list[Finding]:
    """Run every storage-scoped rule on one tier."""
    return [finding for rule in RULES if rule.scope == "storage" for finding in rule.check(tier, path, catalog)]


def run_blueprint_rules(blueprint: Blueprint, catalog: Catalog) -> list[Finding]:
    """Run every rule of every scope on a validated blueprint."""
    findings: list[Finding] = []
    for index, pool in enumerate(blueprint.pools):
        findings += run_pool_rules(pool, ("pools", index), catalog)
    for index, tier in enumerate(blueprint.storage):
        findings += run_storage_rules(tier, ("storage", index), catalog)
    ctx = Context(blueprint, catalog)
    for rule in RULES:
        if rule.scope == "blueprint":
            findings += list(rule.check(ctx))
    return findings


def all_codes() -> list[str]:
    """Every finding code a rule can emit, sorted (for `railyard rules` and docs)."""
    return sorted({code for rule in RULES for code in rule.codes})
