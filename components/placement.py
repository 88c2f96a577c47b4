"""Placement groups, one per pool and zone whose decision calls for one.

The decisions themselves (and their reasons) come from
`topology.cluster.placement_groups`; this component only emits the groups and hands
their names to the launch templates. A decision of "none" emits nothing but
still travels, with its reason, into the preview and the stack outputs; a
hot spare's decision that shares its served pool's group emits nothing either,
and its key names the served pool's group.
"""

from __future__ import annotations

from collections.abc import Mapping

import pulumi
import pulumi_aws as aws

from blueprints.records import record
from components.common import child_of, named_tags
from topology.cluster.placement_groups import PlacementDecision


@record
class PlacementArgs:
    """The decisions to carry out and the tags to put on each group."""

    decisions: tuple[PlacementDecision, ...]
    tags: Mapping[str, str]


class Placement(pulumi.ComponentResource):
    """Placement groups by decision key (`pool-zone`); `group_names` lists only the keys whose nodes launch into one."""

    group_names: dict[str, pulumi.Output[str]]

    def __init__(self, name: str, args: PlacementArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("railyard:placement:Placement", name, None, opts)
        self.decisions = args.decisions
        self.group_names = {}
        for decision in args.decisions:
            if decision.strategy is None or decision.shares_group_of is not None:
                continue
            group_name = f"{name}-{decision.key}"
            group = aws.ec2.PlacementGroup(
                group_name,
                strategy=decision.strategy,
                partition_count=decision.partition_count,
                spread_level=decision.spread_level,
                tags=named_tags(args.tags, group_name),
                opts=child_of(self),
            )
            self.group_names[decision.key] = group.name
        for decision in args.decisions:
            # A hot spare launches into its served pool's group: its key names that group, and no group of its own is made.
            if decision.shares_group_of is not None and decision.shares_group_of in self.group_names:
                self.group_names[decision.key] = self.group_names[decision.shares_group_of]
        self.register_outputs({"groupNames": self.group_names, "decisions": [decision.as_json() for decision in args.decisions]})
