"""Day 2: a routine change touches only what it changes, with `railyard diff`'s own engine as the oracle.

Every example is pinned the way `railyard lock --write` pins a deployed
cluster (its resolved subnet layout in `cloud.subnet_cidrs`), then Hypothesis
draws routine changes: a pool's size or ceiling changed, a pool added (a copy
of one on demand), a pool removed, a storage tier added, the pools listed in
another order, Kubernetes up one minor version. Each changed blueprint is
previewed under the same mocks, compared with the pinned original and its
changes classified by the replace table, as `railyard diff` does. What must
hold: no replacement or deletion of the VPC, a subnet, a NAT gateway, a route
table, a security group, the cluster, a file system, a bucket or a key,
beyond the subnets that belonged to a removed pool alone; and no other
pool's node group replaced or deleted. A change the pinned subnets can't
hold is refused by `validate` (a pinned subnet too small), never re-carved:
that is asserted too, and such draws are discarded.
"""

from __future__ import annotations

import copy
import functools
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

from blueprints.catalog import load_catalog
from blueprints.loader import load_blueprint
from railyard.address_lock import pins_of
from railyard.change.compare import CREATE, DELETE, compare
from railyard.change.replace_table import load_table
from railyard.change.terraform_source import REPLACE
from railyard.change.upgrade import settle_adopted_versions
from railyard.mocked import run_preview
from tests.properties import examples
from tests.shared import shared
from topology.cluster import plan_cluster

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "blueprints" / "examples").glob("*.yaml"))
AT = datetime(2026, 11, 26, tzinfo=UTC)
KEPT = {
    "aws:ec2/vpc:Vpc",
    "aws:ec2/subnet:Subnet",
    "aws:ec2/natGateway:NatGateway",
    "aws:ec2/routeTable:RouteTable",
    "aws:ec2/securityGroup:SecurityGroup",
    "aws:eks/cluster:Cluster",
    "aws:fsx/lustreFileSystem:LustreFileSystem",
    "aws:s3/bucket:Bucket",
    "aws:kms/key:Key",
}
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
KUBERNETES_VERSIONS = ("1.32", "1.33", "1.34", "1.35")


def _pinned_document(path: Path) -> dict:
    """The example as YAML data, with its resolved subnet layout pinned as `railyard lock --write` would."""
    document = yaml.safe_load(path.read_text())
    blueprint = load_blueprint(str(path)).blueprint
    assert blueprint is not None, path
    if blueprint.cloud.existing_vpc is None:
        document["cloud"]["subnet_cidrs"] = pins_of(plan_cluster(blueprint, load_catalog()).subnets)
    return document


def _baseline(name: str, folder: str) -> tuple[dict, object]:
    """The pinned example and its preview, once per example for the whole run (whichever worker asks first)."""
    return shared(f"day2-baseline-{name}", lambda: _pinned_preview(name, Path(folder)))


def _pinned_preview(name: str, folder: Path) -> tuple[dict, object]:
    document = _pinned_document(next(path for path in EXAMPLES if path.name == name))
    path = folder / f"old-{name}"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    preview = run_preview(str(path), at=AT)
    assert preview.ok, [finding.message for finding in preview.findings if finding.severity == "error"]
    return document, preview


@functools.cache
def _previewed(text: str, path: str):
    """The preview of a changed blueprint, once per text: draws can make the same document (a resize that rounds back,
    one pool added from either of two like pools), and a draw that changes nothing is the baseline itself."""
    Path(path).write_text(text)
    return run_preview(path, at=AT)


def _resized(document: dict, index: int, factor: float) -> tuple[dict, str]:
    pool = document["pools"][index]
    nodes = pool["nodes"]
    reserved = (pool.get("capacity") or {}).get("kind") not in (None, "on_demand", "spot")
    factor = min(factor, 1.0) if reserved else factor  # a reservation holds no more than it holds
    if isinstance(nodes, int):
        pool["nodes"] = max(1, round(nodes * factor))
    else:
        high = max(nodes["min"], 1, round(nodes["max"] * factor))
        pool["nodes"] = {**nodes, "max": high, **({"desired": min(nodes["desired"], high)} if "desired" in nodes else {})}
    return document, pool["name"]


def _added(document: dict, index: int) -> tuple[dict, str]:
    pool = copy.deepcopy(document["pools"][index])
    pool["name"] = f"{pool['name'][:30]}-day2"
    pool["nodes"] = len(pool["placement"]["domains"])
    pool["capacity"] = {"kind": "on_demand"}
    pool.pop("provisioner", None)
    document["pools"].append(pool)
    return document, pool["name"]


def _removed(document: dict, index: int) -> tuple[dict, str]:
    assume(len(document["pools"]) > 1)
    return document, document["pools"].pop(index)["name"]


def _versioned(document: dict) -> tuple[dict, str]:
    version = document.setdefault("kubernetes", {}).get("version", KUBERNETES_VERSIONS[-1])
    assume(version != KUBERNETES_VERSIONS[-1])
    document["kubernetes"]["version"] = KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.index(version) + 1]
    return document, ""


CHANGES = ("resize", "add-pool", "remove-pool", "add-storage", "reorder-pools", "upgrade")


def _changed(document: dict, kind: str, index: int, factor: float) -> tuple[dict, str]:
    """`document` with one routine change; the pool the change is about ("" for none)."""
    document = copy.deepcopy(document)
    index %= len(document["pools"])
    if kind == "resize":
        return _resized(document, index, factor)
    if kind == "add-pool":
        return _added(document, index)
    if kind == "remove-pool":
        return _removed(document, index)
    if kind == "add-storage":
        document.setdefault("storage", []).append({"kind": "s3", "name": "day2-extra"})
        return document, ""
    if kind == "reorder-pools":
        document["pools"].reverse()
        return document, ""
    return _versioned(document)


def _owned_by(change, pool: str, old_subnets: set[str], new_subnets: set[str]) -> bool:
    """True when a deleted resource belonged to the changed pool alone (its node groups, or a subnet only it used)."""
    if pool and f"-{pool}-" in f"{change.name}-":
        return True
    if change.type in ("aws:ec2/subnet:Subnet", "aws:ec2/routeTableAssociation:RouteTableAssociation"):
        key = change.name.partition("-network-")[2]
        return key in old_subnets - new_subnets
    return False


# Three routine changes of each example (48 in all; one property per example, so the suite's workers share them).
@pytest.mark.parametrize("example", [path.name for path in EXAMPLES])
@settings(
    max_examples=examples(3),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)
@given(
    kind=st.sampled_from(CHANGES),
    index=st.integers(min_value=0, max_value=31),
    factor=st.sampled_from((0.5, 0.75, 1.25, 2.0, 4.0)),
)
def test_routine_changes_replace_nothing_outside_the_changed_pool(tmp_path_factory, example, kind, index, factor):
    folder = tmp_path_factory.getbasetemp() / "day2"
    folder.mkdir(exist_ok=True)
    document, before = _baseline(example, str(folder))
    changed, pool = _changed(document, kind, index, factor)
    after = before if changed == document else _previewed(yaml.safe_dump(changed, sort_keys=False), str(folder / f"new-{example}"))
    if not after.ok:
        errors = {finding.code for finding in after.findings if finding.severity == "error"}
        moved = [finding for finding in after.findings if finding.code == "compile.plan" and "subnet_cidrs" in ".".join(map(str, finding.path))]
        # A change the pinned subnets can't hold is refused with the pin named, never re-carved; other refusals
        # (a pool over its rack space, a reservation) are the blueprint's own rules and the draw is discarded.
        assert not moved or "a deployed subnet can't grow" in moved[0].message
        note(f"refused: {sorted(errors)}")
        assume(False)
    changes = settle_adopted_versions(compare(before.resources, after.resources, load_table()), before.resources)
    old_subnets = {resource.name.partition("-network-")[2] for resource in before.resources if resource.type == "aws:ec2/subnet:Subnet"}
    new_subnets = {resource.name.partition("-network-")[2] for resource in after.resources if resource.type == "aws:ec2/subnet:Subnet"}
    for change in changes:
        destructive = change.action == REPLACE or change.action == DELETE
        if not destructive:
            continue
        if change.type in KEPT or change.type == NODE_GROUP:
            assert change.action == DELETE and _owned_by(change, pool, old_subnets, new_subnets), (kind, pool, change.as_json())
    if kind in ("reorder-pools", "add-storage", "upgrade"):
        assert not [change for change in changes if change.action in (REPLACE, DELETE)], [change.as_json() for change in changes]
    if kind == "reorder-pools":
        assert not [change for change in changes if change.action == CREATE]


@pytest.mark.parametrize("example", [path.name for path in EXAMPLES])
def test_a_pinned_example_plans_exactly_its_pins(example, tmp_path):
    """Pinning is lossless: the pinned blueprint resolves to the very ranges it pins (so `lock` then `up` changes nothing)."""
    document = _pinned_document(next(path for path in EXAMPLES if path.name == example))
    path = tmp_path / example
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    blueprint = load_blueprint(str(path)).blueprint
    assert blueprint is not None
    planned = pins_of(plan_cluster(blueprint, load_catalog()).subnets)
    assert planned == document["cloud"].get("subnet_cidrs", planned)
