"""The kubeconfig of an EKS cluster: a pure renderer, authenticated by `aws eks get-token`."""

from __future__ import annotations

import json


def render_kubeconfig(cluster_name: str, endpoint: str, certificate_authority: str, region: str) -> str:
    """A kubeconfig (JSON, which is valid YAML) for one cluster; keys sorted, so it renders byte-identically."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster_name, "cluster": {"server": endpoint, "certificate-authority-data": certificate_authority}}],
        "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
        "current-context": cluster_name,
        "users": [{
            "name": cluster_name,
            "user": {"exec": {
                "apiVersion": "client.authentication.k8s.io/v1beta1",
                "command": "aws",
                "args": ["eks", "get-token", "--cluster-name", cluster_name, "--region", region, "--output", "json"],
                "interactiveMode": "Never",
            }},
        }],
    }
    return json.dumps(config, indent=2, sort_keys=True)
