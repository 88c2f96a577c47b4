"""Every managed node group tells Pulumi how long to wait for it, sized from its own rolling waves (issue 41, item 2).

pulumi-aws's node group waits 60 minutes for a create, update or delete unless told otherwise; rail-131k's
1,024-node groups roll in 11 waves. The preview records the engine's customTimeouts option as the program sent it.
"""

from tests.preview.conftest import preview_of

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


def test_rail_131k_frontier_groups_wait_for_eleven_waves_and_the_preview_json_shows_it():
    result = preview_of("rail-131k")
    groups = {resource.name: resource for resource in result.resources if resource.type == NODE_GROUP}
    frontier = [resource for name, resource in groups.items() if "-frontier-" in name]
    assert len(frontier) == 16
    # 1,024 nodes, 10% a wave capped at 100: 11 waves. Update 60 + 11 x 31, create 60 + 11 x 15, delete 60 + 11 x 15.
    assert {tuple(sorted(resource.custom_timeouts.items())) for resource in frontier} == {
        (("create", "225m"), ("delete", "225m"), ("update", "401m"))
    }
    assert frontier[0].as_json()["customTimeouts"] == {"create": "225m", "update": "401m", "delete": "225m"}


def test_every_node_group_of_every_previewed_example_waits_at_least_the_providers_default():
    for example in ("p5-capacity-block", "trn2-ultraserver", "dev-g6e"):
        groups = [resource for resource in preview_of(example).resources if resource.type == NODE_GROUP]
        assert groups and all(int(resource.custom_timeouts["update"].removesuffix("m")) > 60 for resource in groups), example
        # The other resources keep the engine's defaults: nothing else carries the option.
        others = [resource for resource in preview_of(example).resources if resource.type != NODE_GROUP and resource.custom_timeouts]
        assert others == [], example
