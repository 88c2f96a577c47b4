"""A pool's instance type must be in the catalog."""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.catalog import Catalog
from blueprints.findings import Finding, Path, error
from blueprints.models.pools import Pool

CODES = ("pool.unknown-instance-type",)


def check(pool: Pool, path: Path, catalog: Catalog) -> Iterable[Finding]:
    """Report an instance type the catalog doesn't know, with the closest names it does."""
    if catalog.get(pool.instance_type) is None:
        close = catalog.closest(pool.instance_type, n=3)
        hint = f"did you mean {' or '.join(repr(name) for name in close)}? " if close else ""
        yield error(
            "pool.unknown-instance-type",
            path + ("instance_type",),
            f"instance type '{pool.instance_type}' is not in the accelerator catalog",
            hint + "`python -m railyard catalog` lists every supported type",
        )
