"""Defaults form a design railyard accepts: the README's blueprint and every blueprint fragment the docs show validate.

A newcomer's first blueprint leaves most things out. Left out, `kubernetes.layer_stack` follows the
endpoint (the cluster's stack when the public endpoint admits the deployers, else a stack run from inside
the VPC, which the cluster security group then admits on 443), and `kubernetes.device_plugins` is the
plugin each pool's devices need. The docs' fragments are merged into the README's blueprint the way a
stack's overrides merge (mappings key by key, named list items by name) and must validate with no error.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml

from blueprints.loader import load_text
from railyard.mocked import run_preview
from railyard.pipeline import validate

ROOT = Path(__file__).resolve().parents[2]
BLUEPRINT_SECTIONS = {"version", "metadata", "cloud", "failure_domains", "fabrics", "pools", "storage", "power", "kubernetes", "quotas", "cost"}


def _yaml_blocks(path: Path) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def readme_blueprint() -> str:
    """The blueprint the README shows under "A blueprint" (its only whole one)."""
    (whole,) = [block for block in _yaml_blocks(ROOT / "README.md") if block.startswith("version: 1\n")]
    return whole


def _merged(base, fragment):
    """`fragment` over `base` as a stack's overrides merge: mappings key by key, lists of named items by name."""
    if isinstance(base, dict) and isinstance(fragment, dict):
        return {**base, **{key: _merged(base[key], value) if key in base else value for key, value in fragment.items()}}
    named = isinstance(base, list) and isinstance(fragment, list) and all(isinstance(item, dict) and "name" in item for item in base + fragment)
    if named:
        items = {item["name"]: item for item in base}
        for item in fragment:
            items[item["name"]] = _merged(items[item["name"]], item) if item["name"] in items else item
        return list(items.values())
    return fragment


def _fragments() -> list[tuple[str, dict]]:
    found = []
    for path in sorted((ROOT / "docs").glob("*.md")):
        for index, block in enumerate(_yaml_blocks(path)):
            data = yaml.safe_load(block)
            if isinstance(data, dict) and set(data) <= BLUEPRINT_SECTIONS:
                found.append((f"{path.name}#{index}", data))
    return found


FRAGMENTS = _fragments()


def _errors(text: str, file: str = "blueprint.yaml") -> list[tuple[str, str]]:
    result = load_text(text, file)
    return [(finding.code, finding.message) for finding in result.findings if finding.severity == "error"]


def test_the_readme_blueprint_validates_with_no_error_and_no_warning():
    result = load_text(readme_blueprint(), "README.md")
    assert result.blueprint is not None
    assert [(finding.code, finding.message) for finding in result.findings if finding.severity in ("error", "warning")] == []


def test_the_docs_show_blueprint_fragments_in_every_section_they_document():
    assert {name.split("#")[0] for name, _ in FRAGMENTS} == {"cost.md", "endpoint-access.md", "fabrics.md", "kubernetes.md", "scale.md", "spares.md"}


@pytest.mark.parametrize(("name", "fragment"), FRAGMENTS, ids=[name for name, _ in FRAGMENTS])
def test_a_docs_fragment_in_the_readme_blueprint_validates(name, fragment):
    # A whole blueprint (it states its version) validates as it is; a fragment, merged into the README's.
    document = fragment if "version" in fragment else _merged(yaml.safe_load(readme_blueprint()), copy.deepcopy(fragment))
    assert _errors(yaml.safe_dump(document, sort_keys=False), name) == []


def test_without_a_kubernetes_block_the_layer_is_applied_from_inside_the_vpc():
    result = load_text(readme_blueprint(), "README.md")
    blueprint = result.blueprint
    assert blueprint.kubernetes.layer_stack == "separate"
    assert blueprint.endpoint_runner_cidrs() == ("10.0.0.0/16",)
    (note,) = [finding for finding in result.findings if finding.code == "endpoint.runner-in-vpc"]
    assert note.severity == "info" and "10.0.0.0/16" in note.message and "private_access_cidrs" in note.hint


def test_a_public_endpoint_for_the_deployers_keeps_the_layer_in_the_cluster_stack():
    text = readme_blueprint() + "kubernetes:\n  endpoint: {public_access_cidrs: [198.51.100.7/32]}\n"
    blueprint = load_text(text, "public.yaml").blueprint
    assert (blueprint.kubernetes.layer_stack, blueprint.endpoint_runner_cidrs()) == ("same", ())


def test_a_stated_layer_stack_and_empty_runner_list_are_kept_as_written():
    text = readme_blueprint() + "kubernetes:\n  layer_stack: same\n"
    assert [code for code, _ in _errors(text)] == ["endpoint.unreachable"]
    text = readme_blueprint() + "kubernetes:\n  endpoint: {private_access_cidrs: []}\n"
    assert [code for code, _ in _errors(text)] == ["endpoint.runner-unreachable"]


def test_left_out_device_plugins_are_the_ones_the_pools_devices_need():
    heterogeneous = (ROOT / "blueprints" / "examples" / "heterogeneous.yaml").read_text(encoding="utf-8")
    listed = load_text(heterogeneous, "heterogeneous.yaml").blueprint
    assert {plugin.kind for plugin in listed.kubernetes.device_plugins} == {"nvidia_device_plugin", "neuron_device_plugin", "efa_device_plugin"}
    left_out = yaml.safe_load(heterogeneous)
    del left_out["kubernetes"]["device_plugins"]
    result = load_text(yaml.safe_dump(left_out, sort_keys=False), "heterogeneous.yaml")
    derived = result.blueprint.kubernetes.device_plugins
    assert [(plugin.kind, plugin.pools) for plugin in derived] == [
        ("nvidia_device_plugin", None),
        ("neuron_device_plugin", None),
        ("efa_device_plugin", None),
    ]
    assert [finding for finding in result.findings if finding.severity == "error"] == []


def test_an_empty_device_plugin_list_still_means_none_installed(tmp_path):
    path = tmp_path / "none.yaml"
    path.write_text(readme_blueprint() + "kubernetes:\n  device_plugins: []\n", encoding="utf-8")
    validation = validate(str(path), None, str(tmp_path))
    assert validation.blueprint.kubernetes.device_plugins == []
    missing = sorted(finding.message.split("lists no ")[1].split(";")[0] for finding in validation.findings if finding.code == "k8s.missing-plugin")
    assert missing == ["efa_device_plugin", "nvidia_device_plugin or gpu_operator"]


def test_the_readme_blueprint_compiles_the_runner_rule_and_the_plugins_it_needs(tmp_path):
    path = tmp_path / "readme.yaml"
    path.write_text(readme_blueprint(), encoding="utf-8")
    result = run_preview(str(path), None, str(tmp_path))
    assert result.ok and result.layer_stack is not None
    rules = result.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
    assert [(rule.inputs["cidrIpv4"], rule.inputs["fromPort"]) for rule in rules if "cidrIpv4" in rule.inputs] == [("10.0.0.0/16", 443)]
    releases = {release.inputs["name"] for release in result.of_type("kubernetes:helm.sh/v3:Release")}
    assert {"nvidia-device-plugin", "aws-efa-k8s-device-plugin"} <= releases
