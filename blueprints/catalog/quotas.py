"""The AWS service quotas a design can run into (`quotas.yaml`): code, unit, service, name, default, source, least value."""

from __future__ import annotations

import functools
from pathlib import Path

from blueprints.records import record
from blueprints.source import load_data

TABLE = Path(__file__).resolve().parent / "quotas.yaml"
NODES_PER_NODE_GROUP = "L-BD136A63"
NODE_GROUPS_PER_CLUSTER = "L-6D54EA21"
NETWORK_INTERFACES = "L-DF5E4CA3"
SUBNETS_PER_VPC = "L-407747CB"
LUSTRE_PERSISTENT_2 = "L-8F1B9C74"
LUSTRE_SCRATCH = "L-AD2FC696"


@record
class Quota:
    """One service quota; `default` is None where AWS sets it per account. `family`/`market` tie EC2 vCPU quotas to pools."""

    code: str
    unit: str
    service: str
    name: str
    default: int | None
    source: str
    family: str | None = None
    market: str | None = None
    minimum: int = 0
    minimum_why: str = ""

    @property
    def label(self) -> str:
        """What the quota counts, for a row that shows its value: `Running On-Demand P instances (L-417A185B), vCPUs`.

        The table's EC2 and FSx names carry their unit in brackets (`... instances (vCPUs)`); the label moves it
        after the code, so every row reads name, code, unit alike.
        """
        name = self.name.removesuffix(f" ({self.unit})")
        return f"{name} ({self.code}), {self.unit}"


@functools.cache
def load_quotas() -> dict[str, Quota]:
    """Every known quota by code."""
    entries = load_data(TABLE.read_text("utf-8"))["quotas"]
    return {entry["code"]: Quota(**entry) for entry in entries}


def vcpu_family(instance_type: str) -> str:
    """The EC2 vCPU quota family of an instance type: P, G (G and VT), Trn, Inf, or Standard."""
    family = instance_type.split(".")[0]
    for prefix, name in (("trn", "Trn"), ("inf", "Inf"), ("p", "P"), ("g", "G"), ("vt", "G")):
        if family.startswith(prefix):
            return name
    return "Standard"
