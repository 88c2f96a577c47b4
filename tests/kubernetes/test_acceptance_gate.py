"""The acceptance gate: the taint on the gated pools' nodes, everything that must run first tolerating it, the checker
that lifts it, its price, and the emitted objects held to the pinned pulumi-kubernetes types.

The small fabric (tests/kubernetes/fixtures.py) gates its `gpu` pool (4 x p5.48xlarge, EFA, FSx) here:

    pool gpu  ── taints nvidia.com/gpu=true, railyard.dev/acceptance=pending (NoSchedule)
              ── labels railyard.dev/pool=gpu, railyard.dev/acceptance=pending
    tolerate both: the NVIDIA and EFA device plugins, the DCGM exporter, the FSx node plugin, the checker
    tolerate neither: the Kueue flavor (workloads wait for the lift)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from acceptance import Expectation
from acceptance.evidence import commands
from blueprints.catalog import load_catalog
from blueprints.catalog.prices import load_prices
from blueprints.loader import load_blueprint
from blueprints.models.acceptance import Acceptance
from components.kubernetes.acceptance import NEURON_LS, NEURON_LS_FILE, RULES, AcceptanceBundle, daemon_set
from components.kubernetes.karpenter import plan_karpenter
from railyard.checker_bundle import checker_bundle, package_sources
from tests.kubernetes.fixtures import EXAMPLES, FABRIC, k8s_findings, load, mutate
from tests.kubernetes.k8s_types import conforms
from topology.acceptance_cost import acceptance_cost_findings, acceptance_costs
from topology.cluster.acceptance import NODE_ADDONS, plan_gates
from topology.cluster.kubernetes import lay_out_kubernetes
from topology.cluster.kubernetes_checks import check_kubernetes
from topology.cluster.labels import ACCEPTANCE_TAINT
from topology.cluster.node_groups import plan_node_groups
from topology.cluster.scheduling import node_groups

CATALOG = load_catalog()
GATED = mutate(
    "    fabric: efa\n    storage:\n      - tier: lustre\n",
    "    fabric: efa\n    acceptance: {level: standard}\n    storage:\n      - tier: lustre\n",
)
PENDING = "railyard.dev/acceptance=pending:NoSchedule"


def _blueprint(text: str):
    loaded = load(text)
    assert loaded.blueprint is not None, [finding.as_json() for finding in loaded.findings]
    return loaded.blueprint


def with_acceptance_everywhere(blueprint, level: str = "standard"):
    """`blueprint` with `acceptance` on every pool."""
    pools = [pool.model_copy(update={"acceptance": Acceptance(level=level)}) for pool in blueprint.pools]
    return blueprint.model_copy(update={"pools": pools})


def test_acceptance_is_off_by_default_and_a_pool_without_it_gets_neither_the_taint_nor_the_label():
    blueprint = _blueprint(FABRIC)
    assert [pool.acceptance for pool in blueprint.pools] == [None, None]
    for group in plan_node_groups(blueprint, CATALOG):
        assert "railyard.dev/acceptance" not in group.labels
        assert ACCEPTANCE_TAINT not in group.taints


def test_a_burn_in_as_long_as_the_timeout_is_refused():
    loaded = load(mutate("acceptance: {level: standard}", "acceptance: {level: standard, burn_in_minutes: 30, timeout_minutes: 30}", GATED))
    assert [finding.code for finding in loaded.findings if finding.severity == "error"] == ["pool.acceptance-burn-in"]


def test_a_gated_pool_starts_tainted_and_labelled_pending_last_so_no_other_taint_moves():
    blueprint = _blueprint(GATED)
    gpu = [group for group in plan_node_groups(blueprint, CATALOG) if group.pool == "gpu"]
    assert [(taint.key, taint.value, taint.eks_effect) for taint in gpu[0].taints] == [
        ("nvidia.com/gpu", "true", "NO_SCHEDULE"),
        ("railyard.dev/acceptance", "pending", "NO_SCHEDULE"),
    ]
    assert gpu[0].labels["railyard.dev/acceptance"] == "pending"
    inf = [group for group in plan_node_groups(blueprint, CATALOG) if group.pool == "inf"]
    assert "railyard.dev/acceptance" not in inf[0].labels


def test_the_gated_fabric_is_consistent_and_every_daemonset_that_runs_first_tolerates_the_taint_but_no_workload_does():
    blueprint = _blueprint(GATED)
    assert k8s_findings(GATED) == []
    layout = lay_out_kubernetes(blueprint, CATALOG)
    gpu = [view for view in layout.nodes if view.pool == "gpu"]
    assert ACCEPTANCE_TAINT in gpu[0].taints
    tolerating = {plugin.kind for plugin in layout.plugins if "gpu" in plugin.pools and not plugin.placement.untolerated(gpu[0].taints)}
    assert tolerating == {"nvidia_device_plugin", "efa_device_plugin"}
    serving = [exporter for exporter in layout.exporters if "gpu" in exporter.pools]
    assert [exporter.exporter for exporter in serving if not exporter.placement.untolerated(gpu[0].taints)] == ["dcgm_exporter"]
    assert layout.mounts.placement.untolerated(gpu[0].taints) == []
    assert [gate.pool for gate in layout.acceptance] == ["gpu"] and layout.acceptance[0].placement.untolerated(gpu[0].taints) == []
    flavor = next(flavor for flavor in layout.kueue.flavors if flavor.pool == "gpu")
    assert [toleration.key for toleration in flavor.tolerations] == ["nvidia.com/gpu"]


def test_validate_refuses_a_device_plugin_whose_tolerations_were_replaced_without_the_acceptance_taint():
    text = mutate(
        "    - kind: nvidia_device_plugin\n",
        "    - kind: nvidia_device_plugin\n      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]\n",
        GATED,
    )
    findings = k8s_findings(text)
    assert [(finding.code, finding.path_text) for finding in findings] == [("k8s.untolerated-taint", "kubernetes.device_plugins[0].tolerations")]
    assert PENDING in findings[0].message and "nvidia_device_plugin doesn't tolerate" in findings[0].message


def test_exhaustive_beside_the_dcgm_exporter_is_a_level_conflict():
    findings = k8s_findings(mutate("acceptance: {level: standard}", "acceptance: {level: exhaustive}", GATED))
    assert [(finding.code, finding.path_text) for finding in findings] == [("acceptance.level-conflict", "pools[0].acceptance.level")]
    assert "the dcgm_exporter runs on its nodes" in findings[0].message


def test_a_timeout_shorter_than_the_levels_published_duration_is_refused_with_the_figure():
    findings = k8s_findings(mutate("acceptance: {level: standard}", "acceptance: {level: long, burn_in_minutes: 10, timeout_minutes: 20}", GATED))
    assert [(finding.code, finding.path_text) for finding in findings] == [("acceptance.timeout-short", "pools[0].acceptance.timeout_minutes")]
    assert "takes up to 25 min" in findings[0].message and "at least 25" in findings[0].hint


def test_the_node_addons_all_tolerate_the_acceptance_taint_each_with_its_source():
    assert sorted(NODE_ADDONS) == ["ebs_csi_driver", "kube_proxy", "node_monitoring_agent", "pod_identity_agent", "vpc_cni"]
    assert all(toleration.tolerates(ACCEPTANCE_TAINT) and source for toleration, source in NODE_ADDONS.values())


@pytest.mark.parametrize("example", sorted(path.stem for path in EXAMPLES.glob("*.yaml")))
def test_taint_toleration_matrix_with_acceptance_on_every_pool_of_every_example(example):
    """Every example, every pool gated: nothing that must run first is left out by the taint, and no workload tolerates it."""
    blueprint = load_blueprint(str(EXAMPLES / f"{example}.yaml")).blueprint
    gated = with_acceptance_everywhere(blueprint)
    findings = check_kubernetes(gated, CATALOG)
    held = [finding for finding in findings if finding.code == "acceptance.karpenter-held"]
    assert [finding.path[1] for finding in held] == [i for i, pool in enumerate(gated.pools) if pool.provisioner == "karpenter"]
    codes = [finding.code for finding in findings if finding.code.startswith("acceptance.") or finding.code == "k8s.untolerated-taint"]
    assert [code for code in codes if code != "acceptance.karpenter-held"] == []
    layout = lay_out_kubernetes(gated, CATALOG)
    assert [gate.pool for gate in layout.acceptance] == [pool.name for pool in gated.pools]
    for view in layout.nodes:
        assert ACCEPTANCE_TAINT in view.taints
        placements = [plugin.placement for plugin in layout.plugins if view.pool in plugin.pools and plugin.placement.selects(view.all_labels())]
        placements += [exporter.placement for exporter in layout.exporters if exporter.placement and view.pool in exporter.pools]
        placements += [gate.placement for gate in layout.acceptance if gate.pool == view.pool]
        assert all(ACCEPTANCE_TAINT not in placement.untolerated(view.taints) for placement in placements)
    for flavor in layout.kueue.flavors if layout.kueue else ():
        assert all(toleration.key != "railyard.dev/acceptance" for toleration in flavor.tolerations)


def test_a_karpenter_pool_gets_the_taint_as_a_startup_taint_not_a_taint():
    blueprint = load_blueprint(str(EXAMPLES / "ai-on-eks.yaml")).blueprint
    inference = blueprint.pools[1]
    pools = [blueprint.pools[0], inference.model_copy(update={"acceptance": Acceptance()}), *blueprint.pools[2:]]
    gated = blueprint.model_copy(update={"pools": pools})
    plan = plan_karpenter(gated, CATALOG, plan_node_groups(gated, CATALOG), "ai")
    spec = next(node_class for node_class in plan.node_classes if node_class.group.pool == "gpu-inference").node_pool()["template"]["spec"]
    assert spec["taints"] == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]
    assert spec["startupTaints"] == [{"key": "railyard.dev/acceptance", "value": "pending", "effect": "NoSchedule"}]


def test_acceptance_is_priced_on_the_pools_block_rate_and_r4_on_a_block_warns_with_its_share():
    blueprint = with_acceptance_everywhere(load_blueprint(str(EXAMPLES / "p5-capacity-block.yaml")).blueprint)
    gates = plan_gates(blueprint, node_groups(blueprint, CATALOG))
    rate = load_prices().capacity_block("us-east-1", "p5.48xlarge").usd
    [cost] = acceptance_costs(blueprint, gates, load_prices())
    assert (cost.minutes_per_node, cost.nodes) == (11.5, 64)
    assert cost.accelerator_hours == pytest.approx(64 * 8 * 11.5 / 60)
    assert cost.usd == pytest.approx(64 * rate * 11.5 / 60)
    assert [finding.code for finding in acceptance_cost_findings(blueprint, gates, [cost])] == ["acceptance.cost"]
    exhaustive = with_acceptance_everywhere(blueprint, "exhaustive")
    gates = plan_gates(exhaustive, node_groups(exhaustive, CATALOG))
    findings = acceptance_cost_findings(exhaustive, gates, acceptance_costs(exhaustive, gates, load_prices()))
    assert [finding.code for finding in findings] == ["acceptance.cost", "acceptance.block-share"]
    # 135 min of r4 + 1 min of reads, in a 14-day (336 h) block.
    assert findings[1].certificate["share"] == round(136 / 60 / 336, 4)


def test_the_checker_daemonset_conforms_to_the_pinned_types_and_carries_the_package_and_the_dcgm_command():
    blueprint = load_blueprint(str(EXAMPLES / "adt-eks-capacity-block.yaml")).blueprint  # the example that gates its pool
    gates = plan_gates(blueprint, node_groups(blueprint, CATALOG))
    bundle = checker_bundle(blueprint, CATALOG, gates)
    spec = daemon_set(gates[0], bundle)
    assert conforms(spec, "apps", "v1", "DaemonSetSpecArgsDict") == []
    assert conforms({"rules": list(RULES)}, "rbac", "v1", "ClusterRoleArgsDict") == []
    pod = spec["template"]["spec"]
    checker, diagnostic = pod["containers"]
    assert diagnostic["command"][2].split("\n") == [
        "rm -f /var/lib/railyard/evidence/dcgm-diag.done",
        "timeout 27m dcgmi diag -r 2 -j -p pcie.gpu_nvlinks_expected_up=18 > /var/lib/railyard/evidence/dcgmi-diag.json 2>&1 || true",
        "touch /var/lib/railyard/evidence/dcgm-diag.done",
        "exec sleep infinity",
    ]
    # The checker waits for the diagnostic's marker up to its 27 minutes and 10 more for its image to be pulled, then runs.
    assert checker["command"][2].split("\n")[:2] == [
        "deadline=$(( $(date +%s) + 2220 ))",
        'while [ ! -e /var/lib/railyard/evidence/dcgm-diag.done ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 10; done',
    ]
    assert [t["key"] for t in pod["tolerations"]] == ["nvidia.com/gpu", "railyard.dev/acceptance"]
    assert {volume["name"]: volume.get("hostPath") for volume in pod["volumes"]} == {
        "checker": None,
        "evidence": None,
        "host-sys": {"path": "/sys", "type": "Directory"},
    }
    assert "initContainers" not in pod
    assert [container["securityContext"] for container in pod["containers"]] == [{"privileged": True, "readOnlyRootFilesystem": True}] * 2
    assert not {"hostPID", "hostNetwork", "hostIPC"} & set(pod)
    assert "resources" in pod["containers"][0] and "nvidia.com/gpu" not in json.dumps(pod["containers"][0]["resources"])
    assert "acceptance.kube.py" in bundle.package and "acceptance.examples" not in " ".join(bundle.package)
    assert json.loads(bundle.expectations["p5"])["efa_devices"] == 32
    shipped = {Path(key.replace(".", "/", key.count(".") - 1)).name for key in bundle.package}
    every = {path.name for path in (Path(__file__).parents[2] / "acceptance").glob("*.py")}
    # Everything but the fabric judges, which run where a reviewer reads a job's log, not on the node.
    assert every - shipped == {"nccl.py", "nccom.py", "baseline.py", "regression.py"}


def test_the_shipped_package_alone_checks_a_node_so_the_configmap_misses_no_module_the_checker_imports(tmp_path):
    # `-S`: no site-packages, so the checker finds only the ConfigMap's files (in the working folder) and the standard library.
    for key, source in package_sources().items():
        target = tmp_path / key.replace(".", "/", key.count(".") - 1)
        target.parent.mkdir(exist_ok=True)
        target.write_text(source, encoding="utf-8")
    evidence = Path(__file__).parents[2] / "acceptance" / "examples" / "h100-80gb-hbm3"
    run = subprocess.run(
        [sys.executable, "-S", "-m", "acceptance", "check", "--expect", str(evidence / "expectation.json"), "--from", str(evidence), "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["passed"] is True


def test_a_pool_with_burn_in_minutes_runs_the_burn_in_after_the_diagnostic_in_the_same_init_container_within_one_deadline():
    loaded = load_blueprint(str(EXAMPLES / "adt-eks-capacity-block.yaml")).blueprint
    pools = [pool.model_copy(update={"acceptance": pool.acceptance.model_copy(update={"burn_in_minutes": 10})}) for pool in loaded.pools]
    blueprint = loaded.model_copy(update={"pools": pools})
    gates = plan_gates(blueprint, node_groups(blueprint, CATALOG))
    spec = daemon_set(gates[0], checker_bundle(blueprint, CATALOG, gates))
    assert conforms(spec, "apps", "v1", "DaemonSetSpecArgsDict") == []
    [_, init] = spec["template"]["spec"]["containers"]
    assert gates[0].timeout_minutes == 37
    assert init["command"][2].split("\n")[1:-2] == [
        "deadline=$(( $(date +%s) + 2220 ))",
        "timeout 27m dcgmi diag -r 2 -j -p pcie.gpu_nvlinks_expected_up=18 > /var/lib/railyard/evidence/dcgmi-diag.json 2>&1 || true",
        'timeout "$(( deadline - $(date +%s) ))s" dcgmi diag -r targeted_stress,targeted_power,memory_bandwidth'
        " -p 'targeted_stress.test_duration=300;targeted_power.test_duration=300;memory_bandwidth.minimum_bandwidth=1909500'"
        " -j > /var/lib/railyard/evidence/dcgmi-burn-in.json 2>&1 || true",
    ]


def test_the_rbac_is_get_and_patch_on_nodes_and_patch_on_node_status_only():
    assert [(rule["resources"], rule["verbs"]) for rule in RULES] == [(["nodes"], ["get", "patch"]), (["nodes/status"], ["patch"])]


def test_a_neuron_gate_runs_no_dcgm_and_runs_neuron_ls_in_the_neuron_image_and_the_checker_in_the_python_image():
    blueprint = with_acceptance_everywhere(_blueprint(FABRIC))
    gates = plan_gates(blueprint, node_groups(blueprint, CATALOG))
    inf = next(gate for gate in gates if gate.pool == "inf")
    assert (inf.dcgm_level, inf.minutes) == (None, 1.0)
    pod = daemon_set(inf, AcceptanceBundle({"acceptance.run.py": ""}, {"inf": "{}"}, {}, {}))["template"]["spec"]
    [checker, neuron_ls] = pod["containers"]
    assert neuron_ls["image"].startswith("public.ecr.aws/neuron/neuron-monitor:")
    assert neuron_ls["command"][2].split("\n")[1] == (
        "if command -v timeout >/dev/null 2>&1; then timeout 300 neuron-ls --json-output > /var/lib/railyard/evidence/neuron-ls.json 2>&1 || true;"
        " else neuron-ls --json-output > /var/lib/railyard/evidence/neuron-ls.json 2>&1 || true; fi"
    )
    assert checker["image"].startswith("public.ecr.aws/docker/library/python:")
    assert checker["command"][2].split("\n")[0] == "deadline=$(( $(date +%s) + 900 ))"
    expectation = Expectation(pool="inf", instance_type="inf2.24xlarge", accelerator_kind="neuron", accelerator_count=6, neuron_cores=12)
    [(file, argv)] = [(command.file, command.argv) for command in commands(expectation)]
    assert (file, argv) == (NEURON_LS_FILE, NEURON_LS)
    assert conforms(daemon_set(inf, AcceptanceBundle({"acceptance.run.py": ""}, {"inf": "{}"}, {}, {})), "apps", "v1", "DaemonSetSpecArgsDict") == []


def test_a_stack_file_sets_the_level_per_environment(tmp_path):
    from railyard.pipeline import validate

    stack = tmp_path / "Pulumi.staging.yaml"
    stack.write_text(
        "config:\n"
        f"  railyard:blueprint: {EXAMPLES / 'p5-capacity-block.yaml'}\n"
        "  railyard:overrides:\n"
        "    pools:\n"
        "      - name: train\n"
        "        acceptance: {level: quick, timeout_minutes: 20}\n",
        encoding="utf-8",
    )
    result = validate(None, "staging", tmp_path)
    assert result.ok
    assert result.blueprint.pools[0].acceptance == Acceptance(level="quick", timeout_minutes=20)
    (cost,) = [finding for finding in result.findings if finding.code == "acceptance.cost"]
    assert "level quick (DCGM r1, up to 2 min per node)" in cost.message
