"""The rule catalog, listed explicitly: what the pack enforces is what this file says.

To add a rule: write `policies/rules/<domain>/<rule>.py` defining `RULE`,
import it here and append it to `RULES`, then add a firing and a passing
case to `tests/policies/`. `check_registry` refuses a duplicate id or name,
so a copied module can't silently shadow another rule.
"""

from __future__ import annotations

from collections.abc import Iterable

from policies.rule import Rule
from policies.rules.correctness import (
    ami_type_matches_accelerator,
    api_input_constraints,
    efa_interfaces_match_catalog,
    efa_security_group_self_reference,
    efa_single_subnet,
    fsx_in_client_zone,
    fsx_throughput_meets_demand,
    no_placement_group_on_reserved_capacity,
)
from policies.rules.governance import (
    accelerator_ceiling,
    cost_ceiling,
    instance_type_allowed,
    required_tags,
    spot_only_for_allowed_roles,
)
from policies.rules.security import (
    ebs_encrypted_with_kms,
    eks_access_entries,
    eks_control_plane_logging,
    eks_endpoint_restricted,
    eks_secrets_encryption,
    fsx_encrypted_with_kms,
    iam_no_admin_wildcard,
    iam_trust_policy_scoped,
    imdsv2_required,
    kms_key_rotation,
    no_broad_managed_policy,
    no_open_ingress,
    no_public_ip_on_nodes,
    node_group_no_remote_access,
    s3_bucket_has_public_access_block,
    s3_public_access_blocked,
    s3_versioned_and_encrypted,
    security_group_descriptions,
    vpc_default_security_group_closed,
    vpc_flow_logs,
)


class RegistryError(ValueError):
    """The rule list is inconsistent (a duplicate id or name)."""


def check_registry(rules: Iterable[Rule]) -> tuple[Rule, ...]:
    """The rules as a tuple, after refusing duplicate ids and duplicate policy names."""
    rules = tuple(rules)
    for attribute in ("id", "name"):
        seen: dict[str, Rule] = {}
        for rule in rules:
            key = getattr(rule, attribute)
            if key in seen:
                raise RegistryError(f"rule {attribute} {key!r} is used twice ({seen[key].title!r} and {rule.title!r})")
            seen[key] = rule
    return rules


RULES: tuple[Rule, ...] = check_registry(
    (
        imdsv2_required.RULE,
        ebs_encrypted_with_kms.RULE,
        fsx_encrypted_with_kms.RULE,
        no_open_ingress.RULE,
        no_public_ip_on_nodes.RULE,
        eks_endpoint_restricted.RULE,
        eks_secrets_encryption.RULE,
        s3_public_access_blocked.RULE,
        s3_bucket_has_public_access_block.RULE,
        iam_no_admin_wildcard.RULE,
        eks_control_plane_logging.RULE,
        eks_access_entries.RULE,
        node_group_no_remote_access.RULE,
        kms_key_rotation.RULE,
        iam_trust_policy_scoped.RULE,
        no_broad_managed_policy.RULE,
        s3_versioned_and_encrypted.RULE,
        security_group_descriptions.RULE,
        vpc_flow_logs.RULE,
        vpc_default_security_group_closed.RULE,
        efa_security_group_self_reference.RULE,
        efa_single_subnet.RULE,
        efa_interfaces_match_catalog.RULE,
        no_placement_group_on_reserved_capacity.RULE,
        ami_type_matches_accelerator.RULE,
        fsx_in_client_zone.RULE,
        fsx_throughput_meets_demand.RULE,
        api_input_constraints.RULE,
        instance_type_allowed.RULE,
        spot_only_for_allowed_roles.RULE,
        required_tags.RULE,
        accelerator_ceiling.RULE,
        cost_ceiling.RULE,
    )
)


def rule(rule_id: str) -> Rule:
    """The registered rule with this id; KeyError names the known ids."""
    for candidate in RULES:
        if candidate.id == rule_id:
            return candidate
    raise KeyError(f"no rule {rule_id!r}; known: {', '.join(r.id for r in RULES)}")
