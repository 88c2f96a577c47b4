"""Minimal valid blueprints built in Python, for the topology tests.

`blueprint(...)` writes the smallest document the language accepts around the
zones, fabrics, pools and storage a test names, validates it with
`Blueprint.model_validate`, and returns the model. The helpers `zone`, `block`,
`pool` and `fabric` fill in the fields a test doesn't care about.
"""

from __future__ import annotations

from blueprints.catalog import load_catalog
from blueprints.models import Blueprint
from blueprints.rules import run_blueprint_rules
from topology import DesignReport, build_design, check_design

CATALOG = load_catalog()


def block(name: str, racks: int, hosts_per_rack: int, **fields) -> dict:
    """A block of identical racks (default: two feeds, dual-corded)."""
    return {"name": name, "racks": racks, "hosts_per_rack": hosts_per_rack, **fields}


def zone(name: str, blocks: list[dict], availability_zone: str = "us-east-1a", **fields) -> dict:
    """A zone holding `blocks`."""
    return {"name": name, "availability_zone": availability_zone, "blocks": blocks, **fields}


def pool(
    name: str,
    instance_type: str,
    nodes,
    domains: list[str],
    spread: str = "packed",
    share: float = 1.0,
    fabric: str | None = None,
    role: str = "inference",
    **fields,
) -> dict:
    """A pool placed in `domains` (on-demand, inference unless told)."""
    return {
        "name": name,
        "instance_type": instance_type,
        "role": role,
        "nodes": nodes,
        "fabric": fabric,
        "placement": {"domains": domains, "spread": spread, "max_failure_share": share},
        **fields,
    }


def fabric(name: str, kind: str, switch_radix: int, link_gbps: int = 100, **fields) -> dict:
    """A fabric of one of the four kinds."""
    return {"name": name, "kind": kind, "switch_radix": switch_radix, "link_gbps": link_gbps, **fields}


def document(zones: list[dict], pools: list[dict], fabrics: list[dict] = (), storage: list[dict] = (), power: dict | None = None) -> dict:
    """The blueprint document as a plain dict."""
    data = {
        "version": 1,
        "metadata": {"name": "fixture", "environment": "test", "owner": "topology-tests", "cost_center": "cc-test"},
        "cloud": {"kind": "aws", "region": "us-east-1", "availability_zones": ["us-east-1a", "us-east-1b"], "vpc_cidr": "10.0.0.0/16"},
        "failure_domains": {"zones": zones},
        "fabrics": list(fabrics),
        "pools": pools,
        "storage": list(storage),
        # Applied from inside the VPC, so the endpoint rule is satisfied and only topology findings remain.
        "kubernetes": {"layer_stack": "separate", "endpoint": {"private_access_cidrs": ["10.0.0.0/16"]}},
    }
    if power is not None:
        data["power"] = power
    return data


def blueprint(zones: list[dict], pools: list[dict], fabrics: list[dict] = (), storage: list[dict] = (), power: dict | None = None) -> Blueprint:
    """A validated blueprint (raises pydantic's ValidationError when the document is not one)."""
    return Blueprint.model_validate(document(zones, pools, fabrics, storage, power))


def rule_errors(model: Blueprint) -> list[str]:
    """Codes of the blueprint rules' error findings: a fixture the pipeline would check has none."""
    return sorted(finding.code for finding in run_blueprint_rules(model, CATALOG) if finding.is_error)


def check(model: Blueprint) -> DesignReport:
    """Run the topology checker with the shipped catalog."""
    return check_design(model, CATALOG)


def design(model: Blueprint):
    """Build the design graphs with the shipped catalog."""
    return build_design(model, CATALOG)


def codes(report: DesignReport) -> list[str]:
    """The finding codes of a report, sorted."""
    return sorted(finding.code for finding in report.findings)


def only(report: DesignReport, code: str):
    """The one finding with `code` (fails the test if there are none or several)."""
    found = [finding for finding in report.findings if finding.code == code]
    assert len(found) == 1, f"expected one {code}, got {[f.code for f in report.findings]}"
    return found[0]
