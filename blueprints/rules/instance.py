"""A pool's instance type must be in the catalog, and a type whose entry is not an API answer says so.

The catalog is AWS's DescribeInstanceTypes data, except for the types no answer within reach gives, which are
assembled from AWS's documentation (`blueprints/catalog/documented/`, p6e-gb200): a few of their figures are derived
or assumed, each named in the sources file beside it, so a pool on one gets a note (docs/catalog.md).
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.catalog import Catalog
from blueprints.findings import Finding, Path, error, info
from blueprints.models.pools import Pool

CODES = ("pool.unknown-instance-type", "pool.documented-instance-type")


def check(pool: Pool, path: Path, catalog: Catalog) -> Iterable[Finding]:
    """Report an instance type the catalog doesn't know, with the closest names it does; note one assembled from documentation."""
    if catalog.get(pool.instance_type) is None:
        close = catalog.closest(pool.instance_type, n=3)
        hint = f"did you mean {' or '.join(repr(name) for name in close)}? " if close else ""
        yield error(
            "pool.unknown-instance-type",
            path + ("instance_type",),
            f"instance type '{pool.instance_type}' is not in the accelerator catalog",
            hint + "`python -m railyard catalog` lists every supported type",
        )
    elif pool.instance_type in catalog.documented():
        yield info(
            "pool.documented-instance-type",
            path + ("instance_type",),
            f"{pool.instance_type}'s catalog entry is assembled from AWS's documentation, not a DescribeInstanceTypes answer: "
            "the network cards' interface limits and the API's names for some values are derived or assumed "
            "(blueprints/catalog/documented/, each value with its source)",
            f"replace it with your account's answer: save `aws ec2 describe-instance-types --instance-types {pool.instance_type} "
            "--output json` to a file and run `python -m blueprints.catalog.generate --add FILE`",
        )
