"""Scale-up domains as built: each pool's NVLink / NeuronLink domains, and their switches where the blueprint describes them.

A domain is the catalog's (a Trn2 UltraServer: 64 Trainium2 on 4 hosts) or
the one a designed fabric declares (`scale_up`): an NVL72 rack is 72 GPUs on
18 hosts, switched by 18 NVLink switch chips, each GPU with one of its 18
links to every chip. From that the figures follow:

* switch ports: accelerators x links per accelerator / switches (an NVL72 chip: 72);
* bandwidth per accelerator and per domain, both directions added, as vendors
  quote NVLink (1.8 TB/s per Blackwell GPU);
* bisection, each way: half the domain's accelerators at their full bandwidth,
  since every accelerator reaches every switch (a single non-blocking stage);
* switch hops inside: 1 through the switches, else the catalog's (an in-host
  NVSwitch or PCIe switch: 1; NeuronLink's direct torus: 0);
* one switch lost: its share of every accelerator's links, and no accelerator
  cut off while another switch remains.

Where the blueprint doesn't describe the switches, their figures are None and
`unknown` says so; nothing here is guessed.
"""

from __future__ import annotations

from typing import Any

from blueprints.catalog import Catalog, InstanceType
from blueprints.models import Blueprint
from blueprints.models.fabric_parts import ScaleUp
from blueprints.models.pools import Pool
from blueprints.records import record
from blueprints.rules.context import Context
from topology.layout import SCALE_UP_SWITCHES, host_scale_up

__all__ = ["ScaleUpDomains", "scale_up_domains"]

_SWITCH_FIGURES = ("switches", "ports_per_switch", "bisection", "switch_loss")


@record
class ScaleUpDomains:
    """One pool's scale-up domains: their size, how many the pool makes, and their switches when described."""

    pool: str
    kind: str
    accelerators: int  # per domain
    hosts: int  # per domain
    domains: int  # whole domains among the pool's placed hosts
    switches: int | None  # per domain
    links_per_accelerator: int | None
    link_gbps: int | None  # each way
    accelerator_gbps: float | None  # both directions added, as NVLink and NeuronLink are quoted

    @property
    def switched(self) -> bool:
        """True when the blueprint describes the domain's switch chips."""
        return self.switches is not None

    @property
    def ports_per_switch(self) -> int | None:
        """Scale-up ports each switch uses: every accelerator's links, spread evenly over the switches."""
        if self.switches is None or self.links_per_accelerator is None:
            return None
        return self.accelerators * self.links_per_accelerator // self.switches

    @property
    def links(self) -> int | None:
        """Scale-up links in one domain."""
        return None if self.links_per_accelerator is None else self.accelerators * self.links_per_accelerator

    @property
    def domain_gbps(self) -> float | None:
        """Every accelerator's scale-up bandwidth in one domain, both directions added."""
        return None if self.accelerator_gbps is None else self.accelerators * self.accelerator_gbps

    @property
    def bisection_gbps(self) -> float | None:
        """Bandwidth each way across the worst cut of one domain: half its accelerators at full rate, through a single stage."""
        if not self.switched or self.accelerator_gbps is None:
            return None
        return (self.accelerators // 2) * self.accelerator_gbps / 2

    @property
    def max_switch_hops(self) -> int:
        """Switches between two accelerators of one domain."""
        return 1 if self.switched else SCALE_UP_SWITCHES.get(self.kind, 1)

    @property
    def switch_loss_gbps(self) -> float | None:
        """Scale-up bandwidth one switch takes with it, each way: its ports at the link speed."""
        ports = self.ports_per_switch
        return None if ports is None or self.link_gbps is None else ports * self.link_gbps

    @property
    def switch_loss_share(self) -> float | None:
        """The share of the domain's scale-up bandwidth one switch takes (every switch carries the same)."""
        return None if self.switches is None else 1 / self.switches

    @property
    def direct(self) -> bool:
        """True for an interconnect with no switch at all (NeuronLink's torus): its switch count is known to be 0."""
        return not self.switched and SCALE_UP_SWITCHES.get(self.kind, 1) == 0

    @property
    def unknown(self) -> list[str]:
        """Figures the blueprint gives no basis for (a direct torus has no switches, but its cut depends on its shape)."""
        if self.switched:
            return []
        return ["bisection"] if self.direct else list(_SWITCH_FIGURES)

    def figures(self) -> dict[str, Any]:
        """The JSON `validate --json` reports: per domain, and totals over the pool's domains (bandwidth in Tb/s)."""
        switches, links = (0 if self.direct else self.switches), self.links
        return {
            "pool": self.pool,
            "kind": self.kind,
            "accelerators_per_domain": self.accelerators,
            "hosts_per_domain": self.hosts,
            "domains": self.domains,
            "switches_per_domain": switches,
            "switches": None if switches is None else switches * self.domains,
            "ports_per_switch": self.ports_per_switch,
            "links_per_domain": links,
            "links": None if links is None else links * self.domains,
            "link_gbps": self.link_gbps,
            "accelerator_tbps": _tbps(self.accelerator_gbps),
            "domain_tbps": _tbps(self.domain_gbps),
            "bisection_tbps": _tbps(self.bisection_gbps),
            "max_switch_hops": self.max_switch_hops,
            "switch_loss": None
            if self.switch_loss_gbps is None
            else {"tbps": _tbps(self.switch_loss_gbps), "share": round(self.switch_loss_share or 0.0, 4), "accelerators_cut_off": self.cut_off},
            "unknown": self.unknown,
        }

    @property
    def cut_off(self) -> int:
        """Accelerators one lost switch leaves without scale-up peers: none while another switch remains, else the domain."""
        return 0 if (self.switches or 0) > 1 else self.accelerators


def _tbps(gbps: float | None) -> float | None:
    return None if gbps is None else round(gbps / 1000, 3)


def _bandwidth(declared: ScaleUp | None, spec: InstanceType) -> float | None:
    """Per accelerator, both directions: the declared links', else the catalog's for the same interconnect."""
    if declared is not None and declared.links_per_accelerator is not None and declared.link_gbps is not None:
        return 2.0 * declared.links_per_accelerator * declared.link_gbps
    catalog = spec.scale_up
    if catalog is None or (declared is not None and declared.kind != catalog.kind):
        return None
    return catalog.bandwidth_gbps_per_accelerator


def _domain(ctx: Context, pool: Pool, spec: InstanceType, placed: int) -> ScaleUpDomains | None:
    declared = ctx.declared_scale_up(pool)
    if declared is None and spec.scale_up is None:
        return None  # no scale-up interconnect: nothing to report
    per_host = spec.accelerator_count
    kind, hosts = ctx.scale_up_domain(pool)
    # A domain spans whole hosts, or splits one host into equal parts (placed hosts x parts per host).
    accelerators = hosts * per_host if hosts > 1 else host_scale_up(declared, spec)[1]
    domains = placed // hosts if hosts > 1 else placed * (per_host // accelerators)
    switched = declared if declared is not None and declared.switches is not None else None
    return ScaleUpDomains(
        pool=pool.name,
        kind=kind,
        accelerators=accelerators,
        hosts=hosts,
        domains=domains,
        switches=switched.switches if switched else None,
        links_per_accelerator=switched.links_per_accelerator if switched else None,
        link_gbps=switched.link_gbps if switched else None,
        accelerator_gbps=_bandwidth(declared, spec),
    )


def scale_up_domains(blueprint: Blueprint, catalog: Catalog, placed: dict[int, int]) -> list[ScaleUpDomains]:
    """Every accelerator pool's scale-up domains, in pool order; `placed` is hosts placed per pool index."""
    ctx = Context(blueprint, catalog)
    domains: list[ScaleUpDomains] = []
    for index, pool in enumerate(blueprint.pools):
        spec = catalog.get(pool.instance_type)
        if spec is None or not spec.accelerator_count:
            continue
        domain = _domain(ctx, pool, spec, placed.get(index, 0))
        if domain is not None:
            domains.append(domain)
    return domains
