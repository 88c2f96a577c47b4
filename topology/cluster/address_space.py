"""Free address space over one or more VPC blocks: take a given range, or find the first aligned one of a size.

Subnet ranges are powers of two aligned on their size (a /20 starts on a
multiple of 4,096), so any range can later sit beside any other without gaps
forcing a move. `take` records a range that is already decided (a pinned
subnet); `place` finds the lowest free aligned range of a size, block by block
in the order given (the primary block first). Nothing here knows about
subnets: it is the arithmetic the layout (`topology.cluster.subnets`) stands on.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Sequence
from dataclasses import field
from ipaddress import IPv4Network

from blueprints.records import record


@record(frozen=False)
class AddressSpace:
    """The blocks' addresses, with the ranges already used in each (start, end) kept sorted."""

    blocks: Sequence[IPv4Network]
    used: list[list[tuple[int, int]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.used:
            self.used = [[] for _ in self.blocks]

    @property
    def capacity(self) -> int:
        """Addresses in all blocks."""
        return sum(block.num_addresses for block in self.blocks)

    @property
    def taken(self) -> int:
        """Addresses in ranges taken or placed so far."""
        return sum(end - start for ranges in self.used for start, end in ranges)

    def copy(self) -> AddressSpace:
        """An independent copy (placing into it leaves this one as it is)."""
        return AddressSpace(self.blocks, [list(ranges) for ranges in self.used])

    def block_of(self, network: IPv4Network) -> int | None:
        """The index of the block that holds `network`, or None."""
        return next((index for index, block in enumerate(self.blocks) if network.subnet_of(block)), None)

    def overlapping(self, network: IPv4Network) -> tuple[int, int] | None:
        """A used range that overlaps `network`, or None."""
        start, end = int(network.network_address), int(network.network_address) + network.num_addresses
        for ranges in self.used:
            for low, high in ranges:
                if low < end and start < high:
                    return low, high
        return None

    def take(self, network: IPv4Network) -> int:
        """Mark `network` used and return its block's index; the caller has checked it is inside one and free."""
        index = self.block_of(network)
        assert index is not None and self.overlapping(network) is None, f"{network} is outside the blocks or overlaps a used range"
        start = int(network.network_address)
        insort(self.used[index], (start, start + network.num_addresses))
        return index

    def place(self, size: int) -> tuple[int, IPv4Network] | None:
        """The lowest free range of `size` addresses (a power of two) aligned on its size, with its block's index; taken."""
        for index, block in enumerate(self.blocks):
            if size > block.num_addresses:
                continue
            low, high = int(block.network_address), int(block.network_address) + block.num_addresses
            candidate = low
            for start, end in self.used[index]:
                if candidate + size <= start:
                    break
                if end > candidate:
                    candidate = -(-end // size) * size  # the next multiple of size at or after end
            if candidate + size <= high:
                network = IPv4Network((candidate, 32 - (size.bit_length() - 1)))
                insort(self.used[index], (candidate, candidate + size))
                return index, network
        return None
