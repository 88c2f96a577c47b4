"""Malformed blueprints: each case breaks one thing and asserts the finding's code, path and line.

Every case is a one-snippet mutation of `base.BASE`; `anchor` is text on the
line the finding must point at. Together they cover YAML problems, wrong
types, unknown keys, missing fields, per-object invariants and every
cross-field rule of the blueprint language.
"""

from __future__ import annotations

import pytest

from blueprints.source import SourceError
from tests.blueprints.base import FILE, line_of, load, mutate

# (case id, old snippet, new snippet, finding code, finding path, anchor on the expected line)
CASES = [
    # --- YAML -------------------------------------------------------------------------------
    (
        "duplicate-key",
        "  owner: platform\n",
        "  owner: platform\n  owner: someone-else\n",
        "yaml.duplicate-key",
        "metadata.owner",
        "owner: someone-else",
    ),
    # --- unknown keys (with "did you mean") ----------------------------------------------------
    ("unknown-key-metadata", "  cost_center: cc-1\n", "  cost_center: cc-1\n  colour: red\n", "schema.unknown-key", "metadata.colour", "colour: red"),
    (
        "misspelt-instance-type-key",
        "    instance_type: p5.48xlarge\n    role",
        "    instance_typ: p5.48xlarge\n    role",
        "schema.unknown-key",
        "pools[0].instance_typ",
        "instance_typ:",
    ),
    (
        "misspelt-capacity-key",
        "    capacity:\n      kind: capacity_block",
        "    capcity:\n      kind: capacity_block",
        "schema.unknown-key",
        "pools[0].capcity",
        "capcity:",
    ),
    (
        "unknown-key-in-variant",
        "      zone: us-east-1a\n",
        "      zone: us-east-1a\n      zone_id: use1-az1\n",
        "schema.unknown-key",
        "pools[0].capacity.zone_id",
        "zone_id:",
    ),
    (
        "unknown-key-in-storage",
        "    throughput_mbps_per_tib: 250\n",
        "    throughput_mbps_per_tib: 250\n    throughput_per_tib: 250\n",
        "schema.unknown-key",
        "storage[0].throughput_per_tib",
        "throughput_per_tib:",
    ),
    ("unknown-top-level-key", "kubernetes:\n", "network: {}\nkubernetes:\n", "schema.unknown-key", "network", "network: {}"),
    # --- missing fields ------------------------------------------------------------------------
    ("missing-role", "    role: training\n", "", "schema.missing-field", "pools[0].role", "- name: train"),
    ("missing-owner", "  owner: platform\n", "", "schema.missing-field", "metadata.owner", "name: testbed"),
    ("missing-storage-kind", "  - kind: s3\n    name: data\n", "  - name: data\n", "schema.missing-kind", "storage[1].kind", "- name: data"),
    # --- wrong types ---------------------------------------------------------------------------
    ("nodes-not-a-number", "    nodes: 8\n", "    nodes: eight\n", "schema.wrong-type", "pools[0].nodes", "nodes: eight"),
    (
        "racks-quoted",
        "          racks: 4\n          hosts_per_rack: 4\n    - name: zb",
        '          racks: "4"\n          hosts_per_rack: 4\n    - name: zb',
        "schema.wrong-type",
        "failure_domains.zones[0].blocks[0].racks",
        'racks: "4"',
    ),
    ("radix-fractional", "    switch_radix: 64\n", "    switch_radix: 64.5\n", "schema.wrong-type", "fabrics[0].switch_radix", "switch_radix: 64.5"),
    ("domains-not-a-list", "      domains: [za]\n", "      domains: za\n", "schema.wrong-type", "pools[0].placement.domains", "domains: za"),
    # --- values outside what is allowed --------------------------------------------------------
    ("role-not-allowed", "    role: training\n", "    role: trainer\n", "schema.invalid-value", "pools[0].role", "role: trainer"),
    (
        "unknown-capacity-kind",
        "      kind: capacity_block\n",
        "      kind: capacity_blok\n",
        "schema.unknown-kind",
        "pools[0].capacity.kind",
        "kind: capacity_blok",
    ),
    ("unknown-fabric-kind", "    kind: rail_optimized_clos\n", "    kind: dragonfly\n", "schema.unknown-kind", "fabrics[0].kind", "kind: dragonfly"),
    ("unknown-storage-kind", "  - kind: s3\n", "  - kind: efs\n", "schema.unknown-kind", "storage[1].kind", "kind: efs"),
    (
        "hosts-per-rack-zero",
        "          racks: 4\n          hosts_per_rack: 4\n    - name: zb",
        "          racks: 4\n          hosts_per_rack: 0\n    - name: zb",
        "schema.out-of-range",
        "failure_domains.zones[0].blocks[0].hosts_per_rack",
        "hosts_per_rack: 0",
    ),
    (
        "reservation-id-format",
        "      reservation_id: cr-0123456789abcdef0\n",
        "      reservation_id: cr-XYZ\n",
        "schema.bad-format",
        "pools[0].capacity.reservation_id",
        "reservation_id: cr-XYZ",
    ),
    ("pool-name-upper-case", "  - name: train\n", "  - name: Train\n", "schema.bad-format", "pools[0].name", "name: Train"),
    (
        "one-zone-only",
        "  availability_zones: [us-east-1a, us-east-1b]\n",
        "  availability_zones: [us-east-1a]\n",
        "schema.bad-length",
        "cloud.availability_zones",
        "availability_zones: [us-east-1a]",
    ),
    (
        "vpc-cidr-not-a-network",
        "  vpc_cidr: 10.0.0.0/16\n",
        "  vpc_cidr: 10.0.0.0/33\n",
        "schema.wrong-type",
        "cloud.vpc_cidr",
        "vpc_cidr: 10.0.0.0/33",
    ),
    # --- invariants inside one object ----------------------------------------------------------
    (
        "zone-outside-region",
        "  availability_zones: [us-east-1a, us-east-1b]\n",
        "  availability_zones: [us-east-1a, us-west-2b]\n",
        "cloud.zone-outside-region",
        "cloud.availability_zones[1]",
        "availability_zones:",
    ),
    ("vpc-too-large", "  vpc_cidr: 10.0.0.0/16\n", "  vpc_cidr: 10.0.0.0/12\n", "cloud.vpc-cidr-size", "cloud.vpc_cidr", "vpc_cidr: 10.0.0.0/12"),
    (
        "capacity-block-over-64",
        "      instance_count: 8\n",
        "      instance_count: 65\n",
        "capacity.block-too-large",
        "pools[0].capacity.instance_count",
        "instance_count: 65",
    ),
    (
        "capacity-block-15-days",
        "      end: 2026-12-08T00:00:00Z\n",
        "      end: 2026-12-16T00:00:00Z\n",
        "capacity.block-duration",
        "pools[0].capacity.end",
        "end: 2026-12-16",
    ),
    (
        "capacity-block-ends-first",
        "      end: 2026-12-08T00:00:00Z\n",
        "      end: 2026-11-08T00:00:00Z\n",
        "capacity.block-window",
        "pools[0].capacity.end",
        "end: 2026-11-08",
    ),
    (
        "capacity-block-half-a-window",
        "      end: 2026-12-08T00:00:00Z\n",
        "",
        "capacity.block-window",
        "pools[0].capacity.end",
        "kind: capacity_block",
    ),
    (
        "node-range-unordered",
        "    nodes: {min: 1, max: 4}\n",
        "    nodes: {min: 5, max: 4}\n",
        "pool.node-range",
        "pools[1].nodes",
        "nodes: {min: 5, max: 4}",
    ),
    (
        "more-feeds-per-rack-than-feeds",
        "          power_feeds: 2\n",
        "          power_feeds: 1\n",
        "domain.feeds-per-rack",
        "failure_domains.zones[1].blocks[0].feeds_per_rack",
        "- name: zb-b1",
    ),
    (
        "service-racks-serve-a-block-of-another-zone",
        "          power_feeds: 2\n",
        "          power_feeds: 2\n      service_racks:\n        - {role: management, racks: 2, serves: [zb-b1, za-b9]}\n",
        "domain.service-serves-unknown",
        "failure_domains.zones[1].service_racks[0].serves",
        "- {role: management",
    ),
    (
        "racks-without-hosts-per-rack",
        "          racks: 4\n          hosts_per_rack: 4\n          power_feeds: 2\n",
        "          racks: 4\n          power_feeds: 2\n",
        "domain.racks-half-stated",
        "failure_domains.zones[1].blocks[0].racks",
        "racks: 4\n          power_feeds: 2",
    ),
    (
        "rack-budget-without-racks",
        "          racks: 4\n          hosts_per_rack: 4\n          power_feeds: 2\n",
        "          power_feeds: 2\n          rack_budget_kw: 40\n",
        "domain.rack-budget-without-racks",
        "failure_domains.zones[1].blocks[0].rack_budget_kw",
        "rack_budget_kw: 40",
    ),
    (
        "feed-budget-without-racks",
        "          racks: 4\n          hosts_per_rack: 4\n          power_feeds: 2\n",
        "          power_feeds: 2\n          feed_budget_kw: 400\n",
        "domain.feed-budget-without-racks",
        "failure_domains.zones[1].blocks[0].feed_budget_kw",
        "feed_budget_kw: 400",
    ),
    (
        "site-budget-without-pue",
        "pools:\n",
        "power:\n  site_budget_kw: 500\npools:\n",
        "power.pue-unstated",
        "power.site_budget_kw",
        "site_budget_kw: 500",
    ),
    ("odd-switch-radix", "    switch_radix: 64\n", "    switch_radix: 63\n", "fabric.odd-radix", "fabrics[0].switch_radix", "switch_radix: 63"),
    (
        "odd-tier-radix",
        "    switch_radix: 64\n",
        "    switch_radix: 64\n    spine: {radix: 33}\n",
        "fabric.odd-radix",
        "fabrics[0].spine.radix",
        "spine: {radix: 33}",
    ),
    (
        "uplinks-that-do-not-break-out",
        "    switch_radix: 64\n",
        "    switch_radix: 64\n    leaf: {uplink_gbps: 150}\n",
        "fabric.breakout",
        "fabrics[0].leaf.uplink_gbps",
        "leaf: {uplink_gbps: 150}",
    ),
    (
        "uplinks-fill-the-switch",
        "    switch_radix: 64\n",
        "    switch_radix: 64\n    leaf: {uplinks: 64}\n",
        "fabric.uplinks",
        "fabrics[0].leaf.uplinks",
        "leaf: {uplinks: 64}",
    ),
    (
        "uplinks-and-a-ratio",
        "    switch_radix: 64\n",
        "    switch_radix: 64\n    leaf: {uplinks: 16}\n    oversubscription: {leaf: 3}\n",
        "fabric.uplinks-and-ratio",
        "fabrics[0].leaf.uplinks",
        "leaf: {uplinks: 16}",
    ),
    (
        "fat-tree-with-its-own-leaf-radix",
        "    kind: rail_optimized_clos\n    link_gbps: 100\n    switch_radix: 64\n",
        "    kind: fat_tree\n    link_gbps: 100\n    switch_radix: 64\n    leaf: {radix: 32}\n",
        "fabric.fat-tree-uniform",
        "fabrics[0].leaf.radix",
        "leaf: {radix: 32}",
    ),
    (
        "core-with-uplinks",
        "    switch_radix: 64\n",
        "    switch_radix: 64\n    core: {uplinks: 8}\n",
        "fabric.core-uplinks",
        "fabrics[0].core.uplinks",
        "core: {uplinks: 8}",
    ),
    (
        "spine-planes-splitting-one-plane",
        "    switch_radix: 64\n",
        "    switch_radix: 64\n    spine: {planes: 2}\n",
        "fabric.tier-planes",
        "fabrics[0].spine.planes",
        "spine: {planes: 2}",
    ),
    (
        "core-planes-above-joined-spines",
        "    switch_radix: 64\n",
        "    switch_radix: 64\n    planes: 2\n    ports_per_nic: 2\n    spine: {planes: 1}\n    core: {planes: 2}\n",
        "fabric.tier-planes",
        "fabrics[0].core.planes",
        "core: {planes: 2}",
    ),
    (
        "pods-on-a-two-tier-fabric",
        "    switch_radix: 64\n",
        "    switch_radix: 64\n    tiers: 2\n    blocks_per_pod: 4\n",
        "fabric.blocks-per-pod",
        "fabrics[0].blocks_per_pod",
        "blocks_per_pod: 4",
    ),
    (
        "host-ports-with-a-speed-of-their-own",
        "    switch_radix: 64\n",
        "    switch_radix: 64\n    host_ports:\n      - {name: inband, ports: 2, gbps: 200}\n",
        "schema.unknown-key",
        "fabrics[0].host_ports[0].gbps",
        "{name: inband, ports: 2, gbps: 200}",
    ),
    (
        "host-ports-none",
        "    switch_radix: 64\n",
        "    switch_radix: 64\n    host_ports:\n      - {name: inband, ports: 0}\n",
        "schema.out-of-range",
        "fabrics[0].host_ports[0].ports",
        "{name: inband, ports: 0}",
    ),
    (
        "host-ports-named-twice",
        "    switch_radix: 64\n",
        "    switch_radix: 64\n    host_ports:\n      - {name: inband, ports: 1}\n      - {name: inband, ports: 2}\n",
        "names.duplicate",
        "fabrics[0].host_ports[1].name",
        "{name: inband, ports: 2}",
    ),
    (
        "leaf-planes-other-than-the-fabric-s",
        "    switch_radix: 64\n",
        "    switch_radix: 64\n    leaf: {planes: 2}\n",
        "fabric.tier-planes",
        "fabrics[0].leaf.planes",
        "leaf: {planes: 2}",
    ),
    (
        "scale-up-switches-half-described",
        "    switch_radix: 64\n",
        "    switch_radix: 64\n    scale_up: {kind: nvlink, switches: 18}\n",
        "fabric.scale-up-switches",
        "fabrics[0].scale_up.links_per_accelerator",
        "scale_up: {kind: nvlink, switches: 18}",
    ),
    (
        "scale-up-links-uneven-over-switches",
        "    switch_radix: 64\n",
        "    switch_radix: 64\n    scale_up: {kind: nvlink, switches: 18, links_per_accelerator: 20, link_gbps: 400}\n",
        "fabric.scale-up-links",
        "fabrics[0].scale_up.links_per_accelerator",
        "scale_up: {kind: nvlink, switches: 18, links_per_accelerator: 20",
    ),
    (
        "scale-up-switch-power-without-switches",
        "    switch_radix: 64\n",
        "    switch_radix: 64\n    scale_up: {kind: nvlink, domain_size: 72, switch_kw: 0.5}\n",
        "fabric.scale-up-switches",
        "fabrics[0].scale_up.switch_kw",
        "scale_up: {kind: nvlink, domain_size: 72, switch_kw: 0.5}",
    ),
    # --- references and names -----------------------------------------------------------------
    (
        "unknown-instance-type",
        "    instance_type: p5.48xlarge\n    role",
        "    instance_type: p5.48xlarg\n    role",
        "pool.unknown-instance-type",
        "pools[0].instance_type",
        "instance_type: p5.48xlarg\n",
    ),
    ("unknown-domain", "      domains: [za]\n", "      domains: [zc]\n", "ref.unknown-domain", "pools[0].placement.domains[0]", "domains: [zc]"),
    ("unknown-fabric", "    fabric: efa\n", "    fabric: efa2\n", "ref.unknown-fabric", "pools[0].fabric", "fabric: efa2"),
    ("unknown-storage-tier", "      - tier: lustre\n", "      - tier: lustr\n", "ref.unknown-storage", "pools[0].storage[0].tier", "tier: lustr"),
    (
        "unknown-bucket",
        "      - bucket: data\n",
        "      - bucket: dat\n",
        "ref.unknown-bucket",
        "storage[0].data_repositories[0].bucket",
        "bucket: dat",
    ),
    ("duplicate-pool-name", "  - name: serve\n", "  - name: train\n", "names.duplicate", "pools[1].name", "name: train\n    instance_type: inf2"),
    (
        "duplicate-domain-name",
        "        - name: zb-b1\n",
        "        - name: za\n",
        "names.duplicate",
        "failure_domains.zones[1].blocks[0].name",
        "- name: za\n          racks",
    ),
    (
        "zone-not-in-cloud",
        "      availability_zone: us-east-1b\n",
        "      availability_zone: us-east-1c\n",
        "ref.zone-not-in-cloud",
        "failure_domains.zones[1].availability_zone",
        "availability_zone: us-east-1c",
    ),
    # --- EFA ---------------------------------------------------------------------------------
    (
        "efa-on-inf2",
        "      spread: zones\n",
        "      spread: zones\n    fabric: efa\n",
        "efa.unsupported-instance",
        "pools[1].fabric",
        "fabric: efa\nstorage",
    ),
    (
        "efa-training-two-zones",
        "      domains: [za]\n",
        "      domains: [za, zb]\n",
        "efa.multi-zone",
        "pools[0].placement.domains",
        "domains: [za, zb]\n    fabric",
    ),
    # --- capacity reservations and blocks ---------------------------------------------------------
    (
        "block-in-other-zone",
        "      zone: us-east-1a\n",
        "      zone: us-east-1b\n",
        "capacity.zone-mismatch",
        "pools[0].capacity.zone",
        "      zone: us-east-1b",
    ),
    (
        "block-smaller-than-pool",
        "      instance_count: 8\n",
        "      instance_count: 4\n",
        "capacity.too-small",
        "pools[0].capacity.instance_count",
        "instance_count: 4",
    ),
    (
        "block-of-other-type",
        "      instance_type: p5.48xlarge\n      instance_count",
        "      instance_type: p5en.48xlarge\n      instance_count",
        "capacity.type-mismatch",
        "pools[0].capacity.instance_type",
        "instance_type: p5en.48xlarge",
    ),
    (
        "block-for-inf2",
        "    nodes: {min: 1, max: 4}\n",
        "    nodes: {min: 1, max: 4}\n    capacity: "
        "{kind: capacity_block, reservation_id: cr-0aaaaaaaaaaaaaaaa, zone: us-east-1a, instance_type: inf2.48xlarge, instance_count: 4,"
        " start: 2026-12-01T00:00:00Z, end: 2026-12-02T00:00:00Z}\n",
        "capacity.block-unsupported-type",
        "pools[1].capacity.kind",
        "capacity: {kind: capacity_block, reservation_id: cr-0a",
    ),
    # --- FSx for Lustre ------------------------------------------------------------------------
    (
        "fsx-capacity-step",
        "    capacity_gib: 2400\n",
        "    capacity_gib: 3000\n",
        "fsx.capacity-step",
        "storage[0].capacity_gib",
        "capacity_gib: 3000",
    ),
    (
        "fsx-throughput-value",
        "    throughput_mbps_per_tib: 250\n",
        "    throughput_mbps_per_tib: 300\n",
        "fsx.throughput-value",
        "storage[0].throughput_mbps_per_tib",
        "throughput_mbps_per_tib: 300",
    ),
    (
        "fsx-throughput-missing",
        "    throughput_mbps_per_tib: 250\n",
        "",
        "fsx.throughput-required",
        "storage[0].throughput_mbps_per_tib",
        "- kind: fsx_lustre",
    ),
    (
        "fsx-metadata-on-scratch",
        "    deployment_type: PERSISTENT_2\n    capacity_gib: 2400\n    throughput_mbps_per_tib: 250\n",
        "    deployment_type: SCRATCH_2\n    capacity_gib: 2400\n",
        "fsx.feature-unsupported",
        "storage[0].metadata",
        "metadata: {mode: automatic}",
    ),
    (
        "fsx-efa-on-persistent-1",
        "    deployment_type: PERSISTENT_2\n    capacity_gib: 2400\n    throughput_mbps_per_tib: 250\n    "
        "metadata: {mode: automatic}\n    data_repositories:\n      - bucket: data\n        file_system_path: /data\n",
        "    deployment_type: PERSISTENT_1\n    capacity_gib: 2400\n    throughput_mbps_per_tib: 200\n    efa: true\n",
        "fsx.feature-unsupported",
        "storage[0].efa",
        "efa: true",
    ),
    (
        "fsx-metadata-iops",
        "    metadata: {mode: automatic}\n",
        "    metadata: {mode: user_provisioned, iops: 5000}\n",
        "fsx.metadata-iops",
        "storage[0].metadata.iops",
        "metadata: {mode: user_provisioned",
    ),
    (
        "fsx-lustre-2-10-on-persistent-2",
        "    metadata: {mode: automatic}\n",
        '    metadata: {mode: automatic}\n    file_system_type_version: "2.10"\n',
        "fsx.version",
        "storage[0].file_system_type_version",
        'file_system_type_version: "2.10"',
    ),
    # --- fabric ports ---------------------------------------------------------------------------
    ("fabric-too-small", "    switch_radix: 64\n", "    switch_radix: 8\n", "fabric.too-small", "fabrics[0].switch_radix", "switch_radix: 8"),
    (
        "fractional-nics",
        "    nics_per_accelerator: 4\n",
        "    nics_per_accelerator: 0.3\n",
        "fabric.fractional-nics",
        "fabrics[0].nics_per_accelerator",
        "nics_per_accelerator: 0.3",
    ),
    (
        "more-nics-than-efa",
        "    nics_per_accelerator: 4\n",
        "    nics_per_accelerator: 5\n",
        "fabric.too-few-nics",
        "fabrics[0].nics_per_accelerator",
        "nics_per_accelerator: 5",
    ),
    # --- placement --------------------------------------------------------------------------------
    (
        "pool-over-domain-capacity",
        "    nodes: {min: 1, max: 4}\n",
        "    nodes: {min: 1, max: 40}\n",
        "placement.over-capacity",
        "pools[1].nodes",
        "nodes: {min: 1, max: 40}",
    ),
    (
        "spread-over-one-zone",
        "      domains: [za, zb]\n      spread: zones\n",
        "      domains: [za]\n      spread: zones\n",
        "placement.cannot-spread",
        "pools[1].placement.spread",
        "spread: zones",
    ),
]


@pytest.mark.parametrize("case, old, new, code, path, anchor", CASES, ids=[case[0] for case in CASES])
def test_malformed_blueprint_reports_code_path_and_line(case, old, new, code, path, anchor):
    text = mutate(old, new)
    result = load(text)
    matching = [f for f in result.findings if f.code == code and f.path_text == path]
    assert matching, f"expected {code} at {path}; got {[(f.code, f.path_text) for f in result.findings]}"
    finding = matching[0]
    assert finding.severity == "error"
    assert (finding.file, finding.line) == (FILE, _expected_line(text, anchor))
    assert finding.message and finding.hint, "every finding says what is wrong and how to fix it"
    assert not result.ok


def _expected_line(text: str, anchor: str) -> int:
    """The line an anchor is on; a multi-line anchor names the line it starts on."""
    if "\n" not in anchor:
        return line_of(text, anchor)
    assert text.count(anchor) == 1, f"anchor {anchor!r} must occur once"
    return text[: text.index(anchor)].count("\n") + 1


def test_there_are_at_least_forty_malformed_cases():
    assert len(CASES) >= 40


def test_the_base_blueprint_is_valid():
    from tests.blueprints.base import BASE

    result = load(BASE)
    assert result.ok and result.findings == []


def test_yaml_syntax_error_is_a_source_error_with_its_line():
    text = mutate("  availability_zones: [us-east-1a, us-east-1b]\n", "  availability_zones: [us-east-1a, us-east-1b\n")
    with pytest.raises(SourceError) as caught:
        load(text)
    assert caught.value.file == FILE
    assert caught.value.message.startswith("YAML syntax error")
    assert caught.value.line is not None and caught.value.line >= line_of(text, "availability_zones:")


def test_a_document_that_is_not_a_mapping_is_a_source_error():
    with pytest.raises(SourceError, match="a blueprint is a YAML mapping"):
        load("- just\n- a list\n")


def test_misspelt_key_hint_names_the_right_key():
    result = load(mutate("    capacity:\n      kind: capacity_block", "    capcity:\n      kind: capacity_block"))
    (finding,) = [f for f in result.findings if f.code == "schema.unknown-key"]
    assert finding.hint.startswith("did you mean 'capacity'?")


def test_unknown_instance_type_hint_lists_the_closest_names():
    result = load(mutate("    instance_type: p5.48xlarge\n    role", "    instance_type: p5.48xlarg\n    role"))
    (finding,) = [f for f in result.findings if f.code == "pool.unknown-instance-type"]
    assert "'p5.48xlarge'" in finding.hint
    assert "p5.48xlarg'" in finding.message


def test_fsx_capacity_hint_gives_the_next_legal_size():
    result = load(mutate("    capacity_gib: 2400\n", "    capacity_gib: 3000\n"))
    (finding,) = [f for f in result.findings if f.code == "fsx.capacity-step"]
    assert finding.hint == "use 4800, the next legal size"
    assert "3000" in finding.message and "multiples of 2400" in finding.message


def test_all_findings_are_collected_not_just_the_first():
    text = mutate("    role: training\n", "    role: trainer\n")
    text = text.replace("    capacity_gib: 2400\n", "    capacity_gib: 3000\n")
    text = text.replace("  cost_center: cc-1\n", "  cost_center: cc-1\n  colour: red\n")
    codes = {f.code for f in load(text).findings}
    # The FSx tier validates on its own, so its rule still runs while the pool's schema error stands.
    assert {"schema.invalid-value", "schema.unknown-key", "fsx.capacity-step"} <= codes


def test_scratch_with_metadata_and_repositories_reports_each_feature():
    text = mutate(
        "    deployment_type: PERSISTENT_2\n    capacity_gib: 2400\n    throughput_mbps_per_tib: 250\n",
        "    deployment_type: SCRATCH_2\n    capacity_gib: 2400\n    throughput_mbps_per_tib: 250\n",
    )
    codes = sorted((f.code, f.path_text) for f in load(text).findings)
    assert codes == [
        ("fsx.feature-unsupported", "storage[0].data_repositories"),
        ("fsx.feature-unsupported", "storage[0].metadata"),
        ("fsx.throughput-not-allowed", "storage[0].throughput_mbps_per_tib"),
    ]
