"""A pool's node group in one failure domain, split into groups EKS allows.

EKS caps the nodes of one managed node group (service quota L-BD136A63,
450 by default; `blueprints/catalog/quotas.yaml`). A pool's share of a
failure domain above that cap becomes several groups, split along the
failure hierarchy so that no group straddles a block: first one group per
block the placement put the pool's hosts in, then, for a block still over
the cap, groups of at most the cap filled in order (`<block>-01`,
`<block>-02`, ...). Filling in order keeps names and the earlier groups'
sizes stable as a pool grows: a bigger pool adds to the last group or adds a
group, it never renames one. (Crossing the cap for the first time does
rename the single group into per-block ones: that is a re-planning, and the
preview shows it as replacements.)
"""

from __future__ import annotations

from math import ceil

from blueprints.records import record
from topology.placement import fill_in_order


@record
class Share:
    """One node group's part of a pool: the name after `<pool>-`, the failure domain it stands for, its sizes."""

    suffix: str
    domain: str
    low: int
    desired: int
    high: int


def split_share(domain: str, blocks: list[tuple[str, int]], sizes: tuple[int, int, int], limit: int) -> list[Share]:
    """The groups for a pool's (min, desired, max) in `domain`, none above `limit` nodes.

    `blocks` lists the domain's blocks with the pool's hosts the placement put
    in each, in site order (for a domain that is a block: that block alone).
    """
    low, desired, high = sizes
    if high <= limit:
        return [Share(domain, domain, low, desired, high)]
    names = [name for name, _ in blocks]
    per_block = fill_in_order(high, [count for _, count in blocks])
    if sum(per_block) < high:  # the placement didn't place them all (a topology finding says so): keep the domain whole
        names, per_block = [domain], [high]
    parts: list[tuple[str, str, int]] = []
    for block, count in zip(names, per_block, strict=True):
        if count == 0:
            continue
        if count <= limit:
            parts.append((block, block, count))
            continue
        chunks = fill_in_order(count, [limit] * ceil(count / limit))
        parts += [(f"{block}-{index:02d}", block, size) for index, size in enumerate(chunks, 1)]
    highs = [size for _, _, size in parts]
    lows, desireds = fill_in_order(low, highs), fill_in_order(desired, highs)
    return [Share(suffix, block, lows[index], desireds[index], highs[index]) for index, (suffix, block, _) in enumerate(parts)]
