"""The Kubernetes version rule (`blueprints/rules/kubernetes_version.py`): the calendar, support through each
Capacity Block, and a held pool's skew, at each boundary and one past it, with exact code, path, message and hint.

The dates are the EKS release calendar railyard carries (blueprints/catalog/pins.yaml), read here, so a new calendar
entry moves the expected dates with it. The base blueprint's Capacity Block ends on 2026-12-08.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from blueprints.catalog.pins import load_pins
from blueprints.models import Blueprint
from blueprints.rules import kubernetes_version
from blueprints.rules.context import Context
from tests.blueprints.base import load, mutate
from tests.topology.factory import CATALOG, document, pool

POOL = "  - name: train\n"
END = "      end: 2026-12-08T00:00:00Z\n"
SKEW_HINT = "or drop kubernetes_version to follow the cluster"


def _text(cluster: str, held: str | None = None, end: str | None = None, extra: str = "") -> str:
    text = mutate("kubernetes:\n", f'kubernetes:\n  version: "{cluster}"\n')
    if held is not None:
        text = text.replace(POOL, f'{POOL}    kubernetes_version: "{held}"\n{extra}', 1)
    if end is not None:
        text = text.replace(END, f"      end: {end}T00:00:00Z\n", 1)
    return text


def _found(text: str, code: str) -> list[tuple[str, tuple[object, ...], str, str]]:
    return [(finding.severity, finding.path, finding.message, finding.hint) for finding in load(text).findings if finding.code == code]


@pytest.mark.parametrize("held", ["1.32", "1.35"])
def test_a_pool_within_the_skew_gets_no_skew_error(held: str) -> None:
    assert _found(_text("1.35", held), "k8s.version-skew") == []


@pytest.mark.parametrize(("held", "cluster"), [("1.31", "1.35"), ("1.35", "1.34")])
def test_a_pool_four_behind_or_one_ahead_is_refused(held: str, cluster: str) -> None:
    [item] = _found(_text(cluster, held), "k8s.version-skew")
    assert item[:2] == ("error", ("pools", 0, "kubernetes_version"))
    assert item[2] == (
        f"pool 'train' holds its nodes at Kubernetes {held} under a {cluster} control plane: a kubelet may not be newer than the "
        "API server, nor more than 3 minor versions older (Kubernetes version skew policy)"
    )
    lowest = int(cluster.split(".")[1]) - 3
    assert item[3] == f"hold it at a version from 1.{lowest} to {cluster}, {SKEW_HINT}"


def test_a_pool_at_the_clusters_version_gets_no_warning_and_one_behind_does() -> None:
    assert _found(_text("1.35", "1.35"), "k8s.held-version-new-group") == []
    [item] = _found(_text("1.35", "1.34"), "k8s.held-version-new-group")
    assert item[:2] == ("warning", ("pools", 0, "kubernetes_version"))
    assert item[2].startswith("pool 'train' holds its nodes at Kubernetes 1.34 under a 1.35 control plane: EKS creates node groups")
    assert item[3].startswith("run `railyard diff` against the deployed blueprint before `pulumi up`")


def test_a_karpenter_pool_may_not_hold_a_version() -> None:
    text = _text("1.35", "1.34").replace("  - name: serve\n", '  - name: serve\n    provisioner: karpenter\n    kubernetes_version: "1.34"\n')
    assert _found(text, "k8s.version-skew") == [
        (
            "error",
            ("pools", 1, "kubernetes_version"),
            "pool 'serve' holds kubernetes_version 1.34, but Karpenter resolves its AMI alias for the cluster's version; only "
            "managed node groups on EKS's AMIs take a version",
            "drop kubernetes_version from this pool",
        )
    ]


def test_a_custom_ami_pool_may_not_hold_a_version() -> None:
    text = _text("1.35").replace("  - name: serve\n", '  - name: serve\n    ami_id: ami-0123456789abcdef0\n    kubernetes_version: "1.35"\n')
    [item] = _found(text, "k8s.version-skew")
    assert item[2] == (
        "pool 'serve' holds kubernetes_version 1.35, but its custom AMI fixes the kubelet; only managed node groups on EKS's AMIs take a version"
    )


def test_a_version_outside_the_calendar_is_a_warning_naming_the_calendar() -> None:
    known = ", ".join(item.version for item in load_pins().kubernetes)
    assert _found(_text("1.19"), "k8s.version-unknown") == [
        (
            "warning",
            ("kubernetes", "version"),
            f"Kubernetes 1.19 is not in the EKS release calendar railyard carries ({known}), so its support dates can't be checked",
            f"use one of {known}, or add the version with its dates and source to blueprints/catalog/pins.yaml",
        )
    ]


def _entry(version: str):
    entry = load_pins().eks_version(version)
    assert entry is not None
    return entry


def test_a_block_ending_on_the_last_day_of_standard_support_is_fine() -> None:
    entry = _entry("1.34")
    text = _text("1.34", end=entry.end_of_standard.isoformat())
    assert _found(text, "k8s.version-extended-support") + _found(text, "k8s.version-end-of-support") == []


def test_a_block_ending_a_day_into_extended_support_is_warned() -> None:
    entry = _entry("1.34")
    ends = entry.end_of_standard + timedelta(days=1)
    [item] = _found(_text("1.34", end=ends.isoformat()), "k8s.version-extended-support")
    assert item == (
        "warning",
        ("kubernetes", "version"),
        f"standard support for Kubernetes 1.34 ends on {entry.end_of_standard}, before pool 'train''s Capacity Block ends "
        f"({ends}); the cluster would run in extended support, billed per hour",
        f"use Kubernetes {load_pins().default_kubernetes}",
    )


def test_a_block_ending_on_the_last_day_of_extended_support_is_only_warned() -> None:
    entry = _entry("1.32")
    text = _text("1.32", end=entry.end_of_extended.isoformat()).replace(
        "      start: 2026-12-01", f"      start: {entry.end_of_extended - timedelta(days=7)}"
    )
    assert [item[0] for item in _found(text, "k8s.version-extended-support")] == ["warning"]
    assert _found(text, "k8s.version-end-of-support") == []


def test_a_block_ending_a_day_after_all_support_is_refused() -> None:
    entry = _entry("1.32")
    ends = entry.end_of_extended + timedelta(days=1)
    text = _text("1.32", end=ends.isoformat()).replace("      start: 2026-12-01", f"      start: {ends - timedelta(days=7)}")
    assert _found(text, "k8s.version-end-of-support") == [
        (
            "error",
            ("kubernetes", "version"),
            f"EKS ends all support for Kubernetes 1.32 on {entry.end_of_extended}, before pool 'train''s Capacity Block ends "
            f"({ends}); EKS would upgrade the cluster during the block",
            f"use Kubernetes {load_pins().default_kubernetes}",
        )
    ]
    assert _found(text, "k8s.version-extended-support") == []


def test_the_held_version_warning_says_the_whole_of_what_is_refused_and_how_to_see_it() -> None:
    [item] = _found(_text("1.35", "1.34"), "k8s.held-version-new-group")
    assert item[2:] == (
        "pool 'train' holds its nodes at Kubernetes 1.34 under a 1.35 control plane: EKS creates node groups only at the cluster's "
        "version, so the hold applies to this pool's node groups that already run 1.34; creating one (a first deployment, a new pool, "
        "a group replaced or split off) is refused",
        "run `railyard diff` against the deployed blueprint before `pulumi up`: it names any held group the change would create or "
        "replace (`change.held-group-created`)",
    )


def _rules(cluster: str, *pools: dict) -> list[tuple[str, tuple[object, ...], str]]:
    """The rule's findings on a blueprint built in memory (tests/topology/factory.py) at the `cluster` version."""
    data = document([{"name": "za", "availability_zone": "us-east-1a"}], list(pools))
    data["kubernetes"]["version"] = cluster
    context = Context(blueprint=Blueprint.model_validate(data), catalog=CATALOG)
    return [(finding.code, finding.path, finding.hint) for finding in kubernetes_version.check(context)]


def test_a_pool_after_one_that_may_hold_no_version_is_still_judged() -> None:
    first = pool("kp", "p5.48xlarge", 2, ["za"], provisioner="karpenter", kubernetes_version="1.34")
    second = pool("old", "p5.48xlarge", 2, ["za"], kubernetes_version="1.31")
    assert [(code, path) for code, path, _ in _rules("1.35", first, second)] == [
        ("k8s.version-skew", ("pools", 0, "kubernetes_version")),
        ("k8s.version-skew", ("pools", 1, "kubernetes_version")),
    ]


def test_the_lowest_version_a_hint_offers_is_never_below_1_0() -> None:
    """The schema admits any 1.NN; below 1.03 the kubelet's three versions of skew would reach under 1.0."""
    [(code, _, hint), (calendar, *_)] = _rules("1.02", pool("p", "p5.48xlarge", 2, ["za"], kubernetes_version="1.03"))
    assert code == "k8s.version-skew" and calendar == "k8s.version-unknown"
    assert hint == f"hold it at a version from 1.0 to 1.02, {SKEW_HINT}"


def test_a_block_after_a_pool_on_other_capacity_is_still_judged() -> None:
    entry = _entry("1.34")
    ends = entry.end_of_standard + timedelta(days=1)
    block = {
        "kind": "capacity_block",
        "reservation_id": "cr-0123456789abcdef0",
        "start": f"{ends - timedelta(days=7)}T00:00:00Z",
        "end": f"{ends}T00:00:00Z",
    }
    pools = (pool("web", "p5.48xlarge", 2, ["za"]), pool("train", "p5.48xlarge", 2, ["za"], capacity=block))
    assert [(code, path) for code, path, _ in _rules("1.34", *pools)] == [("k8s.version-extended-support", ("kubernetes", "version"))]
