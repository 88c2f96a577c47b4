"""The instance types railyard can plan: what the price tables are cut to, read by both of their generators.

It stands apart from `ec2_sources` (the price rows) and `offer_files` (AWS's offer file reader and its `trim`
command), which both need it, so their imports run one way: `ec2_sources` -> `offer_files`, each -> this.
"""

from __future__ import annotations


def wanted_types() -> set[str]:
    """The instance types railyard can plan: the accelerator catalog's and the system node group's."""
    from blueprints.catalog import load_catalog
    from blueprints.catalog.system_types import load_system_types

    return set(load_catalog().names()) | set(load_system_types())
