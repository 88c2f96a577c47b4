"""Blueprint values that would become names or tags the real APIs refuse are refused at validate, at their line.

The rule (`blueprints/rules/names.py`) states the limits the compiled names
must fit; COR008 checks the compiled resources against the APIs' own rules.
A blueprint at exactly the rule's limits previews with no COR008 violation,
and one character more is refused at validate: so the two agree, and a
refused value can never reach `pulumi up`.
"""

from __future__ import annotations

import pytest

from blueprints.rules.names import CLUSTER_NAME_LIMIT, RAILYARD_TAGS, TAG_LIMIT
from policies.registry import rule
from policies.runner import run_policies
from railyard.mocked import run_preview
from tests.blueprints.base import BASE, line_of, load
from tests.policies.previews import Preview

POOL = "p" * 35
DOMAIN = "d" * 38


def at_limits(name: str = "n" * 28, pool: str = POOL, tags: int = TAG_LIMIT - len(RAILYARD_TAGS)) -> str:
    """BASE with a 33-character cluster name, a launch template name at 128 with Pulumi's suffix, and 50 tags on FSx."""
    text = BASE.replace("  name: testbed\n  environment: test\n", f"  name: {name}\n  environment: prod\n")
    text = text.replace("    - name: za\n", f"    - name: {DOMAIN}\n").replace("domains: [za]", f"domains: [{DOMAIN}]")
    text = text.replace("domains: [za, zb]", f"domains: [{DOMAIN}, zb]").replace("  - name: train\n", f"  - name: {pool}\n")
    extra = "".join(f"    team-{index}: value-{index}\n" for index in range(tags))
    return text.replace("  cost_center: cc-1\n", f"  cost_center: cc-1\n  tags:\n{extra}")


def _codes(text: str) -> set[str]:
    return {finding.code for finding in load(text).findings if finding.code.startswith("names.")}


def test_a_blueprint_at_every_limit_validates_and_compiles_to_names_the_apis_accept(tmp_path):
    text = at_limits()
    assert len("n" * 28 + "-prod") == CLUSTER_NAME_LIMIT
    assert _codes(text) == set()
    path = tmp_path / "limits.yaml"
    path.write_text(text)
    result = run_preview(str(path))
    assert result.ok, [finding.message for finding in result.findings if finding.severity == "error"]
    report = run_policies(Preview(list(result.resources), result), rules=[rule("COR008")])
    assert report.violations == [] and report.errors == []
    lustre = next(resource for resource in result.resources if resource.type == "aws:fsx/lustreFileSystem:LustreFileSystem")
    assert len(lustre.inputs["tags"]) == TAG_LIMIT


@pytest.mark.parametrize(
    ("change", "code", "anchor"),
    [
        ({"name": "n" * 29}, "names.cluster-too-long", "  name: " + "n" * 29),
        ({"pool": POOL + "p"}, "names.launch-template-too-long", f"  - name: {POOL}p"),
        ({"tags": TAG_LIMIT - len(RAILYARD_TAGS) + 1}, "names.tag-count", "    team-0:"),
    ],
)
def test_one_past_a_limit_is_refused_at_its_line(change, code, anchor):
    text = at_limits(**change)
    found = [finding for finding in load(text).findings if finding.code == code]
    assert len(found) == 1 and found[0].line == line_of(text, anchor)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("  owner: platform\n", "  owner: platform, infra\n", "tag value 'platform, infra' holds ','"),
        ("  cost_center: cc-1\n", "  cost_center: cc-1\n  tags: {'aws:team': ml}\n", "starts with 'aws:'"),
        ("  cost_center: cc-1\n", '  cost_center: cc-1\n  tags: {team: "ml\'s"}\n', 'holds "\'"'),
    ],
)
def test_metadata_that_would_make_an_illegal_tag_is_refused(old, new, message):
    findings = [finding for finding in load(BASE.replace(old, new)).findings if finding.code == "names.tag-characters"]
    assert findings and any(message in finding.message for finding in findings), [finding.message for finding in findings]


def test_an_fsx_tier_mounted_by_pools_whose_names_overflow_its_tag_is_refused():
    pools = "".join(
        f"  - name: {chr(97 + index) * 40}\n    instance_type: inf2.48xlarge\n    role: inference\n    nodes: 1\n"
        f"    placement: {{domains: [zb]}}\n    storage: [{{tier: lustre}}]\n"
        for index in range(7)
    )
    text = BASE.replace("storage:\n  - kind: fsx_lustre\n", pools + "storage:\n  - kind: fsx_lustre\n")
    assert "names.mounted-by-too-long" in _codes(text)


def test_a_label_key_eks_would_refuse_is_refused():
    key = "example.com/" + "k" * 52  # 64 characters: a legal Kubernetes key, over EKS's 63
    text = BASE.replace("    role: training\n", f"    role: training\n    labels: {{{key}: x}}\n")
    findings = [finding for finding in load(text).findings if finding.code == "names.eks-label-too-long"]
    assert len(findings) == 1 and findings[0].path == ("pools", 0, "labels")
    assert "names.eks-label-too-long" not in _codes(BASE.replace("    role: training\n", f"    role: training\n    labels: {{{key[:-1]}: x}}\n"))
