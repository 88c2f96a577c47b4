"""The system node group's instance type is one railyard has network facts for.

Address planning needs the type's interfaces and addresses per interface, and
the AMI type follows its architecture; both come from `system_types.json`,
generated from DescribeInstanceTypes (`blueprints/catalog/system_types.py`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from blueprints.catalog.system_types import SYSTEM_FAMILIES, load_system_types
from blueprints.findings import Finding, error
from blueprints.rules.context import Context

CODES = ("k8s.system-type-unknown",)


def check(ctx: Context) -> Iterable[Finding]:
    """An error when kubernetes.system_nodes names a type outside the system families."""
    name = ctx.blueprint.kubernetes.system_nodes.instance_type
    known = load_system_types()
    if name in known:
        return
    close = difflib.get_close_matches(name, list(known), n=3)
    yield error(
        "k8s.system-type-unknown",
        ("kubernetes", "system_nodes", "instance_type"),
        f"'{name}' is not a system node type railyard knows (families {', '.join(SYSTEM_FAMILIES)})"
        + (f"; did you mean {', '.join(close)}?" if close else ""),
        "use a size of one of those families, such as m7i.xlarge",
    )
