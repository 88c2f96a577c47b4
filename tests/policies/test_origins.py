"""An offline policy run points each violation at the blueprint line that produced the resource.

The pack sees only resources; railyard's offline run walks each resource's
parent chain back to the part of the blueprint its component compiles
(`railyard.origins`). On the insecure example the violations land on the
lines that wrote the pool, the storage tier and the Kubernetes settings.
"""

from __future__ import annotations

import json

from policies.runner import render_text, run_policies
from railyard.cli import main
from railyard.origins import resource_origins
from tests.policies.previews import ROOT, example

INSECURE = ROOT / "blueprints" / "examples" / "insecure.yaml"


def line_of(text: str) -> int:
    """The 1-based line of the example that holds `text`."""
    return next(number for number, line in enumerate(INSECURE.read_text().splitlines(), 1) if line.startswith(text))


def test_violations_point_at_the_pool_the_tier_and_the_kubernetes_settings_that_made_them():
    insecure = example("insecure")
    origins = resource_origins(insecure.result)
    found = {
        (violation.rule_id, origins[violation.urn].line, origins[violation.urn].path)
        for violation in run_policies(insecure).violations
        if violation.urn
    }
    pool, tier, kubernetes = line_of("  - name: cheap-train"), line_of("  - kind: fsx_lustre"), line_of("kubernetes:")
    assert {
        ("GOV001", pool, ("pools", 0)),
        ("GOV002", pool, ("pools", 0)),
        ("SEC003", tier, ("storage", 0)),
        ("COR006", tier, ("storage", 0)),
        ("SEC006", kubernetes, ("kubernetes",)),
    } <= found


def test_resources_railyard_adds_on_its_own_have_no_line():
    insecure = example("insecure")
    origins = resource_origins(insecure.result)
    system = [resource for resource in insecure.resources if resource.name.startswith("insecure-dev-system-")]
    assert system and not any(resource.urn in origins for resource in system)


def test_the_terminal_report_and_the_json_carry_the_line(capsys):
    insecure = example("insecure")
    origins = {urn: origin.describe() for urn, origin in resource_origins(insecure.result).items()}
    assert f"from {INSECURE}:{line_of('  - kind: fsx_lustre')} (storage[0])" in render_text(run_policies(insecure), origins)
    assert main(["preview", str(INSECURE), "--policies", "--json"]) == 1
    violations = json.loads(capsys.readouterr().out)["policies"]["violations"]
    governed = [entry for entry in violations if entry["rule_id"] == "GOV001"]
    assert governed and all(
        entry["blueprint"] == {"path": "pools[0]", "file": str(INSECURE), "line": line_of("  - name: cheap-train")} for entry in governed
    )
