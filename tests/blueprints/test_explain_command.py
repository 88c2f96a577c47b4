"""`railyard explain CODE`: every code `railyard rules` lists has a meaning, a fix and an owner, read from the check itself."""

from __future__ import annotations

import ast
import json

from policies.registry import RULES as POLICY_RULES
from railyard.checks import every_check
from railyard.cli import main
from railyard.explanations import check_explanations, policy_explanations, readable, template


def test_every_listed_code_and_policy_has_a_meaning_a_fix_and_an_owner():
    checks = check_explanations()
    policies = policy_explanations()
    assert set(checks) == {check.code for check in every_check()}
    assert set(policies) == {rule.id for rule in POLICY_RULES}
    explained = [item for found in checks.values() for item in found] + list(policies.values())
    assert len(explained) == len(every_check()) + len(POLICY_RULES)
    empty = [(item.code, field) for item in explained for field in ("meaning", "why", "fix", "owner") if not getattr(item, field).strip()]
    assert empty == []
    # Words, not only placeholders: a meaning says something in two words or more, a fix in one verb at least.
    assert [item.code for item in explained if not (readable(item.meaning) and readable(item.fix, words=1))] == []


def test_a_code_raised_by_two_rules_is_explained_by_each_from_its_own_function():
    coverage, flavors = check_explanations()["k8s.unknown-pool"]
    assert (coverage.owner, flavors.owner) == ("topology.cluster.kubernetes_checks._unused", "topology.cluster.kueue_checks.check_flavor_pools")
    assert coverage.fix == "use names from `pools[].name`" and flavors.fix == "use a name from `pools[].name`"
    assert flavors.messages[0] == "kueue.flavors[<index>] names pool '<pool>', which the blueprint doesn't have (pools: <names>)"


def test_sources_are_what_the_owning_module_cites():
    checks = check_explanations()
    (fsx,) = checks["fsx.capacity-step"]
    assert fsx.source == (
        "botocore's FSx model (fsx/2018-03-01: CreateFileSystemLustreConfiguration, LustreDeploymentType, MetadataConfiguration)",
        "pulumi-aws docstrings",
        "../shared/research/aws-facts.md section 3",
    )
    (region,) = checks["cloud.unknown-region"]
    assert region.source == ("botocore's endpoint data", "blueprints/catalog/local_zones.yaml")
    assert policy_explanations()["SEC003"].source == ("aws-facts.md 3.1", "pulumi-aws `kms_key_id` docstring")
    # A guide cited over a line break, and a file name with dots in it.
    (endpoint,) = checks["endpoint.unreachable"]
    assert endpoint.source == ("docs/endpoint-access.md", "EKS user guide, cluster-endpoint")
    assert "karpenter.sh_nodepools.yaml" in policy_explanations()["GOV002"].source


def test_a_code_whose_wording_is_built_at_run_time_is_explained_where_it_is_raised():
    (pod_cidr,) = check_explanations()["network.pod-cidr-size"]
    assert pod_cidr.meaning.startswith("a pod CIDR (kubernetes.pod_networking.pod_cidrs) is not a /16 to /28")
    assert pod_cidr.fix == "split it into /16 blocks, such as 100.64.0.0/16 and 100.65.0.0/16"
    # Its source is what its own entry cites, not what the module's other checks rest on.
    assert pod_cidr.source == ("Amazon VPC User Guide, VPC CIDR blocks",)
    # A model's validator is explained by the model it checks.
    (node_range,) = check_explanations()["pool.node-range"]
    assert node_range.why == "An autoscaling node count."


def test_an_f_string_message_reads_with_its_figures_as_placeholders():
    call = ast.parse("""f"pool '{pool.name}' joins fabric {', '.join(names)} at {rate:.1f}" + hint""", mode="eval").body
    assert template(call, {"hint": "; fix it"}) == "pool '<name>' joins fabric <names> at <rate>; fix it"
    assert template(ast.parse("describe(x)", mode="eval").body, {}) == ""


def test_explain_prints_meaning_what_railyard_says_why_fix_and_source(capsys):
    assert main(["explain", "pool.standby-target"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("pool.standby-target  (load; raised by blueprints.rules.standby.check)\n\nWhat it means\n")
    # The rule module raises several codes, so its `check` docstring is not this one's meaning: the finding's words are.
    assert "What it means\n  standby_for '<standby_for>' <why>\n" in out
    assert "  - pool '<name>' (<instance_type>) can't stand in for '<name>' (<instance_type>): a spare has the same type\n" in out
    assert "Why it matters\n  A standby pool's hosts replace a failed host of the pool it names without rewiring" in out
    assert "How to fix it\n  name a pool that runs jobs: <jobs>\n" in out


def test_explain_json_is_one_object_with_every_field(capsys):
    assert main(["explain", "sec003", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    (entry,) = document["explanations"]
    assert document["code"] == "SEC003"
    assert set(entry) == {"code", "stage", "meaning", "messages", "why", "fix", "source", "owner"}
    assert (entry["stage"], entry["owner"]) == ("police (mandatory)", "policies.rules.security.fsx_encrypted_with_kms")
    assert entry["fix"] == "use deployment_type PERSISTENT_2 and set kms_key_id to the cluster's KMS key"


def test_an_unknown_code_exits_two_with_the_closest_codes(capsys):
    assert main(["explain", "fsx.capacity-stp"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("railyard explain: no finding code or policy 'fsx.capacity-stp'; did you mean fsx.capacity-step,")
    assert captured.err.rstrip().endswith("`railyard rules` lists them all")


def test_a_message_reads_with_the_local_it_was_last_given_and_the_module_limits_it_quotes():
    checks = check_explanations()
    (may_replace,) = checks["change.may-replace-state"]
    assert may_replace.meaning == "<name> may be replaced (<reasons>): the provider decides when it diffs, and a replacement loses <lost>"
    (block,) = checks["capacity.block-too-large"]
    assert block.meaning == "instance_count <instance_count> exceeds the Capacity Block maximum of 64 instances per block"
    (zone,) = checks["cloud.unknown-zone"]
    assert zone.meaning == "availability zone '<zone>' does not exist in <region>, whose zones are <known>"


def test_without_the_policy_extra_a_policy_id_names_the_extra_and_finding_codes_still_explain(monkeypatch, capsys):
    monkeypatch.setattr("railyard.extras.find_spec", lambda module: None)
    assert main(["explain", "SEC003"]) == 2
    assert "pip install 'railyard[policies]'" in capsys.readouterr().err
    assert main(["explain", "fsx.capacity-step"]) == 0
    assert capsys.readouterr().out.startswith("fsx.capacity-step  (load; raised by blueprints.rules.fsx.check)\n")
    assert main(["explain", "SEC03"]) == 2
    assert "did you mean" not in capsys.readouterr().err
