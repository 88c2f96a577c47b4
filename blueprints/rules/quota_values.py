"""A declared quota is a value the account can have: at least the quota's least value (`quotas.yaml`).

Service Quotas bounds every value to 0..10,000,000,000 (the model checks
that); some quotas can't usefully be lower than 1 in a railyard design: nodes
per managed node group (pools are split by it, and a group holds at least one
node), managed node groups per cluster (the system group always exists), IPv4
blocks per VPC (the primary block). A 0 there is a typo or a misread console,
and is refused here, at load, before any plan divides by it.
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.catalog.quotas import load_quotas
from blueprints.findings import Finding, error
from blueprints.rules.context import Context

CODES = ("quota.below-minimum",)


def check(ctx: Context) -> Iterable[Finding]:
    """Declared quotas below their quota's least value."""
    known = load_quotas()
    for code, value in ctx.blueprint.quotas.items():
        quota = known.get(code)
        if quota is not None and value < quota.minimum:
            yield error(
                "quota.below-minimum",
                ("quotas", code),
                f"{quota.name} ({code}) is declared {value}; it can't be less than {quota.minimum}: {quota.minimum_why}",
                f"declare the value Service Quotas shows for {code} (AWS's default is {quota.default}), or remove it to plan with the default",
            )
