"""A small valid blueprint that the malformed-blueprint cases mutate one line at a time.

Two zones of 4 racks x 4 hosts; an EFA rail-optimized fabric; a p5 training
pool on a Capacity Block in zone `za`; an inf2 inference pool spread over both
zones; FSx PERSISTENT_2 linked to an S3 tier. Cases replace one unique snippet,
so the expected line is found from an anchor in the mutated text, not counted
by hand.
"""

from __future__ import annotations

from blueprints.loader import LoadResult, load_text
from tests.yaml_text import line_of, replace_once  # noqa: F401 - line_of is re-exported to the tests

BASE = """\
version: 1
metadata:
  name: testbed
  environment: test
  owner: platform
  cost_center: cc-1
cloud:
  kind: aws
  region: us-east-1
  availability_zones: [us-east-1a, us-east-1b]
  vpc_cidr: 10.0.0.0/16
failure_domains:
  zones:
    - name: za
      availability_zone: us-east-1a
      blocks:
        - name: za-b1
          racks: 4
          hosts_per_rack: 4
    - name: zb
      availability_zone: us-east-1b
      blocks:
        - name: zb-b1
          racks: 4
          hosts_per_rack: 4
          power_feeds: 2
fabrics:
  - name: efa
    kind: rail_optimized_clos
    link_gbps: 100
    switch_radix: 64
    nics_per_accelerator: 4
pools:
  - name: train
    instance_type: p5.48xlarge
    role: training
    nodes: 8
    capacity:
      kind: capacity_block
      reservation_id: cr-0123456789abcdef0
      zone: us-east-1a
      instance_type: p5.48xlarge
      instance_count: 8
      start: 2026-12-01T00:00:00Z
      end: 2026-12-08T00:00:00Z
    placement:
      domains: [za]
    fabric: efa
    storage:
      - tier: lustre
        read_mbps_per_accelerator: 5
  - name: serve
    instance_type: inf2.48xlarge
    role: inference
    nodes: {min: 1, max: 4}
    placement:
      domains: [za, zb]
      spread: zones
storage:
  - kind: fsx_lustre
    name: lustre
    deployment_type: PERSISTENT_2
    capacity_gib: 2400
    throughput_mbps_per_tib: 250
    metadata: {mode: automatic}
    data_repositories:
      - bucket: data
        file_system_path: /data
  - kind: s3
    name: data
kubernetes:
  layer_stack: separate
  endpoint: {private_access_cidrs: [10.0.0.0/16]}
  device_plugins:
    - kind: nvidia_device_plugin
    - kind: efa_device_plugin
    - kind: neuron_device_plugin
"""

FILE = "testbed.yaml"


def mutate(old: str, new: str) -> str:
    """BASE with the one occurrence of `old` replaced by `new`."""
    return replace_once(BASE, old, new)


def load(text: str) -> LoadResult:
    """Load blueprint text through the whole load stage (schema + rules), as if read from FILE."""
    return load_text(text, FILE)
