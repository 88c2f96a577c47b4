"""A change's ceilings: what the cluster may grow to, before and after, beside what it runs as planned.

Raising a pool's `nodes.max` moves no node and costs nothing at the planned size, yet it lets the cluster
grow to more accelerators, more spend and more quota, and that is what a reviewer approves. Every figure
here is one `validate` already computed for each side, read back rather than worked out again:

* **max nodes and accelerators** per pool: `nodes.max`, times the catalog's accelerators per node, as
  `validate --json`'s summary counts them (system nodes are not a pool and are left out);
* **spend at max**: the cost model's `hourly_at_max_usd` (`topology.cost`), per pool line and in total
  over the priced lines (`docs/cost.md`); a pool whose price is unknown is unknown, never zero;
* **service quotas**: topology's quota plan (`Validation.quotas`, `docs/scale.md`), each need at the node
  groups' largest, labelled with the quota table's name, code and unit (`Quota.label`), with what the new
  side's account has and whether it fits;
* **Kueue queue quotas**: the ClusterQueue's nominal quota per pool flavor and resource, which railyard
  sizes to the pool at its max (`topology.cluster.kueue`), read from each side's compile plan.

A pool, quota or resource one side lacks counts 0 there (a removed pool may grow to nothing).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from blueprints.catalog.quotas import load_quotas
from blueprints.records import record
from railyard.change.before_after import BeforeAfter
from railyard.change.capacity import instance_spec
from railyard.pipeline import QUOTA_STATUS
from topology.cluster.kueue import UNITS as QUEUE_QUANTITY_SUFFIX
from topology.cost_report import cents

if TYPE_CHECKING:
    from railyard.mocked import PreviewResult
    from railyard.pipeline import Validation

K = TypeVar("K")
KINDS = ("total", "pool", "service-quota", "queue-quota")
USD_PER_HOUR = "USD/h"
# What a ClusterQueue's nominal quota counts per resource; memory, huge pages and ephemeral storage are
# written with the suffix `topology.cluster.kueue.UNITS` gives them (Mi, Gi).
QUEUE_UNITS = {
    "cpu": "vCPUs",
    "nvidia.com/gpu": "GPUs",
    "aws.amazon.com/neuron": "Neuron devices",
    "aws.amazon.com/neuroncore": "NeuronCores",
    "vpc.amazonaws.com/efa": "EFA devices",
    **{resource: f"{suffix}B" for resource, suffix in QUEUE_QUANTITY_SUFFIX.items()},
}


@record
class Ceiling:
    """One ceiling on both sides: what it counts (`label`, `unit`), its stable `key`, and its figures.

    A service quota row also has what the new side's account has (`available`: declared, else AWS's default;
    None where AWS sets it per account) and its `status` there: ok, OVER, or check.
    """

    kind: str
    key: str
    label: str
    unit: str
    figures: BeforeAfter
    available: int | None = None
    status: str | None = None

    @property
    def money(self) -> bool:
        """True for a spend row (USD per hour), rounded to the cent."""
        return self.unit == USD_PER_HOUR

    def cells(self) -> list[str]:
        """The row's before, after and change cells."""
        if self.money:
            return self.figures.rounded(cents).cells(lambda value: f"{value:,.2f}", lambda value: f"{value:+,.2f}")
        return self.figures.cells(lambda value: f"{value:,}", lambda value: f"{value:+,}")

    def as_json(self) -> dict[str, Any]:
        """The row for `diff --json`'s `ceilings`."""
        return {
            "kind": self.kind,
            "key": self.key,
            "label": self.label,
            "unit": self.unit,
            **(self.figures.as_json(cents) if self.money else self.figures.as_json()),
            "available": self.available,
            "status": self.status,
        }


def _pools(validation: Validation) -> dict[str, tuple[int, int, float | None]]:
    """Per pool: nodes at its max, accelerators at its max, and USD per hour at its max (None: unpriced)."""
    blueprint = validation.blueprint
    lines = {line.key: line for line in (validation.cost.lines if validation.cost is not None else ())}
    figures = {}
    for pool in blueprint.pools if blueprint is not None else ():
        spec = instance_spec(validation, pool.name)
        line = lines.get(f"pool:{pool.name}")
        accelerators = pool.max_nodes * (spec.accelerator_count if spec else 0)
        figures[pool.name] = (pool.max_nodes, accelerators, None if line is None else line.hourly_at_max_usd)
    return figures


def _both(before: Mapping[K, Any], after: Mapping[K, Any]) -> list[K]:
    """Keys in the new side's order, then those only the old side has."""
    return list(after) + [key for key in before if key not in after]


def _sum(pools: dict[str, tuple[int, int, float | None]], index: int) -> int:
    return sum(int(figures[index] or 0) for figures in pools.values())


def _pool_rows(old: Validation, new: Validation) -> Iterable[Ceiling]:
    """The totals over every pool, then each pool's three ceilings."""
    before, after = _pools(old), _pools(new)
    yield Ceiling("total", "max_nodes", "all pools: max nodes", "nodes", BeforeAfter(_sum(before, 0), _sum(after, 0)))
    yield Ceiling("total", "max_accelerators", "all pools: max accelerators", "accelerators", BeforeAfter(_sum(before, 1), _sum(after, 1)))
    spend = [None if side.cost is None else side.cost.hourly_at_max_usd for side in (old, new)]
    unpriced = len(new.cost.left_out()["hourly_at_max_usd"]) if new.cost is not None else 0
    label = "whole design: spend at max, USD/h (priced lines" + (f"; {unpriced} unpriced on the new side, left out)" if unpriced else ")")
    yield Ceiling("total", "hourly_at_max_usd", label, USD_PER_HOUR, BeforeAfter(*spend))
    gone = (0, 0, 0.0)  # a pool one side lacks grows to nothing there, and costs nothing
    for name in _both(before, after):
        was, now = before.get(name, gone), after.get(name, gone)
        yield Ceiling("pool", f"pool:{name}:max_nodes", f"pool {name}: max nodes", "nodes", BeforeAfter(was[0], now[0]))
        yield Ceiling("pool", f"pool:{name}:max_accelerators", f"pool {name}: max accelerators", "accelerators", BeforeAfter(was[1], now[1]))
        yield Ceiling("pool", f"pool:{name}:hourly_at_max_usd", f"pool {name}: spend at max, USD/h", USD_PER_HOUR, BeforeAfter(was[2], now[2]))


def _service_quota_rows(old: Validation, new: Validation) -> Iterable[Ceiling]:
    """Every quota either side's plan needs, with the new side's account value and status."""
    table = load_quotas()
    before = {need.code: need for need in old.quotas}
    after = {need.code: need for need in new.quotas}
    for code in _both(before, after):
        was, now = before.get(code), after.get(code)
        figures = BeforeAfter(was.needed if was else 0, now.needed if now else 0)
        available = now.available if now is not None else None
        status = QUOTA_STATUS[now.ok] if now is not None else None
        yield Ceiling("service-quota", f"quota:{code}", table[code].label, table[code].unit, figures, available, status)


def _queue_quotas(preview: PreviewResult) -> tuple[str | None, dict[tuple[str, str], int]]:
    """The ClusterQueue's name and its nominal quota per (pool, resource), from the side's compile plan."""
    kueue = preview.plan.kubernetes.kueue if preview.plan is not None else None
    if kueue is None:
        return None, {}
    covered = kueue.covered_resources  # the resources the queue lists, in its own order
    quotas = {(flavor.pool, resource): flavor.quotas.get(resource, 0) for flavor in kueue.flavors for resource in covered}
    return kueue.cluster_queue, quotas


def _queue_quota_rows(old: PreviewResult, new: PreviewResult) -> Iterable[Ceiling]:
    """Each pool flavor's nominal quota per resource in the Kueue ClusterQueue."""
    was_queue, before = _queue_quotas(old)
    now_queue, after = _queue_quotas(new)
    queue = now_queue or was_queue
    for pool, resource in _both(before, after):
        unit = QUEUE_UNITS.get(resource, resource)
        label = f"Kueue queue {queue}, pool {pool}: {resource} nominal quota, {unit}"
        figures = BeforeAfter(before.get((pool, resource), 0), after.get((pool, resource), 0))
        yield Ceiling("queue-quota", f"queue:{pool}:{resource}", label, unit, figures)


def ceilings(old: PreviewResult, new: PreviewResult) -> tuple[Ceiling, ...]:
    """Every ceiling of two previewed sides, in a stable order: totals, pools, service quotas, queue quotas."""
    rows = [
        *_pool_rows(old.validation, new.validation),
        *_service_quota_rows(old.validation, new.validation),
        *_queue_quota_rows(old, new),
    ]
    return tuple(rows)
