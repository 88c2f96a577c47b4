"""NVLink across a GB200 UltraServer's instances: NVIDIA's DRA driver and a ComputeDomain per NVLink pool.

What is emitted is held to its publishers: the ComputeDomain to the v1beta1 schema of the CRD in the pinned chart
(computedomain_v1beta1.schema.json, from NVIDIA/k8s-dra-driver-gpu v25.12.0), every value railyard sets to a key the
chart's values.yaml at that tag has, and the values to the EKS user guide's (ml-eks-nvidia-ultraserver @00e3293d).
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from blueprints.catalog import load_catalog
from blueprints.models import Blueprint
from blueprints.rules import run_blueprint_rules
from components.kubernetes import plan_kubernetes
from components.kubernetes.compute_domains import dra_driver_values
from tests.kubernetes.fixtures import example
from tests.kubernetes.test_fabric_job import closed
from tests.topology.factory import blueprint, pool
from topology.cluster.compute_domains import DEVICE_CLASSES, lay_out_compute_domains
from topology.cluster.scheduling import node_groups

CATALOG = load_catalog()
HERE = Path(__file__).parent
SCHEMA = json.loads((HERE / "computedomain_v1beta1.schema.json").read_text(encoding="utf-8"))
CHART_VALUES = json.loads((HERE / "nvidia_dra_driver_values_v25.12.0.json").read_text(encoding="utf-8"))["values"]


def _gb200():
    return plan_kubernetes(example("p6e-gb200-nvl72"), CATALOG)


def _with(model: Blueprint, **kubernetes) -> Blueprint:
    return model.model_copy(update={"kubernetes": model.kubernetes.model_copy(update=kubernetes)})


def _keys(values: dict, prefix: str = "") -> set[str]:
    """Every dotted key path of a values mapping, down to the first value that isn't a mapping."""
    found = set()
    for key, value in values.items():
        path = f"{prefix}{key}"
        found.add(path)
        if isinstance(value, dict) and value:
            found |= _keys(value, f"{path}.")
    return found


def test_the_gb200_example_gets_the_dra_driver_at_the_pinned_version_in_its_own_namespace():
    plan = _gb200()
    [release] = [release for release in plan.releases() if release.name == "nvidia-dra-driver-gpu"]
    assert (release.chart.chart, release.chart.version, release.chart.repository) == (
        "nvidia-dra-driver-gpu",
        "25.12.0",
        "https://helm.ngc.nvidia.com/nvidia",
    )
    # The chart refuses the `default` namespace (templates/validation.yaml); the controller makes it wait longer.
    assert release.namespace == "nvidia-dra-driver-gpu" and release.timeout_seconds == 900


def test_the_values_are_the_eks_guides_with_the_kubelet_plugin_on_exactly_the_nvlink_pool():
    values = dra_driver_values(_gb200().layout.compute_domains)
    assert values["resources"] == {"gpus": {"enabled": False}, "computeDomains": {"enabled": True}}
    assert values["controller"] == {"nodeSelector": None, "affinity": None, "tolerations": []}
    terms = values["kubeletPlugin"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": "railyard.dev/pool", "operator": "In", "values": ["nvl72"]}]}]
    assert values["kubeletPlugin"]["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}]


def test_every_value_railyard_sets_is_a_key_of_the_pinned_charts_values():
    assert _keys(dra_driver_values(_gb200().layout.compute_domains)) <= _keys(CHART_VALUES)
    # With GPUs on, the chart fails to render unless gpuResourcesEnabledOverride is set too: railyard turns them off.
    assert CHART_VALUES["resources"]["gpus"]["enabled"] is True and CHART_VALUES["gpuResourcesEnabledOverride"] is False


def test_the_compute_domain_is_valid_against_the_pinned_crd_and_names_its_channel_template():
    [domain] = _gb200().layout.compute_domains.domains
    manifest = domain.manifest()
    jsonschema.validate(manifest, closed(SCHEMA))
    assert manifest["apiVersion"] == "resource.nvidia.com/v1beta1" and manifest["metadata"]["namespace"] == "default"
    assert manifest["spec"] == {"numNodes": 0, "channel": {"resourceClaimTemplate": {"name": "nvl72-nvlink-channel"}, "allocationMode": "Single"}}


def test_a_compute_domain_without_its_channel_is_refused_by_the_crd_schema():
    [domain] = _gb200().layout.compute_domains.domains
    manifest = domain.manifest()
    manifest["spec"] = {"numNodes": 0, "channel": {"allocationMode": "Single"}}
    with pytest.raises(jsonschema.ValidationError, match="'resourceClaimTemplate' is a required property"):
        jsonschema.validate(manifest, closed(SCHEMA))


def test_the_device_classes_are_the_two_the_eks_guide_lists():
    assert DEVICE_CLASSES == ("compute-domain-daemon.nvidia.com", "compute-domain-default-channel.nvidia.com")


def test_compute_domains_false_installs_nothing_and_a_pool_without_nvlink_across_instances_gets_nothing():
    model = example("p6e-gb200-nvl72")
    off = _with(model, compute_domains=False)
    assert lay_out_compute_domains(off, CATALOG, node_groups(off, CATALOG)) is None
    assert "nvidia-dra-driver-gpu" not in {release.name for release in plan_kubernetes(off, CATALOG).releases()}
    p5 = example("p5-capacity-block")
    assert lay_out_compute_domains(p5, CATALOG, node_groups(p5, CATALOG)) is None
    # Turned on where no pool has an NVLink domain across instances, there is nothing for it to serve.
    on = _with(p5, compute_domains=True)
    assert lay_out_compute_domains(on, CATALOG, node_groups(on, CATALOG)) is None


def _gb200_rules(version: str = "1.35", **fields) -> list:
    model = blueprint([{"name": "za", "availability_zone": "us-east-1a"}], [pool("g", "p6e-gb200.36xlarge", 36, ["za"], **fields)])
    return run_blueprint_rules(_with(model, version=version), CATALOG)


def test_kubernetes_before_1_33_is_refused_for_an_nvlink_pool_and_1_33_is_accepted():
    [finding] = [finding for finding in _gb200_rules("1.32") if finding.code == "k8s.dra-version"]
    assert finding.is_error and finding.path == ("kubernetes", "version") and finding.certificate == {"pools": ["g"]}
    assert finding.message.startswith("kubernetes 1.32 can't run NVIDIA's DRA driver for the NVLink domains of pool(s) ['g']")
    assert '"DRA is a requirement"' in finding.message and finding.hint.startswith('set kubernetes.version to "1.33" or later')
    assert not [finding for finding in _gb200_rules("1.33") if finding.code == "k8s.dra-version"]


def test_an_nvlink_pool_on_karpenter_is_refused_with_the_eks_guides_reason():
    [finding] = [finding for finding in _gb200_rules(provisioner="karpenter") if finding.code == "pool.dra-karpenter"]
    assert finding.is_error and finding.path == ("pools", 0, "provisioner")
    assert '"DRA is not supported in Karpenter or EKS Auto Mode"' in finding.message
    assert finding.hint.startswith("set provisioner: managed_node_group")
    assert not [finding for finding in _gb200_rules() if finding.code == "pool.dra-karpenter"]


def test_with_compute_domains_off_neither_dra_rule_fires():
    model = blueprint([{"name": "za", "availability_zone": "us-east-1a"}], [pool("g", "p6e-gb200.36xlarge", 36, ["za"], provisioner="karpenter")])
    codes = {finding.code for finding in run_blueprint_rules(_with(model, version="1.32", compute_domains=False), CATALOG)}
    assert not codes & {"k8s.dra-version", "pool.dra-karpenter"} and "pool.nvlink-imex" in codes
