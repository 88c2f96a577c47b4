"""The EKS managed add-ons a cluster runs, and node auto repair.

Every cluster gets the add-ons the reference stacks install, each pinned:
the VPC CNI, CoreDNS and kube-proxy always; the Pod Identity agent, the EBS
CSI driver (with a gp3 default StorageClass), metrics-server and the node
monitoring agent unless turned off. A version left out is railyard's pin for
the cluster's Kubernetes version (`blueprints/catalog/pins.yaml`), or, where
AWS publishes no version table, EKS's default for that version, resolved at
`pulumi up` and exported so it can be pinned here.
"""

from typing import Annotated

from pydantic import Field, StringConstraints

from blueprints.models.base import Model, from_defaults

AddonVersion = Annotated[
    str,
    StringConstraints(pattern=r"^v[0-9]+\.[0-9]+\.[0-9]+-eksbuild\.[0-9]+$"),
    Field(description="An EKS add-on version, such as v1.21.1-eksbuild.7 (aws eks describe-addon-versions)."),
]


class CoreAddon(Model):
    """An add-on every EKS cluster needs: only its version is yours to choose."""

    version: AddonVersion | None = Field(default=None, description="none = railyard's pin for the cluster's Kubernetes version.")


class OptionalAddon(Model):
    """An add-on railyard installs unless it is turned off."""

    enabled: bool = Field(default=True, description="Install it.")
    version: AddonVersion | None = Field(
        default=None, description="none = railyard's pin for the cluster's Kubernetes version, else EKS's default version at apply."
    )


class Addons(Model):
    """The EKS managed add-ons: the three every cluster needs, and four the reference stacks add."""

    vpc_cni: CoreAddon = Field(
        default_factory=from_defaults(), description="`vpc-cni`, configured from pod_networking; EFA-only interfaces need 1.18.5+."
    )
    coredns: CoreAddon = Field(default_factory=from_defaults(), description="`coredns`, installed once the system nodes are up.")
    kube_proxy: CoreAddon = Field(default_factory=from_defaults(), description="`kube-proxy`.")
    pod_identity_agent: OptionalAddon = Field(
        default_factory=from_defaults(), description="`eks-pod-identity-agent`: the VPC CNI and EBS CSI driver get their IAM roles through it."
    )
    ebs_csi_driver: OptionalAddon = Field(
        default_factory=from_defaults(), description="`aws-ebs-csi-driver`, with a default encrypted gp3 StorageClass named gp3."
    )
    metrics_server: OptionalAddon = Field(default_factory=from_defaults(), description="`metrics-server` (resource metrics for kubectl top and HPA).")
    node_monitoring_agent: OptionalAddon = Field(
        default_factory=from_defaults(),
        description="`eks-node-monitoring-agent`: reports GPU and Neuron faults as node conditions, which node auto repair acts on.",
    )
