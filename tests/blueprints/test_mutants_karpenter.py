"""The Karpenter rule (`blueprints/rules/karpenter.py`): no reserved capacity, and a minimum Karpenter won't keep.

Both halves of each condition (a Karpenter pool, and a managed node group pool, on each). Exact code, path, message, hint.
"""

from __future__ import annotations

from tests.blueprints.base import BASE, load


def _found(text: str, code: str) -> list[tuple[str, tuple[object, ...], str, str]]:
    return [(finding.severity, finding.path, finding.message, finding.hint) for finding in load(text).findings if finding.code == code]


def _karpenter(pool: str, nodes: str) -> str:
    text = BASE.replace(f"  - name: {pool}\n", f"  - name: {pool}\n    provisioner: karpenter\n", 1)
    return text.replace("    nodes: {min: 1, max: 4}\n", nodes, 1)


def test_a_karpenter_pool_on_a_capacity_block_is_refused() -> None:
    assert _found(_karpenter("train", "    nodes: {min: 1, max: 4}\n"), "pool.karpenter-reserved") == [
        (
            "error",
            ("pools", 0, "provisioner"),
            "pool 'train' is on capacity block capacity; railyard launches reserved capacity with managed node groups (EKS runs "
            "a Capacity Block's lifecycle, and a reservation is sized ahead)",
            "use provisioner: managed_node_group for this pool, or on-demand or spot capacity with Karpenter",
        )
    ]


def test_an_on_demand_karpenter_pool_from_zero_has_no_findings() -> None:
    text = _karpenter("serve", "    nodes: {min: 0, max: 4}\n")
    assert _found(text, "pool.karpenter-reserved") + _found(text, "pool.karpenter-minimum") == []


def test_a_karpenter_pool_with_a_minimum_is_warned() -> None:
    assert _found(_karpenter("serve", "    nodes: {min: 1, max: 4}\n"), "pool.karpenter-minimum") == [
        (
            "warning",
            ("pools", 1, "nodes"),
            "pool 'serve' asks for at least 1 nodes, but a Karpenter NodePool keeps none: nodes exist while pods need them and "
            "are consolidated away when empty",
            "set min: 0 (and keep warm capacity with a low-priority placeholder Deployment), or use provisioner: managed_node_group",
        )
    ]


def test_managed_node_groups_keep_their_minimum_and_their_reservation() -> None:
    assert _found(BASE, "pool.karpenter-reserved") + _found(BASE, "pool.karpenter-minimum") == []
