"""The Pulumi program itself: `build`'s handles, and `deploy` stopping before any registration."""

import contextvars

import pulumi
import pytest
from pulumi.runtime import mocks, settings
from pulumi.runtime.stack import wait_for_rpcs
from pulumi.runtime.sync_await import _sync_await

from blueprints.catalog import load_catalog
from components.plan.compile import plan_blueprint
from railyard.mocked import PreviewMocks, RecordingMonitor
from railyard.pipeline import validate
from railyard.program import build, deploy
from tests.preview.conftest import ROOT, write_stack


def under_mocks(program):
    """Run `program` against fresh recording mocks in an isolated context; returns (its result resolved, the monitor)."""

    def run():
        settings.ROOT.set(None)
        monitor = RecordingMonitor(PreviewMocks("us-east-2"))
        mocks.set_mocks(monitor.mocks, project="railyard", stack="test", monitor=monitor)
        try:
            value = program()
        finally:
            _sync_await(wait_for_rpcs())
        return value, monitor

    return contextvars.copy_context().run(run)


def test_build_hands_the_kubernetes_layer_what_it_needs():
    plan = plan_blueprint(validate(str(ROOT / "blueprints/examples/heterogeneous.yaml")).blueprint, load_catalog())

    def program():
        handles = build(plan)
        resolved = pulumi.Output.all(
            handles.cluster_name,
            handles.endpoint,
            handles.oidc_provider_arn,
            handles.file_systems["lustre"].dns_name,
            handles.file_systems["lustre"].mount_name,
        )
        return handles, _sync_await(resolved.future())

    (handles, values), monitor = under_mocks(program)
    assert values[0] == "hetero-prod" and values[1].startswith("https://")
    assert values[3].endswith(".fsx.us-east-2.amazonaws.com") and len(values[4]) == 8
    assert [group.name for group in handles.node_groups] == ["system", "h200-use2a-gpu", "trainium-use2b-trn", "serve-use2a-inf", "serve-use2b-inf"]
    trainium = handles.node_groups[2]
    assert (trainium.instance_type, trainium.efa_interfaces, trainium.labels["railyard.dev/pool"]) == ("trn2.48xlarge", 16, "trainium")
    assert set(handles.node_group_names) == {group.name for group in handles.node_groups}
    assert handles.file_systems["lustre"].mount_path == "/fsx"
    assert monitor.registrations, "build registered nothing"


def test_deploy_stops_with_the_findings_before_registering_anything(tmp_path):
    project = write_stack(tmp_path, "broken", "p5-capacity-block.yaml", "    pools: [{name: train, capacity: {instance_count: 65}}]\n")

    def program():
        with pytest.raises(pulumi.RunError, match=r"(?s)nothing was deployed.*capacity.block-too-large"):
            deploy("broken", project)

    _, monitor = under_mocks(program)
    assert monitor.registrations == []


def test_deploy_runs_the_stacks_blueprint():
    _, monitor = under_mocks(lambda: deploy("dev", ROOT))
    names = {resource.name for resource in monitor.registrations}
    assert "p5-train-dev-train-use1a" in names and "p5-train-dev-placement-train-use1a" in names
