"""The benchmark's generated designs are designs railyard accepts: a bench that times a refused blueprint times nothing."""

from __future__ import annotations

import pytest

from bench.topology import MIXED_TYPES, SHAPES
from blueprints.loader import load_text
from railyard.pipeline import validate


@pytest.mark.parametrize("shape", ["many-mixed", "many-small"])
def test_the_many_pool_bench_shapes_validate_without_errors_at_16384_accelerators(shape, tmp_path):
    # (few-big declares no quotas, so its designs are held to AWS's defaults and the larger ones are refused; its table says so.)
    path = tmp_path / f"{shape}.yaml"
    path.write_text(SHAPES[shape](16384))
    result = validate(str(path))
    assert [finding.code for finding in result.findings if finding.is_error] == []
    assert sum(pool.nodes for pool in result.blueprint.pools) * 8 == 16384


def test_the_mixed_shape_deals_small_pools_of_both_types_in_turn_one_host_per_rack():
    pools = load_text(SHAPES["many-mixed"](16384), "mixed.yaml").blueprint.pools
    assert [pool.instance_type for pool in pools[:4]] == [MIXED_TYPES[0], MIXED_TYPES[1], MIXED_TYPES[0], MIXED_TYPES[1]]
    assert [pool.nodes for pool in pools[:6]] == [22, 21, 20, 22, 21, 20]
    assert {pool.placement.spread for pool in pools} == {"racks"}
    # 2,048 hosts: 32 turns of 22 + 21 + 20 (2,016), then 22 and the 10 left.
    assert (len(pools), pools[-2].nodes, pools[-1].nodes) == (98, 22, 10)
