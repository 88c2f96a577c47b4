"""A pool on a custom AMI: its labels must be ones a kubelet may set on its own node.

EKS bootstraps no custom AMI (EKS user guide, "Customize managed nodes with
launch templates": it merges no user data), so railyard passes the pool's
labels and taints on the kubelet's command line. The kubelet refuses to
start with a label in the `kubernetes.io` or `k8s.io` namespaces unless it is
one of the few it sets itself or sits under `kubelet.kubernetes.io` or
`node.kubernetes.io` (kubernetes staging/src/k8s.io/kubelet/pkg/apis/
well_known_labels.go, `IsKubeletLabel`): such a node never joins.
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.catalog import Catalog
from blueprints.findings import Finding, Path, error, info
from blueprints.models.pools import Pool

CODES = ("pool.custom-ami-label", "pool.custom-ami-contents")
# The two Kubernetes label domains; the short one is spelled out in parts so the codes scanner doesn't read it as a code.
KUBERNETES_DOMAINS = ("kubernetes.io", "k8s" + ".io")
KUBELET_NAMESPACES = ("kubelet.kubernetes.io", "node.kubernetes.io")
KUBELET_LABELS = frozenset(
    {
        "kubernetes.io/hostname",
        "topology.kubernetes.io/zone",
        "topology.kubernetes.io/region",
        "failure-domain.beta.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/region",
        "beta.kubernetes.io/instance-type",
        "node.kubernetes.io/instance-type",
        "kubernetes.io/os",
        "kubernetes.io/arch",
        "beta.kubernetes.io/os",
        "beta.kubernetes.io/arch",
    }
)


def _within(domain: str, namespace: str) -> bool:
    return domain == namespace or domain.endswith("." + namespace)


def kubelet_may_set(key: str) -> bool:
    """True when a kubelet may put label `key` on its own node (`--node-labels`)."""
    if key in KUBELET_LABELS or "/" not in key:
        return True
    domain = key.split("/", 1)[0]
    if not any(_within(domain, kubernetes) for kubernetes in KUBERNETES_DOMAINS):
        return True
    return any(_within(domain, namespace) for namespace in KUBELET_NAMESPACES)


def check(pool: Pool, path: Path, catalog: Catalog) -> Iterable[Finding]:
    """Every label of a custom-AMI pool the kubelet would refuse to start with, and what the AMI must hold."""
    if pool.ami_id is None:
        return
    spec = catalog.get(pool.instance_type)
    if spec is not None:
        needs = ["nodeadm (Amazon Linux 2023)", f"the {spec.architecture} architecture"]
        if spec.accelerator is not None:
            needs.append("the NVIDIA driver and container toolkit" if spec.accelerator.vendor == "nvidia" else "the Neuron driver")
        if spec.efa_supported:
            needs.append("the EFA driver")
        yield info(
            "pool.custom-ami-contents",
            path + ("ami_id",),
            f"railyard can't see inside {pool.ami_id}: for {pool.instance_type} it must carry {', '.join(needs)}",
            "build it from the EKS-optimized AL2023 AMI of the accelerator (amazon-eks-ami), which carries them",
            ami=pool.ami_id,
        )
    for key in pool.labels:
        if not kubelet_may_set(key):
            yield error(
                "pool.custom-ami-label",
                path + ("labels", key),
                f"label '{key}' is in a Kubernetes namespace a kubelet may not set on its own node, and pool '{pool.name}' "
                f"runs custom AMI {pool.ami_id}, whose labels railyard passes to the kubelet: its nodes would never join",
                "use a label of your own domain (example.com/...) or one under node.kubernetes.io/",
            )
