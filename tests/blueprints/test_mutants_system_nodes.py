"""The system-nodes rule (`blueprints/rules/system_nodes.py`): a type railyard has network facts for, and (custom
networking: a group per zone) a max of at least one node per zone. Exact code, path, message and hint."""

from __future__ import annotations

from tests.blueprints.base import BASE, load, mutate

FAMILIES = "m6i, m7i, m7a, m8g, m7g, c6i, c7i, c7g, r6i, r7i, r7g"


def _found(text: str, code: str) -> list[tuple[tuple[object, ...], str, str]]:
    return [(finding.path, finding.message, finding.hint) for finding in load(text).findings if finding.code == code]


def _system(settings: str, networking: str = "") -> str:
    return mutate("  layer_stack: separate\n", f"  layer_stack: separate\n{networking}  system_nodes: {settings}\n")


def test_a_known_system_type_passes() -> None:
    assert _found(_system("{instance_type: m7i.xlarge}"), "k8s.system-type-unknown") == []
    assert _found(BASE, "k8s.system-type-unknown") == []


def test_a_misspelt_system_type_names_the_closest() -> None:
    assert _found(_system("{instance_type: m7i.xlarg}"), "k8s.system-type-unknown") == [
        (
            ("kubernetes", "system_nodes", "instance_type"),
            f"'m7i.xlarg' is not a system node type railyard knows (families {FAMILIES}); did you mean m7i.xlarge, m7i.8xlarge, m7i.4xlarge?",
            "use a size of one of those families, such as m7i.xlarge",
        )
    ]


def test_a_type_like_none_of_them_names_only_the_families() -> None:
    [(_, message, _)] = _found(_system("{instance_type: zzzz.big}"), "k8s.system-type-unknown")
    assert message == f"'zzzz.big' is not a system node type railyard knows (families {FAMILIES})"


CUSTOM = "  pod_networking: {mode: custom_networking, pod_cidrs: [100.64.0.0/16]}\n"


def test_system_nodes_max_below_the_zones_needs_custom_networking_to_matter() -> None:
    """One system group spans every zone without custom networking: max 1 is its max, no finding."""
    assert _found(_system("{min: 1, desired: 1, max: 1}"), "k8s.system-max-below-zones") == []


def test_system_nodes_max_at_the_zone_count_passes_with_custom_networking() -> None:
    assert _found(_system("{min: 1, desired: 1, max: 2}", CUSTOM), "k8s.system-max-below-zones") == []


def test_system_nodes_max_one_below_the_zone_count_is_refused_with_custom_networking() -> None:
    [(path, message, hint)] = _found(_system("{min: 1, desired: 1, max: 1}", CUSTOM), "k8s.system-max-below-zones")
    assert path == ("kubernetes", "system_nodes", "max")
    assert message.startswith("system nodes max 1 is below the 2 availability zones: custom networking gives each zone")
    assert hint == "set kubernetes.system_nodes.max to at least 2"
