"""Second readings of the On-Demand rates that decide most of an accelerator cluster's bill, to hold railyard's rows to.

railyard's On-Demand rows come from one source per region (Karpenter's generated tables, or an AWS offer file,
`blueprints.catalog.ec2_sources`). `on_demand_readings.yaml` quotes, for p5.48xlarge, p5en.48xlarge and g6e.12xlarge per
commercial region, the figure that other sources generated from AWS's Price List read, each with its repository, path,
commit, date, licence and rounding. The generator refuses a row that disagrees with a reading of it, naming the type,
the region, both figures and the reading's source; no price is ever taken from a reading.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from blueprints.records import record
from blueprints.source import load_data

FILE = Path(__file__).resolve().parent / "on_demand_readings.yaml"


class ReadingError(ValueError):
    """A row of railyard's On-Demand table disagrees with a second reading of it, or the readings file is malformed."""


@record
class Reading:
    """One source's figure for one type in one region, and the rounding that source writes it with."""

    instance_type: str
    region: str
    usd: float
    source: str
    cited: str
    rounding: float

    def agrees(self, usd: float) -> bool:
        """Whether `usd` reads as this figure once rounded as the source rounds (exactly, for a source that doesn't)."""
        return abs(usd - self.usd) <= self.rounding + 1e-9


def _cited(source: dict[str, Any]) -> str:
    """`owner/name @ 00148f2af367: path (date)`, as a disagreement names the reading's source."""
    repository = str(source["repository"]).removeprefix("https://github.com/")
    return f"{repository} @ {str(source['commit'])[:12]}: {source['path']} ({source['date']})"


def parse_readings(document: Any) -> tuple[Reading, ...]:
    """The readings of the file's document, each with its source's citation; a reading naming no source is refused."""
    if not isinstance(document, dict) or not isinstance(document.get("readings"), list) or not isinstance(document.get("sources"), dict):
        raise ReadingError(f"{FILE.name}: expected a mapping with 'sources' and 'readings'")
    sources: dict[str, dict[str, Any]] = document["sources"]
    readings: list[Reading] = []
    for index, row in enumerate(document["readings"]):
        source = sources.get(row.get("source"))
        if source is None:
            raise ReadingError(f"{FILE.name}: readings[{index}] names source {row.get('source')!r}, which 'sources' lacks")
        reading = Reading(row["type"], row["region"], float(row["usd"]), row["source"], _cited(source), float(source["rounding"]))
        readings.append(reading)
    return tuple(readings)


@functools.cache
def load_readings() -> tuple[Reading, ...]:
    """The committed readings, read once per process."""
    return parse_readings(load_data(FILE.read_text(encoding="utf-8")))


def check_readings(prices: dict[str, dict[str, float]], region_source: dict[str, str], readings: tuple[Reading, ...]) -> None:
    """Refuse the table when any of its rows disagrees with a reading of the same type in the same region."""
    differing = []
    for reading in readings:
        usd = prices.get(reading.region, {}).get(reading.instance_type)
        if usd is not None and not reading.agrees(usd):
            differing.append(
                f"{reading.instance_type} in {reading.region}: {region_source[reading.region]} reads {usd}, {reading.cited} reads {reading.usd}"
            )
    if differing:
        raise ReadingError(
            f"the On-Demand table disagrees with a second reading ({FILE.name}): {'; '.join(differing)}; "
            "check AWS's EC2 On-Demand pricing page for the region and correct whichever is wrong before regenerating"
        )
