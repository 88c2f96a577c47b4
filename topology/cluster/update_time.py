"""How long Pulumi should wait for a managed node group: its create, update and delete, sized from its own waves.

pulumi-aws's node group (terraform-provider-aws `internal/service/eks/node_group.go`)
waits 60 minutes for each operation unless told otherwise (`Timeouts:
Create/Update/Delete: 60 * time.Minute`), and the bridge honours a custom
timeout on update and delete (pulumi/pulumi-terraform-bridge#1751). EKS rolls
a group in waves (EKS user guide, "Understand each phase of node updates",
`managed-node-update-behavior.adoc` @ 4d52b4d0):

* a wave is `maxUnavailable` nodes: railyard's 10% of the group, rounded up,
  at most 100 ("The maximum unavailable has a quota of 100 nodes");
* each wave launches its replacements and waits for them to be `Ready`,
  cordons the old nodes and "waits for 60 seconds", then drains them, and "If
  the Pods don't leave the node within 15 minutes ... the upgrade phase fails".

So a wave takes at most the drain's 15 minutes plus the minute's wait plus
the launch and join of its nodes. EKS documents no figure for the last;
`LAUNCH_AND_JOIN_MINUTES` is railyard's allowance, as long as the drain's
limit (docs/day2.md lists it as unsettled: a timing on a real account
settles it). The
provider's own 60 minutes stay as the floor, for the scale-up and
scale-down phases outside the waves. The figures are an upper bound: a
timeout only stops Pulumi waiting, it never slows EKS.

* update: 60 + waves x (launch and join + 1 + 15) minutes;
* create: 60 + waves x launch and join (a new group launches its nodes in
  the same batches an update does, with nothing to drain);
* delete: 60 + waves x 15 (EKS drains the nodes it terminates).
"""

from __future__ import annotations

import functools
import math

from blueprints.records import record

PROVIDER_DEFAULT_MINUTES = 60  # node_group.go: schema.DefaultTimeout(60 * time.Minute) for create, update and delete
DRAIN_MINUTES = 15  # EKS: a drain that takes longer fails the update (PodEvictionFailure)
CORDON_WAIT_MINUTES = 1  # EKS: "It cordons the node ... and waits for 60 seconds"
LAUNCH_AND_JOIN_MINUTES = 15  # railyard's allowance: EKS documents no figure
MAX_UNAVAILABLE_CAP = 100  # EKS: maxUnavailable is at most 100 nodes


def nodes_per_wave(nodes: int, percent: int) -> int:
    """Nodes EKS replaces at once in a group of `nodes` with `maxUnavailablePercentage` `percent`: rounded up, 1 to 100."""
    return max(1, min(MAX_UNAVAILABLE_CAP, math.ceil(nodes * percent / 100)))


@record
class UpdateTime:
    """A node group's rolling waves at its largest size, and the minutes Pulumi waits for each operation."""

    nodes: int
    per_wave: int
    waves: int
    create_minutes: int
    update_minutes: int
    delete_minutes: int

    @property
    def wave_minutes(self) -> int:
        """The most one wave of an update takes: launch and join, the cordon's wait, the drain."""
        return LAUNCH_AND_JOIN_MINUTES + CORDON_WAIT_MINUTES + DRAIN_MINUTES

    def custom_timeouts(self) -> dict[str, str]:
        """The timeouts as Pulumi's `CustomTimeouts` takes them (Go duration strings)."""
        return {"create": f"{self.create_minutes}m", "update": f"{self.update_minutes}m", "delete": f"{self.delete_minutes}m"}

    def arithmetic(self) -> str:
        """The update figure and how it is made, in one line (for `diff`'s roll report and the docs)."""
        nodes = f"{self.per_wave} node{'s' if self.per_wave != 1 else ''}"
        return (
            f"{self.waves} waves of up to {nodes} x {self.wave_minutes} min (launch and join {LAUNCH_AND_JOIN_MINUTES}, "
            f"cordon wait {CORDON_WAIT_MINUTES}, drain {DRAIN_MINUTES}) + {PROVIDER_DEFAULT_MINUTES} = {self.update_minutes} min"
        )


def waves_of(nodes: int, percent: int) -> int:
    """How many waves EKS rolls a group of `nodes` in (at least one)."""
    return max(1, math.ceil(nodes / nodes_per_wave(nodes, percent)))


@functools.cache
def update_time(max_size: int, percent: int) -> UpdateTime:
    """The waves and timeouts of a node group of at most `max_size` nodes rolling `percent`% at a time.

    EKS takes its percentage of the group's size when it rolls, which may sit
    below the maximum, and fewer nodes can take more waves (10 nodes roll in
    10 waves of 1, 11 in 6 of 2). The waves counted are the most any size from
    one node to the maximum takes (a few thousand sizes at most: EKS's
    nodes-per-group quota).
    """
    per_wave = nodes_per_wave(max_size, percent)
    waves = max(waves_of(nodes, percent) for nodes in range(1, max(max_size, 1) + 1))
    return UpdateTime(
        nodes=max_size,
        per_wave=per_wave,
        waves=waves,
        create_minutes=PROVIDER_DEFAULT_MINUTES + waves * LAUNCH_AND_JOIN_MINUTES,
        update_minutes=PROVIDER_DEFAULT_MINUTES + waves * (LAUNCH_AND_JOIN_MINUTES + CORDON_WAIT_MINUTES + DRAIN_MINUTES),
        delete_minutes=PROVIDER_DEFAULT_MINUTES + waves * DRAIN_MINUTES,
    )
