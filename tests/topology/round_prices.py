"""A price table of round prices made for the cost tests, and the blueprint they price, so every figure a test asserts is
worked out in the test whatever table railyard ships (topology/cost.py, cost_blocks.py and cost_prices.py's tests)."""

from __future__ import annotations

from typing import Any

import pytest

from blueprints.catalog.prices import PriceTable
from blueprints.models import Blueprint
from tests.blueprints.base import BASE, load
from tests.yaml_text import replace_once

TABLE_SOURCE = "example/prices @ 0123456789ab: table.go (generated 2026-07-20T00:00:00Z)"
HOURS = 800


def service(usd: float, unit: str, source: str, region: str = "us-east-1", **match: Any) -> dict[str, Any]:
    """One row of a service's prices, dated 2026-01-01."""
    return {"usd": usd, "unit": unit, "source": source, "date": "2026-01-01", "region": region, **match}


RATES = {"p5.48xlarge": 40.0, "inf2.48xlarge": 12.0, "m7i.xlarge": 0.25, "m7i.2xlarge": 0.5}


def table(on_demand: dict[str, float] | None = None, **services: Any) -> PriceTable:
    """A price table of round prices in us-east-1: `on_demand` replaces the instance rates, a keyword one service's rows (rows
    of another region: no price here)."""
    document = {
        "ec2_on_demand": {
            "sources": {
                "t": {
                    "kind": "Karpenter generated table",
                    "repository": "example/prices",
                    "commit": "0123456789abcdef",
                    "path": "table.go",
                    "generated_at": "2026-07-20T00:00:00Z",
                }
            },
            "region_source": {"us-east-1": "t", "eu-west-1": "t"},
            "prices": {"us-east-1": RATES if on_demand is None else on_demand, "eu-west-1": {}},
            "unit": "instance-hour",
        },
        "hours_per_month": HOURS,
        "services": {
            "capacity_blocks": {"date": "2026-07-22", "prices": [service(30.0, "instance-hour", "blocks", instance_type="p5.48xlarge")]},
            "eks_control_plane": {
                "prices": [
                    service(0.1, "cluster-hour", "eks", "*", support="standard"),
                    service(0.6, "cluster-hour", "eks", "*", support="extended"),
                ]
            },
            "eks_provisioned_control_plane": {
                "prices": [service(0.0, "cluster-hour", "tiers", "*", tier="standard"), service(1.5, "cluster-hour", "tiers", "*", tier="tier-xl")]
            },
            "fsx_lustre": {"prices": [service(0.2, "GB-month", "lustre", deployment_type="PERSISTENT_2", storage_type="SSD", throughput=250)]},
            "ebs_gp3_storage": service(0.08, "GB-month", "gp3"),
            "nat_gateway_hour": service(0.05, "gateway-hour", "nat"),
            "public_ipv4_address_hour": service(0.005, "address-hour", "ipv4", "*"),
            **services,
        },
    }
    return PriceTable(document)


TABLE = table()
ELSEWHERE = "eu-west-1"


def priced_blueprint(*changes: tuple[str, str], cost: str = "") -> Blueprint:
    """`tests/blueprints/base.BASE` with each (old, new) snippet replaced once and `cost:` set, loaded; it must load."""
    text = BASE
    for old, new in changes:
        text = replace_once(text, old, new)
    if cost:
        text = text.replace("kubernetes:\n", f"cost: {cost}\nkubernetes:\n")
    result = load(text)
    assert result.blueprint is not None, result.findings
    return result.blueprint


# A hot spare on the train pool's Capacity Block (BASE's cr-0123456789abcdef0), for the pools: list.
SPARE = """  - name: spare
    instance_type: p5.48xlarge
    role: training
    standby_for: train
    nodes: 2
    capacity:
      kind: capacity_block
      reservation_id: cr-0123456789abcdef0
    placement:
      domains: [za]
    fabric: efa
"""


def line_fields(key: str, item: str, kind: str, path, hourly, at_max, basis: str, source: str = "", **more: Any) -> dict[str, Any]:
    """A line's fields as compared: figures to within rounding, every word exact."""
    found = {
        "key": key,
        "item": item,
        "kind": kind,
        "path": path,
        "hourly_usd": hourly if hourly is None else pytest.approx(hourly),
        "hourly_at_max_usd": at_max if at_max is None else pytest.approx(at_max),
        "basis": basis,
        "source": source,
        "upfront_usd": None,
        "unknown": "",
        "upfront_unknown": "",
        "hint": "",
        "shared_with": "",
    }
    found.update(more)
    return found
