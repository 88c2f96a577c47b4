"""`railyard diff` against what other systems do with a change: Hypothesis draws changes over the examples.

Each draw takes a shipped example and makes one change of a kind whose outcome another system decides, then
runs `diff` on the pair exactly as the command does, and holds its verdict to that system's rule:

* **a hold below the groups' version** (`pools[].kubernetes_version` one minor under the cluster): EKS refuses
  it ("You cannot roll back a node group to an earlier Kubernetes version or AMI version", UpdateNodegroupVersion),
  so every group of the pool that ran the cluster's version gives `change.version-down` and the diff fails;
* **a Kubernetes upgrade with Karpenter pools**: their EC2NodeClass alias resolves by the cluster's version
  (Karpenter's `al2023.go` `resolvePath`), so each pool drifts: a `karpenter-drift` impact naming the pool, its
  nodes at the limit and its disruption budget;
* **a Karpenter pool's ceiling halved**: the NodePool's `limits` go down, and the impact says so;
* **the acceptance gate turned on**: EKS applies the new taint to running nodes (UpdateNodegroupConfig), so a
  pool with nodes at `--at` gives `change.acceptance-on-running`, and a pool with none doesn't;
* **an FSx tier removed with `cloud.protect_stateful: false`**: Pulumi refuses to delete what the deployed state
  protects (`DeleteStep.Apply`), so the delete is `change.protected-delete` and the diff fails.

And on every draw, the headlines hold: no roll of "0 nodes ... in 0 waves", no capacity of "+0 nodes".
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from pathlib import Path

import yaml
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

from blueprints.catalog import load_catalog
from blueprints.catalog.pins import DEFAULT_KUBERNETES_VERSION
from railyard.change.diff import diff, side_of
from tests.properties import examples

EXAMPLES = {path.stem: path for path in sorted((Path(__file__).resolve().parents[2] / "blueprints" / "examples").glob("*.yaml"))}
AT = datetime(2026, 12, 2, tzinfo=UTC)  # inside p5-capacity-block's block (2026-12-01 to 12-15)
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


def _document(name: str) -> dict:
    return yaml.safe_load(EXAMPLES[name].read_text(encoding="utf-8"))


def _managed(pool: dict) -> bool:
    return pool.get("provisioner", "managed") != "karpenter" and not pool.get("standby_for")


def _minor(version: str) -> int:
    return int(str(version).split(".")[1])


def _version(document: dict) -> str:
    """The cluster's version as the blueprint states it, or the model's default where it leaves it out (inference-fleet)."""
    return str((document.get("kubernetes") or {}).get("version", DEFAULT_KUBERNETES_VERSION))


def _hold_below(document: dict, index: int) -> tuple[dict, dict]:
    new = copy.deepcopy(document)
    new["pools"][index]["kubernetes_version"] = f"1.{_minor(_version(document)) - 1}"
    return document, new


def _upgrade(document: dict, index: int) -> tuple[dict, dict]:
    old = copy.deepcopy(document)
    old.setdefault("kubernetes", {})["version"] = f"1.{_minor(_version(document)) - 1}"
    return old, document


def _halve_ceiling(document: dict, index: int) -> tuple[dict, dict]:
    new = copy.deepcopy(document)
    nodes = new["pools"][index]["nodes"]
    new["pools"][index]["nodes"] = {**nodes, "max": nodes["max"] // 2}
    return document, new


def _gate_on(document: dict, index: int) -> tuple[dict, dict]:
    old, new = copy.deepcopy(document), copy.deepcopy(document)
    old["pools"][index].pop("acceptance", None)
    new["pools"][index]["acceptance"] = new["pools"][index].get("acceptance") or {"level": "standard"}
    return old, new


def _remove_tier(document: dict, index: int) -> tuple[dict, dict]:
    new = copy.deepcopy(document)
    gone = new["storage"].pop(index)["name"]
    for pool in new["pools"]:
        pool["storage"] = [use for use in pool.get("storage", []) if use["tier"] != gone]
    new["cloud"]["protect_stateful"] = False
    return document, new


def _candidates(kind: str, document: dict) -> list[int]:
    """The indexes (of pools or storage tiers) a kind of change applies to in an example."""
    pools = document["pools"]
    if kind == "hold-below":
        return [index for index, pool in enumerate(pools) if _managed(pool) and "kubernetes_version" not in pool and not pool.get("ami_id")]
    if kind in ("upgrade", "halve-ceiling"):
        karpenter = [index for index, pool in enumerate(pools) if pool.get("provisioner") == "karpenter"]
        return karpenter if kind == "upgrade" else [index for index in karpenter if pools[index]["nodes"]["max"] >= 2]
    if kind == "gate-on":
        return [index for index, pool in enumerate(pools) if _managed(pool) and "acceptance" not in pool]
    return [index for index, tier in enumerate(document.get("storage", [])) if tier["kind"] == "fsx_lustre" and not tier.get("existing")]


CHANGES = {"hold-below": _hold_below, "upgrade": _upgrade, "halve-ceiling": _halve_ceiling, "gate-on": _gate_on, "remove-tier": _remove_tier}


def _draw(data, kind: str) -> tuple[str, int]:
    names = [name for name in EXAMPLES if name != "insecure" and _candidates(kind, _document(name))]
    name = data.draw(st.sampled_from(names), label="example")
    return name, data.draw(st.sampled_from(_candidates(kind, _document(name))), label="index")


def _own(result, code: str) -> list:
    return [finding for finding in result.findings if finding.code == code]


def _running(result, pool: str) -> int:
    """Nodes the pool's groups run at AT, as the new side plans them (desired size: a block not running has 0)."""
    return sum(
        int(change.new.inputs["scalingConfig"]["desiredSize"])
        for change in result.changes
        if change.type == NODE_GROUP and change.new is not None and change.new.inputs.get("labels", {}).get("railyard.dev/pool") == pool
    )


def _hold_rule(result, old: dict, new: dict, index: int) -> None:
    pool = new["pools"][index]["name"]
    refused = _own(result, "change.version-down")
    assert refused and not result.ok
    assert {finding.path for finding in refused} == {("pools", index, "kubernetes_version")}
    assert all(f"pool '{pool}'" in finding.message and "You cannot roll back a node group" in finding.message for finding in refused)


def _upgrade_rule(result, old: dict, new: dict, index: int) -> None:
    pool = new["pools"][index]
    drifted = [impact for impact in result.impacts if impact.kind == "karpenter-drift" and impact.subject == f"pool {pool['name']}"]
    assert len(drifted) == 1
    # The NodePools' cpu limits over the type's vCPUs: the pool's ceiling, split over its NodePools and summed back.
    assert drifted[0].figures["nodes"] == pool["nodes"]["max"]
    assert drifted[0].figures["accelerators"] == pool["nodes"]["max"] * load_catalog().get(pool["instance_type"]).accelerator_count
    assert "AMIDrift" in drifted[0].summary and "disruption budget (nodes: 10%)" in drifted[0].summary


def _ceiling_rule(result, old: dict, new: dict, index: int) -> None:
    pool = new["pools"][index]
    lowered = [impact for impact in result.impacts if impact.kind == "karpenter-limit" and impact.subject == f"pool {pool['name']}"]
    assert len(lowered) == 1
    assert (lowered[0].figures["nodes_before"], lowered[0].figures["nodes"]) == (old["pools"][index]["nodes"]["max"], pool["nodes"]["max"])


def _gate_rule(result, old: dict, new: dict, index: int) -> None:
    pool = new["pools"][index]["name"]
    warned = [finding for finding in _own(result, "change.acceptance-on-running") if finding.certificate.get("pool") == pool]
    running = _running(result, pool)
    assert bool(warned) == (running > 0), running
    if warned:
        assert warned[0].path == ("pools", index, "acceptance") and f"run {running} nodes" in warned[0].message


def _tier_rule(result, old: dict, new: dict, index: int) -> None:
    tier = old["storage"][index]["name"]
    refused = _own(result, "change.protected-delete")
    assert not result.ok
    assert any(finding.path == ("storage", index) and f"storage tier '{tier}'" in finding.hint for finding in refused)


RULES = {"hold-below": _hold_rule, "upgrade": _upgrade_rule, "halve-ceiling": _ceiling_rule, "gate-on": _gate_rule, "remove-tier": _tier_rule}


@settings(max_examples=examples(5), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(CHANGES)), data=st.data())
def test_diff_says_what_eks_karpenter_and_pulumi_do_with_a_change(tmp_path_factory, kind, data):
    name, index = _draw(data, kind)
    old, new = CHANGES[kind](_document(name), index)
    folder = tmp_path_factory.mktemp("change")
    paths = []
    for label, document in (("old", old), ("new", new)):
        path = folder / f"{label}-{name}.yaml"
        path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
        paths.append(str(path))
    note(f"{kind} on {name}[{index}]")
    result = diff(side_of(paths[0]), side_of(paths[1]), at=AT)
    assume(result.compared)  # a change the new side's own checks refuse is validate's business, not the diff's
    RULES[kind](result, old, new, index)
    for impact in result.impacts:
        assert " in 0 waves" not in impact.summary and "+0 nodes, +0 accelerators" not in impact.summary, impact.summary
