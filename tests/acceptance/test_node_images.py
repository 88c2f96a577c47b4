"""What the node gives the checker, derived from the AMI's own build files, and every command the gate runs held to it.

The table (blueprints/catalog/node_images.yaml) names, for each AMI type railyard compiles, what its host provides;
here every row is read back from byte-identical copies of awslabs/amazon-eks-ami's files at the pinned release
(tests/acceptance/fixtures/amazon-eks-ami, each held to its git blob id), and every pool of every example, gated,
is held to it: each evidence command runs in an image that carries its tool, on a host that provides what it needs.

    p5 pool (AL2023_x86_64_NVIDIA)          host: efa-driver, nvidia-driver, nvidia-container-runtime
      checker (python:3.13-slim)   nvidia-smi (injected), dmesg, python3 -m acceptance rdma-devices (sysfs)
      dcgm-diag (dcgm image)       dcgmi diag
      fi_info                      optional: the AMI's EFA install is --minimal, no libfabric
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
import yaml

from acceptance import Expectation
from acceptance.evidence import commands
from blueprints.catalog import load_catalog
from blueprints.catalog.pins import load_pins
from blueprints.loader import load_blueprint
from components.kubernetes.acceptance import daemon_set
from railyard.checker_bundle import checker_bundle
from tests.kubernetes.fixtures import EXAMPLES
from tests.kubernetes.test_acceptance_gate import with_acceptance_everywhere
from topology.cluster.acceptance import plan_gates
from topology.cluster.node_groups import plan_node_groups
from topology.cluster.scheduling import node_groups

ROOT = Path(__file__).resolve().parents[2]
TABLE = yaml.safe_load((ROOT / "blueprints" / "catalog" / "node_images.yaml").read_text(encoding="utf-8"))
AMI_FILES = Path(__file__).resolve().parent / "fixtures" / "amazon-eks-ami"
PROVISIONERS = sorted((AMI_FILES / "templates" / "al2023" / "provisioners").glob("*.sh"))
CATALOG = load_catalog()
# git ls-tree v20260724 (81fec2e8) in awslabs/amazon-eks-ami: the blob id of each copied file.
BLOBS = {
    "nodeadm/internal/containerd/runtime_config_nvidia.go": "cf53faaced0a2dbaa1ec9f49ebe7d11392753f0e",
    "templates/al2023/provisioners/cache-pause-container.sh": "e97896a2ba3e4267d7c04e0b791cb21e6d6dfe65",
    "templates/al2023/provisioners/cleanup.sh": "3099493e1235e284e349ad500fd651278d9771dd",
    "templates/al2023/provisioners/configure-selinux.sh": "6d309b25496a19aa3a2c1a6b74793b9e33b3aa81",
    "templates/al2023/provisioners/enable-fips.sh": "45d32f54cc48f611cac306cbb5222b4d6b8aa460",
    "templates/al2023/provisioners/generate-version-info.sh": "4f665b42f17f962359726ea5fca908a13d5b8020",
    "templates/al2023/provisioners/install-efa.sh": "f0994f29060ba2405c40e21ae687318ff7608ddb",
    "templates/al2023/provisioners/install-neuron-driver.sh": "27335eb77f314f8d04e6efff8cfdabe7b8f81e57",
    "templates/al2023/provisioners/install-nodeadm.sh": "63bff2cb73db06f8e352bbbcc7201140889a527f",
    "templates/al2023/provisioners/install-nvidia-driver.sh": "9b646246fa8fbb963b63904955f0d8e79ee9d59b",
    "templates/al2023/provisioners/install-worker.sh": "3c2ae653cd9794eae42cae612c3d92004db6ae45",
    "templates/al2023/provisioners/limit-c-states.sh": "d25fe8e1861a38abd2869ae3ac56337e5eef40ae",
    "templates/al2023/provisioners/set-clocksource.sh": "04b951749f0790de25c4dee3548046e82b16022a",
    "templates/al2023/provisioners/validate.sh": "df79a231ed509dd17a8dc513f25d7cdb73a3f7b8",
    "templates/al2023/variables-default.json": "cfdeaf90774b17a5873f7541e2a00d5af159c93e",
}


def _lines(path: str) -> list[str]:
    return [line.strip() for line in (AMI_FILES / path).read_text(encoding="utf-8").splitlines()]


def _has(reference: dict) -> bool:
    return any(reference["line"] in line for line in _lines(reference["path"]))


def test_the_copied_build_files_are_the_publishers_bytes_at_the_pinned_release():
    for path, blob in BLOBS.items():
        data = (AMI_FILES / path).read_bytes()
        assert hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest() == blob, path
    assert sorted(str(p.relative_to(AMI_FILES)) for p in AMI_FILES.rglob("*") if p.is_file() and p.name != "README.md") == sorted(BLOBS)
    assert TABLE["release"]["tag"] == load_pins().image("eks_ami").tag


@pytest.mark.parametrize("name", sorted(TABLE["capabilities"]))
def test_each_capability_is_read_from_the_line_that_installs_it_or_from_its_absence(name):
    capability = TABLE["capabilities"][name]
    references = [capability[key] for key in ("gated_by", "also", "because") if key in capability]
    if "path" in capability:
        references.append(capability)
    assert references or "absent" in capability, name
    assert all(_has(reference) for reference in references), name
    if "absent" in capability:
        pattern = capability["absent"].lower()
        assert [p.name for p in PROVISIONERS if pattern in p.read_text(encoding="utf-8").lower()] == []


def _derived(accelerator: str) -> set[str]:
    """The capabilities whose install runs for a build with this enable_accelerator, read from the scripts' own guards."""
    provided = set()
    for name, capability in TABLE["capabilities"].items():
        if "gated_by" not in capability:
            continue
        guard = re.search(r'"\$ENABLE_ACCELERATOR" != "(\w+)"', capability["gated_by"]["line"])
        if guard is None or guard.group(1) == accelerator:  # enable_efa "true" is the default of every build
            provided.add(name)
    return provided


@pytest.mark.parametrize("ami_type", sorted(TABLE["amis"]))
def test_what_each_ami_type_provides_follows_from_the_scripts_its_build_runs(ami_type):
    ami = TABLE["amis"][ami_type]
    assert set(ami["provides"]) == _derived(ami["accelerator"])


def test_the_minimal_efa_install_leaves_out_libfabric_so_no_ami_type_provides_fi_info():
    assert _has({"path": "templates/al2023/provisioners/install-efa.sh", "line": "efa_installer.sh --minimal -y"})
    assert all("libfabric" not in ami["provides"] and "dcgm" not in ami["provides"] for ami in TABLE["amis"].values())


def _image_key(reference: str) -> str:
    return next(pin.key for pin in load_pins().images if pin.reference == reference)


def _what_the_gate_needs(example: str) -> list[tuple[str, str, str, list[str]]]:
    """(pool, evidence file, what is missing, host lacks) for every command the gate runs on every pool of `example`, gated."""
    blueprint = with_acceptance_everywhere(load_blueprint(str(EXAMPLES / f"{example}.yaml")).blueprint)
    gates = plan_gates(blueprint, node_groups(blueprint, CATALOG))
    bundle = checker_bundle(blueprint, CATALOG, gates)
    groups = plan_node_groups(blueprint, CATALOG)
    problems = []
    for gate in gates:
        pod = daemon_set(gate, bundle)["template"]["spec"]
        containers = {c["name"]: c for c in pod.get("initContainers", []) + pod["containers"]}
        ami_types = {group.ami_type for group in groups if group.pool == gate.pool and group.ami_id is None}
        for command in commands(Expectation.from_json(bundle.expectations[gate.pool])):
            need = TABLE["evidence"][command.file]
            if need.get("optional"):
                assert command.absent, command.file  # the checker skips it, saying why, where the tool is absent
                continue
            image = TABLE["images"][_image_key(containers[need["runs_in"]]["image"])]
            injected = image.get("injected", []) if "nvidia-container-runtime" in need["host"] else []
            if command.argv[0] not in image["tools"] + injected:
                problems.append((gate.pool, command.file, f"{command.argv[0]} not in {need['runs_in']}'s image", []))
            for ami_type in sorted(ami_types):
                lacks = sorted(set(need["host"]) - set(TABLE["amis"][ami_type]["provides"]))
                if lacks:
                    problems.append((gate.pool, command.file, ami_type, lacks))
    return problems


def test_nothing_the_gate_needs_on_adt_eks_capacity_blocks_p5_pool_is_missing_from_the_al2023_nvidia_ami():
    blueprint = load_blueprint(str(EXAMPLES / "adt-eks-capacity-block.yaml")).blueprint
    assert [pool.name for pool in blueprint.pools if pool.acceptance] == ["p5"]
    assert {group.ami_type for group in plan_node_groups(blueprint, CATALOG) if group.pool == "p5"} == {"AL2023_x86_64_NVIDIA"}
    assert _what_the_gate_needs("adt-eks-capacity-block") == []


@pytest.mark.parametrize("example", sorted(path.stem for path in EXAMPLES.glob("*.yaml")))
def test_every_pool_of_every_example_gated_needs_nothing_its_ami_or_the_checkers_images_lack(example):
    assert _what_the_gate_needs(example) == []


def test_the_table_would_catch_a_host_that_lacks_what_a_command_needs(monkeypatch):
    # The same p5 pool on an AMI without the NVIDIA runtime: nvidia-smi and DCGM can't reach the driver.
    monkeypatch.setitem(TABLE["amis"], "AL2023_x86_64_NVIDIA", {"accelerator": "nvidia", "provides": ["efa-driver", "nvidia-driver"]})
    lacking = {(file, tuple(lacks)) for pool, file, _, lacks in _what_the_gate_needs("adt-eks-capacity-block") if lacks}
    assert lacking == {(file, ("nvidia-container-runtime",)) for file in ("nvidia-smi-q.xml", "nvidia-smi-nvlink-s.txt", "dcgmi-diag.json")}
