"""The references rule (`blueprints/rules/references.py`): duplicate names and references to what doesn't exist.

Each case changes one line of the small valid blueprint (tests/blueprints/base.py) and asserts the finding's code,
path, message and hint, the "did you mean" both with and without a close name, and the passing case beside it.
"""

from __future__ import annotations

import pytest

from blueprints.findings import Finding
from tests.blueprints.base import BASE, load, mutate

DOMAINS = "known names: za, za-b1, zb, zb-b1"


def _found(text: str, *codes: str) -> list[tuple[str, tuple[object, ...], str, str]]:
    findings: list[Finding] = load(text).findings
    return [(finding.code, finding.path, finding.message, finding.hint) for finding in findings if finding.code in codes]


def test_the_base_blueprint_has_no_reference_findings() -> None:
    assert _found(BASE, "names.duplicate", "ref.unknown-domain", "ref.unknown-fabric", "ref.unknown-storage", "ref.unknown-bucket") == []


def test_a_pool_named_twice_names_the_first_index() -> None:
    assert _found(mutate("  - name: serve\n", "  - name: train\n"), "names.duplicate") == [
        ("names.duplicate", ("pools", 1, "name"), "pool name 'train' is used twice (first at index 0)", "give every pool its own name")
    ]


def test_three_pools_of_one_name_each_point_at_the_first() -> None:
    third = "  - name: train\n    instance_type: inf2.48xlarge\n    role: inference\n    nodes: 1\n    placement: {domains: [zb]}\n"
    text = mutate("  - name: serve\n", "  - name: train\n").replace("storage:\n  - kind: fsx_lustre", third + "storage:\n  - kind: fsx_lustre")
    assert [item[2] for item in _found(text, "names.duplicate")] == [
        "pool name 'train' is used twice (first at index 0)",
        "pool name 'train' is used twice (first at index 0)",
    ]


def test_a_fabric_named_twice() -> None:
    second = "  - name: efa\n    kind: rail_optimized_clos\n    link_gbps: 100\n    switch_radix: 64\n    nics_per_accelerator: 4\npools:\n"
    assert _found(mutate("pools:\n", second), "names.duplicate") == [
        ("names.duplicate", ("fabrics", 1, "name"), "fabric name 'efa' is used twice (first at index 0)", "give every fabric its own name")
    ]


def test_a_storage_tier_named_twice() -> None:
    assert _found(mutate("  - kind: s3\n    name: data\n", "  - kind: s3\n    name: lustre\n"), "names.duplicate") == [
        (
            "names.duplicate",
            ("storage", 1, "name"),
            "storage tier name 'lustre' is used twice (first at index 0)",
            "give every storage tier its own name",
        )
    ]


@pytest.mark.parametrize(
    ("field", "what", "name", "entries"),
    [
        (
            "appliances",
            "appliance",
            "ufm",
            "    appliances:\n      - {name: ufm, block: za-b1, ports: 1}\n      - {name: ufm, block: zb-b1, ports: 1}\n",
        ),
        ("host_ports", "host port", "inband", "    host_ports:\n      - {name: inband, ports: 1}\n      - {name: inband, ports: 1}\n"),
    ],
)
def test_a_fabrics_appliance_or_host_port_named_twice(field: str, what: str, name: str, entries: str) -> None:
    text = mutate("    nics_per_accelerator: 4\n", "    nics_per_accelerator: 4\n" + entries)
    assert _found(text, "names.duplicate") == [
        (
            "names.duplicate",
            ("fabrics", 0, field, 1, "name"),
            f"{what} name '{name}' is used twice (first at index 0)",
            f"give every {what} its own name",
        )
    ]


def test_a_block_named_like_a_zone_shares_its_namespace() -> None:
    text = mutate("        - name: za-b1\n", "        - name: zb\n")
    assert _found(text, "names.duplicate") == [
        (
            "names.duplicate",
            ("failure_domains", "zones", 0, "blocks", 0, "name"),
            "failure domain name 'zb' is used twice",
            "zones and blocks share one namespace; rename one",
        )
    ]


def test_a_zone_outside_the_clouds_zones_is_refused() -> None:
    text = mutate("      availability_zone: us-east-1b\n", "      availability_zone: us-east-1c\n")
    assert _found(text, "ref.zone-not-in-cloud") == [
        (
            "ref.zone-not-in-cloud",
            ("failure_domains", "zones", 1, "availability_zone"),
            "zone 'zb' is us-east-1c, which is not in cloud.availability_zones ['us-east-1a', 'us-east-1b']",
            "add us-east-1c to cloud.availability_zones or fix the zone",
        )
    ]


def test_a_local_zone_needs_no_place_in_the_clouds_zones() -> None:
    text = mutate("      availability_zone: us-east-1b\n", "      availability_zone: us-east-1-bos-1a\n")
    assert _found(text, "ref.zone-not-in-cloud") == []


def test_an_unknown_domain_with_a_close_name() -> None:
    assert _found(mutate("domains: [za, zb]", "domains: [za, zbb]"), "ref.unknown-domain") == [
        (
            "ref.unknown-domain",
            ("pools", 1, "placement", "domains", 1),
            "pool 'serve' is placed in 'zbb', which is no zone or block",
            f"did you mean 'zb'? {DOMAINS}",
        )
    ]


def test_an_unknown_domain_with_no_close_name_lists_them() -> None:
    [item] = _found(mutate("domains: [za, zb]", "domains: [qqqqqq, zb]"), "ref.unknown-domain")
    assert (item[1], item[3]) == (("pools", 1, "placement", "domains", 0), DOMAINS)


def test_an_unknown_fabric() -> None:
    assert _found(mutate("    fabric: efa\n", "    fabric: efb\n"), "ref.unknown-fabric") == [
        (
            "ref.unknown-fabric",
            ("pools", 0, "fabric"),
            "pool 'train' joins fabric 'efb', which is not defined",
            "did you mean 'efa'? known names: efa",
        )
    ]


def test_a_pool_without_a_fabric_refers_to_none() -> None:
    assert _found(mutate("    fabric: efa\n", ""), "ref.unknown-fabric") == []


def test_an_unknown_fabric_where_none_are_defined() -> None:
    text = mutate(
        "fabrics:\n  - name: efa\n    kind: rail_optimized_clos\n    link_gbps: 100\n    switch_radix: 64\n    nics_per_accelerator: 4\n", ""
    )
    [item] = _found(text, "ref.unknown-fabric")
    assert item[3] == "none are defined"


def test_an_unknown_storage_tier() -> None:
    assert _found(mutate("      - tier: lustre\n", "      - tier: data\n      - tier: lustr\n"), "ref.unknown-storage") == [
        (
            "ref.unknown-storage",
            ("pools", 0, "storage", 1, "tier"),
            "pool 'train' uses storage tier 'lustr', which is not defined",
            "did you mean 'lustre'? known names: data, lustre",
        )
    ]


def test_a_repository_linked_to_a_tier_that_is_not_s3() -> None:
    assert _found(mutate("      - bucket: data\n", "      - bucket: lustre\n"), "ref.unknown-bucket") == [
        (
            "ref.unknown-bucket",
            ("storage", 0, "data_repositories", 0, "bucket"),
            "'lustre' links to bucket tier 'lustre', which is no `kind: s3` tier",
            "known names: data",
        )
    ]


CLASS = "  - kind: fsx_lustre_class\n    name: {name}\n    deployment_type: PERSISTENT_2\n    throughput_mbps_per_tib: 250\n  - kind: s3\n"


def _with_class(name: str, claimed: bool = True, ebs: bool = True) -> str:
    text = mutate("  - kind: s3\n", CLASS.format(name=name))
    if claimed:
        text = text.replace("      - tier: lustre\n", f"      - tier: lustre\n      - tier: {name}\n")
    if not ebs:
        text = text.replace("kubernetes:\n", "kubernetes:\n  addons: {ebs_csi_driver: {enabled: false}}\n")
    return text


def test_a_storage_class_named_like_the_ebs_default_is_refused() -> None:
    assert _found(_with_class("gp3"), "ref.class-name-taken") == [
        (
            "ref.class-name-taken",
            ("storage", 1, "name"),
            "StorageClass 'gp3' is the name of the default gp3 class railyard makes with the EBS CSI driver",
            "give the FSx class another name",
        )
    ]


def test_a_storage_class_named_gp3_is_free_without_the_ebs_driver() -> None:
    assert _found(_with_class("gp3", ebs=False), "ref.class-name-taken") == []
    assert _found(_with_class("fast"), "ref.class-name-taken", "ref.class-unclaimed") == []


def test_a_storage_class_no_pool_lists_is_a_warning() -> None:
    result = load(_with_class("fast", claimed=False))
    [finding] = [finding for finding in result.findings if finding.code == "ref.class-unclaimed"]
    assert (finding.severity, finding.path) == ("warning", ("storage", 1, "name"))
    assert finding.message == "no pool lists FSx StorageClass 'fast', so the FSx CSI node plugin runs on no node that could mount its volumes"
    assert finding.hint == "add `- tier: fast` to the storage of the pools whose pods claim from it"


def test_an_aws_efa_fabric_has_no_appliances_or_host_ports_to_name_twice() -> None:
    """AWS's own EFA network states no appliances or host ports: the duplicate check passes over it."""
    fabric = "  - name: efa\n    kind: rail_optimized_clos\n    link_gbps: 100\n    switch_radix: 64\n    nics_per_accelerator: 4\n"
    result = load(mutate(fabric, "  - name: efa\n    kind: aws_efa\n"))
    assert result.blueprint is not None
    assert [finding.code for finding in result.findings if finding.code == "names.duplicate"] == []


def test_a_zone_named_twice_is_named_at_the_second_zone() -> None:
    text = mutate("    - name: zb\n", "    - name: za\n")
    assert _found(text, "names.duplicate") == [
        (
            "names.duplicate",
            ("failure_domains", "zones", 1, "name"),
            "failure domain name 'za' is used twice",
            "zones and blocks share one namespace; rename one",
        )
    ]
