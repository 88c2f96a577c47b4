"""One verdict before preview: `railyard validate` reports what the shipped pack would refuse, with the policy's id.

`railyard.preflight` answers the pack's blueprint-decided rules from the blueprint and its planned node
groups. These tests hold its verdict equal to the pack's own (`policies.runner.run_policies` over the
mocked preview): on every example and stack, under the default config and the dev stack's, and on
documents drawn by mutating the examples with the values those rules turn on.
"""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policies.registry import RULES
from policies.runner import run_policies
from railyard.cli import main
from railyard.mocked import run_preview
from railyard.pipeline import Pack, validate
from railyard.preflight import DEFAULT_ENFORCEMENT, PREFLIGHT
from tests.blueprints.test_defaults import readme_blueprint
from tests.policies.previews import EXAMPLES, ROOT, Preview, example
from tests.properties import examples

IDS = {policy_id for policy_id, *_ in PREFLIGHT}
NAMES = sorted(path.stem for path in EXAMPLES.glob("*.yaml"))
DEV_CONFIG = json.loads((ROOT / "policies" / "config" / "dev.json").read_text(encoding="utf-8"))


def _pack_verdict(preview: Preview, config=None) -> set[tuple[str, str]]:
    report = run_policies(preview, config=config)
    return {(violation.rule_id, violation.enforcement) for violation in report.violations if violation.rule_id in IDS}


def _preflight_verdict(path: str, config=None, project_dir: str = ".") -> set[tuple[str, str]]:
    levels = {"error": "mandatory", "warning": "advisory"}
    findings = validate(path, None, project_dir, pack=Pack(config)).findings
    return {(finding.code, levels[finding.severity]) for finding in findings if finding.code in IDS}


def test_each_preflight_rule_is_the_pack_rule_of_that_id_at_its_default_level():
    by_id = {rule.id: rule for rule in RULES}
    assert {(policy_id, name) for policy_id, name, *_ in PREFLIGHT} == {(policy_id, by_id[policy_id].name) for policy_id in IDS}
    assert {by_id[policy_id].enforcement for policy_id in IDS} == {DEFAULT_ENFORCEMENT}


@pytest.mark.parametrize("name", NAMES)
def test_validate_gives_the_packs_verdict_on_every_example(name):
    assert _preflight_verdict(str(EXAMPLES / f"{name}.yaml")) == _pack_verdict(example(name))


def test_the_insecure_example_fails_validate_with_each_rule_it_breaks():
    expected = {("SEC003", "mandatory"), ("SEC006", "mandatory"), ("COR006", "mandatory"), ("GOV001", "mandatory")}
    expected |= {("GOV002", "mandatory"), ("GOV004", "mandatory")}
    assert _preflight_verdict(str(EXAMPLES / "insecure.yaml")) == expected


def test_a_config_sets_the_level_as_it_does_for_the_pack():
    path = str(EXAMPLES / "insecure.yaml")
    assert _preflight_verdict(path, DEV_CONFIG) == _pack_verdict(example("insecure"), DEV_CONFIG)
    assert ("GOV004", "advisory") in _preflight_verdict(path, DEV_CONFIG)
    assert _preflight_verdict(path, {"all": "disabled"}) == set()


def test_the_cli_reports_a_scratch_tier_at_its_line_with_a_fix_the_blueprint_can_express(tmp_path, capsys):
    document = yaml.safe_load(readme_blueprint())
    document["storage"] = [{"kind": "fsx_lustre", "name": "lustre", "deployment_type": "SCRATCH_2", "capacity_gib": 48000}]
    text = yaml.safe_dump(document, sort_keys=False)
    path = tmp_path / "scratch.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["validate", str(path), "--json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [finding["code"] for finding in findings if finding["severity"] == "error"] == ["SEC003"]
    (finding,) = [finding for finding in findings if finding["code"] == "SEC003"]
    line = text.splitlines().index("  deployment_type: SCRATCH_2") + 1
    assert (finding["path"], finding["line"]) == ("storage[0].deployment_type", line)
    assert finding["hint"].startswith("use deployment_type: PERSISTENT_2")


def test_an_unreadable_policy_config_is_an_input_error_not_a_traceback(tmp_path, capsys):
    bad = tmp_path / "config.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["validate", str(EXAMPLES / "dev-g6e.yaml"), "--policy-config", str(bad)]) == 2
    assert f"{bad}:1:2: the policy config is not JSON" in capsys.readouterr().err
    assert main(["validate", str(EXAMPLES / "dev-g6e.yaml"), "--policy-config", str(tmp_path / "missing.json")]) == 2
    assert "can't read the policy config" in capsys.readouterr().err


# Values the six rules turn on, at the paths where a blueprint states them.
BASES = {name: yaml.safe_load((EXAMPLES / f"{name}.yaml").read_text(encoding="utf-8")) for name in ("dev-g6e", "heterogeneous", "insecure")}
EDITS = st.sampled_from(
    [
        (("storage", 0, "deployment_type"), "SCRATCH_2"),
        (("storage", 0, "deployment_type"), "PERSISTENT_2"),
        (("pools", 0, "capacity"), {"kind": "spot"}),
        (("pools", 0, "capacity"), {"kind": "on_demand"}),
        (("pools", 0, "role"), "dev"),
        (("pools", 0, "instance_type"), "g5.xlarge"),
        (("pools", 0, "instance_type"), "p5.48xlarge"),
        (("kubernetes", "endpoint"), {"private": True, "public_access_cidrs": ["203.0.113.0/24"]}),
        (("kubernetes", "endpoint"), {"private": True, "private_access_cidrs": ["10.0.0.0/16"]}),
        (("pools", 0, "nodes"), {"min": 0, "max": 20000, "desired": 0}),
    ]
)


def _edited(document: dict, edits) -> dict:
    changed = copy.deepcopy(document)
    for path, value in edits:
        parent = changed
        try:
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = copy.deepcopy(value)
        except (KeyError, IndexError, TypeError):
            continue
    return changed


@settings(max_examples=examples(6), deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(sorted(BASES)), edits=st.lists(EDITS, min_size=1, max_size=3))
def test_validate_and_the_pack_agree_on_drawn_documents(base, edits):
    folder = Path(tempfile.mkdtemp(prefix="railyard-preflight-"))
    path = folder / f"{base}.yaml"
    path.write_text(yaml.safe_dump(_edited(BASES[base], edits), sort_keys=False), encoding="utf-8")
    result = run_preview(str(path), None, str(folder))
    if not result.ok:  # an edit that made the blueprint invalid has no pack verdict to compare
        return
    assert _preflight_verdict(str(path), project_dir=str(folder)) == _pack_verdict(Preview(list(result.resources), result))
