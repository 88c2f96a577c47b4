"""Environments as Pulumi stacks: `Pulumi.<stack>.yaml` names the blueprint and its overrides.

    config:
      railyard:blueprint: blueprints/examples/p5-capacity-block.yaml
      railyard:overrides:
        metadata: {environment: dev}
        pools:
          - {name: train, nodes: 2, capacity: {kind: on_demand}}

The same file drives `pulumi up --stack dev` (the program reads it through this
module, so positions in findings point at the stack file's lines) and railyard's
offline `validate --stack dev` / `preview --stack dev`.

A stack that applies only the Kubernetes layer of another (for a blueprint with
`kubernetes.layer_stack: separate`) names that stack instead, and renders its
blueprint and overrides:

    config:
      railyard:clusterStack: prod      # or org/project/prod

The AWS identity `pulumi up` acts as comes from the stack's `aws:profile` and
`aws:assumeRoles` (or the older `aws:assumeRole`), the settings pulumi-aws
reads; railyard hands them to its explicit AWS provider and to the
kubeconfig's `aws eks get-token`, so both act as the same principal.
"""

from __future__ import annotations

from pathlib import Path

from blueprints.loader import Overrides
from blueprints.records import record
from blueprints.source import SourceError, read_yaml_file

BLUEPRINT_KEY = "railyard:blueprint"
OVERRIDES_KEY = "railyard:overrides"
CLUSTER_STACK_KEY = "railyard:clusterStack"
PROFILE_KEY = "aws:profile"
ASSUME_ROLES_KEYS = ("aws:assumeRoles", "aws:assumeRole")


@record
class StackSettings:
    """What a stack file says: its name, the blueprint it renders, and its overrides."""

    name: str
    file: str
    blueprint: str | None
    overrides: Overrides
    cluster_stack: str | None = None
    aws_profile: str | None = None
    aws_role_arn: str | None = None


def stack_file(project_dir: str | Path, stack: str) -> Path:
    """The path of a stack's config file in a Pulumi project directory."""
    return Path(project_dir) / f"Pulumi.{stack}.yaml"


def read_stack(project_dir: str | Path, stack: str) -> StackSettings:
    """Read `Pulumi.<stack>.yaml`; a missing or malformed file raises `SourceError`."""
    path = stack_file(project_dir, stack)
    if not path.exists():
        known = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in Path(project_dir).glob("Pulumi.*.yaml"))
        raise SourceError(f"no stack '{stack}': {path} does not exist (stacks here: {', '.join(known) or 'none'})", str(path))
    data, source_map, findings = read_yaml_file(path)
    if findings:
        first = findings[0]
        raise SourceError(first.message, str(path), first.line, first.column)
    config = (data or {}).get("config", {}) if isinstance(data, dict) else None
    if not isinstance(config, dict):
        raise SourceError(f"{path}: 'config' must be a mapping", str(path), 1, 1)
    overrides = config.get(OVERRIDES_KEY) or {}
    if not isinstance(overrides, dict):
        position = source_map.locate(("config", OVERRIDES_KEY))
        raise SourceError(f"{path}: '{OVERRIDES_KEY}' must be a mapping (a partial blueprint)", str(path), position.line if position else None)
    blueprint = config.get(BLUEPRINT_KEY)
    if blueprint is not None and not isinstance(blueprint, str):
        raise SourceError(f"{path}: '{BLUEPRINT_KEY}' must be a path string", str(path))
    resolved = str(Path(project_dir) / blueprint) if blueprint else None
    cluster_stack = config.get(CLUSTER_STACK_KEY)
    if cluster_stack is not None and (not isinstance(cluster_stack, str) or blueprint is not None or overrides):
        raise SourceError(
            f"{path}: '{CLUSTER_STACK_KEY}' must be a stack name, and a stack that names it renders that "
            f"stack's blueprint: drop '{BLUEPRINT_KEY}' and '{OVERRIDES_KEY}' here",
            str(path),
        )
    return StackSettings(
        stack, str(path), resolved, Overrides(overrides, source_map, ("config", OVERRIDES_KEY), str(path)), cluster_stack, *_identity(config, path)
    )


def _identity(config: dict, path: Path) -> tuple[str | None, str | None]:
    """The profile and role ARN the stack's AWS provider acts as; secrets and odd shapes are refused, not guessed."""
    profile = config.get(PROFILE_KEY)
    if profile is not None and not isinstance(profile, str):
        raise SourceError(f"{path}: '{PROFILE_KEY}' must be a plain string (a profile name is not a secret)", str(path))
    role_arn = None
    for key in ASSUME_ROLES_KEYS:
        value = config.get(key)
        roles = value if isinstance(value, list) else [value] if value is not None else []
        for role in roles[:1]:
            if not isinstance(role, dict) or not isinstance(role.get("roleArn"), str):
                raise SourceError(f"{path}: '{key}' must hold {{roleArn: arn:aws:iam::<account>:role/<name>}}", str(path))
            role_arn = role["roleArn"]
    return profile, role_arn
