"""A pool on a custom AMI (`blueprints/rules/custom_ami.py`): `pool.custom-ami-label`, `pool.custom-ami-contents`.

Which label keys a kubelet may set on its own node (kubernetes' `IsKubeletLabel`: the labels it sets itself, keys
outside the `kubernetes.io` and `k8s.io` domains, and the `kubelet.kubernetes.io` and `node.kubernetes.io`
namespaces), each domain exactly and as a suffix, and the note naming what the AMI must carry for each kind of type.
Each case calls the rule on a pool built in memory.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from blueprints.catalog.collection import Catalog
from blueprints.models.pools import Pool
from blueprints.rules import custom_ami
from tests.topology.factory import CATALOG, pool

AMI = "ami-0123456789abcdef0"
CONTENTS_HINT = "build it from the EKS-optimized AL2023 AMI of the accelerator (amazon-eks-ami), which carries them"


@pytest.mark.parametrize(
    ("key", "allowed"),
    [
        ("team", True),
        ("example.com/team", True),
        ("kubernetes.io/hostname", True),
        ("topology.kubernetes.io/zone", True),
        ("node.kubernetes.io/instance-type", True),
        ("kubernetes.io/team", False),
        ("topology.kubernetes.io/rack", False),
        ("k8s.io/team", False),
        ("sub.k8s.io/team", False),
        ("kubelet.kubernetes.io/team", True),
        ("a.kubelet.kubernetes.io/team", True),
        ("node.kubernetes.io/team", True),
        ("a.node.kubernetes.io/team", True),
        ("notkubernetes.io/team", True),
        ("kubernetes.io.example.com/team", True),
        ("notk8s.io/team", True),
        ("xnode.kubernetes.io/team", False),
    ],
)
def test_the_keys_a_kubelet_may_set_on_its_own_node(key: str, allowed: bool) -> None:
    assert custom_ami.kubelet_may_set(key) is allowed


def _said(instance_type: str = "p5.48xlarge", catalog: Catalog = CATALOG, **fields: object) -> list[tuple[object, ...]]:
    model = Pool.model_validate(pool("train", instance_type, 2, ["za"], **fields))
    return [(f.code, f.severity, f.path, f.message, f.hint, f.certificate) for f in custom_ami.check(model, ("pools", 3), catalog)]


def test_a_pool_on_the_eks_ami_is_not_judged_whatever_its_labels() -> None:
    assert _said(labels={"kubernetes.io/team": "a"}) == []


def test_an_nvidia_efa_type_needs_nodeadm_its_architecture_the_nvidia_driver_and_the_efa_driver() -> None:
    assert _said(ami_id=AMI) == [
        (
            "pool.custom-ami-contents",
            "info",
            ("pools", 3, "ami_id"),
            f"railyard can't see inside {AMI}: for p5.48xlarge it must carry nodeadm (Amazon Linux 2023), the x86_64 architecture, "
            "the NVIDIA driver and container toolkit, the EFA driver",
            CONTENTS_HINT,
            {"ami": AMI},
        )
    ]


def test_a_neuron_type_without_efa_needs_the_neuron_driver_and_no_efa_driver() -> None:
    [(_, _, _, message, _, _)] = _said("inf2.xlarge", ami_id=AMI)
    assert (
        message
        == f"railyard can't see inside {AMI}: for inf2.xlarge it must carry nodeadm (Amazon Linux 2023), the x86_64 architecture, the Neuron driver"
    )


def test_an_arm_type_is_named_by_its_architecture() -> None:
    [(_, _, _, message, _, _)] = _said("p6e-gb200.36xlarge", ami_id=AMI)
    assert "it must carry nodeadm (Amazon Linux 2023), the arm64 architecture, the NVIDIA driver" in message


def test_a_type_without_accelerators_needs_no_accelerator_driver_and_an_unknown_type_gets_no_note() -> None:
    g5 = CATALOG.get("g5.xlarge")
    catalog = Catalog(dict(CATALOG.items()) | {"cpu.xlarge": replace(g5, name="cpu.xlarge", accelerator=None)}, {})
    [(_, _, _, message, _, _)] = _said("cpu.xlarge", catalog, ami_id=AMI)
    assert message == f"railyard can't see inside {AMI}: for cpu.xlarge it must carry nodeadm (Amazon Linux 2023), the x86_64 architecture"
    assert _said("unknown.xlarge", ami_id=AMI) == []


def test_each_label_the_kubelet_would_refuse_is_an_error_at_its_key_even_for_a_type_not_in_the_catalog() -> None:
    labels = {"example.com/team": "a", "kubernetes.io/team": "b", "node.kubernetes.io/ok": "c", "sub.k8s.io/x": "d"}
    found = _said("unknown.xlarge", ami_id=AMI, labels=labels)
    assert [(code, severity, path) for code, severity, path, *_ in found] == [
        ("pool.custom-ami-label", "error", ("pools", 3, "labels", "kubernetes.io/team")),
        ("pool.custom-ami-label", "error", ("pools", 3, "labels", "sub.k8s.io/x")),
    ]
    assert found[0][3] == (
        f"label 'kubernetes.io/team' is in a Kubernetes namespace a kubelet may not set on its own node, and pool 'train' "
        f"runs custom AMI {AMI}, whose labels railyard passes to the kubelet: its nodes would never join"
    )
    assert found[0][4] == "use a label of your own domain (example.com/...) or one under node.kubernetes.io/"
