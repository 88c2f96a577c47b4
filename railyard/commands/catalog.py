"""`railyard catalog [--json] [--system]`: the instance types railyard knows, with sources."""

from __future__ import annotations

import json

from blueprints.catalog import load_catalog
from blueprints.catalog.system_types import OUTPUT, load_system_types
from railyard.render import table

NAME = "catalog"
HELP = "List the accelerator catalog (AWS DescribeInstanceTypes data joined to sourced facts), or with --system the system node types."


def add_arguments(parser) -> None:
    """--json, --system."""
    parser.add_argument("--json", action="store_true", help="print the whole catalog as JSON, with provenance and sources")
    parser.add_argument("--system", action="store_true", help="list the types kubernetes.system_nodes may use instead")


def run(args) -> int:
    """Print the catalog."""
    if args.system:
        return _system(args.json)
    catalog = load_catalog()
    if args.json:
        print(json.dumps(catalog.as_json(), indent=2, sort_keys=True))
        return 0
    rows = catalog.rows()
    headers = list(rows[0]) if rows else []
    print(table(headers, [[row[h] for h in headers] for row in rows]))
    provenance = catalog.provenance
    print(f"\nsource: {provenance.get('source', '?')}; regenerate with: {provenance.get('command', '?')}")
    documented = catalog.documented()
    if documented:
        print(
            f"assembled from AWS's documentation, not a DescribeInstanceTypes answer: {', '.join(documented)} "
            "(each value's source in blueprints/catalog/documented/; an account's answer replaces it: docs/catalog.md)"
        )
    return 0


def _system(as_json: bool) -> int:
    """The system node types: vCPUs, architecture, and the network facts address planning uses."""
    types = load_system_types()
    if as_json:
        print(json.dumps({name: vars(kind) for name, kind in types.items()}, indent=2, sort_keys=True))
        return 0
    rows = [[kind.name, kind.vcpus, kind.architecture, kind.card_zero_interfaces, kind.ipv4_per_interface] for kind in types.values()]
    print(table(["instance type", "vCPUs", "architecture", "card 0 interfaces", "IPv4 per interface"], rows))
    print(f"\nsource: {OUTPUT.name}; regenerate with: python -m blueprints.catalog.system_types")
    return 0
