"""The pack as the Pulumi CLI runs it, spoken to over gRPC.

The CLI's `pulumi-analyzer-policy-python` plugin runs `python -u -m
pulumi.policy <engine address> <pack directory>` from the pack directory,
which runs `policies/__main__.py` with `policies/` first on sys.path; this
test starts it the same way. It is the engine's side of the contract without
the CLI: the analyzer starts (so the sys.path set-up works), lists every
rule with its enforcement and config schema, takes config, and reports for
the insecure example exactly what the offline runner reports.
"""

from __future__ import annotations

import re
import subprocess
import sys

import grpc
import pytest
from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

from policies.registry import RULES
from policies.resource_types import NODE_GROUP
from policies.runner import run_policies
from tests.policies.previews import ROOT, example

LEVELS = {analyzer_pb2.ADVISORY: "advisory", analyzer_pb2.MANDATORY: "mandatory"}


@pytest.fixture(scope="module")
def analyzer():
    """A running pack and a stub connected to it; the process is ended after the module."""
    command = [sys.executable, "-u", "-m", "pulumi.policy", "127.0.0.1:0", str(ROOT / "policies")]
    process = subprocess.Popen(command, cwd=ROOT / "policies", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = process.stdout.readline().strip()
        assert port.isdigit(), process.stderr.read() if process.poll() is not None else port
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield analyzer_pb2_grpc.AnalyzerStub(channel)
    finally:
        process.kill()
        process.wait(timeout=10)


def _struct(data: dict) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(data)
    return struct


def _engine_view(stub, preview) -> set[tuple]:
    """(policy, urn, message, level) for every diagnostic the analyzer gives for a preview's resources."""
    found = set()
    for resource in preview.resources:
        response = stub.Analyze(
            analyzer_pb2.AnalyzeRequest(type=resource.type, properties=_struct(resource.inputs), urn=resource.urn, name=resource.name)
        )
        # The CLI attaches a resource policy's diagnostics to the resource analysed.
        found |= {(d.policyName, d.urn or resource.urn, d.message, LEVELS[d.enforcementLevel]) for d in response.diagnostics}
    stack = stub.AnalyzeStack(
        analyzer_pb2.AnalyzeStackRequest(
            resources=[
                analyzer_pb2.AnalyzerResource(type=r.type, properties=_struct({**r.inputs, "id": r.id}), urn=r.urn, name=r.name, parent=r.parent)
                for r in preview.resources
            ]
        )
    )
    found |= {(d.policyName, d.urn or None, d.message, LEVELS[d.enforcementLevel]) for d in stack.diagnostics}
    # A rule that met an unknown value: the engine names the pack ("from policy pack 'name@version'"); the runner doesn't.
    return {(policy, urn, re.sub(r" from policy pack '[^']+'", "", message), level) for policy, urn, message, level in found}


def offline_view(preview) -> set[tuple]:
    """What the offline runner reports, as the engine phrases it: violations with the rule's description, and the
    rules it couldn't run (an unknown value) as advisory notes."""
    descriptions = {rule.name: rule.description for rule in RULES}
    report = run_policies(preview)
    found = {(v.policy_name, v.urn, f"{descriptions[v.policy_name]}\n{v.message}", v.enforcement) for v in report.violations}
    return found | {(v.policy_name, v.urn, v.message, "advisory") for v in report.unverified}


def test_the_pack_lists_every_rule_with_its_level_and_config_schema(analyzer):
    info = analyzer.GetAnalyzerInfo(empty_pb2.Empty())
    assert info.name == "railyard"
    listed = {policy.name: policy for policy in info.policies}
    assert set(listed) == {r.name for r in RULES}
    for registered in RULES:
        policy = listed[registered.name]
        assert LEVELS[policy.enforcementLevel] == registered.enforcement
        assert policy.description.startswith(f"{registered.id}: ")
        assert set(policy.configSchema.properties) == {knob.key for knob in registered.knobs}


def test_the_pack_reports_what_the_offline_runner_reports(analyzer):
    insecure = example("insecure")
    assert _engine_view(analyzer, insecure) == offline_view(insecure)


def test_the_pack_takes_its_config_from_the_engine(analyzer):
    spot = example("insecure").one(NODE_GROUP, lambda r: "cheap-train" in r.name)
    request = analyzer_pb2.AnalyzeRequest(type=spot.type, properties=_struct(spot.inputs), urn=spot.urn, name=spot.name)
    before = {d.policyName for d in analyzer.Analyze(request).diagnostics}
    analyzer.Configure(
        analyzer_pb2.ConfigureAnalyzerRequest(
            policyConfig={
                "spot-only-for-allowed-roles": analyzer_pb2.PolicyConfig(
                    enforcementLevel=analyzer_pb2.MANDATORY, properties=_struct({"spotAllowedRoles": ["training"]})
                )
            }
        )
    )
    try:
        after = {d.policyName for d in analyzer.Analyze(request).diagnostics}
    finally:
        analyzer.Configure(analyzer_pb2.ConfigureAnalyzerRequest())
    assert "spot-only-for-allowed-roles" in before and "spot-only-for-allowed-roles" not in after
