"""The VPC's CIDR blocks: none overlaps another, and each secondary block is one AWS lets the primary take.

AssociateVpcCidrBlock refuses a block that overlaps one the VPC has, and
blocks from ranges the primary block's range excludes (Amazon VPC User Guide,
"IPv4 CIDR block association restrictions",
docs.aws.amazon.com/vpc/latest/userguide/vpc-cidr-blocks.html#add-cidr-block-restrictions):

| primary in | refused |
| --- | --- |
| 10.0.0.0/8 | 172.16.0.0/12, 192.168.0.0/16, 198.19.0.0/16; 10.0.0.0/16 when the primary is in 10.0.0.0/15 |
| 172.16.0.0/12 | 10.0.0.0/8, 192.168.0.0/16, 172.31.0.0/16, 198.19.0.0/16 |
| 192.168.0.0/16 | 10.0.0.0/8, 172.16.0.0/12, 198.19.0.0/16 |
| 198.19.0.0/16 | every RFC 1918 range |
| anything else (public, 100.64.0.0/10) | every RFC 1918 range, 198.19.0.0/16 |

The blocks are the VPC's own (`vpc_cidr`), the node blocks
(`cloud.secondary_cidrs`) and the pod blocks of CNI custom networking
(`kubernetes.pod_networking.pod_cidrs`). A team's existing VPC is not checked:
railyard associates no block with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from ipaddress import IPv4Network

from blueprints.findings import Finding, Path, error
from blueprints.rules.context import Context

CODES = ("network.cidr-overlap", "network.cidr-restricted")
RFC1918 = tuple(IPv4Network(block) for block in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))
BENCHMARK = IPv4Network("198.19.0.0/16")


def refused_ranges(primary: IPv4Network) -> tuple[IPv4Network, ...]:
    """The ranges no secondary block of a VPC with this primary block may come from."""
    home = next((block for block in RFC1918 if primary.subnet_of(block)), None)
    if home is not None:
        refused = [block for block in RFC1918 if block != home] + [BENCHMARK]
        if home == RFC1918[0] and primary.subnet_of(IPv4Network("10.0.0.0/15")):
            refused.append(IPv4Network("10.0.0.0/16"))
        if home == RFC1918[1]:
            refused.append(IPv4Network("172.31.0.0/16"))
        return tuple(refused)
    if primary.subnet_of(BENCHMARK):
        return RFC1918
    return (*RFC1918, BENCHMARK)


def check(ctx: Context) -> Iterable[Finding]:
    """Overlapping blocks, and secondary blocks from a range the primary's range excludes."""
    cloud = ctx.blueprint.cloud
    if cloud.existing_vpc is not None:
        return
    blocks: list[tuple[Path, IPv4Network]] = [(("cloud", "vpc_cidr"), cloud.vpc_cidr)]
    blocks += [(("cloud", "secondary_cidrs", index), cidr) for index, cidr in enumerate(cloud.secondary_cidrs)]
    pods = ctx.blueprint.kubernetes.pod_networking.pod_cidrs
    blocks += [(("kubernetes", "pod_networking", "pod_cidrs", index), cidr) for index, cidr in enumerate(pods)]
    for position, (path, cidr) in enumerate(blocks):
        other = next((block for _, block in blocks[:position] if block.overlaps(cidr)), None)
        if other is not None:
            yield error(
                "network.cidr-overlap",
                path,
                f"{cidr} overlaps {other}, already a block of this VPC; AWS refuses overlapping VPC CIDR blocks",
                "choose a block outside every other (100.64.0.0/16, 100.65.0.0/16, ... for pods)",
            )
            continue
        if position == 0:
            continue
        refused = next((block for block in refused_ranges(cloud.vpc_cidr) if cidr.overlaps(block)), None)
        if refused is not None:
            yield error(
                "network.cidr-restricted",
                path,
                f"{cidr} is in {refused}, a range AWS does not let a VPC whose primary block is {cloud.vpc_cidr} take "
                "(Amazon VPC User Guide, IPv4 CIDR block association restrictions)",
                "use a block from 100.64.0.0/10, or from the primary block's own private range",
            )
