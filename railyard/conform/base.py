"""What every conformance check shares: the evidence read once, nodes and instances tied to node groups, and
the finding for a check that could not run."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import field
from functools import cached_property

from blueprints.findings import Finding, error
from blueprints.records import record
from railyard.conform import observed
from railyard.conform.expected import Expectation
from railyard.online.evidence import Evidence
from topology.cluster.node_groups import NodeGroupPlan

NOT_CHECKED = "conform.not-checked"
# How many node or instance names a message lists before it says "and N more".
LISTED = 5


@record(frozen=False)
class Judge:
    """The expectation and the evidence, with the evidence's documents parsed once for every check."""

    expected: Expectation
    evidence: Evidence
    _cache: dict[str, object] = field(default_factory=dict, repr=False)

    def has(self, *files: str) -> bool:
        """True when every file is in the folder and usable."""
        return all(self.evidence.get(name) is not None for name in files)

    @cached_property
    def instances(self) -> dict[str, observed.Instance]:
        """DescribeInstances' instances by id (none when the file is missing)."""
        return observed.instances(self.evidence.get("ec2-describe-instances.json") or {})

    @cached_property
    def nodes(self) -> dict[str, observed.Node]:
        """The Kubernetes nodes by name (none when the file is missing)."""
        return observed.nodes(self.evidence.get("kubectl-get-nodes.json") or {})

    @cached_property
    def placed(self) -> dict[str, observed.Placed]:
        """DescribeInstanceTopology's instances by id (none when the file is missing)."""
        return observed.placements(self.evidence.get("ec2-describe-instance-topology.json") or {})

    @cached_property
    def node_of_instance(self) -> dict[str, observed.Node]:
        """The node each instance became, by instance id."""
        return {node.instance_id: node for node in self.nodes.values() if node.instance_id}

    @cached_property
    def _by_name(self) -> dict[str, NodeGroupPlan]:
        return {group.name: group for group in self.expected.groups}

    @cached_property
    def _by_pool_zone(self) -> dict[tuple[str, str], NodeGroupPlan]:
        # The first group of a pool in a zone: Karpenter makes one per pool and zone.
        found: dict[tuple[str, str], NodeGroupPlan] = {}
        for group in self.expected.groups:
            found.setdefault((group.pool, group.availability_zones[0]), group)
        return found

    def group_of_node(self, node: observed.Node) -> NodeGroupPlan | None:
        """The planned node group a node belongs to: its EKS node group label, else its pool's group in its zone."""
        if node.node_group is not None:
            return self._by_name.get(node.node_group)
        for zone in (node.labels.get("topology.kubernetes.io/zone"), node.labels.get("topology.k8s.aws/zone-id")):
            group = self._by_pool_zone.get((node.pool or "", zone or ""))
            if group is not None:
                return group
        return None

    def group_of_instance(self, instance: observed.Instance) -> NodeGroupPlan | None:
        """The planned node group an instance belongs to: its `eks:nodegroup-name` tag, else its node's group."""
        if instance.node_group in self._by_name:
            return self._by_name[instance.node_group]
        node = self.node_of_instance.get(instance.instance_id)
        return self.group_of_node(node) if node is not None else None

    @cached_property
    def _ready_by_group(self) -> dict[str, list[observed.Node]]:
        found: dict[str, list[observed.Node]] = {}
        for node in sorted(self.nodes.values(), key=lambda node: node.name):
            group = self.group_of_node(node) if node.ready else None
            if group is not None:
                found.setdefault(group.name, []).append(node)
        return found

    def ready_nodes(self, group: NodeGroupPlan) -> list[observed.Node]:
        """The group's Ready nodes, by name."""
        return list(self._ready_by_group.get(group.name, []))

    def running(self) -> list[tuple[observed.Instance, NodeGroupPlan]]:
        """Every running instance of a planned node group, with its group, by instance id."""
        return list(self._running)

    @cached_property
    def _running(self) -> list[tuple[observed.Instance, NodeGroupPlan]]:
        found = [(instance, self.group_of_instance(instance)) for instance in self.instances.values() if instance.state == "running"]
        return sorted(((instance, group) for instance, group in found if group is not None), key=lambda pair: pair[0].instance_id)

    def group_instances(self, group: NodeGroupPlan) -> list[observed.Instance]:
        """The group's running instances, by id."""
        return [instance for instance, owner in self.running() if owner == group]

    def not_checked(self, check: str, files: Sequence[str], path: tuple[str | int, ...] = ("pools",)) -> list[Finding]:
        """The error for a check that could not run, naming each file it lacked and why; none when all are usable."""
        lacking = [self.evidence.problem(name) for name in files if self.evidence.get(name) is None]
        if not lacking:
            return []
        why = "; ".join(f"{problem.file} is {problem.reason}" for problem in lacking)
        return [
            error(
                NOT_CHECKED,
                path,
                f"could not check {check}: {why} in {self.evidence.folder}",
                "record the folder again with `railyard conform --record DIR` (docs/conform.md lists each file and the command that prints it)",
                check=check,
                files=[problem.file for problem in lacking],
            )
        ]


def listed(names: Iterable[str]) -> str:
    """Names for a message: the first few, then how many more."""
    items = sorted(names)
    shown = ", ".join(items[:LISTED])
    return shown + (f" and {len(items) - LISTED} more" if len(items) > LISTED else "")


def where(group: NodeGroupPlan) -> str:
    """How a message names a node group: its pool, node group and zone."""
    return f"pool '{group.pool}' (node group {group.name}, {group.availability_zones[0]})"
