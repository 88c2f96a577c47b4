"""The `vpc-cni` EKS add-on's configuration for a blueprint's pod networking.

EKS installs the VPC CNI itself; railyard manages it as an add-on only when
the blueprint changes its behaviour, and then before any node group, because
nodes read the CNI's settings when they start (the add-on's configuration
schema, `aws eks describe-addon-configuration --addon-name vpc-cni`, has
`env` and `eniConfig: {create, region, subnets: {<name>: {id,
securityGroups}}}`; the chart names each ENIConfig by its key). With custom
networking each node group's nodes carry `railyard.dev/eni-config=<key>`
(ENI_CONFIG_LABEL_DEF), so each group's pods take addresses from its own
pod subnet.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from blueprints.models.kubernetes import PodNetworking
from topology.cluster.labels import ENI_CONFIG_LABEL


def needs_addon(networking: PodNetworking) -> bool:
    """True when the blueprint's pod networking differs from the CNI's defaults."""
    return networking.mode != "secondary_ips" or networking.warm_ip_target is not None or networking.minimum_ip_target is not None


def cni_configuration(networking: PodNetworking, region: str, pod_subnets: Mapping[str, str], security_group: str) -> dict[str, Any]:
    """The add-on's configuration values: environment settings and, with custom networking, one ENIConfig per pod subnet."""
    env: dict[str, str] = {}
    if networking.warm_ip_target is not None:
        env["WARM_IP_TARGET"] = str(networking.warm_ip_target)
    if networking.minimum_ip_target is not None:
        env["MINIMUM_IP_TARGET"] = str(networking.minimum_ip_target)
    if networking.mode == "prefix_delegation":
        env["ENABLE_PREFIX_DELEGATION"] = "true"
    config: dict[str, Any] = {"env": env}
    if networking.mode == "custom_networking":
        env["AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG"] = "true"
        env["ENI_CONFIG_LABEL_DEF"] = ENI_CONFIG_LABEL
        config["eniConfig"] = {
            "create": True,
            "region": region,
            "subnets": {key: {"id": subnet, "securityGroups": [security_group]} for key, subnet in sorted(pod_subnets.items())},
        }
    return config
