"""Blueprints for the Kubernetes layer's tests: the examples, and a small fabric cases mutate.

The small fabric `FABRIC`:

    zone za (us-east-1a)
    ├── block za-gpu: 2 racks x 4 hosts ── pool gpu:  4 x p5.48xlarge (8 H100, 32 EFA each)
    │                                       on EFA fabric `efa`, mounts FSx tier `lustre`
    └── block za-inf: 1 rack  x 4 hosts ── pool inf:  2 x inf2.xlarge (1 Inferentia2), no fabric
    zone zb (us-east-1b): block zb-spare, empty (EKS needs subnets in two zones)

    plugins: nvidia_device_plugin, efa_device_plugin, neuron_device_plugin

A case replaces one unique snippet (`mutate`), so the expected YAML line is
found from an anchor in the mutated text rather than counted by hand.
"""

from __future__ import annotations

from pathlib import Path

from blueprints.catalog import load_catalog
from blueprints.findings import Finding, has_errors
from blueprints.loader import LoadResult, load_blueprint, load_text
from tests.yaml_text import line_of, replace_once  # noqa: F401 - line_of is re-exported to the tests
from topology.cluster.kubernetes_checks import check_kubernetes

EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"
FILE = "fabric.yaml"

FABRIC = """\
version: 1
metadata:
  name: fabric
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
        - name: za-gpu
          racks: 2
          hosts_per_rack: 4
        - name: za-inf
          racks: 1
          hosts_per_rack: 4
    - name: zb
      availability_zone: us-east-1b
      blocks:
        - name: zb-spare
          racks: 1
          hosts_per_rack: 4
fabrics:
  - name: efa
    kind: rail_optimized_clos
    link_gbps: 100
    switch_radix: 64
    nics_per_accelerator: 4
pools:
  - name: gpu
    instance_type: p5.48xlarge
    role: training
    nodes: 4
    placement:
      domains: [za-gpu]
    fabric: efa
    storage:
      - tier: lustre
  - name: inf
    instance_type: inf2.xlarge
    role: inference
    nodes: 2
    placement:
      domains: [za-inf]
storage:
  - kind: fsx_lustre
    name: lustre
    deployment_type: PERSISTENT_2
    capacity_gib: 1200
    throughput_mbps_per_tib: 250
    metadata: {mode: automatic}
kubernetes:
  layer_stack: separate
  endpoint: {private_access_cidrs: [10.0.0.0/16]}
  device_plugins:
    - kind: nvidia_device_plugin
    - kind: efa_device_plugin
    - kind: neuron_device_plugin
"""


def mutate(old: str, new: str, text: str = FABRIC) -> str:
    """`text` (FABRIC by default) with the one occurrence of `old` replaced by `new`."""
    return replace_once(text, old, new)


def load(text: str, file: str = FILE) -> LoadResult:
    """Load blueprint text through the load stage (schema + rules)."""
    return load_text(text, file)


def k8s_findings(text: str) -> list[Finding]:
    """The cross-layer findings of a blueprint that loads cleanly, placed at their YAML lines."""
    loaded = load(text)
    assert loaded.blueprint is not None and not has_errors(loaded.findings), [f.as_json() for f in loaded.findings]
    return [loaded.source_map.place(finding) for finding in check_kubernetes(loaded.blueprint, load_catalog())]


def example_path(name: str) -> str:
    """The path of `blueprints/examples/<name>.yaml`."""
    return str(EXAMPLES / f"{name}.yaml")


def example(name: str):
    """A validated example blueprint."""
    loaded = load_blueprint(example_path(name))
    assert loaded.ok, [finding.as_json() for finding in loaded.findings]
    return loaded.blueprint


def p6_b200_text() -> str:
    """The p5 Capacity Block example moved to p6-b200.48xlarge (4 network layers, 8 B200, 8 EFA)."""
    text = (EXAMPLES / "p5-capacity-block.yaml").read_text().replace("p5.48xlarge", "p6-b200.48xlarge")
    # p6-b200: 8 EFA interfaces for 8 GPUs, 400 Gbps each.
    text = mutate("nics_per_accelerator: 4   # 32 EFA interfaces / 8 GPUs", "nics_per_accelerator: 1", text)
    # Four B200 nodes draw more than a p5 rack's 48 kW: give the racks room (the topology checker holds budgets).
    text = mutate("          rack_budget_kw: 48", "          rack_budget_kw: 60", text)
    return mutate("link_gbps: 100            # p5: 32 network cards x 100 Gbps", "link_gbps: 400", text)
