"""Every FSx for Lustre tier a blueprint can make is priced: by railyard's table, or by the `cost.fsx_lustre` entry
its unknown's hint spells out, which a blueprint can declare as written.

The tiers are the ones the FSx rule allows (`blueprints/rules/fsx.py` THROUGHPUT, from the FSx API's
PerUnitStorageThroughput values): SCRATCH_1 and SCRATCH_2 (no throughput), PERSISTENT_1 SSD 50/100/200 and HDD 12/40,
PERSISTENT_2 SSD 125/250/500/1000 MB/s/TiB: eleven in all.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import yaml

from blueprints.catalog.prices import load_prices
from blueprints.models.cost import Cost
from blueprints.rules.fsx import THROUGHPUT
from topology.cost_prices import Pricer

TIERS = [("SCRATCH_1", "SSD", None), ("SCRATCH_2", "SSD", None)] + [
    (deployment, storage, throughput) for (deployment, storage), values in sorted(THROUGHPUT.items()) for throughput in values
]


def _pricer(cost: Cost, region: str = "us-east-1") -> Pricer:
    return Pricer(SimpleNamespace(cloud=SimpleNamespace(region=region), cost=cost), load_prices())  # type: ignore[arg-type]


def test_every_tier_is_priced_by_the_table_or_by_the_entry_its_hint_names():
    assert len(TIERS) == 11
    table, declared = [], []
    for tier in TIERS:
        pricer = _pricer(Cost())
        if pricer.lustre(*tier) is not None:
            table.append(tier)
            continue
        hint = pricer.lustre_gap(*tier).hint
        entry = re.fullmatch(r"add to cost\.fsx_lustre: (\{.*\})", hint)
        assert entry is not None, hint
        written = yaml.safe_load(entry.group(1).replace("<USD per GB-month>", "0.5"))
        price = _pricer(Cost(fsx_lustre=[written])).lustre(*tier)
        assert price is not None and price.usd == 0.5 and price.source == "declared in the blueprint (cost.fsx_lustre)", tier
        declared.append(tier)
    # railyard's table has two us-east-1 tiers (third-party summaries of AWS's page, docs/cost.md); the rest are declared.
    assert table == [("SCRATCH_2", "SSD", None), ("PERSISTENT_2", "SSD", 125)]
    assert len(declared) == 9


def test_outside_the_tables_region_every_tier_is_declared_not_guessed():
    for tier in TIERS:
        pricer = _pricer(Cost(), "eu-west-1")
        why = pricer.lustre_gap(*tier).why
        assert pricer.lustre(*tier) is None and why.startswith("no source prices it: AWS publishes FSx for Lustre ") and "for eu-west-1 in" in why, (
            tier
        )
