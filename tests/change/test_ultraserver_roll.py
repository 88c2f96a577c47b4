"""`diff` refuses rolling a GB200 UltraServer node group in place: the EKS guide says its desired size goes to 0 first.

The probe is the GB200 example upgraded from Kubernetes 1.34 to 1.35 (its node group would be sent
UpdateNodegroupVersion), then the same with `scaled_to_zero: true`, the blueprint's word that the groups stand at 0.
"""

from __future__ import annotations

from pathlib import Path

from railyard.change.diff import diff, side_of
from tests.change.test_node_group_rolls import CLUSTER_1_34, P5, _coded, _sides
from tests.preview.conftest import AT

GB200 = Path(__file__).resolve().parents[2] / "blueprints" / "examples" / "p6e-gb200-nvl72.yaml"
DRAINED = ("    role: training\n", "    role: training\n    scaled_to_zero: true\n")


def _diff(old: Path, new: Path):
    return diff(side_of(str(old)), side_of(str(new)), at=AT)


def test_an_upgrade_of_an_ultraserver_pool_is_refused_with_the_scale_to_zero_step(tmp_path):
    old, new = _sides(tmp_path, GB200, [CLUSTER_1_34], [])
    result = _diff(old, new)
    (refused,) = _coded(result, "change.ultraserver-roll")
    assert (refused.severity, refused.path) == ("error", ("pools", 0))
    assert refused.certificate == {"pool": "nvl72", "groups": ["nvl72-dfw"]}
    assert refused.message.startswith("pool 'nvl72' (p6e-gb200.36xlarge, UltraServers) would roll node group(s) nvl72-dfw in place")
    assert "you must set the desired size of the node group to 0 before upgrading" in refused.message
    assert refused.hint.startswith(
        "for G in nvl72-dfw: `aws eks update-nodegroup-config --cluster-name gb200-prod --nodegroup-name $G --scaling-config desiredSize=0`"
    )
    assert "set pools[0].scaled_to_zero: true; `pulumi up`" in refused.hint
    # The Capacity Block warning would say the same as a warning: the error replaces it for this pool.
    assert _coded(result, "change.capacity-block-roll") == [] and not result.ok


def test_the_same_upgrade_passes_once_the_blueprint_says_the_groups_stand_at_zero(tmp_path):
    old, new = _sides(tmp_path, GB200, [CLUSTER_1_34], [DRAINED])
    result = _diff(old, new)
    assert _coded(result, "change.ultraserver-roll") == []
    assert [finding.code for finding in result.findings if finding.is_error] == []


def test_a_pool_whose_nvlink_domain_is_one_instance_draws_no_ultraserver_error(tmp_path):
    old, new = _sides(tmp_path, P5, [CLUSTER_1_34], [])
    result = _diff(old, new)
    assert _coded(result, "change.ultraserver-roll") == [] and _coded(result, "change.capacity-block-roll")
