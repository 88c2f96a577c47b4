"""A node group's waves and timeouts: EKS's wave of 10% (1 to 100 nodes), 31 minutes a wave, on the provider's 60."""

import pytest

from topology.cluster.update_time import nodes_per_wave, update_time, waves_of


@pytest.mark.parametrize(
    ("nodes", "per_wave", "waves", "create", "update", "delete"),
    [
        (1, 1, 1, 75, 91, 75),
        (8, 1, 8, 180, 308, 180),
        (11, 2, 10, 210, 370, 210),
        (64, 7, 10, 210, 370, 210),
        (1024, 100, 11, 225, 401, 225),
        (5000, 100, 50, 810, 1610, 810),
    ],
)
def test_waves_and_minutes_follow_the_group_size(nodes, per_wave, waves, create, update, delete):
    planned = update_time(nodes, 10)
    assert (planned.per_wave, planned.waves) == (per_wave, waves)
    assert (planned.create_minutes, planned.update_minutes, planned.delete_minutes) == (create, update, delete)
    assert planned.custom_timeouts() == {"create": f"{create}m", "update": f"{update}m", "delete": f"{delete}m"}


def test_a_wave_is_rounded_up_and_held_between_one_and_a_hundred_nodes():
    assert [nodes_per_wave(nodes, 10) for nodes in (0, 1, 9, 11, 999, 1001, 100000)] == [1, 1, 1, 2, 100, 100, 100]


def test_the_arithmetic_reads_as_the_figure_it_gives():
    assert update_time(1024, 10).arithmetic() == ("11 waves of up to 100 nodes x 31 min (launch and join 15, cordon wait 1, drain 15) + 60 = 401 min")


def test_the_waves_counted_are_the_most_any_size_up_to_the_maximum_takes():
    # EKS takes its percentage of the size the group has when it rolls: a group below its maximum may take more waves.
    for percent in (10, 33):
        worst = 0
        for largest in range(1, 1201):
            worst = max(worst, waves_of(largest, percent))
            assert update_time(largest, percent).waves == worst, (percent, largest)
