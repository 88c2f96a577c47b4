"""The EFA rule (`blueprints/rules/efa.py`): EFA fabrics on EFA instances, EFA training pools in one zone.

Each half of each condition: a pool on the EFA fabric with a type without EFA, a training pool over two zones (and an
inference pool over two, and a pool off the fabric, which pass). Exact code, path, message and hint.
"""

from __future__ import annotations

from blueprints.catalog import load_catalog
from tests.blueprints.base import BASE, load, mutate

SERVE = "    role: inference\n    nodes: {min: 1, max: 4}\n    placement:\n      domains: [za, zb]\n      spread: zones\n"


def _found(text: str, code: str) -> list[tuple[tuple[object, ...], str, str]]:
    return [(finding.path, finding.message, finding.hint) for finding in load(text).findings if finding.code == code]


def test_the_base_blueprint_has_no_efa_findings() -> None:
    assert [finding.code for finding in load(BASE).findings if finding.code.startswith("efa.")] == []


def test_a_type_without_efa_on_an_efa_fabric_is_refused() -> None:
    text = mutate(SERVE, SERVE + "    fabric: efa\n").replace("    instance_type: inf2.48xlarge\n", "    instance_type: g5.xlarge\n")
    families = ", ".join(sorted({name.split(".")[0] for name, spec in load_catalog().items() if spec.efa_supported}))
    assert _found(text, "efa.unsupported-instance") == [
        (
            ("pools", 1, "fabric"),
            "pool 'serve' joins EFA fabric 'efa', but g5.xlarge does not support EFA",
            f"take the pool off the fabric (fabric: null), use a fabric with transport: ena, or pick an EFA family ({families})",
        )
    ]
    assert "p5" in families.split(", ") and "g5" in families.split(", ")  # g5.xlarge lacks EFA; g5's larger sizes have it


def test_a_type_without_efa_off_the_fabric_passes() -> None:
    text = mutate("    instance_type: inf2.48xlarge\n", "    instance_type: g5.xlarge\n")
    assert _found(text, "efa.unsupported-instance") == []


def test_a_training_pool_on_efa_over_two_zones_is_refused() -> None:
    text = mutate(SERVE, SERVE.replace("inference", "training") + "    fabric: efa\n")
    assert _found(text, "efa.multi-zone") == [
        (
            ("pools", 1, "placement", "domains"),
            "training pool 'serve' joins EFA fabric 'efa' but is placed in 2 zones ['us-east-1a', 'us-east-1b']; EFA traffic does not cross zones",
            "place the pool in one zone (one zone or its blocks), or split it into one pool per zone",
        )
    ]


def test_an_inference_pool_on_efa_over_two_zones_and_a_training_pool_in_one_pass() -> None:
    assert _found(mutate(SERVE, SERVE + "    fabric: efa\n"), "efa.multi-zone") == []
    one_zone = SERVE.replace("inference", "training").replace("      domains: [za, zb]\n      spread: zones\n", "      domains: [zb]\n")
    assert _found(mutate(SERVE, one_zone + "    fabric: efa\n"), "efa.multi-zone") == []


def test_a_training_pool_over_two_zones_off_efa_is_not_this_rules() -> None:
    assert _found(mutate(SERVE, SERVE.replace("inference", "training")), "efa.multi-zone") == []


def test_a_pool_after_one_off_the_fabric_is_still_judged() -> None:
    """serve (pools[1]) joins no fabric; a training pool after it, on EFA over two zones, is refused all the same."""
    late = (
        "  - name: late\n    instance_type: p5.48xlarge\n    role: training\n    nodes: 2\n"
        "    placement:\n      domains: [za, zb]\n    fabric: efa\nstorage:\n  - kind: fsx_lustre"
    )
    text = mutate("storage:\n  - kind: fsx_lustre", late)
    assert [path for path, _, _ in _found(text, "efa.multi-zone")] == [("pools", 2, "placement", "domains")]
