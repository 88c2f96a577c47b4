"""`railyard diff`'s findings no other test raised: a comparison of two stacks, a change the provider may or may not
replace, and inputs the replace table does not cover (each asserting code, path and message)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import pytest

from railyard.change.compare import MAY_REPLACE, UNCLASSIFIED, compare
from railyard.change.diff import diff, side_of
from railyard.change.impact import impacts
from railyard.change.replace_table import ReplaceTable, ResourceRules
from railyard.mocked import PreviewResource
from railyard.pipeline import validate
from tests.preview.conftest import AT

ROOT = Path(__file__).resolve().parents[2]
P5 = ROOT / "blueprints" / "examples" / "p5-capacity-block.yaml"
BUCKET = "aws:s3/bucket:Bucket"
QUEUE = "aws:sqs/queue:Queue"


def _resource(name: str, token: str, inputs: dict) -> PreviewResource:
    return PreviewResource(f"urn:pulumi:s::p::{token}::{name}", token, name, "", inputs, f"id-{name}", (), {}, outputs={})


def _table() -> ReplaceTable:
    # The bucket's `objectLock` is one the provider replaces only in some cases; the queue is in no table.
    bucket = ResourceRules(BUCKET, BUCKET, MappingProxyType({"objectLock": "conditional", "tags": "update"}), ())
    return ReplaceTable(MappingProxyType({}), MappingProxyType({BUCKET: bucket}))


@pytest.fixture(scope="module")
def p5():
    return validate(str(P5), at=AT)


def test_comparing_two_stacks_says_nothing_matches_by_name():
    result = diff(side_of(str(ROOT / "Pulumi.dev.yaml")), side_of(str(ROOT / "Pulumi.prod.yaml")), at=AT)
    (finding,) = [f for f in result.findings if f.code == "change.different-stacks"]
    assert finding.severity == "info" and finding.path == ()
    assert finding.message == "comparing stack dev with stack prod: resource names carry the environment, so nothing matches by name"
    assert "railyard diff --git <rev> Pulumi.<stack>.yaml" in finding.hint


def test_one_stack_against_itself_raises_no_such_finding(tmp_path):
    result = diff(side_of(str(ROOT / "Pulumi.prod.yaml")), side_of(str(ROOT / "Pulumi.prod.yaml")), at=AT)
    assert "change.different-stacks" not in {f.code for f in result.findings}


def test_a_stateful_change_the_provider_may_replace_is_a_warning_naming_what_it_would_lose(p5):
    old = [_resource("data", BUCKET, {"objectLock": {"enabled": False}})]
    new = [replace(old[0], inputs={"objectLock": {"enabled": True}})]
    changes = compare(old, new, _table())
    assert [change.action for change in changes] == [MAY_REPLACE]
    found, findings = impacts(changes, p5, p5)
    (finding,) = [f for f in findings if f.code == "change.may-replace-state"]
    assert finding.severity == "warning"
    assert finding.message == (
        "data may be replaced (objectLock.enabled): the provider decides when it diffs, and a replacement loses "
        "the bucket and its objects (a non-empty bucket also refuses deletion)"
    )
    assert [(impact.kind, impact.subject) for impact in found] == [("state-at-risk", "data")]


def test_a_stateful_change_made_in_place_raises_nothing(p5):
    old = [_resource("data", BUCKET, {"tags": {"team": "a"}})]
    changes = compare(old, [replace(old[0], inputs={"tags": {"team": "b"}})], _table())
    _, findings = impacts(changes, p5, p5)
    assert findings == []


def test_inputs_no_table_covers_are_counted_once_by_type(p5):
    old = [_resource("jobs", QUEUE, {"delaySeconds": 0}), _resource("dead", QUEUE, {"delaySeconds": 0})]
    new = [replace(resource, inputs={"delaySeconds": 5}) for resource in old]
    changes = compare(old, new, _table())
    assert [change.action for change in changes] == [UNCLASSIFIED, UNCLASSIFIED]
    _, findings = impacts(changes, p5, p5)
    (finding,) = [f for f in findings if f.code == "change.unclassified"]
    assert finding.severity == "info" and finding.path == ()
    assert finding.message == (
        f"2 changed resource(s) have inputs the replace table does not cover ({QUEUE}): in place or replaced, `pulumi preview --diff` decides"
    )
