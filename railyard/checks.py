"""Every check railyard runs, by stage and stable code: the list `railyard rules` prints.

Users suppress, grep and discuss findings by code, so the whole set is
published in one place, assembled from each stage's own registry (nothing is
restated here). `tests/blueprints/test_rules_command.py` scans the source for
codes, so a new code can't be left out of this list.
"""

from __future__ import annotations

from blueprints.models import MODEL_CODES
from blueprints.records import record
from blueprints.rules import RULES as BLUEPRINT_RULES
from blueprints.schema_errors import CODES as SCHEMA_CODES
from railyard.change.bought_blocks import CODES as BOUGHT_BLOCK_DIFF_CODES
from railyard.change.capacity_blocks import CODES as CAPACITY_BLOCK_DIFF_CODES
from railyard.change.held_groups import CODES as HELD_DIFF_CODES
from railyard.change.impact import CODES as DIFF_CODES
from railyard.change.node_group_steps import CODES as NODE_GROUP_DIFF_CODES
from railyard.change.protected import CODES as PROTECTED_DIFF_CODES
from railyard.change.running_pools import CODES as RUNNING_POOL_DIFF_CODES
from railyard.change.subnets import CODES as SUBNET_DIFF_CODES
from railyard.change.ultraserver_roll import CODES as ULTRASERVER_DIFF_CODES
from railyard.change.upgrade import CODES as UPGRADE_DIFF_CODES
from railyard.conform import CODES as CONFORM_CODES
from railyard.online import existing, images, names, offerings, quotas, reservations
from railyard.online import findings as online_findings
from railyard.plan import codes as plan_codes
from topology import CODES as TOPOLOGY_CODES
from topology import acceptance_cost, cost
from topology.cluster.addons import CODES as ADDON_CODES
from topology.cluster.kubernetes_checks import RULES as KUBERNETES_RULES
from topology.cluster.pod_limits import CODES as POD_LIMIT_CODES
from topology.cluster.quotas import CODES as QUOTA_CODES
from topology.cluster.scale import CODES as SCALE_CODES
from topology.cluster.spare_placement import CODES as SPARE_PLACEMENT_CODES
from topology.cluster.update_room import CODES as UPDATE_ROOM_CODES

# `validate --online`'s checks (they import no AWS SDK until a call is made).
ONLINE_MODULES = (online_findings, reservations, offerings, quotas, names, existing, images)
LOADER_CODES = ("yaml.duplicate-key", "override.unknown-name")
SYNTAX_CODES = ("yaml.syntax",)
# A design the cluster plan can't lay out (`PlanError`); the code keeps its first name so suppressions still match.
PLAN_CODES = ("compile.plan", "compile.pin-unused", "compile.pin-zone-moved", "compile.unlocked")


@record
class Check:
    """One finding code or policy: where it runs, what it is, and which module owns it."""

    stage: str
    code: str
    owner: str

    def as_json(self) -> dict:
        """The `rules --json` entry."""
        return {"stage": self.stage, "code": self.code, "owner": self.owner}


def every_check() -> list[Check]:
    """Every finding code of load and check, and every policy of the pack, in stage order."""
    checks = [Check("load", code, "blueprints.source / blueprints.overrides") for code in LOADER_CODES]
    checks += [Check("load", code, "blueprints.yaml_syntax") for code in SYNTAX_CODES]
    checks += [Check("load", code, "blueprints.schema_errors") for code in SCHEMA_CODES]
    checks += [Check("load", code, "blueprints.models") for code in MODEL_CODES]
    checks += [Check("load", code, f"blueprints.rules.{rule.name}") for rule in BLUEPRINT_RULES for code in rule.codes]
    checks += [Check("check", code, "topology") for code in TOPOLOGY_CODES]
    checks += [Check("check", code, f"topology.cluster.kubernetes_checks ({rule.name})") for rule in KUBERNETES_RULES for code in rule.codes]
    checks += [Check("check", code, "topology.cluster.plan") for code in PLAN_CODES]
    checks += [Check("check", code, "topology.cluster.quotas") for code in QUOTA_CODES]
    checks += [Check("check", code, "topology.cluster.scale") for code in SCALE_CODES]
    checks += [Check("check", code, "topology.cluster.spare_placement") for code in SPARE_PLACEMENT_CODES]
    checks += [Check("check", code, "topology.cluster.update_room") for code in UPDATE_ROOM_CODES]
    checks += [Check("check", code, "topology.cluster.addons") for code in ADDON_CODES]
    checks += [Check("check", code, "topology.cluster.pod_limits") for code in POD_LIMIT_CODES]
    checks += [Check("check", code, cost.__name__) for code in cost.CODES]
    checks += [Check("check", code, acceptance_cost.__name__) for code in acceptance_cost.CODES]
    checks += [Check("online", code, module.__name__) for module in ONLINE_MODULES for code in module.CODES]
    checks += [Check("diff", code, "railyard.change.impact") for code in DIFF_CODES]
    checks += [Check("diff", code, "railyard.change.subnets") for code in SUBNET_DIFF_CODES]
    checks += [Check("diff", code, "railyard.change.upgrade") for code in UPGRADE_DIFF_CODES]
    checks += [Check("diff", code, "railyard.change.node_group_steps") for code in NODE_GROUP_DIFF_CODES]
    checks += [Check("diff", code, "railyard.change.held_groups") for code in HELD_DIFF_CODES]
    checks += [Check("diff", code, "railyard.change.capacity_blocks") for code in CAPACITY_BLOCK_DIFF_CODES]
    checks += [Check("diff", code, "railyard.change.bought_blocks") for code in BOUGHT_BLOCK_DIFF_CODES]
    checks += [Check("diff", code, "railyard.change.protected") for code in PROTECTED_DIFF_CODES]
    checks += [Check("diff", code, "railyard.change.running_pools") for code in RUNNING_POOL_DIFF_CODES]
    checks += [Check("diff", code, "railyard.change.ultraserver_roll") for code in ULTRASERVER_DIFF_CODES]
    checks += [Check("conform", code, "railyard.conform") for code in CONFORM_CODES]
    checks += [Check("plan", code, plan_codes.__name__) for code in plan_codes.CODES]
    return checks


def every_policy() -> list[dict]:
    """The policy pack's rules: id, name, default enforcement (imported only when asked for)."""
    from railyard.extras import require_policy_pack

    require_policy_pack("listing the policy pack's rules")
    from policies.registry import RULES as POLICY_RULES

    return [{"stage": "police", "code": rule.id, "owner": rule.name, "enforcement": rule.enforcement} for rule in POLICY_RULES]
