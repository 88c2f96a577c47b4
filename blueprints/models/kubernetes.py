"""The Kubernetes layer a blueprint asks for: version, device plugins, topology-aware scheduling."""

from __future__ import annotations

from ipaddress import IPv4Network
from typing import Annotated, Literal, Union

from pydantic import Field, StringConstraints

from blueprints.models.base import Model


class NvidiaDevicePlugin(Model):
    """NVIDIA's k8s-device-plugin Helm chart: advertises `nvidia.com/gpu`."""

    kind: Literal["nvidia_device_plugin"] = Field(description="The NVIDIA k8s-device-plugin chart.")


class GpuOperator(Model):
    """NVIDIA's GPU Operator, with driver and toolkit off (EKS NVIDIA AMIs ship both)."""

    kind: Literal["gpu_operator"] = Field(description="The NVIDIA GPU Operator chart.")


class EfaDevicePlugin(Model):
    """AWS's EFA device plugin: advertises `vpc.amazonaws.com/efa`."""

    kind: Literal["efa_device_plugin"] = Field(description="The AWS EFA k8s device plugin chart.")


class NeuronDevicePlugin(Model):
    """AWS's Neuron device plugin: advertises `aws.amazon.com/neuron` and neuron cores."""

    kind: Literal["neuron_device_plugin"] = Field(description="The AWS Neuron Helm chart's device plugin.")
    scheduler_extension: bool = Field(
        default=False, description="Also deploy the Neuron scheduler extension (contiguous core allocation)."
    )


DevicePlugin = Annotated[
    Union[NvidiaDevicePlugin, GpuOperator, EfaDevicePlugin, NeuronDevicePlugin],
    Field(discriminator="kind", description="A device plugin to install."),
]


class Endpoint(Model):
    """How the EKS API server is reached."""

    private: bool = Field(default=True, description="Reachable from inside the VPC.")
    public_access_cidrs: list[Annotated[IPv4Network, Field(strict=False)]] = Field(
        default_factory=list,
        description="CIDRs allowed to reach a public endpoint; empty = no public endpoint at all.",
    )


class Kubernetes(Model):
    """The EKS cluster's Kubernetes layer."""

    version: Annotated[str, StringConstraints(pattern=r"^1\.[0-9]{2}$")] = Field(
        default="1.33", description="The EKS Kubernetes version, quoted (\"1.33\")."
    )
    device_plugins: list[DevicePlugin] = Field(
        default_factory=list, description="Device plugins to install; none listed = none installed."
    )
    topology_aware_scheduling: bool = Field(
        default=True, description="Generate Kueue Topology, ResourceFlavors and a ClusterQueue from the blueprint."
    )
    endpoint: Endpoint = Field(default_factory=Endpoint, description="API server endpoint access.")
