"""SEC019: every VPC of the stack records its traffic in a flow log.

Without a flow log, who talked to a node, and which connections the
security groups refused, is gone the moment it happens. AWS's EKS
best-practices guide (network security) asks for VPC flow logs, as do
Checkov's CKV2_AWS_11 and cfn-nag's W60. railyard compiles one per VPC
(`cloud.flow_logs`, on by default): all traffic, to a CloudWatch Logs group.
A flow log belongs to a VPC when its `vpcId` is the VPC's id (or the engine
records the VPC as that property's dependency).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from policies.resource_types import FLOW_LOG, VPC
from policies.rule import StackRule
from policies.stack import Stack


def check(stack: Stack, settings) -> Iterable[tuple[Any, str]]:
    """VPCs that no flow log names."""
    logged = {vpc.urn for flow_log in stack.of_type(FLOW_LOG) for vpc in stack.linked(flow_log, "vpcId", VPC)}
    for vpc in stack.of_type(VPC):
        if vpc.urn not in logged:
            yield vpc, "has no aws.ec2.FlowLog"


RULE = StackRule(
    id="SEC019",
    name="vpc-flow-logs",
    title="Every VPC has a flow log",
    domain="security",
    severity="medium",
    check=check,
    fix="keep cloud.flow_logs.enabled true in the blueprint, or add an aws.ec2.FlowLog with vpc_id=<the VPC's id>",
)
