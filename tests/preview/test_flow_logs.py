"""The VPC's flow log and its closed default security group, as registered under mocks."""

from __future__ import annotations

import json

from blueprints.loader import load_text
from railyard.mocked import run_preview
from tests.preview.conftest import AT, ROOT, write_stack

FLOW_LOG = "aws:ec2/flowLog:FlowLog"
LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
ROLE = "aws:iam/role:Role"
ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
DEFAULT_SG = "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup"


def test_the_vpc_logs_all_traffic_to_a_group_kept_a_year_through_a_role_only_flow_logs_assume(p5):
    (flow_log,) = p5.of_type(FLOW_LOG)
    (group,) = p5.of_type(LOG_GROUP)
    assert flow_log.inputs["vpcId"].startswith("vpc-")
    assert (flow_log.inputs["trafficType"], flow_log.inputs["logDestinationType"], flow_log.inputs["maxAggregationInterval"]) == (
        "ALL",
        "cloud-watch-logs",
        600,
    )
    assert group.inputs["retentionInDays"] == 365
    (role,) = [role for role in p5.of_type(ROLE) if role.name == "p5-train-prod-network-flow-logs"]
    trust = json.loads(role.inputs["assumeRolePolicy"])
    assert [statement["Principal"] for statement in trust["Statement"]] == [{"Service": "vpc-flow-logs.amazonaws.com"}]
    (policy,) = p5.of_type(ROLE_POLICY)
    (statement,) = json.loads(policy.inputs["policy"])["Statement"]
    assert statement["Resource"] == [flow_log.inputs["logDestination"], flow_log.inputs["logDestination"] + ":*"]
    assert set(statement["Action"]) == {"logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogGroups", "logs:DescribeLogStreams"}


def test_the_default_security_group_is_taken_over_with_no_rules(p5):
    (default,) = p5.of_type(DEFAULT_SG)
    assert "ingress" not in default.inputs and "egress" not in default.inputs
    assert default.inputs["vpcId"].startswith("vpc-")


def test_retention_comes_from_the_blueprint_and_flow_logs_can_be_turned_off(tmp_path):
    kept = write_stack(tmp_path, "kept", "dev-g6e.yaml", "    cloud: {flow_logs: {retention_days: 731}}\n")
    result = run_preview(None, "kept", kept, at=AT)
    assert [group.inputs["retentionInDays"] for group in result.of_type(LOG_GROUP)] == [731]
    off = write_stack(tmp_path, "off", "dev-g6e.yaml", "    cloud: {flow_logs: {enabled: false}}\n")
    result = run_preview(None, "off", off, at=AT)
    assert result.of_type(FLOW_LOG) == [] and result.of_type(LOG_GROUP) == [] and len(result.of_type(DEFAULT_SG)) == 1


def test_a_retention_cloudwatch_refuses_is_a_schema_error_at_its_line():
    text = (ROOT / "blueprints" / "examples" / "dev-g6e.yaml").read_text()
    text = text.replace("  vpc_cidr:", "  flow_logs: {retention_days: 100}\n  vpc_cidr:", 1)
    loaded = load_text(text, "dev.yaml")
    (finding,) = [finding for finding in loaded.findings if finding.is_error]
    assert finding.path == ("cloud", "flow_logs", "retention_days")
    assert finding.message.startswith("100 is not allowed") and "365" in finding.hint and "3653" in finding.hint
