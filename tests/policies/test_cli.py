"""`railyard preview FILE --policies`: the pack's verdict on the mocked resources, and exit 1 on a mandatory violation."""

from __future__ import annotations

import json

from policies.registry import RULES
from railyard.cli import main


def test_insecure_example_fails_with_its_expected_rule_ids(capsys):
    assert main(["preview", "blueprints/examples/insecure.yaml", "--policies", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)["policies"]
    ids = {violation["rule_id"] for violation in report["violations"] if violation["enforcement"] == "mandatory"}
    assert ids == {"SEC003", "SEC006", "COR006", "GOV001", "GOV002", "GOV004"}


def test_compliant_example_passes_and_prints_the_summary(capsys):
    assert main(["preview", "blueprints/examples/p5-capacity-block.yaml", "--policies"]) == 0
    out = capsys.readouterr().out
    assert f"policies: {len(RULES)} rules over" in out and "0 mandatory" in out


def test_policy_config_can_relax_a_rule(tmp_path, capsys):
    config = tmp_path / "policy-config.json"
    config.write_text(json.dumps({"spot-only-for-allowed-roles": {"enforcementLevel": "disabled"}}))
    main(["preview", "blueprints/examples/insecure.yaml", "--policies", "--json", "--policy-config", str(config)])
    report = json.loads(capsys.readouterr().out)["policies"]
    assert "GOV002" not in {violation["rule_id"] for violation in report["violations"]}
