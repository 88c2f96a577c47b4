"""`railyard.preflight` at each rule's edges, on `tests/blueprints/base.BASE` and one-snippet changes of it.

`test_preflight.py` holds preflight's verdict equal to the pack's over the examples; these pin each rule's own
boundaries and both halves of each condition: the accelerator ceiling counted at the node groups' *most* nodes
(BASE scales to 112 accelerators, 12 at its fewest), exactly at it and one under; SEC006's public-CIDR half and its
private-access half apart; an instance type reported once however many node groups run it; spot by role; a created
scratch tier but not an existing one; a file system's clients in other zones; levels from the config.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blueprints.catalog import load_catalog
from railyard.preflight import preflight
from tests.blueprints.base import BASE, load
from tests.properties import examples
from tests.yaml_text import replace_once
from topology.cluster.node_groups import plan_node_groups

CATALOG = load_catalog()
PRIVATE_ONLY = "  endpoint: {private_access_cidrs: [10.0.0.0/16]}\n"
SERVE = "    nodes: {min: 1, max: 4}\n"
SCRATCH = "    deployment_type: PERSISTENT_2\n    capacity_gib: 2400\n    throughput_mbps_per_tib: 250\n    metadata: {mode: automatic}\n"
REPOSITORIES = "    data_repositories:\n      - bucket: data\n        file_system_path: /data\n"


def verdict(text: str, config: dict | None = None) -> list[tuple[str, str, tuple, str]]:
    """(code, severity, path, message) of each preflight finding on a blueprint text."""
    loaded = load(text)
    assert loaded.blueprint is not None, [(f.code, f.message) for f in loaded.findings]
    groups = plan_node_groups(loaded.blueprint, CATALOG)
    return [(f.code, f.severity, f.path, f.message) for f in preflight(loaded.blueprint, groups, CATALOG, config)]


def ceiling(value: int, level: str | None = None) -> dict:
    entry: dict = {"maxAcceleratorsPerStack": value}
    if level is not None:
        entry["enforcementLevel"] = level
    return {"accelerator-ceiling": entry}


def test_the_base_blueprint_passes_every_preflight_rule():
    assert verdict(BASE) == []


def test_the_accelerator_ceiling_counts_each_node_group_at_its_most_nodes():
    # p5 (8 GPUs) x 8 + inf2.48xlarge (12 Neuron devices) x (2 + 2) = 112 at max; at min it is 12, at desired 12.
    assert verdict(BASE, ceiling(112)) == []
    ((code, severity, path, message),) = verdict(BASE, ceiling(111))
    assert (code, severity, path) == ("GOV004", "error", ("pools",))
    assert message == (
        "the node groups scale to 112 accelerators at their largest, over the pack's maxAcceleratorsPerStack (111) "
        "(policy GOV004 accelerator-ceiling, mandatory in the pack)"
    )


def test_a_ceiling_of_zero_refuses_any_accelerator_and_an_advisory_one_warns():
    ((code, severity, _, message),) = verdict(BASE, ceiling(0, "advisory"))
    assert (code, severity) == ("GOV004", "warning")
    assert message.endswith("(policy GOV004 accelerator-ceiling, advisory in the pack)")
    assert verdict(BASE, ceiling(0, "disabled")) == []


def test_a_level_for_all_policies_applies_where_a_policy_sets_none():
    assert [severity for _, severity, _, _ in verdict(BASE, {"all": "advisory", **ceiling(1)})] == ["warning"]
    assert verdict(BASE, {"all": "disabled", **ceiling(1)}) == []
    assert [severity for _, severity, _, _ in verdict(BASE, {"all": "disabled", **ceiling(1, "mandatory")})] == ["error"]


def _endpoint(private: bool, public: str) -> str:
    return replace_once(BASE, PRIVATE_ONLY, f"  endpoint: {{private: {str(private).lower()}, public_access_cidrs: [{public}]}}\n")


def test_a_public_cidr_off_the_allow_list_is_sec006_at_the_public_cidrs():
    ((code, severity, path, message),) = [row for row in verdict(_endpoint(True, "203.0.113.0/24")) if row[0] == "SEC006"]
    assert (code, severity, path) == ("SEC006", "error", ("kubernetes", "endpoint", "public_access_cidrs"))
    assert message.startswith(
        "the public API endpoint admits ['203.0.113.0/24'], not on the pack's eksPublicAccessCidrs (none: public endpoints are refused)"
    )


def test_an_allow_listed_public_cidr_passes_while_private_access_is_on():
    allowed = {"eks-endpoint-restricted": {"eksPublicAccessCidrs": ["203.0.113.0/24"]}}
    assert [row for row in verdict(_endpoint(True, "203.0.113.0/24"), allowed) if row[0] == "SEC006"] == []


def test_private_access_off_is_sec006_even_when_every_public_cidr_is_allowed():
    allowed = {"eks-endpoint-restricted": {"eksPublicAccessCidrs": ["203.0.113.0/24", "198.51.100.0/24"]}}
    ((code, severity, path, message),) = [row for row in verdict(_endpoint(False, "203.0.113.0/24"), allowed) if row[0] == "SEC006"]
    assert (code, severity, path) == ("SEC006", "error", ("kubernetes", "endpoint", "private"))
    assert message.startswith("the API endpoint is public with private access off; the pack requires private access on")


def test_a_cidr_off_the_list_among_allowed_ones_is_named_alone_with_the_list():
    allowed = {"eks-endpoint-restricted": {"eksPublicAccessCidrs": ["203.0.113.0/24"]}}
    text = replace_once(BASE, PRIVATE_ONLY, "  endpoint: {public_access_cidrs: [203.0.113.0/24, 198.51.100.0/24]}\n")
    ((_, _, path, message),) = [row for row in verdict(text, allowed) if row[0] == "SEC006"]
    assert path == ("kubernetes", "endpoint", "public_access_cidrs")
    assert message.startswith("the public API endpoint admits ['198.51.100.0/24'], not on the pack's eksPublicAccessCidrs (['203.0.113.0/24'])")


def test_a_type_off_the_allow_list_is_reported_once_at_its_pool_however_many_groups_run_it():
    allowed = {"instance-type-allowed": {"allowedInstanceTypes": ["p5.48xlarge", "m7i.xlarge"]}}
    # serve runs in two node groups (one per zone): one finding.
    assert verdict(BASE, allowed) == [
        (
            "GOV001",
            "error",
            ("pools", 1, "instance_type"),
            "inf2.48xlarge is not on the pack's allowedInstanceTypes (policy GOV001 instance-type-allowed, mandatory in the pack)",
        )
    ]


def test_the_system_nodes_type_is_reported_at_the_system_nodes():
    allowed = {"instance-type-allowed": {"allowedInstanceTypes": ["p5.48xlarge", "inf2.48xlarge"]}}
    assert [(code, path) for code, _, path, _ in verdict(BASE, allowed)] == [("GOV001", ("kubernetes", "system_nodes", "instance_type"))]


@pytest.mark.parametrize(
    ("role", "allowed", "refused"),
    [("inference", None, True), ("dev", None, False), ("inference", ["inference"], False), ("training", ["dev", "inference"], True)],
)
def test_spot_is_refused_for_a_role_the_pack_does_not_allow(role, allowed, refused):
    text = replace_once(BASE, "    role: inference\n" + SERVE, f"    role: {role}\n" + SERVE + "    capacity: {kind: spot}\n")
    config = None if allowed is None else {"spot-only-for-allowed-roles": {"spotAllowedRoles": allowed}}
    found = [(code, path, message) for code, _, path, message in verdict(text, config) if code == "GOV002"]
    listed = sorted(allowed or ["dev"])
    expected = (
        f"pool 'serve' ({role}) runs on spot; the pack allows spot for {listed} (policy GOV002 spot-only-for-allowed-roles, mandatory in the pack)"
    )
    assert found == ([("GOV002", ("pools", 1, "capacity"), expected)] if refused else [])


def test_a_created_scratch_tier_is_sec003_at_its_deployment_type():
    text = replace_once(BASE, SCRATCH + REPOSITORIES, "    deployment_type: SCRATCH_2\n    capacity_gib: 2400\n")
    assert verdict(text) == [
        (
            "SEC003",
            "error",
            ("storage", 0, "deployment_type"),
            "storage tier 'lustre' is SCRATCH_2; scratch file systems can't be encrypted with a customer-managed KMS key, which the pack "
            "requires (policy SEC003 fsx-encrypted-with-kms, mandatory in the pack)",
        )
    ]


def test_a_pool_mounting_a_file_system_from_another_zone_is_cor006_at_its_storage():
    # serve spreads over za and zb; the file system sits in the zone of its first client node group (train's, us-east-1a).
    text = replace_once(BASE, SERVE, SERVE + "    storage:\n      - tier: lustre\n        read_mbps_per_accelerator: 1\n")
    assert verdict(text) == [
        (
            "COR006",
            "error",
            ("pools", 1, "storage"),
            "pool 'serve' mounts 'lustre', a file system in us-east-1a, from another zone (policy COR006 fsx-in-client-zone, mandatory in the pack)",
        )
    ]


MOUNTED = SERVE + "    storage:\n      - tier: lustre\n        read_mbps_per_accelerator: 1\n"
LUSTRE = "  - kind: fsx_lustre\n    name: lustre\n"
S3 = "  - kind: s3\n    name: data\n"


def test_every_rule_gives_its_fix_as_the_hint():
    text = replace_once(BASE, SERVE, MOUNTED)
    (finding,) = preflight_findings(text)
    assert finding.hint == "place the pool in the file system's zone, or give that zone's pools a tier of their own"
    (ceiling_finding,) = preflight_findings(BASE, ceiling(1))
    assert ceiling_finding.hint == "lower the pools' maximum nodes, split the cluster, or raise maxAcceleratorsPerStack"


def test_a_file_system_after_another_kind_of_tier_and_after_one_no_pool_mounts_is_still_checked():
    # storage: an S3 bucket, then an FSx tier no pool mounts, then the mounted one; the check must reach the last.
    unmounted = "  - kind: fsx_lustre\n    name: idle\n    deployment_type: PERSISTENT_2\n    capacity_gib: 1200\n    throughput_mbps_per_tib: 125\n"
    body = BASE[BASE.index(LUSTRE) : BASE.index(S3)]
    text = replace_once(BASE, SERVE, MOUNTED).replace(LUSTRE + body[len(LUSTRE) :] + S3, S3 + unmounted + body)
    assert text.index(S3) < text.index("name: idle") < text.index("name: lustre")
    assert [(code, path) for code, _, path, _ in verdict(text)] == [("COR006", ("pools", 1, "storage"))]


def test_an_existing_file_system_is_placed_in_its_own_zone_not_its_first_clients():
    existing = (
        "    existing:\n      id: fs-0123456789abcdef0\n      dns_name: fs-0123456789abcdef0.fsx.us-east-1.amazonaws.com\n"
        "      mount_name: abcdefgh\n      security_group_id: sg-0123456789abcdef0\n      availability_zone: us-east-1b\n"
    )
    text = replace_once(BASE, "    name: lustre\n", "    name: lustre\n" + existing)
    ((code, _, path, message),) = verdict(text)
    assert (code, path) == ("COR006", ("pools", 0, "storage"))
    assert message.startswith("pool 'train' mounts 'lustre', a file system in us-east-1b, from another zone")


def preflight_findings(text: str, config: dict | None = None):
    loaded = load(text)
    assert loaded.blueprint is not None
    return preflight(loaded.blueprint, plan_node_groups(loaded.blueprint, CATALOG), CATALOG, config)


@settings(max_examples=examples(20), deadline=None)
@given(limit=st.integers(min_value=0, max_value=300))
def test_gov004_fires_exactly_when_the_ceiling_is_below_the_accelerators_at_most_nodes(limit):
    found = [code for code, *_ in verdict(BASE, ceiling(limit))]
    assert found == (["GOV004"] if limit < 112 else [])
