"""The nearest legal FSx size is computed from the step, and equals walking the legal sizes one by one."""

from __future__ import annotations

import pytest

from blueprints.rules.fsx import _nearest, legal_capacity

KINDS = [
    ("PERSISTENT_2", "SSD", 250),
    ("PERSISTENT_1", "SSD", 200),
    ("PERSISTENT_1", "HDD", 12),
    ("PERSISTENT_1", "HDD", 40),
    ("SCRATCH_1", "SSD", None),
    ("SCRATCH_2", "SSD", None),
]


def walked(capacity: int, deployment: str, storage: str, throughput: int | None) -> int:
    """The definition: the first legal size, in 600 GiB steps from 1,200, that is at least `capacity`."""
    candidate = 1200
    while not legal_capacity(deployment, storage, throughput, candidate)[0] or candidate < capacity:
        candidate += 600
    return candidate


@pytest.mark.parametrize("deployment, storage, throughput", KINDS)
def test_nearest_equals_walking_the_legal_sizes(deployment, storage, throughput):
    for capacity in list(range(1, 30_000, 137)) + [1200, 1201, 2400, 2401, 6000, 6001, 7200]:
        assert _nearest(capacity, deployment, storage, throughput) == walked(capacity, deployment, storage, throughput), capacity


def test_nearest_answers_at_once_for_the_largest_size_the_api_takes():
    assert _nearest(2_147_483_647, "PERSISTENT_2", "SSD", 250) == 2_147_484_000
    assert legal_capacity("PERSISTENT_2", "SSD", 250, 2_147_484_000)[0]
