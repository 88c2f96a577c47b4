"""Finding codes of the load stage that no other test raised: each from a one-snippet change to `base.BASE`, asserting
its code, path, line and message (tests/house/test_codes_emitted.py holds every listed code to a test like these)."""

from __future__ import annotations

import pytest

from tests.blueprints.base import FILE, line_of, load, mutate

ZONES = "  availability_zones: [us-east-1a, us-east-1b]\n"
PRIVATE = "  endpoint: {private_access_cidrs: [10.0.0.0/16]}\n"
REPOSITORY = "      - bucket: data\n        file_system_path: /data\n"
EXISTING = (
    "  existing_vpc:\n    id: vpc-0123456789abcdef0\n    subnets:\n"
    "      - {id: subnet-0123456789abcdef0, availability_zone: us-east-1a, cidr: 10.0.0.0/20}\n"
    "      - {id: subnet-0123456789abcdef1, availability_zone: us-east-1b, cidr: 10.0.16.0/20}\n"
)

# (case id, old snippet, new snippet, code, path, anchor on the finding's line, words of the message)
CASES = [
    (
        "a-zone-listed-twice",
        ZONES,
        "  availability_zones: [us-east-1a, us-east-1a]\n",
        "cloud.duplicate-zone",
        "cloud.availability_zones",
        "availability_zones: [us-east-1a, us-east-1a]",
        "availability_zones lists a zone twice: ['us-east-1a', 'us-east-1a']",
    ),
    (
        "pins-beside-an-existing-vpc",
        "  vpc_cidr: 10.0.0.0/16\n",
        "  vpc_cidr: 10.0.0.0/16\n  subnet_cidrs: {private-za: 10.0.0.0/20}\n" + EXISTING,
        "cloud.pins-existing-vpc",
        "cloud.subnet_cidrs",
        "subnet_cidrs:",
        "subnet_cidrs pins the subnets railyard carves, but existing_vpc places the nodes in subnets the team already has",
    ),
    (
        "a-pin-smaller-than-a-subnet-may-be",
        "  vpc_cidr: 10.0.0.0/16\n",
        "  vpc_cidr: 10.0.0.0/16\n  subnet_cidrs: {private-za: 10.0.0.0/29}\n",
        "cloud.subnet-pin-size",
        "cloud.subnet_cidrs.private-za",
        "subnet_cidrs:",
        "subnet 'private-za' is pinned at 10.0.0.0/29, a /29; a subnet is /16 to /28",
    ),
    (
        "a-service-rack-over-the-rack-budget",
        "          hosts_per_rack: 4\n          power_feeds: 2\n",
        "          hosts_per_rack: 4\n          power_feeds: 2\n          rack_budget_kw: 40\n"
        "          service_racks:\n            - {role: management, racks: 1, kw_per_rack: 41}\n",
        "domain.service-rack-budget",
        "failure_domains.zones[1].blocks[0].service_racks",
        "- {role: management",
        "block 'zb-b1': a management rack draws 41 kW, over the block's rack_budget_kw 40",
    ),
    ("no-nodes", "    nodes: 8\n", "    nodes: 0\n", "pool.node-count", "pools[0].nodes", "nodes: 0", "nodes is 0; a pool has at least 1 node"),
    (
        "pod-cidrs-without-custom-networking",
        "  layer_stack: separate\n",
        "  layer_stack: separate\n  pod_networking: {pod_cidrs: [100.64.0.0/16]}\n",
        "network.pod-cidrs-unused",
        "kubernetes.pod_networking.pod_cidrs",
        "pod_networking:",
        "pod_cidrs is set, but mode is",
    ),
    (
        "custom-networking-without-pod-cidrs",
        "  layer_stack: separate\n",
        "  layer_stack: separate\n  pod_networking: {mode: custom_networking}\n",
        "network.pod-cidrs-missing",
        "kubernetes.pod_networking.pod_cidrs",
        "pod_networking:",
        "custom_networking needs pod_cidrs, the secondary VPC blocks pods' subnets come from",
    ),
    (
        "a-pod-cidr-larger-than-a-vpc-block",
        "  layer_stack: separate\n",
        "  layer_stack: separate\n  pod_networking: {mode: custom_networking, pod_cidrs: [100.64.0.0/15]}\n",
        "network.pod-cidr-size",
        "kubernetes.pod_networking.pod_cidrs[0]",
        "pod_networking:",
        "pod CIDR 100.64.0.0/15 is a /15; a VPC CIDR block is /16 to /28",
    ),
    (
        "hdd-on-persistent-2",
        "    deployment_type: PERSISTENT_2\n",
        "    deployment_type: PERSISTENT_2\n    storage_type: HDD\n",
        "fsx.storage-type",
        "storage[0].storage_type",
        "storage_type: HDD",
        "HDD storage is offered only on PERSISTENT_1, not PERSISTENT_2",
    ),
    (
        "efa-without-metadata",
        "    metadata: {mode: automatic}\n",
        "    efa: true\n",
        "fsx.efa-needs-metadata",
        "storage[0].metadata",
        "- kind: fsx_lustre",
        "an EFA-enabled file system needs a metadata configuration, and 'lustre' has none",
    ),
    (
        "nested-repository-paths",
        REPOSITORY,
        REPOSITORY + "      - bucket: models\n        file_system_path: /data/models\n",
        "fsx.repository-path",
        "storage[0].data_repositories[1].file_system_path",
        "file_system_path: /data/models",
        "file_system_path /data/models overlaps /data; associations may not nest",
    ),
    (
        "a-bucket-prefix-linked-twice",
        REPOSITORY,
        REPOSITORY + "      - bucket: data\n        file_system_path: /again\n",
        "fsx.repository-path",
        "storage[0].data_repositories[1].bucket",
        "- bucket: data\n        file_system_path: /again",
        "bucket 'data' prefix",
    ),
    (
        "private-cidrs-with-the-private-endpoint-off",
        PRIVATE,
        "  endpoint: {private: false, public_access_cidrs: [203.0.113.0/24], private_access_cidrs: [10.0.0.0/16]}\n",
        "endpoint.private-cidrs-unused",
        "kubernetes.endpoint.private_access_cidrs",
        "endpoint: {private: false",
        "private_access_cidrs is set, but the private endpoint is off, so the rule it adds admits nothing",
    ),
    (
        "rails-that-do-not-divide-the-nics",
        "    nics_per_accelerator: 4\n",
        "    nics_per_accelerator: 4\n    rails: 3\n",
        "fabric.rails-mismatch",
        "fabrics[0].rails",
        "rails: 3",
        "32 NICs per p5.48xlarge host can't be split evenly over 3 rails",
    ),
    (
        "standby-for-no-pool",
        "      spread: zones\n",
        "      spread: zones\n  - name: spare\n    instance_type: p5.48xlarge\n    role: training\n    nodes: 1\n    placement: {domains: [za]}\n"
        "    standby_for: trian\n",
        "pool.standby-target",
        "pools[2].standby_for",
        "standby_for: trian",
        "standby_for 'trian' is not a pool",
    ),
]


@pytest.mark.parametrize("case, old, new, code, path, anchor, words", CASES, ids=[case[0] for case in CASES])
def test_the_change_raises_its_code_at_its_path_and_line(case, old, new, code, path, anchor, words):
    text = mutate(old, new)
    result = load(text)
    matching = [f for f in result.findings if f.code == code and f.path_text == path]
    assert matching, f"expected {code} at {path}; got {[(f.code, f.path_text, f.message) for f in result.findings]}"
    finding = matching[0]
    first = anchor.splitlines()[0]
    assert (finding.file, finding.line) == (FILE, line_of(text, first) if "\n" not in anchor else text[: text.index(anchor)].count("\n") + 1)
    assert words in finding.message
    assert finding.hint
