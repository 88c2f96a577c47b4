"""`railyard catalog [--json]`: the accelerator instance types railyard knows, with sources."""

from __future__ import annotations

import json

from blueprints.catalog import load_catalog
from railyard.render import table

NAME = "catalog"
HELP = "List the accelerator catalog (AWS DescribeInstanceTypes data joined to sourced facts)."


def add_arguments(parser) -> None:
    """--json."""
    parser.add_argument("--json", action="store_true", help="print the whole catalog as JSON, with provenance and sources")


def run(args) -> int:
    """Print the catalog."""
    catalog = load_catalog()
    if args.json:
        print(json.dumps(catalog.as_json(), indent=2, sort_keys=True))
        return 0
    rows = catalog.rows()
    headers = list(rows[0]) if rows else []
    print(table(headers, [[row[h] for h in headers] for row in rows]))
    provenance = catalog.provenance
    print(f"\nsource: {provenance.get('source', '?')}; regenerate with: {provenance.get('command', '?')}")
    return 0
