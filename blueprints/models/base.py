"""The base model and shared value types of the blueprint language.

Every blueprint model is strict (`extra="forbid"`: an unknown key is an error,
with a "did you mean" hint added by the loader), frozen (a validated blueprint
is a value, never edited in place) and self-describing (every field has a
description, which becomes the JSON Schema that editors use). Quantities carry
their unit in the field name: `capacity_gib`, `link_gbps`, `budget_kw`.
"""

import re
from collections.abc import Callable
from datetime import UTC, datetime
from ipaddress import IPv4Network
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

if TYPE_CHECKING:
    from pydantic_core import PydanticCustomError


class Model(BaseModel):
    """Base of every blueprint model: strict, frozen, documented, and finite: YAML's `.inf` and `.nan` are floats,
    which no quantity of a blueprint can be (pydantic would take them and every bound but `le`/`lt` passes `.inf`)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, validate_default=True, defer_build=True, allow_inf_nan=False)


def no_items() -> list[Any]:
    """The default of a list field: a new empty list.

    A Python function rather than `list`: pydantic reads each default factory's signature, and a builtin's
    only by tokenizing its text signature (the first use compiles tokenize's pattern: about 15 ms of a cold
    `validate`, for 22 fields).
    """
    return []


def no_entries() -> dict[Any, Any]:
    """The default of a mapping field: a new empty dict (a Python function for the reason `no_items` gives)."""
    return {}


def from_defaults(**fields: Any) -> Callable[[], Any]:
    """A nested model field's default factory: the mapping `fields` (empty for every default), which the parent's
    validator turns into the model (`validate_default`) with the schema it already has.

    Calling the model itself would build its schema a second time, on its own, in every process that
    validates a blueprint leaving the field out (about 7 ms of a cold `validate`).
    """
    return lambda: dict(fields)


Name = Annotated[
    str,
    StringConstraints(pattern=r"^[a-z]([a-z0-9-]{0,38}[a-z0-9])?$"),
    Field(description="A lower-case name (letters, digits, '-'; 1 to 40 characters) used in resource names and labels."),
]
"""Names become AWS resource names, Kubernetes label values and Pulumi URNs, so
they follow the strictest of those grammars (DNS-label style, short enough to
leave room for suffixes)."""

ZONE_NAME = r"[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9][a-z]"
ZONE_ID = r"[a-z]{2,5}[0-9]-az[0-9]{1,2}"
AvailabilityZone = Annotated[
    str,
    StringConstraints(pattern=rf"^({ZONE_NAME}|{ZONE_ID})$"),
    Field(
        description="An AWS availability zone: its name (us-east-1a) or its id (use1-az4). Names map to different zones in "
        "each account; ids don't, and a Capacity Block is bound to one. A blueprint uses one form throughout."
    ),
]


# A Local Zone's name (`us-east-1-dfw-2a`: the parent region, the location and its number, the zone's letter) and id
# (`use1-dfw2-az1`), as AWS's Local Zones User Guide writes them ("Available Local Zones").
LOCAL_ZONE_NAME = r"[a-z]{2}(-gov)?-[a-z]+-[0-9]-[a-z]{3}-[0-9][a-z]"
LOCAL_ZONE_ID = r"[a-z]{2,5}[0-9]-[a-z]{3}[0-9]-az[0-9]{1,2}"
DomainZone = Annotated[
    str,
    StringConstraints(pattern=rf"^({ZONE_NAME}|{ZONE_ID}|{LOCAL_ZONE_NAME}|{LOCAL_ZONE_ID})$"),
    Field(
        description="An AWS availability zone (its name, us-east-1a, or id, use1-az4; one form throughout the blueprint), or a "
        "Local Zone of the region, by name (us-east-1-dfw-2a) or id (use1-dfw2-az1): nodes and their subnets go there, the "
        "EKS control plane stays in cloud.availability_zones (blueprints/catalog/local_zones.yaml lists the Local Zones known)."
    ),
]


def is_zone_id(zone: str) -> bool:
    """True for a zone id (`use1-az4`, `use1-dfw2-az1`), False for a zone name (`us-east-1a`, `us-east-1-dfw-2a`)."""
    return "-az" in zone


def is_local_zone(zone: str) -> bool:
    """True when `zone` is written as a Local Zone's name or id (its shape; the table says whether AWS has it)."""
    return re.fullmatch(rf"{LOCAL_ZONE_NAME}|{LOCAL_ZONE_ID}", zone) is not None


PositiveKw = Annotated[float, Field(gt=0, description="Kilowatts.")]


def _cidr_text(value: Any) -> Any:
    """A CIDR block comes as text; anything else would be coerced (`true` reads as 0.0.0.1/32), so it is refused."""
    if not isinstance(value, str):
        raise ValueError(f"a CIDR block is written as text, such as 10.0.0.0/16, not {value!r}")
    return value


Cidr = Annotated[IPv4Network, BeforeValidator(_cidr_text), Field(strict=False)]
"""An IPv4 CIDR block, written as text (`10.0.0.0/16`)."""


def _utc_time(value: Any) -> Any:
    """A moment with its time zone, written bare (YAML's timestamp) or quoted; in UTC from here on.

    A time without a zone is refused rather than guessed: AWS states Capacity Block
    windows in UTC, and a local reading would move the block by hours.
    """
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f"{value!r} is not an ISO 8601 time such as 2026-12-01T11:30:00Z") from None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError(f"{value.isoformat()} has no time zone; write it in UTC with a Z, such as 2026-12-01T11:30:00Z")
        return value.astimezone(UTC)
    return value


UtcTime = Annotated[datetime, BeforeValidator(_utc_time)]
"""A moment in UTC, written as an ISO 8601 time with its zone (`2026-12-01T11:30:00Z`), quoted or not."""


def violation(code: str, message: str, hint: str, field: str | None = None) -> "PydanticCustomError":
    """Build the error a model validator raises for an invariant inside one object.

    The loader turns it into a `Finding` with this stable code, the hint, and a
    path that ends at `field` (when given), so these findings are reported
    together with the schema errors of the rest of the file.
    """
    from pydantic_core import PydanticCustomError

    return PydanticCustomError(
        "railyard_rule",
        "{message}",
        {"message": message, "code": code, "hint": hint, "field": field or ""},
    )


def check_secondary_blocks(blocks: list[IPv4Network], code: str, what: str, field: str) -> None:
    """Raise for the first block outside the /16 to /28 a VPC CIDR block may be (Amazon VPC User Guide, VPC CIDR blocks)."""
    for index, cidr in enumerate(blocks):
        if not 16 <= cidr.prefixlen <= 28:
            raise violation(
                code, f"{what} {cidr} is a /{cidr.prefixlen}; a VPC CIDR block is /16 to /28", "split it into /16 blocks", f"{field}.{index}"
            )


__all__ = ["Model", "Name", "AvailabilityZone", "PositiveKw", "is_zone_id", "violation"]
