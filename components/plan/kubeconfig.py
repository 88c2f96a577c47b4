"""The kubeconfig of an EKS cluster: a pure renderer, authenticated by `aws eks get-token`.

The token must be signed by the identity the cluster knows: with
`bootstrapClusterCreatorAdminPermissions` that is the principal the AWS
provider created the cluster as. The provider takes that identity from the
stack's `aws:profile` and `aws:assumeRoles` settings; the AWS CLI that
`kubectl` and the Kubernetes provider run for a token reads neither, so the
kubeconfig passes the same profile (`AWS_PROFILE`) and role (`--role-arn`),
or the Kubernetes provider would authenticate as someone else and get 401.
"""

from __future__ import annotations

import json
from typing import Any

from blueprints.records import record


@record
class DeployerIdentity:
    """Who `pulumi up` acts as: an AWS CLI profile and/or a role to assume (None = the ambient credentials)."""

    profile: str | None = None
    role_arn: str | None = None


def render_kubeconfig(
    cluster_name: str, endpoint: str, certificate_authority: str, region: str, identity: DeployerIdentity = DeployerIdentity()
) -> str:
    """A kubeconfig (JSON, which is valid YAML) for one cluster; keys sorted, so it renders byte-identically."""
    args = ["eks", "get-token", "--cluster-name", cluster_name, "--region", region, "--output", "json"]
    if identity.role_arn:
        args += ["--role-arn", identity.role_arn]
    command: dict[str, Any] = {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "command": "aws",
        "args": args,
        "interactiveMode": "Never",
    }
    if identity.profile:
        command["env"] = [{"name": "AWS_PROFILE", "value": identity.profile}]
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster_name, "cluster": {"server": endpoint, "certificate-authority-data": certificate_authority}}],
        "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
        "current-context": cluster_name,
        "users": [{"name": cluster_name, "user": {"exec": command}}],
    }
    return json.dumps(config, indent=2, sort_keys=True)
