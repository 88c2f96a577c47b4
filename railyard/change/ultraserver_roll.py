"""An UltraServer node group that would roll in place: the EKS guide says its desired size goes to 0 first.

The EKS user guide's P6e-GB200 page (awsdocs/amazon-eks-user-guide @00e3293d,
latest/ug/ml/ml-eks-nvidia-ultraserver.adoc, Considerations): "When upgrading EKS managed node groups with
P6e-GB200 UltraServers, you must set the desired size of the node group to `0` before upgrading." An
upgrade is UpdateNodegroupVersion, which a new Kubernetes version or AMI release and a new launch template
version all send (`capacity_blocks.ROLLING_ROOTS`). Where `change.capacity-block-roll` says it of any
Capacity Block group as a warning (EKS's Capacity Block page says "make sure"), for a pool whose NVLink
domain spans instances the guide says "must", and a roll of a running UltraServer takes its whole NVLink
domain with it: so `diff` refuses it (`change.ultraserver-roll`, an error) with the step, until the
blueprint says the groups stand at 0 (`pools[].scaled_to_zero: true`), and then lets it through. railyard
can't scale the groups itself: EKS's scheduled actions own a Capacity Block group's desired size.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from blueprints.catalog import load_catalog
from blueprints.findings import Finding, error
from railyard.change.capacity_blocks import NODE_GROUP, ROLLING_ROOTS
from railyard.change.compare import ResourceChange
from railyard.change.terraform_source import UPDATE
from topology.cluster.compute_domains import nvlink_pools
from topology.cluster.labels import POOL_LABEL

if TYPE_CHECKING:
    from railyard.pipeline import Validation

CODES = ("change.ultraserver-roll",)
EKS_ULTRASERVER_GUIDE = "https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-nvidia-ultraserver.html"


def _rolls(change: ResourceChange) -> bool:
    """True for a node group updated in place through UpdateNodegroupVersion (version, AMI release or template)."""
    if change.type != NODE_GROUP or change.action != UPDATE or change.new is None:
        return False
    return any(item.path.split(".")[0] in ROLLING_ROOTS for item in change.inputs)


def ultraserver_pools(new: Validation) -> set[str]:
    """The pools of the new side whose NVLink domain spans instances (UltraServers), by name."""
    return set(nvlink_pools(new.blueprint, load_catalog())) if new.blueprint is not None else set()


def ultraserver_roll_findings(changes: Sequence[ResourceChange], new: Validation) -> list[Finding]:
    """An error per UltraServer pool whose node groups would roll in place while not stated as scaled to 0, with the step."""
    blueprint = new.blueprint
    if blueprint is None:
        return []
    ultra = ultraserver_pools(new)
    rolled: dict[str, list[ResourceChange]] = {}
    for change in changes:
        if _rolls(change):
            assert change.new is not None
            pool = str((change.new.inputs.get("labels") or {}).get(POOL_LABEL))
            if pool in ultra:
                rolled.setdefault(pool, []).append(change)
    findings = []
    for index, pool in enumerate(blueprint.pools):
        if pool.name not in rolled or pool.scaled_to_zero:
            continue
        groups = sorted(str(change.new.inputs.get("nodeGroupName") or change.name) for change in rolled[pool.name] if change.new is not None)
        named = (change.new.inputs.get("clusterName") for change in rolled[pool.name] if change.new is not None)
        cluster = next((name for name in named if name), "<cluster>")  # any group that names it: a preview may leave one unknown
        message = (
            f"pool '{pool.name}' ({pool.instance_type}, UltraServers) would roll node group(s) {', '.join(groups)} in place (a new "
            'Kubernetes version, AMI release or launch template): the EKS user guide says "When upgrading EKS managed node groups with '
            f'P6e-GB200 UltraServers, you must set the desired size of the node group to 0 before upgrading" ({EKS_ULTRASERVER_GUIDE})'
        )
        steps = (
            f"for G in {' '.join(groups)}: `aws eks update-nodegroup-config --cluster-name {cluster} --nodegroup-name $G --scaling-config "
            f"desiredSize=0`; wait until their nodes are gone; set pools[{index}].scaled_to_zero: true; `pulumi up`; then restore each "
            "group's desired size and drop scaled_to_zero (or hold the pool's kubernetes_version until its jobs allow the drain)"
        )
        findings.append(new.load.source_map.place(error("change.ultraserver-roll", ("pools", index), message, steps, pool=pool.name, groups=groups)))
    return findings
