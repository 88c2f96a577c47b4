"""Environments: a stack file's overrides merge into the blueprint, and bad overrides point at the stack file."""

from __future__ import annotations

import pytest

from blueprints.source import SourceError
from railyard.pipeline import validate
from tests.blueprints.base import BASE


@pytest.fixture
def project(tmp_path):
    (tmp_path / "blueprint.yaml").write_text(BASE)
    return tmp_path


def write_stack(project, name: str, body: str) -> None:
    (project / f"Pulumi.{name}.yaml").write_text("config:\n  railyard:blueprint: blueprint.yaml\n" + body)


def test_override_changes_only_the_named_pool(project):
    write_stack(project, "dev", "  railyard:overrides:\n    metadata: {environment: dev}\n    pools:\n      - {name: serve, nodes: 2}\n")
    result = validate(stack="dev", project_dir=project)
    bp = result.blueprint
    assert bp.metadata.environment == "dev"
    assert [pool.nodes for pool in bp.pools] == [8, 2]
    assert bp.pools[0].capacity.kind == "capacity_block"


def test_override_with_another_kind_replaces_the_capacity_source(project):
    write_stack(project, "dev", "  railyard:overrides:\n    pools:\n      - name: train\n        nodes: 2\n        capacity: {kind: on_demand}\n")
    result = validate(stack="dev", project_dir=project)
    assert result.load.ok, [f.as_json() for f in result.findings]
    assert result.blueprint.pools[0].capacity.kind == "on_demand"
    assert result.blueprint.pools[0].nodes == 2


def test_override_naming_an_unknown_pool_points_at_the_stack_file(project):
    write_stack(project, "dev", "  railyard:overrides:\n    pools:\n      - {name: trian, nodes: 2}\n")
    result = validate(stack="dev", project_dir=project)
    (finding,) = [f for f in result.findings if f.code == "override.unknown-name"]
    assert finding.file.endswith("Pulumi.dev.yaml") and finding.line == 5
    assert finding.hint.startswith("did you mean 'train'?")
    assert not result.ok


def test_invalid_override_value_is_reported_at_its_stack_file_line(project):
    write_stack(project, "prod", "  railyard:overrides:\n    pools:\n      - name: train\n        role: trainer\n")
    result = validate(stack="prod", project_dir=project)
    (finding,) = [f for f in result.findings if f.code == "schema.invalid-value"]
    assert finding.path_text == "pools[0].role"
    assert finding.file.endswith("Pulumi.prod.yaml") and finding.line == 6


def test_unknown_stack_is_a_source_error_listing_the_stacks(project):
    write_stack(project, "dev", "")
    with pytest.raises(SourceError, match="no stack 'qa'.*stacks here: dev"):
        validate(stack="qa", project_dir=project)
