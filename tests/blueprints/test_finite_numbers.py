"""YAML's infinity and not-a-number (`.inf`, `-.inf`, `.nan`) are floats no quantity of a blueprint can be.

pydantic accepts them by default, and `.inf` passes every lower bound (`ge=0`, `gt=0`): a pool reading `.inf` MB/s per
accelerator once validated silently and sized the FSx throughput check against infinity. Every blueprint model now
refuses them (`allow_inf_nan=False`), and the loader says so at the value's line, with the field's path, the value, what
is allowed and the fix.
"""

from __future__ import annotations

import pytest

from tests.blueprints.base import FILE, line_of, load, mutate

READ = "read_mbps_per_accelerator: 5"
READ_PATH = ("pools", 0, "storage", 0, "read_mbps_per_accelerator")
READ_HINT = (
    "write a finite number here (Sustained read demand per accelerator, in megabytes per second (MB/s, like FSx throughput)); "
    ".inf and .nan are YAML's infinity and not-a-number"
)


@pytest.mark.parametrize(("written", "shown"), [(".inf", "inf"), ("-.inf", "-inf"), (".nan", "nan"), (".Inf", "inf"), (".NaN", "nan")])
def test_infinite_or_nan_read_demand_is_a_located_error(written: str, shown: str) -> None:
    text = mutate(READ, f"read_mbps_per_accelerator: {written}")
    result = load(text)
    assert result.blueprint is None
    assert result.file == FILE
    [finding] = result.findings
    assert finding.code == "schema.out-of-range"
    assert finding.severity == "error"
    assert finding.path == READ_PATH
    assert finding.line == line_of(text, f"read_mbps_per_accelerator: {written}")
    assert finding.message == f"{shown} is out of range: pools[0].storage[0].read_mbps_per_accelerator must be a finite number"
    assert finding.hint == READ_HINT


def test_a_finite_read_demand_still_validates() -> None:
    """The bound itself (0, `ge=0`) and a large finite value pass: only infinity and not-a-number are refused."""
    for written in ("0", "0.0", "1.0e+6"):
        result = load(mutate(READ, f"read_mbps_per_accelerator: {written}"))
        assert result.blueprint is not None, written
        assert [finding.code for finding in result.findings if finding.severity == "error"] == []


def test_every_float_field_refuses_infinity() -> None:
    """Not one field's setting: a fabric's NICs per accelerator (gt=0) takes the same finding."""
    text = mutate("nics_per_accelerator: 4", "nics_per_accelerator: .inf")
    [finding] = load(text).findings
    assert (finding.code, finding.path, finding.line) == ("schema.out-of-range", ("fabrics", 0, "nics_per_accelerator"), line_of(text, ".inf"))
    assert finding.message == "inf is out of range: fabrics[0].nics_per_accelerator must be a finite number"
    assert finding.hint.startswith("write a finite number here (")


def test_a_float_without_a_described_field_still_names_the_fix() -> None:
    """A price keyed by instance type (a mapping's value: no field of its own to describe) is refused all the same."""
    text = BASE_WITH_PRICE.replace("98.32", ".nan")
    findings = [finding for finding in load(text).findings if finding.code == "schema.out-of-range"]
    assert [(finding.path, finding.line) for finding in findings] == [(("cost", "instance_usd_per_hour", "p5.48xlarge"), line_of(text, ".nan"))]
    assert findings[0].message == "nan is out of range: cost.instance_usd_per_hour.p5.48xlarge must be a finite number"
    assert findings[0].hint == "write a finite number here; .inf and .nan are YAML's infinity and not-a-number"


BASE_WITH_PRICE = mutate("kubernetes:\n", "cost:\n  instance_usd_per_hour:\n    p5.48xlarge: 98.32\nkubernetes:\n")
