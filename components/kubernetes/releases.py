"""A planned Helm release, and its one-line emission as a `helm.v3.Release`.

The plan is a plain value (chart, release name, namespace, values) so tests
compare it without Pulumi; `emit_release` is the only place a release
resource is made, so every chart is installed the same way: pinned version,
explicit release name, and never fetched by a preview (see charts.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field

import pulumi
import pulumi_kubernetes as k8s

from blueprints.records import record
from components.kubernetes.charts import Chart

# Helm's default is 300 s. A controller chart's pods start only once the system nodes have joined and
# pulled its images; a DaemonSet-only chart is ready as soon as its scheduled pods are (none, on nodes
# not yet launched). Explicit, so a slow first boot fails with a clear timeout rather than a hang.
CONTROLLER_TIMEOUT_SECONDS = 900
DAEMONSET_TIMEOUT_SECONDS = 600


@record
class ReleasePlan:
    """One Helm release: `key` names the Pulumi child (`<component>-<key>`), `name` the Helm release."""

    key: str
    name: str
    chart: Chart
    values: Mapping = field(default_factory=dict)
    namespace_labels: Mapping[str, str] | None = None

    @property
    def timeout_seconds(self) -> int:
        """How long Helm waits for the release's workloads: longer for charts that run a controller Deployment."""
        return CONTROLLER_TIMEOUT_SECONDS if self.chart.controller else DAEMONSET_TIMEOUT_SECONDS

    @property
    def namespace(self) -> str:
        """The namespace the release installs into."""
        return self.chart.namespace


def emit_release(
    name: str,
    parent: pulumi.Resource,
    plan: ReleasePlan,
    provider: pulumi.ProviderResource,
    depends_on: Sequence[pulumi.Resource] = (),
) -> k8s.helm.v3.Release:
    """Make the release `<name>-<key>` (and, if the plan labels it, its namespace) under `parent`.

    A namespace that needs labels (the GPU Operator's Pod Security level) is
    made as its own resource; the others are created by Helm. `depends_on`
    holds what the release's pods need first: the system node group, in the
    cluster's own stack.
    """
    depends = list(depends_on)
    if plan.namespace_labels is not None:
        namespace = k8s.core.v1.Namespace(
            f"{name}-{plan.key}-namespace",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=plan.namespace, labels=dict(plan.namespace_labels)),
            opts=pulumi.ResourceOptions(parent=parent, provider=provider),
        )
        depends.append(namespace)
    repository = k8s.helm.v3.RepositoryOptsArgs(repo=plan.chart.repository) if plan.chart.repository else None
    return k8s.helm.v3.Release(
        f"{name}-{plan.key}",
        name=plan.name,
        chart=plan.chart.chart,
        version=plan.chart.version,
        repository_opts=repository,
        namespace=plan.namespace,
        create_namespace=plan.namespace_labels is None and plan.namespace != "kube-system",
        values=dict(plan.values),
        timeout=plan.timeout_seconds,
        opts=pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=depends),
    )
