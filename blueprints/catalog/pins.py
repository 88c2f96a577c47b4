"""The versions railyard pins (EKS Kubernetes versions, managed add-ons, Helm charts, images), read from `pins.yaml`.

One table, each entry with where it was seen published: the Kubernetes
layer's charts (`components.kubernetes.charts`) and the blueprint's default
EKS version come from here, and `docs/pins.md` renders it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from datetime import date
from pathlib import Path

from blueprints.records import record
from blueprints.source import load_data

PINS = Path(__file__).resolve().parent / "pins.yaml"


@record
class EksVersion:
    """One Kubernetes version on EKS: when it came and when standard and extended support end."""

    version: str
    eks_release: date
    end_of_standard: date
    end_of_extended: date


@record
class ChartPin:
    """A pinned Helm chart: chart name (or OCI URL), version, repository (None for OCI), namespace, source."""

    key: str
    chart: str
    version: str
    repository: str | None
    namespace: str
    source: str
    controller: bool = False


@record
class AddonPin:
    """An EKS managed add-on: its version per Kubernetes version where AWS publishes one, and where it was seen."""

    name: str
    versions: Mapping[str, str]
    source: str

    def version(self, kubernetes: str) -> str | None:
        """The pinned version for a Kubernetes version; None = EKS's default, resolved at apply."""
        return self.versions.get(kubernetes)


@record
class ImagePin:
    """A container image railyard deploys without a chart: repository, tag, and where it was seen published."""

    key: str
    image: str
    tag: str
    source: str

    @property
    def reference(self) -> str:
        """`<image>:<tag>`, as a pod spec names it."""
        return f"{self.image}:{self.tag}"


@record
class Pins:
    """Everything `pins.yaml` holds."""

    default_kubernetes: str
    kubernetes_source: str
    kubernetes: tuple[EksVersion, ...]
    charts: tuple[ChartPin, ...]
    addons: tuple[AddonPin, ...]
    images: tuple[ImagePin, ...] = ()

    def eks_version(self, version: str) -> EksVersion | None:
        """The calendar entry of `version`, or None when the calendar doesn't list it."""
        return next((entry for entry in self.kubernetes if entry.version == version), None)

    def addon(self, name: str) -> AddonPin:
        """The pin of the add-on named `name` (`vpc-cni`, `coredns`, ...)."""
        return next(pin for pin in self.addons if pin.name == name)

    def image(self, key: str) -> ImagePin:
        """The image pin named `key` (`neuron_monitor`)."""
        return next(pin for pin in self.images if pin.key == key)

    def chart(self, key: str) -> ChartPin:
        """The pin named `key` (`kueue`, `nvidia_device_plugin`, ...)."""
        return next(pin for pin in self.charts if pin.key == key)


@functools.cache
def load_pins() -> Pins:
    """The pins table (read once per process)."""
    data = load_data(PINS.read_text("utf-8"))
    kubernetes = data["kubernetes"]
    versions = tuple(EksVersion(**entry) for entry in kubernetes["versions"])
    charts = tuple(
        ChartPin(
            key=key,
            repository=entry.get("repository"),
            controller=entry.get("controller", False),
            **{field: entry[field] for field in ("chart", "version", "namespace", "source")},
        )
        for key, entry in data["charts"].items()
    )
    addons = tuple(
        AddonPin(name, {str(key): str(value) for key, value in entry["versions"].items()}, entry["source"]) for name, entry in data["addons"].items()
    )
    images = tuple(ImagePin(key, entry["image"], str(entry["tag"]), entry["source"]) for key, entry in data["images"].items())
    return Pins(kubernetes["default"], kubernetes["source"], versions, charts, addons, images)


DEFAULT_KUBERNETES_VERSION = load_pins().default_kubernetes
