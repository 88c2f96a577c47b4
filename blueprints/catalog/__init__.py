"""The accelerator instance catalog: AWS's data joined to sourced hand facts.

Two committed files feed it:

* `instance_types.json` - generated, never edited: a trimmed copy of EC2
  DescribeInstanceTypes entries for the supported families
  (`python -m blueprints.catalog.generate`, see `generate.py`).
* `accelerator_facts.yaml` - hand-entered numbers the API lacks (power,
  BF16 TFLOPS, memory bandwidth, scale-up fabric, node kW, topology layers),
  and the few API figures the vendor's own documentation corrects (Trainium2's
  memory), each with a source and a confidence.

`load_catalog()` joins them once per process and returns a `Catalog`.

Adding an instance family: add it to `SUPPORTED_FAMILIES` in `generate.py`,
regenerate, then add a `families:` entry (and its accelerator, if new) to
`accelerator_facts.yaml`; `build_catalog` refuses a family without facts. A type
no API answer within reach has is typed from AWS's documentation into
`documented/` (`documented_types.py`); the provenance says which types those are.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from blueprints.catalog.collection import Catalog
from blueprints.catalog.model import (
    CONFIDENCES,
    Accelerator,
    CatalogError,
    Confidence,
    Fact,
    InstanceStore,
    InstanceType,
    NetworkCard,
    ScaleUp,
    advertised_gbps,
    api_fields,
    family_of,
)
from blueprints.source import load_data

__all__ = [
    "Accelerator",
    "Catalog",
    "CatalogError",
    "Fact",
    "InstanceStore",
    "InstanceType",
    "NetworkCard",
    "ScaleUp",
    "build_catalog",
    "family_of",
    "load_catalog",
]

# Beside this module; a plain path keeps start-up fast (importlib.resources costs ~15 ms).
DATA_DIR = Path(__file__).parent
INSTANCE_TYPES_FILE = "instance_types.json"
FACTS_FILE = "accelerator_facts.yaml"
ACCELERATOR_FACTS = ("tdp_watts", "bf16_dense_tflops", "hbm_bandwidth_tbps")


@functools.cache
def load_catalog() -> Catalog:
    """The catalog built from the two committed files, parsed once per process."""
    instance_document = json.loads((DATA_DIR / INSTANCE_TYPES_FILE).read_text("utf-8"))
    facts_document = load_data((DATA_DIR / FACTS_FILE).read_text("utf-8"))
    return build_catalog(instance_document, facts_document)


def build_catalog(instance_document: Mapping[str, Any], facts: Mapping[str, Any]) -> Catalog:
    """Join generated API data (`instance_types.json` shape) to the facts file.

    Raises `CatalogError` naming the instance type or fact at fault when a family
    has no facts, a fact lacks its source or confidence, or the accelerator EC2
    reports is not the one the facts file describes for that family.
    """
    entries = instance_document["instance_types"]
    accelerators = facts["accelerators"]
    families = facts["families"]
    network_figures = facts.get("network_figures", {})
    instance_types = {}
    for name, entry in entries.items():
        family = family_of(name)
        if family not in families:
            raise CatalogError(f"{name}: family {family!r} has no entry in {FACTS_FILE}")
        accelerator_key = families[family].get("accelerator")
        if accelerator_key not in accelerators:
            raise CatalogError(f"{FACTS_FILE}: families.{family} names unknown accelerator {accelerator_key!r}")
        try:
            joined = _join(entry, families[family], accelerator_key, accelerators[accelerator_key], entries)
            instance_types[name] = _with_network_figure(joined, network_figures.get(name))
        except (KeyError, TypeError) as error:
            # A missing field in either file; name the instance so it can be found.
            raise CatalogError(f"{name}: incomplete catalog data ({type(error).__name__}: {error})") from error
    return Catalog(instance_types, instance_document.get("provenance", {}))


def _with_network_figure(instance: InstanceType, raw: Any) -> InstanceType:
    """The instance with its `network_gbps` fact: why AWS's instance figure and its cards' sum differ, where they do.

    A difference without an entry in `network_figures`, or an entry whose `cards_gbps` is no longer the cards' sum
    (the API data changed), is a `CatalogError`: no figure goes unexplained.
    """
    advertised = advertised_gbps(instance.network_performance)
    where = f"network_figures.{instance.name}"
    if raw is None:
        if advertised is not None and advertised != instance.cards_gbps:
            raise CatalogError(
                f"{instance.name}: NetworkPerformance {instance.network_performance!r} is not its cards' sum "
                f"({instance.cards_gbps:g} Gbps); explain the difference under {where} in {FACTS_FILE}"
            )
        return instance
    if not isinstance(raw, Mapping) or raw.get("cards_gbps") != instance.cards_gbps:
        raise CatalogError(f"{FACTS_FILE}: {where}.cards_gbps must be the cards' sum, {instance.cards_gbps:g}")
    fact = _fact("network_gbps", raw, "network_figures", value=instance.network_gbps)
    return dataclasses.replace(instance, facts=(*instance.facts, fact))


def _fact(name: str, raw: Any, where: str, value: Any = None) -> Fact:
    """A `Fact` from its YAML mapping, refusing one without source or confidence.

    `value` replaces the mapping's own `value` for structured facts (a `ScaleUp`,
    an `Accelerator`) whose fields sit beside `source` in the same mapping.
    """
    if not isinstance(raw, Mapping):
        raise CatalogError(f"{FACTS_FILE}: {where}.{name} must be a mapping with a source")
    source = raw.get("source")
    if not isinstance(source, str) or not source.strip():
        raise CatalogError(f"{FACTS_FILE}: {where}.{name} has no source")
    if raw.get("confidence") not in CONFIDENCES:
        raise CatalogError(f"{FACTS_FILE}: {where}.{name} confidence {raw.get('confidence')!r} is not one of {', '.join(CONFIDENCES)}")
    own_value = raw.get("value") if value is None else value
    return Fact(name, own_value, source, raw["confidence"], raw.get("note", ""))


def _derived(fact: Fact, value: Any, note: str, confidence: Confidence | None = None) -> Fact:
    """`fact` with a value derived for one size; the note says how."""
    return dataclasses.replace(fact, value=value, confidence=confidence or fact.confidence, note=f"{fact.note} {note}".strip())


def _accelerator(entry: Mapping[str, Any], family: Mapping[str, Any], family_name: str, api_name: str) -> tuple[Accelerator | None, Fact | None]:
    """EC2's accelerator, else the facts file's stand-in together with its Fact."""
    accelerator = Accelerator.from_aws(entry)
    stand_in = family.get("accelerator_when_api_omits")
    if accelerator is not None or stand_in is None:
        return accelerator, None
    accelerator = Accelerator(
        stand_in["vendor"],
        stand_in["kind"],
        api_name,
        stand_in["count"],
        stand_in["memory_mib"],
        stand_in.get("neuron_cores"),
    )
    return accelerator, _fact("accelerator", stand_in, f"families.{family_name}", accelerator)


def _memory_correction(accelerator: Accelerator | None, family: Mapping[str, Any], where: str) -> tuple[Accelerator | None, Fact | None]:
    """The accelerator with the family's sourced memory correction applied, and its Fact; unchanged without one.

    The correction names the figure the API reports (`api_reports_mib`): when the API data no longer says that,
    the correction is stale and the catalog is refused rather than silently overriding a new figure.
    """
    raw = family.get("accelerator_memory_correction")
    if raw is None or accelerator is None:
        return accelerator, None
    if raw.get("api_reports_mib") != accelerator.memory_mib:
        raise CatalogError(
            f"{FACTS_FILE}: {where}.accelerator_memory_correction.api_reports_mib is {raw.get('api_reports_mib')!r}, but EC2 "
            f"now reports {accelerator.memory_mib} MiB per {accelerator.model}: check the figure again and update or drop the correction"
        )
    corrected = dataclasses.replace(accelerator, memory_mib=raw["memory_mib"])
    return corrected, _fact("accelerator_memory_mib", raw, where, value=raw["memory_mib"])


def _logical_cores(accelerator: Accelerator | None, raw: Any, where: str) -> tuple[Accelerator | None, Fact | None]:
    """A Neuron accelerator with its default logical NeuronCore configuration, and its Fact; GPUs unchanged.

    Every Neuron accelerator must state it: the cores a node advertises to Kubernetes depend on it.
    """
    if accelerator is None or accelerator.kind != "neuron":
        return accelerator, None
    fact = _fact("logical_neuroncore_config", raw, where)
    if not isinstance(fact.value, int) or fact.value < 1 or (accelerator.neuron_cores or 0) % fact.value:
        raise CatalogError(
            f"{FACTS_FILE}: {where}.logical_neuroncore_config must be a whole number that divides the "
            f"{accelerator.neuron_cores} NeuronCores per device, not {fact.value!r}"
        )
    return dataclasses.replace(accelerator, logical_neuroncore_config=fact.value), fact


def _scale_up_fact(raw: Any, where: str, count: int) -> Fact:
    """The family's fabric, clipped to `count` accelerators inside one instance (`raw` as parsed: `_fact` checks it)."""
    fact = _fact("scale_up", raw, where)
    scale_up = ScaleUp(raw["kind"], raw["domain_size"], raw["bandwidth_gbps_per_accelerator"], raw.get("instances_per_domain", 1))
    fact = dataclasses.replace(fact, value=scale_up)
    if scale_up.instances_per_domain == 1 and 0 < count < scale_up.domain_size:
        # A smaller size of the family has fewer accelerators on the same fabric.
        clipped = ScaleUp(scale_up.kind, count, scale_up.bandwidth_gbps_per_accelerator)
        note = f"Domain clipped to the {count} accelerator(s) of this size."
        return _derived(fact, clipped, note)
    return fact


def _node_kw_fact(raw: Any, where: str, name: str, count: int, entries: Mapping[str, Any]) -> Fact:
    """Node power for this size: the family's figure scaled by accelerator count (`raw` as parsed: `_fact` checks it)."""
    fact = _fact("typical_node_kw", raw, where)
    reference: Any = raw.get("instance_type")  # as parsed; refused below unless it names an entry
    if reference not in entries:
        raise CatalogError(f"{FACTS_FILE}: {where}.typical_node_kw names unknown {reference!r}")
    reference_accelerator = Accelerator.from_aws(entries[reference])
    reference_count = reference_accelerator.count if reference_accelerator else 0
    if fact.value is None or name == reference or 0 in (count, reference_count):
        return fact
    # An estimate of an estimate: proportional scaling ignores the host's share.
    scaled = round(fact.value * count / reference_count, 2)
    note = f"Scaled from {reference} by accelerator count {count}/{reference_count}."
    return _derived(fact, scaled, note, confidence="unsure")


def _topology_fact(raw: Any, where: str, name: str) -> Fact:
    """Topology layers for this size; sizes the AWS page omits get none (`raw` as parsed: `_fact` checks it)."""
    fact = _fact("topology_layers", raw, where)
    if name in raw.get("not_for", ()):
        return _derived(fact, 0, f"{name} is not on the page's list: no topology labels.")
    return fact


def _efa_cards_fact(raw: Any, where: str, fields: Mapping[str, Any]) -> Fact | None:
    """The cards AWS's guide names for a node's EFA interfaces, where the family states them (`raw` as parsed).

    Each must be a card of the instance that carries EFA (card 0 only with a slot beside the primary interface), named
    once, and no more of them than `MaximumEfaInterfaces`; anything else is a `CatalogError` naming the card.
    """
    if raw is None:
        return None
    fact = _fact("efa_cards", raw, where)
    cards = {card.index: card for card in fields["network_cards"]}
    value = fact.value if isinstance(fact.value, list) else []
    if not value or len(set(value)) != len(value) or not all(isinstance(index, int) for index in value):
        raise CatalogError(f"{FACTS_FILE}: {where}.efa_cards must list network card indices, each once, not {fact.value!r}")
    for index in value:
        card = cards.get(index)
        if card is None or not card.supports_efa or (index == 0 and card.max_interfaces < 2):
            kinds = list(card.interface_types) if card else "no such card"
            raise CatalogError(
                f"{fields['name']}: {where}.efa_cards names card {index}, which can't carry an EFA interface ({kinds}); "
                f"its EFA cards are {[c.index for c in cards.values() if c.supports_efa]}"
            )
    most = fields["max_efa_interfaces"]
    if len(value) > most:
        raise CatalogError(f"{fields['name']}: {where}.efa_cards names {len(value)} cards, more than MaximumEfaInterfaces {most}")
    return dataclasses.replace(fact, value=tuple(value))


def _join(
    entry: Mapping[str, Any], family: Mapping[str, Any], accelerator_key: str, accelerator_facts: Mapping[str, Any], entries: Mapping[str, Any]
) -> InstanceType:
    """One `InstanceType` from its API entry and its family's facts."""
    fields = api_fields(entry)
    name, family_name = fields["name"], fields["family"]
    api_name: Any = accelerator_facts.get("api_name")  # as parsed; EC2's own name must equal it
    accelerator, stand_in = _accelerator(entry, family, family_name, api_name)
    if accelerator is not None and accelerator.model != api_name:
        raise CatalogError(f"{name}: EC2 reports accelerator {accelerator.model!r}, {FACTS_FILE} expects {api_name!r} for family {family_name}")
    count = accelerator.count if accelerator else 0
    where = f"families.{family_name}"
    accelerator, correction = _memory_correction(accelerator, family, where)
    accelerator, logical = _logical_cores(accelerator, accelerator_facts.get("logical_neuroncore_config"), f"accelerators.{accelerator_key}")
    facts = [_fact(key, accelerator_facts.get(key), f"accelerators.{accelerator_key}") for key in ACCELERATOR_FACTS]
    facts.append(_scale_up_fact(family.get("scale_up"), where, count))
    facts.append(_node_kw_fact(family.get("typical_node_kw"), where, name, count, entries))
    facts.append(_topology_fact(family.get("topology_layers"), where, name))
    efa_cards = _efa_cards_fact(family.get("efa_cards"), where, fields)
    facts += [fact for fact in (stand_in, correction, logical, efa_cards) if fact is not None]
    values = {fact.name: fact.value for fact in facts}
    fields["accelerator"] = accelerator
    return InstanceType(
        **fields,
        tdp_watts=values["tdp_watts"],
        bf16_dense_tflops=values["bf16_dense_tflops"],
        hbm_bandwidth_tbps=values["hbm_bandwidth_tbps"],
        scale_up=values["scale_up"],
        typical_node_kw=values["typical_node_kw"],
        topology_layers=values["topology_layers"],
        recommended_efa_cards=efa_cards.value if efa_cards else (),
        facts=tuple(facts),
    )
