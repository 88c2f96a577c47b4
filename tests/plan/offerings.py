"""Offerings and needs built in tests: answers in the shape botocore's DescribeCapacityBlockOfferings output has.

Fees are rate x instances x hours, so each figure a test asserts can be worked out by hand.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from blueprints.models.needs import Needs

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "blueprints" / "examples" / "plan"
SAMPLE_NEEDS = SAMPLE / "llama-pretrain.needs.yaml"
SAMPLE_OFFERINGS = SAMPLE / "offerings"
AT = datetime(2026, 12, 1, tzinfo=UTC)


def answer(
    offering_id: str,
    instance_type: str = "p5.48xlarge",
    zone: str = "us-east-1a",
    count: int = 64,
    start: str = "2027-01-11",
    days: int = 21,
    rate: str = "41.528",
    **extra: Any,
) -> dict[str, Any]:
    """One offering as the AWS CLI prints it: starting at 11:30 UTC (when every block ends), its fee rate x instances x hours."""
    begin = datetime.fromisoformat(f"{start}T11:30:00+00:00")
    fee = (Decimal(rate) * count * days * 24).quantize(Decimal("0.01"))
    return {
        "CapacityBlockOfferingId": offering_id,
        "InstanceType": instance_type,
        "AvailabilityZone": zone,
        "InstanceCount": count,
        "StartDate": begin.isoformat(),
        "EndDate": (begin + timedelta(days=days)).isoformat(),
        "CapacityBlockDurationHours": days * 24,
        "UpfrontFee": str(fee),
        "CurrencyCode": "USD",
        **extra,
    }


def needs(count: int = 512, kinds: tuple[str, ...] = ("h100",), **changes: Any) -> Needs:
    """A needs model: `count` accelerators of `kinds` for 21 days in January-February 2027, in us-east-1 and us-east-2."""
    data: dict[str, Any] = {
        "version": 1,
        "kind": "needs",
        "name": "job",
        "base": "base.yaml",
        "regions": ["us-east-1", "us-east-2"],
        "accelerators": {"count": count, "kinds": list(kinds)},
        "window": {"earliest_start": date(2027, 1, 4), "latest_end": date(2027, 2, 28), "duration_days": 21},
    }
    data.update(changes)
    return Needs.model_validate(data)
