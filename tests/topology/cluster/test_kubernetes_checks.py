"""The cross-layer check: each rule fires on a deliberately inconsistent `FABRIC` and points at the YAML to fix."""

from __future__ import annotations

import pytest

from blueprints.catalog import load_catalog
from tests.kubernetes.fixtures import FABRIC, FILE, example, k8s_findings, line_of, mutate
from topology.cluster.kubernetes_checks import CODES, RULES, check_kubernetes

PLUGINS = """    - kind: nvidia_device_plugin
    - kind: efa_device_plugin
    - kind: neuron_device_plugin
"""
KUEUE_AFTER = """    - kind: neuron_device_plugin
"""


def with_plugins(plugins: str, text: str = FABRIC) -> str:
    return mutate(PLUGINS, plugins, text)


def with_kueue(flavors: str) -> str:
    return mutate(KUEUE_AFTER, KUEUE_AFTER + "  kueue:\n    flavors:\n" + flavors)


def only(findings, code):
    """The findings of `code`, failing loudly on any other code."""
    assert {finding.code for finding in findings} <= {code}, [finding.as_json() for finding in findings]
    return [finding for finding in findings if finding.code == code]


# Each case: (id, blueprint text, code, path, anchor of the expected line, substrings of the message)
CASES = [
    (
        "neuron pool without a neuron plugin",
        with_plugins("    - kind: nvidia_device_plugin\n    - kind: efa_device_plugin\n"),
        "k8s.missing-plugin",
        "pools[1].instance_type",
        "instance_type: inf2.xlarge",
        ["pool 'inf'", "1 Inferentia2 per node (aws.amazon.com/neuron)", "neuron_device_plugin"],
    ),
    (
        "EFA pool without the EFA plugin",
        with_plugins("    - kind: nvidia_device_plugin\n    - kind: neuron_device_plugin\n"),
        "k8s.missing-plugin",
        "pools[0].fabric",
        "fabric: efa",
        ["pool 'gpu'", "32 EFA interfaces", "efa_device_plugin"],
    ),
    (
        "plugin limited to pools that leave a GPU pool out",
        with_plugins("    - kind: nvidia_device_plugin\n      pools: [inf]\n    - kind: efa_device_plugin\n    - kind: neuron_device_plugin\n"),
        "k8s.missing-plugin",
        "kubernetes.device_plugins[0].pools",
        "pools: [inf]",
        ["nvidia_device_plugin runs only on pools ['inf']", "pool 'gpu' (p5.48xlarge) has 8 H100 per node"],
    ),
    (
        "plugin limited to no pool at all",
        with_plugins("    - kind: nvidia_device_plugin\n      pools: []\n    - kind: efa_device_plugin\n    - kind: neuron_device_plugin\n"),
        "k8s.unused-plugin",
        "kubernetes.device_plugins[0].pools",
        "pools: []",
        ["nvidia_device_plugin is limited to no pool"],
    ),
    (
        "neuron plugin told to run on the GPU pool",
        with_plugins("    - kind: nvidia_device_plugin\n    - kind: efa_device_plugin\n    - kind: neuron_device_plugin\n      pools: [inf, gpu]\n"),
        "k8s.unused-plugin",
        "kubernetes.device_plugins[2].pools",
        "pools: [inf, gpu]",
        ["neuron_device_plugin lands on pool(s) ['gpu'] (p5.48xlarge)", "no aws.amazon.com/neuron"],
    ),
    (
        "neuron plugin with no neuron pool at all",
        mutate("instance_type: inf2.xlarge", "instance_type: g6e.xlarge"),
        "k8s.unused-plugin",
        "kubernetes.device_plugins[2]",
        "- kind: neuron_device_plugin",
        ["neuron_device_plugin has nothing to do", "aws.amazon.com/neuron"],
    ),
    (
        "plugin selector names a label the nodes don't carry",
        with_plugins(
            "    - kind: nvidia_device_plugin\n      node_selector: {team: ml}\n    - kind: efa_device_plugin\n    - kind: neuron_device_plugin\n"
        ),
        "k8s.label-not-set",
        "kubernetes.device_plugins[0].node_selector.team",
        "node_selector: {team: ml}",
        ["nvidia_device_plugin requires team=ml", "pool 'gpu' in 'za-gpu'"],
    ),
    (
        "flavor selects a pool label value no node has",
        with_kueue("      - pool: gpu\n        node_labels: {railyard.dev/pool: gpus}\n"),
        "k8s.label-not-set",
        "kubernetes.kueue.flavors[0].node_labels.railyard.dev/pool",
        "node_labels: {railyard.dev/pool: gpus}",
        ["Kueue flavor 'gpu' requires railyard.dev/pool=gpus", "railyard.dev/pool=gpu,"],
    ),
    (
        "topology level AWS never sets on inf2",
        with_kueue(
            "      - pool: inf\n        topology_levels:\n          - topology.kubernetes.io/zone\n"
            "          - topology.k8s.aws/network-node-layer-1\n          - kubernetes.io/hostname\n"
        ),
        "k8s.label-not-set",
        "kubernetes.kueue.flavors[0].topology_levels[1]",
        "- topology.k8s.aws/network-node-layer-1",
        ["level 'topology.k8s.aws/network-node-layer-1'", "AWS sets no network-node layers on inf2.xlarge"],
    ),
    (
        "UltraServer level on a type that is no UltraServer",
        with_kueue("      - pool: inf\n        topology_levels:\n          - neuron.amazonaws.com/ultraserver-server-id-4\n"),
        "k8s.label-not-set",
        "kubernetes.kueue.flavors[0].topology_levels[0]",
        "- neuron.amazonaws.com/ultraserver-server-id-4",
        ["level 'neuron.amazonaws.com/ultraserver-server-id-4'", "on the nodes of an UltraServer only, and inf2.xlarge is not one"],
    ),
    (
        "fourth network layer on a three-layer p5",
        with_kueue(
            "      - pool: gpu\n        topology_levels:\n          - topology.k8s.aws/network-node-layer-1\n"
            "          - topology.k8s.aws/network-node-layer-4\n"
        ),
        "k8s.label-not-set",
        "kubernetes.kueue.flavors[0].topology_levels[1]",
        "- topology.k8s.aws/network-node-layer-4",
        ["level 'topology.k8s.aws/network-node-layer-4' is not set on nodes of pool 'gpu'", "AWS labels p5.48xlarge with 3 network-node layer(s)"],
    ),
    (
        "plugin tolerations that miss a pool taint",
        mutate(
            "    fabric: efa\n",
            "    fabric: efa\n    taints:\n      - {key: dedicated, value: training, effect: NoSchedule}\n",
            with_plugins(
                "    - kind: nvidia_device_plugin\n      tolerations:\n        - {key: nvidia.com/gpu, operator: Exists}\n"
                "    - kind: efa_device_plugin\n    - kind: neuron_device_plugin\n"
            ),
        ),
        "k8s.untolerated-taint",
        "kubernetes.device_plugins[0].tolerations",
        "- {key: nvidia.com/gpu, operator: Exists}",
        ["nvidia_device_plugin doesn't tolerate taint dedicated=training:NoSchedule of pool 'gpu'"],
    ),
    (
        "quota above the GPUs provisioned",
        with_kueue("      - pool: gpu\n        accelerator_quota: 40\n"),
        "k8s.quota-mismatch",
        "kubernetes.kueue.flavors[0].accelerator_quota",
        "accelerator_quota: 40",
        ["grants 40 nvidia.com/gpu on flavor 'gpu'", "hold 32", "stay Pending"],
    ),
    (
        "flavor labels that also select another pool's accelerators",
        with_kueue("      - pool: gpu\n        node_labels: {railyard.dev/capacity: on-demand}\n"),
        "k8s.quota-mismatch",
        "kubernetes.kueue.flavors[0].node_labels",
        "node_labels: {railyard.dev/capacity: on-demand}",
        ["grants 0 aws.amazon.com/neuron on flavor 'gpu'", "pools ['gpu', 'inf']", "hold 2"],
    ),
    (
        "flavor for a pool that doesn't exist",
        with_kueue("      - pool: gpux\n"),
        "k8s.unknown-pool",
        "kubernetes.kueue.flavors[0].pool",
        "- pool: gpux",
        ["names pool 'gpux'", "['gpu', 'inf']"],
    ),
    (
        "pool with more taints than a flavor may tolerate",
        mutate(
            "    fabric: efa\n",
            "    fabric: efa\n    taints:\n" + "".join(f"      - {{key: t{n}, value: x, effect: NoSchedule}}\n" for n in range(8)),
        ),
        "k8s.flavor-limit",
        "pools[0].taints",
        "{key: t0,",
        ["pool 'gpu' has 9 taints", "at most 8"],
    ),
]


@pytest.mark.parametrize("case, text, code, path, anchor, phrases", CASES, ids=[case[0] for case in CASES])
def test_inconsistent_blueprint_fails_with_a_placed_finding(case, text, code, path, anchor, phrases):
    findings = [finding for finding in k8s_findings(text) if finding.code == code]
    assert findings, f"{case}: no {code}"
    finding = next((item for item in findings if item.path_text == path), None)
    assert finding is not None, [item.as_json() for item in findings]
    assert finding.severity == "error" and finding.hint
    assert (finding.file, finding.line) == (FILE, line_of(text, anchor))
    for phrase in phrases:
        assert phrase in finding.message, finding.message


def test_flavor_selecting_two_pools_reports_only_the_quota_mismatch():
    text = with_kueue("      - pool: gpu\n        node_labels: {railyard.dev/capacity: on-demand}\n")
    assert {finding.code for finding in k8s_findings(text)} == {"k8s.quota-mismatch"}


def test_plugin_with_only_taint_override_reports_nothing_when_it_tolerates_everything():
    text = with_plugins(
        "    - kind: nvidia_device_plugin\n      tolerations:\n        - {key: nvidia.com/gpu, operator: Exists}\n"
        "    - kind: efa_device_plugin\n    - kind: neuron_device_plugin\n"
    )
    assert k8s_findings(text) == []


def test_flavor_label_typo_reports_the_label_not_a_quota_mismatch_too():
    text = with_kueue("      - pool: gpu\n        node_labels: {railyard.dev/pool: gpus}\n")
    assert {finding.code for finding in k8s_findings(text)} == {"k8s.label-not-set"}


def test_missing_plugin_for_a_pool_is_reported_once_per_pool_not_per_node_group():
    text = mutate("    - kind: neuron_device_plugin\n", "")
    text = mutate("      domains: [za-inf]", "      domains: [za-inf, zb-spare]", text)
    findings = only(k8s_findings(text), "k8s.missing-plugin")
    assert [finding.path_text for finding in findings] == ["pools[1].instance_type"]


@pytest.mark.parametrize("name", ["heterogeneous", "dev-g6e", "p5-capacity-block", "rail-131k"])
def test_examples_are_consistent_across_layers(name):
    assert check_kubernetes(example(name), load_catalog()) == []


def test_fabric_fixture_is_consistent_across_layers():
    assert k8s_findings(FABRIC) == []


def test_registry_names_every_code_once():
    assert CODES == (
        "k8s.missing-plugin",
        "k8s.unused-plugin",
        "k8s.unknown-pool",
        "k8s.label-not-set",
        "k8s.untolerated-taint",
        "k8s.flavor-limit",
        "k8s.quota-mismatch",
        "k8s.standby-flavor",
        "k8s.no-health-signal",
        "k8s.gate-untolerated",
        "acceptance.untolerated",
        "acceptance.level-conflict",
        "acceptance.timeout-short",
        "acceptance.too-many-taints",
        "acceptance.node-binding",
        "acceptance.replace-without-pod-identity",
        "acceptance.replace-capacity-block",
        "acceptance.karpenter-held",
    )
    assert [rule.name for rule in RULES] == [
        "coverage",
        "labels",
        "taints",
        "quota",
        "flavor-pools",
        "health",
        "node-gates",
        "acceptance",
        "acceptance-replace",
    ]


def test_check_is_skipped_not_crashed_when_the_node_groups_cant_be_planned():
    blueprint = example("dev-g6e")
    broken = blueprint.model_copy(update={"pools": [blueprint.pools[0].model_copy(update={"instance_type": "x9.huge"})]})
    assert check_kubernetes(broken, load_catalog()) == []


def test_validate_reports_cross_layer_findings_at_their_yaml_line(tmp_path):
    from railyard.pipeline import validate

    text = with_kueue("      - pool: gpu\n        accelerator_quota: 40\n")
    path = tmp_path / FILE
    path.write_text(text)
    validation = validate(str(path))
    assert not validation.ok
    (finding,) = [finding for finding in validation.findings if finding.code.startswith("k8s.")]
    assert (finding.code, finding.line) == ("k8s.quota-mismatch", line_of(text, "accelerator_quota: 40"))
